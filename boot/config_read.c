/*
 * boot/config_read.c - options from pmuboot.cfg and the load options (load
 * options win).  From a disk, pmuboot.cfg is the file beside the image.
 * Loaded over the network there is no disk: the image asks the server it
 * came from, in the boot file's directory, for pmuboot-<UUID>.cfg, then
 * pmuboot-<MAC>.cfg, then pmuboot.cfg (net/netcfg.h), and uses the first
 * that exists; the begin record lists what was asked and what came back.
 */
#include "boot/boot.h"
#include "boot/net.h"
#include "boot/net_fetch.h"
#include "boot/platform.h"
#include "lib/heap.h"
#include "net/netcfg.h"

#define CONFIG_FILE_NAME "pmuboot.cfg"
/*
 * Any file a person plausibly writes.  The buffer comes from the firmware's
 * pool and goes back once the options are copied out, so it costs the
 * run-time heap (lib/heap.c, never freed) nothing.
 */
#define CONFIG_FILE_MAX (1024u * 1024u)
#define LOAD_OPTIONS_MAX 2048

/* What a network boot asked its server for, for the begin record. */
static struct {
	bool network;
	struct netcfg_asked asked;
} tried;

static void config_error(void (*report)(const struct config_error *e, void *ctx), void *ctx, const char *source,
			 const char *message)
{
	struct config_error e;
	snprintf(e.source, sizeof(e.source), "%s", source);
	snprintf(e.key, sizeof(e.key), "-");
	snprintf(e.message, sizeof(e.message), "%s", message);
	report(&e, ctx);
}

static long fetch_from_server(void *ctx, const char *name, char *buf, size_t cap, char *where, size_t where_cap,
			      char *why, size_t why_cap)
{
	(void)ctx;
	return net_fetch(name, buf, cap, where, where_cap, why, why_cap);
}

/* The first of the names the server has; 0, or the bytes written to sources. */
static size_t read_from_server(struct config *cfg, void (*report)(const struct config_error *e, void *ctx), void *ctx,
			       char *file, char *sources, size_t sources_cap)
{
	const struct net_state *n = net_probe();
	struct netcfg_asked *a = &tried.asked;
	char dir[NETCFG_NAME_MAX], uuid[SMBIOS_UUID_TEXT];
	size_t k = 0;
	long len = 0;

	tried.network = true;
	netcfg_dir(n->boot == NET_BOOT_PXE ? n->boot_file : "", dir, sizeof(dir));
	netcfg_names(dir, platform_uuid(uuid) ? uuid : NULL, n->mac, n->mac_len, a->tries);
	int used = netcfg_fetch_first(a, fetch_from_server, NULL, file, CONFIG_FILE_MAX, &len);
	for (int i = 0; i < NETCFG_NAMES; i++) {
		if (a->outcome[i] != NETCFG_FAILED)
			continue;
		char msg[sizeof(((struct config_error *)0)->message)];
		snprintf(msg, sizeof(msg), "not read from the boot server: %s", a->why[i]);
		config_error(report, ctx, a->tries[i].name, msg);
	}
	if (used >= 0) {
		/* Errors name the file as the server knows it: short enough for a source (CONFIG_SOURCE_MAX). */
		config_apply_file(cfg, a->tries[used].name, file, (size_t)len, report, ctx);
		k = (size_t)snprintf(sources, sources_cap, "file %s", a->where[used]);
	}
	return k < sources_cap ? k : sources_cap;
}

void boot_config_tried_record(struct rec *r)
{
	if (!tried.network)
		return;
	rec_arr(r, "config_tried");
	for (int i = 0; i < NETCFG_NAMES; i++) {
		rec_obj(r, NULL);
		rec_str(r, "kind", tried.asked.tries[i].kind);
		rec_str(r, "file", tried.asked.where[i][0] ? tried.asked.where[i] : NULL);
		rec_str(r, "result", tried.asked.result[i]);
		rec_obj_end(r);
	}
	rec_arr_end(r);
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
	long n = -1;
	if (net_probe()->boot != NET_BOOT_NONE)
		k = read_from_server(cfg, report, ctx, file, sources, sources_cap);
	else
		n = fw_read_beside_image(CONFIG_FILE_NAME, file, CONFIG_FILE_MAX, where, sizeof(where));
	if (n >= 0) {
		config_apply_file(cfg, where, file, (size_t)n, report, ctx);
		k += (size_t)snprintf(sources + k, sources_cap - k, "file %s", where);
	} else if (n == -3) {
		config_error(report, ctx, where,
			     "is a directory, not a file: no option was read (options go in a text file of this name)");
	} else if (n == -2) {
		char msg[160];
		snprintf(msg, sizeof(msg), "not read: the firmware reported a read error, or the file is over %u KiB "
			 "(the most pmuboot reads)", CONFIG_FILE_MAX / 1024u);
		config_error(report, ctx, where, msg);
	}
	bs->FreePool(file);
	long m = fw_load_options(opts, LOAD_OPTIONS_MAX, &note);
	if (m > 0) {
		size_t skip = netcfg_skip_program_word(opts, (size_t)m);
		config_apply_text(cfg, "load-options", false, opts + skip, (size_t)m - skip, report, ctx);
		if (k < sources_cap)
			k += (size_t)snprintf(sources + k, sources_cap - k, "%sload options", k ? ", " : "");
	}
	if (k == 0 && sources_cap)
		snprintf(sources, sources_cap, "defaults (load options: %s)", note);
}
