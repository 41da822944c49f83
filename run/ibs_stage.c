/*
 * run/ibs_stage.c - the run's IBS step and the benchmark observer; see run/ibs_stage.h.
 *
 * The benchmark harness measures each kernel variant first, then runs it
 * again `slices` times inside the interrupts-off window with our hooks
 * around each run (bench/observer.h; the run passes our observer to the bench
 * stage), so sampling never touches the
 * measured figures.  At the end of each variant the buffered samples are
 * decoded, printed raw when ibs_raw=on, and summed up in one `ibs` record.
 */
#include "run/ibs_stage.h"
#include "pmu/ibs/ibs.h"
#include "pmu/ibs/ibs_regs.h"
#include "platform/hw.h"
#include "lib/out.h"

/*
 * Kernel runs per variant.  A run is one repetition of the kernel loop
 * (iterations= of it); the sampler's count carries from run to run where
 * the hardware allows, so the number of samples is about
 * slices * ops per run / ibs_period.
 */
#define IBS_SLICES 128

static struct {
	bool raw;
	struct ibs_target target;
	struct ibs_profile prof;
	struct ibs_counts counts;
} run;

static void variant_begin(void *ctx, const struct bench_variant_id *id)
{
	(void)ctx;
	(void)id;
	ibs_ctl_variant_begin();
}

static void slice_begin(void *ctx)
{
	(void)ctx;
	ibs_ctl_arm();
}

static void slice_end(void *ctx)
{
	(void)ctx;
	ibs_ctl_disarm();
}

static void variant_end(void *ctx, const struct bench_variant_id *id)
{
	const struct ibs_ctl_info *info = ibs_ctl_info();
	struct ibs_variant_report v = {
		.source = "image",
		.kernel = id->kernel,
		.variant = id->variant,
		.arena_page = id->arena_page,
		.target = run.target,
		.sampled = { info->fetch, info->op },
		.counts = &run.counts,
		.info = info,
		.stats = ibs_ctl_stats(),
	};

	(void)ctx;
	ibs_ctl_variant_end();
	ibs_counts_clear(&run.counts);
	for (size_t i = 0; i < ibs_ctl_sample_count(); i++) {
		const struct ibs_sample *s = ibs_ctl_sample_at(i);
		ibs_decode(&run.prof, s, &run.counts);
		if (run.raw)
			ibs_report_sample(&run.target, id->kernel, id->variant, s);
	}
	ibs_report_variant(&v);
	ibs_report_line(&v);
}

static const char *mode_text(const struct ibs_ctl_info *info)
{
	return info->fetch && info->op ? "fetch and op" : info->fetch ? "fetch" : "op";
}

bool ibs_setup(const struct cpu_info *ci, const struct pmu_caps *caps, const struct config *cfg,
	       struct bench_observer *out)
{
	struct ibs_ctl_params params;
	struct ibs_ctl_info info;
	char why[256];

	ibs_ctl_shutdown();
	if (cfg->ibs == IBS_MODE_OFF) {
		ibs_report_absent("disabled by ibs=off");
		return false;
	}
	if (ci->vendor != VENDOR_AMD && ci->vendor != VENDOR_HYGON) {
		snprintf(why, sizeof(why), "not attempted: IBS is an AMD feature and this processor's vendor is %s",
			 ci->vendor_str[0] ? ci->vendor_str : cpu_vendor_name(ci->vendor));
		ibs_report_absent(why);
		return false;
	}
	if (!caps->ibs) {
		ibs_report_absent(caps->ibs_absent_reason ? caps->ibs_absent_reason :
				  "CPUID 8000_0001h ECX[10] (IBS) is clear: absent, or disabled by the firmware");
		return false;
	}
	memset(&run, 0, sizeof(run));
	run.target.family = ci->family;
	run.target.model = ci->model;
	run.target.caps = caps->ibs_flags_valid ? caps->ibs_flags : IBS_CAP_DEFAULT;
	if (!ibs_profile_get(&run.target, &run.prof)) {
		snprintf(why, sizeof(why), "Family %xh: %s", (unsigned)ci->family, run.prof.name);
		ibs_report_absent(why);
		return false;
	}
	if (!hw_platform()->owns_machine) {
		ibs_report_absent("not attempted by pmuboot-host: under Linux the kernel owns the IBS registers "
				  "and interrupt (use perf's ibs_op/ibs_fetch, or boot the image)");
		return false;
	}

	memset(&params, 0, sizeof(params));
	params.target = run.target;
	params.fetch = cfg->ibs == IBS_MODE_BOTH || cfg->ibs == IBS_MODE_FETCH;
	params.op = cfg->ibs == IBS_MODE_BOTH || cfg->ibs == IBS_MODE_OP;
	params.period = cfg->ibs_period;
	params.seed = (uint32_t)hw_tsc();
	if (!ibs_ctl_init(&params, &info, why, sizeof(why))) {
		ibs_report_absent(why);
		ibs_ctl_shutdown();
		return false;
	}
	run.raw = cfg->ibs_raw;

	*out = (struct bench_observer){
		.name = "ibs",
		.slices = IBS_SLICES,
		.variant_begin = variant_begin,
		.slice_begin = slice_begin,
		.slice_end = slice_end,
		.variant_end = variant_end,
	};
	out_text("IBS: %s sampling beside each benchmark (%s), period %llu%s, %u kernel runs per variant", mode_text(&info),
		 run.prof.name, (unsigned long long)(info.op ? info.op_period : info.fetch_period),
		 info.op && !info.op_counts_ops ? " cycles (op)" : "", IBS_SLICES);
	if (info.nmi_possible)
		out_text("IBS: samples delivered by NMI through APIC extended LVT entry %u", info.lvt_offset);
	else
		out_text("IBS: polled (one sample per kernel run at most): %s", info.polled_reason);
	if (info.note[0])
		out_text("IBS: %s", info.note);
	if (ci->hypervisor)
		out_text("IBS: a hypervisor is present; it may not implement IBS, and samples may not come");
	return true;
}
