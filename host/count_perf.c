/*
 * host/count_perf.c - the counting API on Linux, through perf_event_open.
 *
 * pmuboot-host cannot own the PMU: the kernel does.  This backend asks it
 * for PERF_TYPE_RAW events whose config is the same select encoding the MSR
 * backend programs (pmu/count/pmu_encode.h: event | umask << 8 | edge, inv, any,
 * cmask, and on AMD event bits 11:8 at 35:32), one perf group per pass so
 * the events of a pass are counted over the same instructions.  The
 * start/stop lists stay empty; the enable/disable hooks switch the group
 * with one ioctl each.  Counting is of user mode (the benchmarks' loops run
 * there) unless the set asks for kernel mode.
 *
 * Where the kernel offers no counters (a VM without a virtual PMU, as on the
 * development machine), init says exactly that and the run goes on.
 *
 * pmuboot-host selects this backend at start-up (the constructor below);
 * the unit tests, which do not link host, keep the MSR backend.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/host.h"
#include "pmu/count/count.h"
#include "pmu/count/count_sched.h"
#include "pmu/count/pmu_encode.h"
#include "pmu/caps/pmu_flavour.h"
#include "lib/x86/msr_intel.h"
#include "lib/x86/msr_amd.h"

/* Counters per pass when CPUID describes none (the kernel may still expose some). */
#define PERF_FALLBACK_GP 4

static struct {
	bool ready, amd;
	const struct pmu_flavour *fl;	/* select layout for the raw encoding */
	unsigned n_gp, n_fixed;
	int paranoid;
	/* The open group. */
	int fd[COUNT_MAX_EVENTS];
	size_t nfd;
	size_t idx[COUNT_MAX_EVENTS];	/* set->ev index of each fd */
	uint64_t config[COUNT_MAX_EVENTS];
	const struct count_set *set;
	int pass;
	enum count_priv priv;
	uint64_t base[COUNT_MAX_EVENTS];
	char why[192];
} ps = { .pass = -1 };

