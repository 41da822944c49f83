/*
 * Fuzz target: captures as pmuboot-host ibs-report reads them -- record
 * lines (lib/capture_host.c), run checks, and ibs/ibs_sample records
 * (pmu/ibs/ibs_capture_host.c).
 */
#include "tests/fuzz/fuzz.h"
#include "lib/capture.h"
#include "lib/json_read.h"
#include "pmu/ibs/ibs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ibs_capture_item it;
	const char *text = (const char *)data;
	size_t nruns;
	char err[300];

	struct capture_run *runs = capture_runs(text, size, &nruns);
	for (size_t i = 0; i < nruns; i++) {
		FUZZ_CHECK(runs[i].first_line <= runs[i].last_line);
		FUZZ_CHECK(runs[i].complete == (runs[i].problem[0] == '\0'));
	}
	unsigned line = 0;
	for (size_t pos = 0; pos < size;) {
		size_t end = pos;
		while (end < size && text[end] != '\n')
			end++;
		line++;
		const char *js;
		size_t jl;
		bool is_record = capture_record_text(text + pos, end - pos, &js, &jl);
		/* A record line belongs to a run; text lines are nobody's. */
		if (is_record)
			FUZZ_CHECK(capture_run_of_line(runs, nruns, line) != NULL);
		enum ibs_line_type t = ibs_capture_parse(text + pos, end - pos, &it, err, sizeof(err));
		FUZZ_CHECK(is_record || t == IBS_LINE_OTHER);
		if (t == IBS_LINE_ERROR)
			FUZZ_CHECK(err[0] != '\0');
		if (t == IBS_LINE_SAMPLE)
			FUZZ_CHECK(it.sample.have & 1u);
		pos = end + 1;
	}
	free(runs);
	return 0;
}
