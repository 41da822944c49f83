/*
 * Fuzz target: pmuboot.cfg bytes and load options (run/config.c).  The
 * first byte picks the form; every error goes out through rec_error as in
 * pmuboot-host run, so the escaping of what the file said is checked too.
 */
#include "tests/fuzz/fuzz.h"
#include "lib/record.h"
#include "run/config.h"

static unsigned reported;

static void report(const struct config_error *e, void *ctx)
{
	(void)ctx;
	FUZZ_CHECK(memchr(e->source, '\0', sizeof(e->source)) && memchr(e->key, '\0', sizeof(e->key)) &&
		   memchr(e->message, '\0', sizeof(e->message)));
	rec_error(e->source, e->key, "%s", e->message);
	reported++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct capture cap;
	static struct config c;
	char val[CONFIG_STR_MAX + 32];

	if (size < 1)
		return 0;
	bool is_file = data[0] & 1;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;

	capture_start(&cap);
	reported = 0;
	config_defaults(&c);
	unsigned errors = is_file ? config_apply_file(&c, "pmuboot.cfg", text, len, report, NULL)
				  : config_apply_text(&c, "load-options", false, text, len, report, NULL);
	FUZZ_CHECK(errors == reported);
	/* One error record per error, nothing else: option values cannot forge records. */
	FUZZ_CHECK(capture_record_count(&cap) == errors || cap.n == CAPTURE_MAX_LINES);
	fuzz_check_text_lines(&cap);
	for (size_t i = 0; i < config_key_count(); i++) {
		FUZZ_CHECK(config_value_text(&c, config_key_at(i), val, sizeof(val)));
		/* The canonical text of a value is itself a valid word for its key. */
		char word[sizeof(val) + 64];
		int n = snprintf(word, sizeof(word), "%s=%s", config_key_at(i), val);
		struct config_error err;
		if (n > 0 && (size_t)n < sizeof(word) && !strchr(val, ' ') && val[0])
			FUZZ_CHECK(config_apply_word(&c, "fuzz", word, (size_t)n, &err));
	}
	capture_free(&cap);
	return 0;
}
