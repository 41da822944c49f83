/*
 * tests/unit/identify_dump_load.h - load a CPUID dump file into the fake CPU
 * (tests/fake/hw_fake.h), for the identification tests.  Static functions:
 * included by one test file each.
 */
#ifndef PMUBOOT_TESTS_UNIT_IDENTIFY_DUMP_LOAD_H
#define PMUBOOT_TESTS_UNIT_IDENTIFY_DUMP_LOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fake/hw_fake.h"
#include "cpu/cpuid_dump.h"

#define FAKE_FLAT_MAX 64	/* hw_fake.c's table of ECX-independent leaves */

struct loaded_dump {
	char *text;
	size_t len;
	struct cpuid_dump d;
	struct cpuid_dump_leaf *leaves;
	struct cpuid_dump_cpu *cpus;
};

/* Read and parse path; false (with a message in err) when it cannot be opened or parsed. */
static bool dump_load(const char *path, struct loaded_dump *ld, char *err, size_t errcap)
{
	FILE *f = fopen(path, "rb");
	memset(ld, 0, sizeof(*ld));
	if (!f) {
		snprintf(err, errcap, "%s: cannot open", path);
		return false;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	ld->text = malloc((size_t)n + 1);
	ld->len = fread(ld->text, 1, (size_t)n, f);
	fclose(f);
	size_t lines = cpuid_dump_line_count(ld->text, ld->len);
	ld->leaves = calloc(lines, sizeof(*ld->leaves));
	ld->cpus = calloc(lines, sizeof(*ld->cpus));
	cpuid_dump_init(&ld->d, ld->leaves, lines, ld->cpus, lines);
	if (!cpuid_dump_parse(&ld->d, ld->text, ld->len)) {
		snprintf(err, errcap, "%s:%u: %s", path, ld->d.err_line, ld->d.err);
		return false;
	}
	return true;
}

static void dump_free(struct loaded_dump *ld)
{
	free(ld->text);
	free(ld->leaves);
	free(ld->cpus);
	memset(ld, 0, sizeof(*ld));
}

/*
 * Make the fake CPU answer CPUID as block `cpu` of the dump did: lines with
 * a known subleaf answer that subleaf, a lone line of a leaf that takes no
 * subleaf answers every ECX, and a line whose subleaf is unknown answers
 * nothing (as cpuid_dump_query does).  MSRs: none.
 */
static void dump_to_fake(const struct loaded_dump *ld, size_t cpu)
{
	const struct cpuid_dump_cpu *c = &ld->d.cpus[cpu];
	size_t flat = 0;

	fake_reset();
	assert_true(c->count <= FAKE_MAX_LEAVES);
	for (size_t i = c->first; i < c->first + c->count; i++) {
		const struct cpuid_dump_leaf *e = &ld->d.leaves[i];
		if (e->sl == DUMP_SL_UNKNOWN)
			continue;
		fake_cpuid_set(e->leaf, e->subleaf, e->r.eax, e->r.ebx, e->r.ecx, e->r.edx);
		if (e->sl == DUMP_SL_ANY) {
			fake_cpuid_flat(e->leaf);
			flat++;
		}
	}
	assert_true(flat <= FAKE_FLAT_MAX);
}

#endif
