/*
 * tools/probe/chase_probe.c - an independent memory probe: a pointer chase (or a
 * streaming read, write or copy) over a buffer of a given size, for `make bench`
 * (tools/bench-table.py) to hold the ladder's figures against and to measure how
 * much the machine itself moves at each size it judges by the probe
 * (tests/host/test_memory_ladder.py checks only that it builds and gives
 * well-formed figures).  It shares no code with pmuboot:
 * its own buffer (2 MiB-aligned mmap, MADV_HUGEPAGE or MADV_NOHUGEPAGE), its own
 * ring (Sattolo's algorithm: one random cycle over every 64-byte line), its own
 * clock (CLOCK_MONOTONIC_RAW for nanoseconds) and its own core-clock estimate (a
 * dependent add chain timed with the TSC).
 *
 *   chase_probe CPU BYTES LOADS REPS [KIND [PAGES]]
 * KIND: chase (default; one unit is one load), read, write, write_nt or copy
 * (one unit is 256 bytes per stream, swept in order and wrapping; copy reads the
 * first half of the buffer and writes the second), or forward-S-L-OFF (one unit
 * is a store of S bytes at the buffer's start and a load of L bytes OFF bytes on,
 * the loaded register the next store's data: the store-forwarding chain of
 * forward.c; LOADS a multiple of 8).  PAGES: 2m (default) or 4k.
 *
 * A sample is a run of LOADS units then one of 2 x LOADS, back to back, between two
 * runs of a 2^14-add chain whose ticks convert it to core cycles; REPS samples are
 * kept.  A sample whose 2N run took no longer than its N run, or more than twice it
 * plus 10% (no overhead can do that: something else ran), whose two add chains
 * differ by more than 1% (the clock moved), or during which the thread was
 * switched out, is thrown away and taken again, at most max(2 x REPS, 16) times;
 * when that budget runs out the probe stops with the samples it kept (KEPT below:
 * fewer than REPS).  Prints the first line below, and the second when KIND is given
 * (with the four arguments alone the output is the first line's five words, which
 * tests/host/test_memory_ladder.py reads):
 *   ns_per_unit cycles_per_unit clock_moved_pct huge_pct spread_pct
 *   differential KEPT RETAKEN v1 v2 ... vKEPT
 * The first: medians over the kept samples' N runs (ns from the clock, cycles from
 * TSC ticks times each sample's own add chains; clock_moved_pct says how far a long
 * calibration before all samples and one after them differ), the share of the buffer in huge
 * pages (/proc/self/smaps) and the N runs' interquartile range over their median.
 * The second: each kept sample's (2N run - N run) / N in cycles per unit, in the
 * order taken: the same differential a figure of pmuboot's is, so its spread is
 * the machine's spread for a figure of that form.
 */
#define _GNU_SOURCE
#include <emmintrin.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <x86intrin.h>

#include "tools/probe/forward.h"

#define LINE 64
#define HUGE (2ul << 20)
#define UNIT 256		/* bytes per stream per unit of the streaming kinds */
#define N2N_SLACK 1.10		/* 2N run <= 2 x N run + 10%: the timer's own jitter */

enum kind { CHASE, READ, WRITE, WRITE_NT, COPY, FORWARD };
static const char *const kinds[] = { "chase", "read", "write", "write_nt", "copy" };

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

static uint64_t ticks(void)
{
	unsigned aux;
	_mm_lfence();
	uint64_t t = __rdtscp(&aux);
	_mm_lfence();
	return t;
}