static long perf_open(struct perf_event_attr *a, int group)
{
	return syscall(SYS_perf_event_open, a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

static void attr_for(struct perf_event_attr *a, uint64_t config, enum count_priv priv, bool leader)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_RAW;
	a->config = config;
	a->disabled = leader;
	a->exclude_kernel = priv != COUNT_PRIV_KERNEL;
	a->exclude_user = priv == COUNT_PRIV_KERNEL;
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

static int read_paranoid(void)
{
	int v = 99;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 99;
		fclose(f);
	}
	return v;
}

/* Whether the kernel registered a CPU PMU at all (hybrid parts have cpu_core/cpu_atom). */
static bool kernel_has_cpu_pmu(void)
{
	static const char *const dirs[] = { "/sys/bus/event_source/devices/cpu",
					    "/sys/bus/event_source/devices/cpu_core",
					    "/sys/bus/event_source/devices/cpu_atom" };
	struct stat s;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (stat(dirs[i], &s) == 0)
			return true;
	return false;
}

/* Why perf_event_open failed, in words a lab engineer can act on. */
static void explain(int err, bool hypervisor, char *out, size_t cap)
{
	const char *hint;
	char buf[96];
	if (err == EACCES || err == EPERM) {
		snprintf(buf, sizeof(buf), "kernel.perf_event_paranoid is %d: run as root or lower it", ps.paranoid);
		hint = buf;
	} else if ((err == ENOENT || err == ENODEV || err == EOPNOTSUPP) && !kernel_has_cpu_pmu()) {
		hint = hypervisor ? "no PMU exposed to this VM" : "the kernel has no PMU driver for this CPU";
	} else if (err == ENOENT || err == EINVAL) {
		hint = "the kernel refused this raw event";
	} else if (err == EMFILE) {
		hint = "too many open files";
	} else {
		hint = "the kernel refused to count";
	}
	snprintf(out, cap, "perf_event_open: %s (%s)", strerror(err), hint);
}

/* perf counts on this machine: a cpu_info from elsewhere (a CPUID dump) would pick wrong event codes. */
static bool describes_this_cpu(const struct cpu_info *ci)
{
	unsigned eax, ebx, ecx, edx;
	if (!ci || !__get_cpuid(1, &eax, &ebx, &ecx, &edx))
		return true;
	return eax == ci->signature;
}

static bool perf_init(const struct cpu_info *ci, const struct pmu_caps *caps, const struct count_opts *opts, char *why,
		      size_t why_cap)
{
	struct perf_event_attr a;
	(void)opts;

	for (size_t i = 0; i < ps.nfd; i++)
		close(ps.fd[i]);
	memset(&ps, 0, sizeof(ps));
	ps.pass = -1;
	ps.paranoid = read_paranoid();
	ps.amd = ci && (ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON);
	ps.fl = ps.amd ? pmu_flavour_find(PMU_AMD_CORE_EXT, 0, ci ? ci->family : 0x17) :
			 pmu_flavour_find(PMU_INTEL_ARCH, 3, 0);
	if (!describes_this_cpu(ci)) {
		snprintf(ps.why, sizeof(ps.why), "the CPU identified (signature 0x%x) is not the one this program runs "
			 "on (a CPUID dump?): nothing to count here", ci->signature);
		snprintf(why, why_cap, "%s", ps.why);
		return false;
	}

	/* Core cycles, the event every PMU has: Intel 0x3C, AMD 0x76. */
	attr_for(&a, ps.amd ? 0x76 : 0x3C, COUNT_PRIV_USER, true);
	long fd = perf_open(&a, -1);
	if (fd < 0) {
		explain(errno, ci && ci->hypervisor, ps.why, sizeof(ps.why));
		snprintf(why, why_cap, "%s", ps.why);
		return false;
	}
	close((int)fd);

	if (caps && caps->kind == PMU_INTEL_ARCH) {
		ps.n_gp = caps->n_gp;
		ps.n_fixed = caps->version >= 2 ? caps->n_fixed : 0;
	} else if (caps && caps->kind == PMU_INTEL_P6) {
		ps.n_gp = P6_COUNTERS;
	} else if (caps && caps->kind != PMU_NONE) {
		ps.n_gp = caps->amd_n_counters       ? caps->amd_n_counters
			  : caps->kind == PMU_AMD_LEGACY ? AMD_LEGACY_COUNTERS
							 : AMD_CORE_EXT_COUNTERS;
	}
	if (!ps.n_gp)
		ps.n_gp = PERF_FALLBACK_GP;
	if (ps.n_gp > COUNT_SCHED_MAX_GP)
		ps.n_gp = COUNT_SCHED_MAX_GP;
	if (ps.n_fixed > COUNT_SCHED_MAX_FIXED)
		ps.n_fixed = COUNT_SCHED_MAX_FIXED;
	ps.ready = true;
	return true;
}

static bool perf_schedule(struct count_set *set, char *err, size_t err_cap)
{
	if (!ps.ready) {
		snprintf(err, err_cap, "counting is not available: %s", ps.why);
		return false;
	}
	struct count_slots s = {
		.gp_usable = (1u << ps.n_gp) - 1, .fixed_usable = (1u << ps.n_fixed) - 1,
		.n_gp = ps.n_gp, .n_fixed = ps.n_fixed,
		.gp_exists = (1u << ps.n_gp) - 1, .fixed_exists = (1u << ps.n_fixed) - 1,
		.event0_fixed_only = !ps.amd,
	};
	return count_sched_assign(set, &s, err, err_cap);
}

static void close_group(void)
{
	for (size_t i = 0; i < ps.nfd; i++)
		close(ps.fd[i]);
	ps.nfd = 0;
	ps.set = NULL;
	ps.pass = -1;
}

/*
 * PERF_METRICS fields (pmu/count/count.h: raw 0x8000 + 0x100 x field, Linux's pseudo-encoding) are counted
 * by the kernel only in a group that TOPDOWN.SLOTS (raw 0x0400, fixed counter 3) leads, and each reads as
 * the slots it stands for (Linux tools/perf/Documentation/topdown.txt): put SLOTS first in such a pass.
 */
static void lead_with_slots(const struct count_set *set, uint64_t *config, size_t *idx, size_t n)
{
	bool fields = false;
	size_t k = n;
	for (size_t j = 0; j < n; j++) {
		fields |= count_td_field(&set->ev[idx[j]]) >= 0;
		if (k == n && set->fixed_of[idx[j]] == FIXED_TOPDOWN_SLOTS)
			k = j;
	}
	if (!fields || k == n || k == 0)
		return;
	uint64_t c = config[k];
	size_t i = idx[k];
	memmove(&config[1], &config[0], k * sizeof(config[0]));
	memmove(&idx[1], &idx[0], k * sizeof(idx[0]));
	config[0] = c;
	idx[0] = i;
}

static bool perf_pass_begin(struct count_set *set, unsigned pass, char *err, size_t err_cap)
{
	uint64_t config[COUNT_MAX_EVENTS];
	size_t idx[COUNT_MAX_EVENTS], n = 0;

	if (!ps.ready) {
		snprintf(err, err_cap, "counting is not available: %s", ps.why);
		return false;
	}
	for (size_t i = 0; i < set->n; i++) {
		if (set->pass_of[i] != pass)
			continue;
		if (!pmu_encode_select(ps.fl, true, &set->ev[i], &config[n], err, err_cap))
			return false;
		idx[n++] = i;
	}
	memset(&set->start, 0, sizeof(set->start));
	memset(&set->stop, 0, sizeof(set->stop));
	lead_with_slots(set, config, idx, n);

	/* The same events as the open group: zero it instead of opening it again. */
	bool same = ps.nfd == n && ps.set == set && ps.pass == (int)pass && ps.priv == set->priv &&
		    !memcmp(config, ps.config, n * sizeof(config[0])) && !memcmp(idx, ps.idx, n * sizeof(idx[0]));
	if (!same) {
		close_group();
		for (size_t k = 0; k < n; k++) {
			struct perf_event_attr a;
			attr_for(&a, config[k], set->priv, k == 0);
			long fd = perf_open(&a, k ? ps.fd[0] : -1);
			if (fd < 0) {
				char why[160];
				explain(errno, false, why, sizeof(why));
				snprintf(err, err_cap, "event '%s' (raw 0x%llx): %s", set->ev[idx[k]].name,
					 (unsigned long long)config[k], why);
				close_group();
				return false;
			}
			ps.fd[ps.nfd++] = (int)fd;
		}
		memcpy(ps.config, config, n * sizeof(config[0]));
		memcpy(ps.idx, idx, n * sizeof(idx[0]));
		ps.set = set;
		ps.pass = (int)pass;
		ps.priv = set->priv;
	}
	if (n && ioctl(ps.fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) != 0) {
		snprintf(err, err_cap, "resetting the perf group: %s", strerror(errno));
		return false;
	}
	memset(ps.base, 0, sizeof(ps.base));
	return true;
}

static void perf_enable(struct count_set *set)
{
	(void)set;
	if (ps.nfd)
		ioctl(ps.fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

static void perf_disable(struct count_set *set)
{
	(void)set;
	if (ps.nfd)
		ioctl(ps.fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

static bool perf_read(struct count_set *set, unsigned pass, uint64_t *values, char *err, size_t err_cap)
{
	uint64_t buf[3 + COUNT_MAX_EVENTS];

	if (ps.set != set || ps.pass != (int)pass || !ps.nfd) {
		snprintf(err, err_cap, "pass %u is not the pass programmed", pass);
		return false;
	}
	ssize_t got = read(ps.fd[0], buf, sizeof(buf));
	if (got < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] != ps.nfd) {
		snprintf(err, err_cap, "reading the perf group: %s", got < 0 ? strerror(errno) : "short read");
		return false;
	}
	/* A group the kernel could not keep on the counters was multiplexed: its counts are estimates. */
	if (buf[1] && buf[2] < buf[1]) {
		snprintf(err, err_cap, "the kernel did not keep pass %u's %zu events on the counters together (ran "
			 "%llu of %llu ns): another user holds counters", pass, ps.nfd, (unsigned long long)buf[2],
			 (unsigned long long)buf[1]);
		return false;
	}
	for (size_t k = 0; k < ps.nfd; k++) {
		values[ps.idx[k]] = buf[3 + k] - ps.base[k];
		ps.base[k] = buf[3 + k];
	}
	return true;
}

static void perf_pass_end(struct count_set *set, unsigned pass)
{
	(void)set;
	(void)pass;
	perf_disable(set);	/* the group stays open for the next run of the same pass */
}

static void perf_restore(void) { close_group(); }

static void perf_state_fields(struct rec *r)
{
	rec_str(r, "count_backend", "perf");
	rec_bool(r, "counting", ps.ready);
	rec_str(r, "counting_reason", ps.ready ? NULL : ps.why);
	rec_i64(r, "perf_event_paranoid", ps.paranoid);
	if (ps.ready) {
		rec_u64(r, "counters_general", ps.n_gp);
		rec_u64(r, "counters_fixed", ps.n_fixed);
	}
}

const struct count_backend count_backend_perf = {
	.name = "perf",
	.init = perf_init,
	.schedule = perf_schedule,
	.pass_begin = perf_pass_begin,
	.enable = perf_enable,
	.disable = perf_disable,
	.read = perf_read,
	.pass_end = perf_pass_end,
	.restore = perf_restore,
	.state_fields = perf_state_fields,
};

/* pmuboot-host counts through perf unless a command chooses otherwise (program uses the MSR model). */
__attribute__((constructor)) static void use_perf_backend(void) { count_use_backend(&count_backend_perf); }
