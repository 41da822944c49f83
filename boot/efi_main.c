/*
 * boot/efi_main.c - the UEFI entry point.
 *
 * pmuboot stays in boot services for the whole run (docs/architecture.md
 * says why): the firmware keeps the screen, the file system for saved
 * results, and its timer, while platform/ masks everything for each
 * measurement window.
 */
#include "boot/boot.h"
#include "boot/console.h"
#include "boot/kernels_read.h"
#include "boot/mp.h"
#include "boot/platform.h"
#include "boot/results_file.h"
#include "boot/serial_setup.h"
#include "boot/upload.h"
#include "run/run.h"
#include "platform/metal/runtime.h"
#include "lib/heap.h"
#include "lib/out.h"
#include "lib/record.h"
#include "version.h"

#define MAX_DEFERRED_ERRORS 16

struct deferred {
	struct config_error e[MAX_DEFERRED_ERRORS];
	unsigned n, dropped;
};

static void defer_error(const struct config_error *e, void *ctx)
{
	struct deferred *d = ctx;
	if (d->n < MAX_DEFERRED_ERRORS)
		d->e[d->n++] = *e;
	else
		d->dropped++;
}

struct begin_ctx {
	const struct serial_choice *serial;
	const char *config_sources;
	const struct config *cfg;
};

static void begin_extra(struct rec *r, void *p)
{
	const struct begin_ctx *b = p;
	char val[CONFIG_STR_MAX + 32];

	serial_choice_record(r, b->serial);
	console_record(r);
	results_file_record(r);
	rec_str(r, "config", b->config_sources);
	boot_config_tried_record(r);
	upload_begin_record(r);
	rec_obj(r, "options");
	for (size_t i = 0; i < config_key_count(); i++) {
		config_value_text(b->cfg, config_key_at(i), val, sizeof(val));
		/* A secret goes to the collector only, never into the records (the results file is uploaded). */
		if (!strcmp(config_key_at(i), "upload_token") && val[0])
			snprintf(val, sizeof(val), "(set)");
		rec_str(r, config_key_at(i), val);
	}
	rec_obj_end(r);
}

/* Everything between platform_init and platform_teardown, run so that a fatal exception ends it cleanly. */
struct main_ctx {
	struct config cfg;
	struct deferred errs;
	struct run_env env;
};

static void run_body(void *p)
{
	struct main_ctx *m = p;
	struct serial_choice serial;
	char sources[256];

	boot_read_config(&m->cfg, defer_error, &m->errs, sources, sizeof(sources));
	boot_serial_setup(&m->cfg.serial, &serial);
	console_attach(fw_st, serial.active, m->cfg.serial.kind == SERIAL_OFF, &m->cfg);
	/* Before the results file's sink: a note that sink emits from inside a write then reaches both in order. */
	upload_attach(&m->cfg);
	results_file_attach(m->cfg.save);

	out_text("pmuboot %s (build %s): bare-metal PMU profiling", PMUBOOT_VERSION, PMUBOOT_BUILD_ID);
	struct rec_stream_info info = { PMUBOOT_VERSION, PMUBOOT_BUILD_ID, "image" };
	struct begin_ctx bctx = { &serial, sources, &m->cfg };
	rec_stream_begin(&info, begin_extra, &bctx);
	results_file_announce();
	if (serial.missing)
		out_text("note: no UART at 0x%llx; output goes to the screen only", (unsigned long long)serial.base);
	for (unsigned i = 0; i < m->errs.n; i++)
		rec_error(m->errs.e[i].source, m->errs.e[i].key, "%s", m->errs.e[i].message);
	if (m->errs.dropped)
		rec_error("config", "-", "%u further option errors not shown", m->errs.dropped);
	platform_report();

	m->env.cfg = &m->cfg;
	m->env.selftest = platform_selftest;
	m->env.pass_selftest = platform_pass_selftest;
	/* User kernels from \pmuboot\kernels\ (docs/kernels.md), handed to the run as data. */
	struct ukernel_file *kfiles = heap_alloc(KERNELS_FILES_MAX * sizeof(*kfiles), 16);
	char knote[96];
	m->env.nkernel_files = kfiles ? boot_read_kernels(kfiles, KERNELS_FILES_MAX, knote, sizeof(knote)) : 0;
	m->env.kernel_files = kfiles;
	if (m->env.nkernel_files)
		out_text("kernels: %s", knote);
	/* The kernel pack of instruction forms (docs/instr.md "In the image"), read only when instr= asks. */
	static struct ukernel_file instr_pack;
	if (m->cfg.instr[0] && strcmp(m->cfg.instr, "none")) {
		boot_read_instr_pack(&instr_pack);
		m->env.instr_pack = &instr_pack;
	}
	m->env.mp = &boot_mp;
	m->env.after_stage = upload_after_stage;
	run_stages(&m->env);
}

static void after_fault(void *unused)
{
	(void)unused;
	run_after_fault();
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	static struct main_ctx m;

	fw_init(image, st);
	/* Our exception handlers before anything touches an MSR (docs/runtime.md). */
	platform_init();
	/* UEFI 2.10 §7.5.1: the boot manager arms a 5-minute watchdog; a run may be longer. */
	st->BootServices->SetWatchdogTimer(0, 0, 0, NULL);
	config_defaults(&m.cfg);

	/* After a fatal exception platform_run has written the `fault` record; the stream still ends. */
	if (!platform_run(run_body, &m)) {
		/* Guarded too: the fault may have left the counters and IBS in any state. */
		mp_release_parked();
		platform_run(after_fault, NULL);
	}
	platform_teardown();
	rec_stream_end();
	/* The whole run, end record included, to the collector; its outcome follows the end record. */
	upload_final();
	results_file_close();
	boot_finish(&m.cfg, &m.env.cpu);
	return EFI_SUCCESS;
}