/* Context switches of this thread so far: a sample across one timed someone else. */
static long switches(void)
{
	struct rusage u;
	if (getrusage(RUSAGE_THREAD, &u))
		return -1;
	return u.ru_nvcsw + u.ru_nivcsw;
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
 * adds dependent adds (a multiple of 16), 16 to a loop trip: with one add per trip the loop's
 * taken branch every cycle shares the branch ports with a busy sibling hyperthread, and the
 * chain then reads slower than one add per cycle (the probe read 3.6 cycles for the L1's 5
 * under a load of 20 on this host's two vCPUs).  A register add: a chain of `add reg, imm`
 * ran about five to a cycle on this host's Raptor Cove cores (the renamer folds immediates).
 */
static void add_chain(uint64_t adds)
{
	uint64_t n = adds / 16, x = 0, one = 1;
	__asm__ volatile("1:\n\t"
			 ".rept 16\n\tadd %2, %0\n\t.endr\n\t"
			 "dec %1\n\tjnz 1b" : "+r"(x), "+r"(n) : "r"(one));
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
		uint64_t t0 = ticks();
		add_chain(CALIB_ADDS);
		uint64_t t1 = ticks();
		double r = (double)CALIB_ADDS / (double)(t1 - t0);
		if (r > best)
			best = r;
	}
	return best;
}

/*
 * TSC ticks of SAMPLE_ADDS dependent adds (SAMPLE_ADDS core cycles): each sample is converted with the
 * chain run right before it and right after it, because the core clock moves under the TSC on a busy or
 * virtualised machine; a sample whose two chains disagree by more than CLOCK_HELD ran on a moving clock.
 */
#define SAMPLE_ADDS (1u << 14)
#define CLOCK_HELD 0.01
static uint64_t chain_ticks(void)
{
	uint64_t t0 = ticks();
	add_chain(SAMPLE_ADDS);
	return ticks() - t0;
}

/* What a run walks: the chase's current line, or the streams and where they stopped. */
struct walk {
	enum kind kind;
	void **p;
	const struct forward *fwd;
	size_t fwd_off;
	uint8_t *src, *dst;
	size_t bytes, off;	/* bytes: each stream's length, a multiple of UNIT */
	__m128i sink;
};

static void chase(struct walk *w, long units)
{
	void **p = w->p;
	for (long i = 0; i < units; i += 8) {
		p = *p; p = *p; p = *p; p = *p;
		p = *p; p = *p; p = *p; p = *p;
	}
	w->p = p;
}

static void stream(struct walk *w, long units)
{
	__m128i a0 = w->sink, a1 = a0, a2 = a0, a3 = a0;
	size_t off = w->off;
	for (long i = 0; i < units; i++) {
		const __m128i *s = (const __m128i *)(w->src + off);
		__m128i *d = (__m128i *)(w->dst + off);
		for (int k = 0; k < UNIT / 16; k += 4) {
			switch (w->kind) {
			case READ:
				a0 = _mm_or_si128(a0, _mm_load_si128(s + k));
				a1 = _mm_or_si128(a1, _mm_load_si128(s + k + 1));
				a2 = _mm_or_si128(a2, _mm_load_si128(s + k + 2));
				a3 = _mm_or_si128(a3, _mm_load_si128(s + k + 3));
				break;
			case WRITE:
				_mm_store_si128(d + k, a0);
				_mm_store_si128(d + k + 1, a0);
				_mm_store_si128(d + k + 2, a0);
				_mm_store_si128(d + k + 3, a0);
				break;
			case WRITE_NT:
				_mm_stream_si128(d + k, a0);
				_mm_stream_si128(d + k + 1, a0);
				_mm_stream_si128(d + k + 2, a0);
				_mm_stream_si128(d + k + 3, a0);
				break;
			default:	/* COPY */
				_mm_store_si128(d + k, _mm_load_si128(s + k));
				_mm_store_si128(d + k + 1, _mm_load_si128(s + k + 1));
				_mm_store_si128(d + k + 2, _mm_load_si128(s + k + 2));
				_mm_store_si128(d + k + 3, _mm_load_si128(s + k + 3));
				break;
			}
		}
		off += UNIT;
		if (off == w->bytes)
			off = 0;
	}
	if (w->kind == WRITE_NT)
		_mm_sfence();
	w->off = off;
	w->sink = _mm_or_si128(_mm_or_si128(a0, a1), _mm_or_si128(a2, a3));
}

static void walk(struct walk *w, long units)
{
	if (w->kind == CHASE)
		chase(w, units);
	else if (w->kind == FORWARD)
		w->fwd->chain(w->src, w->src + w->fwd_off, units);
	else
		stream(w, units);
}

/* The furthest a forwarding load may start from its store: within the pair of lines the store begins. */
#define FORWARD_OFF_MAX 64
#define STR(x) #x
#define XSTR(x) STR(x)

/*
 * forward-S-L-OFF into w, or an error message: a pairing forward.c has, that this CPU runs (what
 * forward_usable says), with the load within FORWARD_OFF_MAX.
 */
static const char *parse_forward(const char *s, struct walk *w)
{
	int store, load, off, end = 0;
	if (sscanf(s, "forward-%d-%d-%d%n", &store, &load, &off, &end) != 3 || s[end])
		return "is not forward-S-L-OFF (store bytes, load bytes, load offset)";
	if (!(w->fwd = forward_find(store, load)))
		return "pairs a store and load width forward.c has no chain for";
	if (off < 0 || off > FORWARD_OFF_MAX)
		return "has a load offset outside 0.." XSTR(FORWARD_OFF_MAX);
	if (!forward_usable(w->fwd))
		return "needs vector state this CPU or its OS does not give";
	w->fwd_off = (size_t)off;
	return NULL;
}

static int parse_kind(const char *s)
{
	if (!strncmp(s, "forward-", 8))
		return FORWARD;
	for (int k = 0; k < (int)(sizeof(kinds) / sizeof(kinds[0])); k++)
		if (!strcmp(s, kinds[k]))
			return k;
	return -1;
}

/* The ring: a uniformly random single cycle over every line (Sattolo). */
static int build_ring(uint8_t *buf, size_t lines)
{
	uint32_t *order = malloc(lines * sizeof(*order));
	if (!order)
		return -1;
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
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 5 || argc > 7) {
		fprintf(stderr, "usage: chase_probe CPU BYTES LOADS REPS [chase|read|write|write_nt|copy|forward-S-L-OFF [2m|4k]]\n");
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
	int kind = argc > 5 ? parse_kind(argv[5]) : CHASE;
	if (kind < 0) {
		fprintf(stderr, "chase_probe: KIND '%s' is not chase, read, write, write_nt, copy or forward-S-L-OFF\n", argv[5]);
		return 2;
	}
	struct walk fw = { 0 };
	const char *bad = kind == FORWARD ? parse_forward(argv[5], &fw) : NULL;
	if (bad) {
		fprintf(stderr, "chase_probe: KIND '%s' %s\n", argv[5], bad);
		return 2;
	}
	const char *pages = argc > 6 ? argv[6] : "2m";
	if (strcmp(pages, "2m") && strcmp(pages, "4k")) {
		fprintf(stderr, "chase_probe: PAGES '%s' is not 2m or 4k\n", pages);
		return 2;
	}
	/*
	 * A ring needs two lines, a stream (two, to copy) one unit, a forwarding pair the two lines its load may
	 * reach; loads go in eights; the quartiles need a run each.
	 */
	size_t least = kind == CHASE || kind == FORWARD ? 2 * LINE : kind == COPY ? 2 * UNIT : UNIT;
	if (cpu < 0 || bytes < least || lines > UINT32_MAX || loads < 8 || reps < 1
	    || (kind == FORWARD && loads % FORWARD_UNROLL)) {
		fprintf(stderr, "chase_probe: want CPU >= 0, %zu <= BYTES < 256 GiB, LOADS >= 8 (a multiple of %d to "
			"forward), REPS >= 1\n", least, FORWARD_UNROLL);
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
	madvise(buf, span, strcmp(pages, "4k") ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	memset(buf, 1, span);
	struct walk w = { .kind = (enum kind)kind, .p = (void **)buf, .fwd = fw.fwd, .fwd_off = fw.fwd_off };
	if (kind == CHASE) {
		if (build_ring(buf, lines)) {
			fprintf(stderr, "chase_probe: no memory for the ring's order (%zu lines)\n", lines);
			return 1;
		}
	} else {
		size_t each = kind == COPY ? bytes / 2 : bytes;
		w.bytes = each / UNIT * UNIT;
		w.src = buf;
		w.dst = kind == COPY ? buf + w.bytes : buf;
		w.sink = _mm_set1_epi32(1);
	}
	walk(&w, loads);	/* warm: caches, TLB, clock */
	double cpt0 = cycles_per_tick();
	double *ns = malloc(reps * sizeof(*ns)), *cyc = malloc(reps * sizeof(*cyc)), *dif = malloc(reps * sizeof(*dif));
	long kept = 0, retaken = 0, budget = 2 * reps > 16 ? 2 * reps : 16;
	while (kept < reps) {
		long sw = switches();
		double before = (double)chain_ticks();
		double t0 = now_ns();
		uint64_t c0 = ticks();
		walk(&w, loads);
		uint64_t c1 = ticks();
		double t1 = now_ns();
		walk(&w, 2 * loads);
		uint64_t c2 = ticks();
		double after = (double)chain_ticks();
		uint64_t n = c1 - c0, n2 = c2 - c1;
		double held = before > after ? before / after - 1 : after / before - 1;
		double cpt = 2.0 * SAMPLE_ADDS / (before + after);
		int bad = n2 <= n || (double)n2 > 2 * N2N_SLACK * (double)n || held > CLOCK_HELD || switches() != sw;
		if (bad) {
			if (retaken == budget)
				break;	/* the machine did not let REPS samples through: say so, keep no bad one */
			retaken++;
			continue;
		}
		ns[kept] = (t1 - t0) / loads;
		cyc[kept] = (double)n / loads * cpt;
		dif[kept] = ((double)n2 - (double)n) / loads * cpt;
		kept++;
	}
	if (!kept) {
		fprintf(stderr, "chase_probe: no sample kept (%ld thrown away: each was switched out or impossible)\n",
			retaken);
		return 1;
	}
	double cpt1 = cycles_per_tick(), cpt = (cpt0 + cpt1) / 2;
	qsort(ns, kept, sizeof(*ns), cmp);
	qsort(cyc, kept, sizeof(*cyc), cmp);
	int used = w.kind == CHASE ? w.p != NULL : w.kind == FORWARD || _mm_cvtsi128_si32(w.sink) != 0;
	printf("%.4f %.4f %.3f %.1f %.2f%s\n", ns[kept / 2], cyc[kept / 2],
	       100.0 * (cpt1 > cpt0 ? cpt1 - cpt0 : cpt0 - cpt1) / cpt, huge_share(buf, span),
	       100.0 * (cyc[3 * kept / 4] - cyc[kept / 4]) / cyc[kept / 2],
	       used ? "" : " -");	/* the walk's result used, so it is not optimised away */
	if (argc > 5) {	/* asked for a KIND: bench-table, which reads the samples */
		printf("differential %ld %ld", kept, retaken);
		for (long r = 0; r < kept; r++)
			printf(" %.4f", dif[r]);
		printf("\n");
	}
	return 0;
}
