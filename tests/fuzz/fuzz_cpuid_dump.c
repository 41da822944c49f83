/* Fuzz target: CPUID dump files (cpu/cpuid_dump_host.c), then identification from what they say. */
#include "tests/fuzz/fuzz.h"
#include "lib/record.h"
#include "cpu/cpu.h"
#include "cpu/cpuid_dump.h"
#include "tests/fake/hw_fake.h"

#define FLAT_MAX 64	/* tests/fake/hw_fake.c keeps this many ECX-independent leaves */

static void identify_block(const struct cpuid_dump *d, size_t cpu)
{
	const struct cpuid_dump_cpu *c = &d->cpus[cpu];
	static struct capture cap;
	static struct rec r;
	struct cpu_info ci;
	size_t flat = 0;

	if (c->count > FAKE_MAX_LEAVES)
		return;
	fake_reset();
	for (size_t i = c->first; i < c->first + c->count; i++) {
		const struct cpuid_dump_leaf *e = &d->leaves[i];
		if (e->sl == DUMP_SL_UNKNOWN)
			continue;
		fake_cpuid_set(e->leaf, e->subleaf, e->r.eax, e->r.ebx, e->r.ecx, e->r.edx);
		if (e->sl == DUMP_SL_ANY && flat++ < FLAT_MAX)
			fake_cpuid_flat(e->leaf);
	}
	capture_start(&cap);
	cpu_identify(&ci);
	cpu_report(&ci, &r);	/* starts and emits the cpu record */
	fuzz_check_text_lines(&cap);
	/* Whatever the brand string says, the report is one record. */
	FUZZ_CHECK(capture_record_count(&cap) == 1);
	capture_free(&cap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	size_t lines = cpuid_dump_line_count(text, size) + 1;
	struct cpuid_dump_leaf *leaves = calloc(lines, sizeof(*leaves));
	struct cpuid_dump_cpu *cpus = calloc(lines, sizeof(*cpus));
	struct cpuid_dump d;

	cpuid_dump_init(&d, leaves, lines, cpus, lines);
	if (cpuid_dump_parse(&d, text, size)) {
		FUZZ_CHECK(d.ncpus > 0 && d.nleaves <= lines && d.ncpus <= lines);
		for (size_t c = 0; c < d.ncpus && c < 4; c++) {
			struct cpuid_regs r;
			for (size_t i = d.cpus[c].first; i < d.cpus[c].first + d.cpus[c].count; i++)
				(void)cpuid_dump_query(&d, c, d.leaves[i].leaf, d.leaves[i].subleaf, &r);
			identify_block(&d, c);
		}
	} else {
		FUZZ_CHECK(d.err[0] != '\0');
	}
	free(leaves);
	free(cpus);
	free(text);
	return 0;
}
