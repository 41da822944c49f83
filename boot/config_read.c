/* boot/config_read.c - options from pmuboot.cfg and the load options (load options win). */
#include "boot/boot.h"
#include "lib/heap.h"

#define CONFIG_FILE_NAME "pmuboot.cfg"
#define CONFIG_FILE_MAX 16384
#define LOAD_OPTIONS_MAX 2048

/* The shell passes the program's own path as the first word; it has no '='. */
static size_t skip_program_word(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && s[i] == ' ')
		i++;
	size_t w = i;
	while (i < len && s[i] != ' ')
		i++;
	for (size_t k = w; k < i; k++)
		if (s[k] == '=')
			return 0;
	return i;
}

void boot_read_config(struct config *cfg, void (*report)(const struct config_error *e, void *ctx), void *ctx,
		      char *sources, size_t sources_cap)
{
	char *file = heap_alloc(CONFIG_FILE_MAX, 16);
	char *opts = heap_alloc(LOAD_OPTIONS_MAX, 16);
	char where[160];
	const char *note;
	size_t k = 0;

	config_defaults(cfg);
	if (!file || !opts) {
		snprintf(sources, sources_cap, "defaults (no memory to read the options)");
		return;
	}
	long n = fw_read_beside_image(CONFIG_FILE_NAME, file, CONFIG_FILE_MAX, where, sizeof(where));
	if (n >= 0) {
		config_apply_text(cfg, where, true, file, (size_t)n, report, ctx);
		k += (size_t)snprintf(sources + k, sources_cap - k, "file %s", where);
	} else if (n == -2) {
		struct config_error e;
		snprintf(e.source, sizeof(e.source), "%s", where);
		snprintf(e.key, sizeof(e.key), "-");
		snprintf(e.message, sizeof(e.message), "could not be read (a read error, or larger than %d bytes)",
			 CONFIG_FILE_MAX);
		report(&e, ctx);
	}
	long m = fw_load_options(opts, LOAD_OPTIONS_MAX, &note);
	if (m > 0) {
		size_t skip = skip_program_word(opts, (size_t)m);
		config_apply_text(cfg, "load-options", false, opts + skip, (size_t)m - skip, report, ctx);
		if (k < sources_cap)
			k += (size_t)snprintf(sources + k, sources_cap - k, "%sload options", k ? ", " : "");
	}
	if (k == 0 && sources_cap)
		snprintf(sources, sources_cap, "defaults (load options: %s)", note);
}
