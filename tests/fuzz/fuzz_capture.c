/*
 * Fuzz target: captures as pmuboot-host ibs-report reads them -- the capture
 * reader (lib/capture_host.c: noise, record lines, runs, their checks) and
 * ibs/ibs_sample records (pmu/ibs/ibs_capture_host.c).
 */
#include "tests/fuzz/fuzz.h"
#include "lib/capture.h"
#include "lib/json_read.h"
#include "pmu/ibs/ibs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ibs_capture_item it;
	struct capture_file cap;
	char err[300];

	if (!capture_file_read(&cap, (const char *)data, size))
		return 0;
	/* The cleaned text has no CR, NUL or ESC-initiated sequence the reader removes. */
	FUZZ_CHECK(memchr(cap.text, '\r', cap.len) == NULL && memchr(cap.text, '\0', cap.len) == NULL);
	unsigned last = 0;
	size_t counted = 0;
	for (size_t i = 0; i < cap.nrecords; i++) {
		const struct capture_record_line *r = &cap.records[i];
		const struct capture_run *run = capture_file_run_of(&cap, r);
		FUZZ_CHECK(r->line > last && r->line <= cap.lines);
		last = r->line;
		FUZZ_CHECK(capture_file_record_at(&cap, r->line) == r);
		FUZZ_CHECK(r->json >= r->text && r->json + r->json_len <= r->text + r->text_len);
		/* A record inside a run lies between its first and last lines; an end record is its run's last. */
		if (run) {
			FUZZ_CHECK(r->line >= run->first_line && r->line <= run->last_line);
			FUZZ_CHECK(!r->end || (r->valid && r->line == run->end_line));
			counted += !r->end;
		}
		enum ibs_line_type t = ibs_capture_parse(r->text, r->text_len, &it, err, sizeof(err));
		if (t == IBS_LINE_ERROR)
			FUZZ_CHECK(err[0] != '\0');
		if (t == IBS_LINE_SAMPLE)
			FUZZ_CHECK(r->valid && (it.sample.have & 1u));
	}
	size_t total = 0;
	for (size_t i = 0; i < cap.nruns; i++) {
		const struct capture_run *r = &cap.runs[i];
		FUZZ_CHECK(r->number == i + 1 && r->first_line <= r->last_line);
		FUZZ_CHECK(r->complete == (r->problem[0] == '\0'));
		FUZZ_CHECK(!r->complete || r->end_line == r->last_line);
		total += r->count;
	}
	/* Every record counted in a run is one of its lines: the counts add up. */
	FUZZ_CHECK(total == counted);
	for (size_t i = 0; i < cap.nproblems; i++)
		FUZZ_CHECK(cap.problems[i].run <= cap.nruns && cap.problems[i].text[0]);
	capture_file_free(&cap);
	return 0;
}
