/*
 * Fuzz target: pmuboot.cfg bytes and load options (run/config.c, the table in run/config_opts.c).  The
 * first byte picks the form; every error goes out through rec_error as in
 * pmuboot-host run, so the escaping of what the file said is checked too.
 */
#include "tests/fuzz/fuzz.h"
#include "lib/record.h"
#include "run/config.h"

static unsigned reported;

/* The longest value text: kernel.NAME lists every hex kernel, NAME=HEX each, with commas. */
#define VALUE_TEXT_MAX ((CONFIG_KERNEL_NAME_MAX + 1 + CONFIG_STR_MAX + 1) * CONFIG_HEX_KERNELS)

static void report(const struct config_error *e, void *ctx)
{
	(void)ctx;
	FUZZ_CHECK(memchr(e->source, '\0', sizeof(e->source)) && memchr(e->key, '\0', sizeof(e->key)) &&
		   memchr(e->message, '\0', sizeof(e->message)));
	rec_error(e->source, e->key, "%s", e->message);
	reported++;
}

/* The canonical text of a value is itself a valid word for its key, giving that text again. */
static void check_reads_back(struct config *c, const char *key, const char *val)
{
	char word[VALUE_TEXT_MAX + 64], again[VALUE_TEXT_MAX];
	struct config_error err;
	int n = snprintf(word, sizeof(word), "%s=%s", key, val);
	if (n <= 0 || (size_t)n >= sizeof(word) || strchr(val, ' ') || !val[0])
		return;
	FUZZ_CHECK(config_apply_word(c, "fuzz", word, (size_t)n, &err));
	FUZZ_CHECK(config_value_text(c, key, again, sizeof(again)) && !strcmp(again, val));
}

/*
 * kernel.NAME is a family of keys (docs/options.md): its row's text lists
 * every hex kernel as NAME=HEX, and each is the value of its own key
 * kernel.NAME, which reads back.  The list names each kernel once.
 */
#define HEX_FAMILY "kernel.NAME"
#define HEX_PREFIX "kernel."
static void check_hex_kernels(struct config *c, const char *list)
{
	char copy[VALUE_TEXT_MAX], key[CONFIG_KERNEL_NAME_MAX + 16];
	unsigned items = 0;
	snprintf(copy, sizeof(copy), "%s", list);
	for (char *save = NULL, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		FUZZ_CHECK(eq);
		*eq = 0;
		FUZZ_CHECK(snprintf(key, sizeof(key), HEX_PREFIX "%s", item) < (int)sizeof(key));
		check_reads_back(c, key, eq + 1);
		items++;
	}
	FUZZ_CHECK(items == c->n_hex_kernels);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct capture cap;
	static struct config c;
	char val[VALUE_TEXT_MAX];

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
		if (!strcmp(config_key_at(i), HEX_FAMILY))
			check_hex_kernels(&c, val);
		else
			check_reads_back(&c, config_key_at(i), val);
	}
	capture_free(&cap);
	return 0;
}
