/* Fuzz target: event specifications (events/spec.c), as the events= option and pmuboot-host program give them. */
#include "tests/fuzz/fuzz.h"
#include "events/events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct event_spec spec;
	char err[256];

	if (size < 1)
		return 0;
	/* First byte: which event set (or none: raw specs only) and the AMD raw encoding. */
	size_t nsets = events_set_count();
	size_t pick = data[0] >> 1;
	const struct event_set *set = pick < nsets ? events_set_at(pick) : NULL;
	bool amd = data[0] & 1;
	const char *text = (const char *)data + 1;

	memset(err, 0, sizeof(err));
	if (event_spec_parse(set, amd, text, size - 1, &spec, err, sizeof(err))) {
		FUZZ_CHECK(memchr(spec.name, '\0', sizeof(spec.name)) != NULL);
		FUZZ_CHECK(!spec.named || set);
	} else {
		FUZZ_CHECK(err[0] != '\0' && memchr(err, '\0', sizeof(err)) != NULL);
	}
	/* Suggestions for whatever was typed stay within bounds. */
	if (set && size - 1 < 64) {
		char name[64];
		char near[4][EVENT_NAME_MAX];
		memcpy(name, text, size - 1);
		name[size - 1] = '\0';
		size_t n = events_suggest(set, name, near, 4);
		FUZZ_CHECK(n <= 4);
		for (size_t i = 0; i < n; i++)
			FUZZ_CHECK(memchr(near[i], '\0', EVENT_NAME_MAX) != NULL);
	}
	return 0;
}
