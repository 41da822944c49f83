/* boot/config_read.c - options from pmuboot.cfg and the load options (load options win). */
#include "boot/boot.h"
#include "lib/heap.h"

#define CONFIG_FILE_NAME "pmuboot.cfg"
/*
 * Any file a person plausibly writes.  The buffer comes from the firmware's
 * pool and goes back once the options are copied out, so it costs the
 * run-time heap (lib/heap.c, never freed) nothing.
 */
#define CONFIG_FILE_MAX (1024u * 1024u)
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
	EFI_BOOT_SERVICES *bs = fw_st->BootServices;
	char *file = NULL;
	char *opts = heap_alloc(LOAD_OPTIONS_MAX, 16);
	char where[160];
	const char *note;
	size_t k = 0;

	config_defaults(cfg);
	if (bs->AllocatePool(EfiLoaderData, CONFIG_FILE_MAX, (void **)&file) != EFI_SUCCESS)
		file = NULL;
	if (!file || !opts) {
		if (file)
			bs->FreePool(file);
		snprintf(sources, sources_cap, "defaults (no memory to read the options)");
		return;
	}
	long n = fw_read_beside_image(CONFIG_FILE_NAME, file, CONFIG_FILE_MAX, where, sizeof(where));
	if (n >= 0) {
		config_apply_file(cfg, where, file, (size_t)n, report, ctx);
		k += (size_t)snprintf(sources + k, sources_cap - k, "file %s", where);
	} else if (n == -2 || n == -3) {
		struct config_error e;
		snprintf(e.source, sizeof(e.source), "%s", where);
		snprintf(e.key, sizeof(e.key), "-");
		if (n == -3)
			snprintf(e.message, sizeof(e.message),
				 "is a directory, not a file: no option was read (options go in a text file of this name)");
		else
			snprintf(e.message, sizeof(e.message),
				 "not read: the firmware reported a read error, or the file is over %u KiB (the most "
				 "pmuboot reads)", CONFIG_FILE_MAX / 1024u);
		report(&e, ctx);
	}
	bs->FreePool(file);
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
