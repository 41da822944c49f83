/*
 * host/mp_linux.c - the processors as Linux lists them (struct run_mp,
 * run/run.h): /sys/devices/system/cpu/cpuN (online, topology/), the hybrid
 * PMU lists /sys/devices/cpu_core/cpus and /sys/devices/cpu_atom/cpus, and
 * sched_setaffinity to run on one of them.  The kernel ABI documents these
 * files (Documentation/ABI/stable/sysfs-devices-system-cpu,
 * testing/sysfs-bus-event_source-devices).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "platform/firmware.h"
#include "host/host.h"
#include "linux/hw_linux.h"
#include "lib/out.h"

#define SYS_CPU "/sys/devices/system/cpu"

static int home = -1;		/* the CPU the run started on: the "boot" processor */
static size_t ncpus;
static cpu_set_t allowed;	/* the CPUs this process may run on, before pmuboot-host pinned itself */
static bool have_allowed;

void linux_mp_init(void)
{
	CPU_ZERO(&allowed);
	have_allowed = sched_getaffinity(0, sizeof(allowed), &allowed) == 0;
}

/* A small sysfs file as text, or false. */
static bool read_text(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return true;
}

static bool read_u32(const char *path, uint32_t *v)
{
	char buf[32], *end;
	if (!read_text(path, buf, sizeof(buf)) || !buf[0])
		return false;
	long x = strtol(buf, &end, 10);
	if (*end || x < 0)
		return false;
	*v = (uint32_t)x;
	return true;
}

/* Is cpu in a Linux CPU list such as "0-7,16"? */
static bool in_list(const char *list, uint32_t cpu)
{
	const char *p = list;
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (end == p)
			return false;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (cpu >= lo && cpu <= hi)
			return true;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return false;
	}
	return false;
}

static size_t linux_count(const char **why)
{
	char buf[256];
	if (!read_text(SYS_CPU "/possible", buf, sizeof(buf))) {
		*why = "cannot read " SYS_CPU "/possible";
		return 0;
	}
	const char *last = strrchr(buf, '-') ? strrchr(buf, '-') + 1 : buf;
	const char *comma = strrchr(buf, ',');
	if (comma && comma + 1 > last)
		last = comma + 1;
	ncpus = (size_t)strtoul(last, NULL, 10) + 1;
	if (home < 0)
		home = hw_linux_pinned_cpu();
	return ncpus;
}

static bool pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		return false;
	hw_linux_cpu_moved();
	return true;
}

static bool linux_info(size_t n, struct topo_cpu *c)
{
	char path[128], buf[64];
	uint32_t v;

	snprintf(path, sizeof(path), SYS_CPU "/cpu%zu", n);
	if (!read_text(path, buf, sizeof(buf)) && errno == ENOENT)
		return false;	/* a hole in "possible" */
	snprintf(path, sizeof(path), SYS_CPU "/cpu%zu/online", n);
	/* cpu0 often has no online file: it cannot be taken offline. */
	c->enabled = !read_u32(path, &v) || v == 1;
	c->healthy = true;
	if (c->enabled && have_allowed && n < CPU_SETSIZE && !CPU_ISSET((int)n, &allowed)) {
		/* Online, but outside this process's affinity (a container, taskset): cannot be measured. */
		c->enabled = false;
		out_text("cpus: processor %zu is online but outside this process's CPU affinity: not used", n);
	}
	c->bsp = (int)n == home;
	snprintf(path, sizeof(path), SYS_CPU "/cpu%zu/topology/physical_package_id", n);
	if (read_u32(path, &v))
		c->package = v;
	snprintf(path, sizeof(path), SYS_CPU "/cpu%zu/topology/die_id", n);
	if (read_u32(path, &v))
		c->die = v;
	snprintf(path, sizeof(path), SYS_CPU "/cpu%zu/topology/core_id", n);
	if (read_u32(path, &v))
		c->core = v;
	/* Linux gives no thread number: the position among the core's siblings (thread_siblings_list). */
	snprintf(path, sizeof(path), SYS_CPU "/cpu%zu/topology/thread_siblings_list", n);
	char sib[128];
	if (read_text(path, sib, sizeof(sib))) {
		uint32_t t = 0;
		for (uint32_t k = 0; k < n; k++)
			t += in_list(sib, k);
		c->thread = t;
	}
	/* The APIC ID is CPUID's on that CPU (the probe); Linux does not export it in sysfs. */
	c->apic_id = TOPO_NONE;
	return true;
}

static int linux_run_on(size_t n, void (*fn)(void *arg), void *arg, uint64_t timeout_us, const char **why)
{
	(void)timeout_us;	/* a thread on Linux cannot be stopped half-way: no bound is enforced */
	static char msg[96];
	if (!pin((int)n)) {
		snprintf(msg, sizeof(msg), "cannot run there (sched_setaffinity: %s)", strerror(errno));
		*why = msg;
		return FW_RUN_FAILED;
	}
	fn(arg);
	if (!pin(home)) {
		*why = "could not move back to the starting CPU";
		return FW_RUN_FAILED;
	}
	return FW_RUN_OK;
}

#define NEIGHBOURS "running whatever Linux schedules on them (not parked)"

/* A pass pinned to CPU n; a fault there ends the process, so there is no cleanup to run. */
static int linux_measure_on(size_t n, struct run_pass *p, uint64_t timeout_us)
{
	p->faulted = false;
	p->why = NULL;
	snprintf(p->neighbours, sizeof(p->neighbours), "others: %s", NEIGHBOURS);
	return linux_run_on(n, p->body, p->arg, timeout_us, &p->why);
}

static void linux_check_core_types(const struct topology *t);

const struct run_mp linux_mp = {
	.source = "linux",
	.count = linux_count,
	.info = linux_info,
	.run_on = linux_run_on,
	.measure_on = linux_measure_on,
	.check = linux_check_core_types,
	.neighbours = NEIGHBOURS,
};

/*
 * What Linux says each CPU's core type is (the hybrid PMU's cpu_core and
 * cpu_atom lists), set against CPUID on the CPU.  A disagreement or a CPU
 * CPUID could not type is reported, not resolved.
 */
static void linux_check_core_types(const struct topology *t)
{
	char core[512], atom[512];
	bool have_core = read_text("/sys/devices/cpu_core/cpus", core, sizeof(core));
	bool have_atom = read_text("/sys/devices/cpu_atom/cpus", atom, sizeof(atom));

	if (!have_core && !have_atom) {
		out_text("cpus: Linux lists no hybrid PMUs (/sys/devices/cpu_core, cpu_atom): core types are CPUID's");
		return;
	}
	out_text("cpus: Linux lists cpu_core %s, cpu_atom %s", have_core ? core : "(none)", have_atom ? atom : "(none)");
	for (size_t i = 0; i < t->n; i++) {
		const struct topo_cpu *c = &t->cpu[i];
		const char *lx = have_core && in_list(core, c->n) ? "core" : have_atom && in_list(atom, c->n) ? "atom" : NULL;
		const char *cp = cpu_core_type_name(c->core_type);
		if (lx && (!cp || strcmp(lx, cp)))
			out_text("cpus: processor %u: Linux says %s, CPUID says %s", c->n, lx, cp ? cp : "no core type");
	}
}
