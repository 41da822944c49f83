/*
 * tools/probe/chase_probe.c - an independent pointer-chase latency probe, for
 * `make bench` (tools/bench-table.py) to hold the ladder's figures against and to
 * show how much the machine itself moves (tests/host/test_memory_ladder.py checks
 * only that it builds and gives well-formed figures).
 * It shares no code with pmuboot: its own buffer (2 MiB-aligned mmap with
 * MADV_HUGEPAGE), its own ring (Sattolo's algorithm: one random cycle over
 * every 64-byte line), its own clock (CLOCK_MONOTONIC_RAW for nanoseconds)
 * and its own core-clock estimate (a dependent add chain timed with the TSC).
 *
 *   chase_probe CPU BYTES LOADS REPS
 * prints: ns_per_load cycles_per_load clock_moved_pct huge_pct spread_pct
 * (huge_pct: how much of the buffer /proc/self/smaps says is in transparent huge pages;
 * spread_pct: the runs' interquartile range over their median, cycles per load)
 * ns and cycles are medians over REPS timed runs of LOADS loads each (short runs:
 * on a busy machine a run the scheduler interrupted is an outlier the median
 * ignores); cycles use the add chain's cycles per TSC tick, calibrated before and
 * after the runs, and clock_moved_pct says how far the two calibrations differ.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>

#define LINE 64
#define HUGE (2ul << 20)

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* The share of [p, p + bytes) in transparent huge pages, from /proc/self/smaps, in percent. */
static double huge_share(const void *p, size_t bytes)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long lo, hi, kb, huge = 0;
	int in = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p < hi && (uintptr_t)p + bytes > lo;
		else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			huge += kb;
	}
	fclose(f);
	return 100.0 * huge * 1024 / bytes;	/* bytes: the whole 2 MiB-rounded span */
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * Core cycles per TSC tick: 2^18 dependent adds take 2^18 cycles on any x86 core since
 * the P6.  The best of many short tries: an interrupted one only reads fewer cycles per tick.
 */
#define CALIB_ADDS (1u << 18)
#define CALIB_TRIES 64
static double cycles_per_tick(void)
{
	double best = 0;
	for (int k = 0; k < CALIB_TRIES; k++) {
		uint64_t n = CALIB_ADDS, x = 0;
		unsigned aux;
		uint64_t t0 = __rdtscp(&aux);
		__asm__ volatile("1: add $1, %0\n\tdec %1\n\tjnz 1b" : "+r"(x), "+r"(n));
		uint64_t t1 = __rdtscp(&aux);
		double r = (double)CALIB_ADDS / (double)(t1 - t0);
		if (r > best)
			best = r;
	}
	return best;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: chase_probe CPU BYTES LOADS REPS\n");
		return 2;
	}
	char *end[4];
	long cpu = strtol(argv[1], &end[0], 0);
	size_t bytes = strtoull(argv[2], &end[1], 0), lines = bytes / LINE;
	long loads = strtol(argv[3], &end[2], 0), reps = strtol(argv[4], &end[3], 0);
	static const char *const what[] = { "CPU", "BYTES", "LOADS", "REPS" };
	for (int i = 0; i < 4; i++)
		if (end[i] == argv[i + 1] || *end[i]) {
			fprintf(stderr, "chase_probe: %s is not a number: '%s'\n", what[i], argv[i + 1]);
			return 2;
		}
	/* A ring needs two lines; loads go in eights; the quartiles need a run each. */
	if (cpu < 0 || lines < 2 || lines > UINT32_MAX || loads < 8 || reps < 1) {
		fprintf(stderr, "chase_probe: want CPU >= 0, 128 <= BYTES < 256 GiB, LOADS >= 8, REPS >= 1\n");
		return 2;
	}
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	/* Whole 2 MiB pages around the buffer, all advised: THP maps only fully covered 2 MiB ranges. */
	size_t span = (bytes + HUGE - 1) & ~(HUGE - 1);
	uint8_t *raw = mmap(NULL, span + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	uint8_t *buf = (uint8_t *)(((uintptr_t)raw + HUGE - 1) & ~(HUGE - 1));
	madvise(buf, span, MADV_HUGEPAGE);
	memset(buf, 0, span);
	/* Sattolo: a uniformly random single cycle. */
	uint32_t *order = malloc(lines * sizeof(*order));
	for (size_t i = 0; i < lines; i++)
		order[i] = (uint32_t)i;
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j = next() % i;
		uint32_t t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < lines; i++)
		*(void **)(buf + (size_t)i * LINE) = buf + (size_t)order[i] * LINE;
	free(order);
	void **p = (void **)buf;
	for (long i = 0; i < loads; i++)	/* warm: caches, TLB, clock */
		p = *p;
	double cpt0 = cycles_per_tick();
	double *ns = malloc(reps * sizeof(*ns)), *cyc = malloc(reps * sizeof(*cyc));
	for (long r = 0; r < reps; r++) {
		unsigned aux;
		double t0 = now_ns();
		uint64_t c0 = __rdtscp(&aux);
		for (long i = 0; i < loads; i += 8) {
			p = *p; p = *p; p = *p; p = *p;
			p = *p; p = *p; p = *p; p = *p;
		}
		uint64_t c1 = __rdtscp(&aux);
		double t1 = now_ns();
		ns[r] = (t1 - t0) / loads;
		cyc[r] = (double)(c1 - c0) / loads;
	}
	double cpt1 = cycles_per_tick(), cpt = (cpt0 + cpt1) / 2;
	for (long r = 0; r < reps; r++)
		cyc[r] *= cpt;
	qsort(ns, reps, sizeof(*ns), cmp);
	qsort(cyc, reps, sizeof(*cyc), cmp);
	printf("%.4f %.4f %.3f %.1f %.2f%s\n", ns[reps / 2], cyc[reps / 2],
	       100.0 * (cpt1 > cpt0 ? cpt1 - cpt0 : cpt0 - cpt1) / cpt, huge_share(buf, span),
	       100.0 * (cyc[3 * reps / 4] - cyc[reps / 4]) / cyc[reps / 2],
	       p ? "" : " -");	/* p used, so the chase is not optimised away */
	return 0;
}
