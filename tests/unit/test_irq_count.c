/*
 * The host window's count of interrupts (linux/irq_count.h): the parse of /proc/interrupts text as
 * Linux writes it, and when a window may start from its predecessor's last count.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "linux/irq_count.h"

/* The layout of a Linux 6.x guest's /proc/interrupts, with twelve CPUs so that CPU1 and CPU10 differ. */
static const char TEXT[] =
	"            CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6       CPU7       CPU8       CPU9      CPU10      CPU11       \n"
	"  24:          1          0          0          0          0          0          0          0          0          0          5          0  IO-APIC   5-edge      ACPI:Ged\n"
	"  26:          0         13          0          0          0          0          0          0          0          0          0          0  IO-APIC   4-edge      ttyS0\n"
	"  28:          0          2          0          0          0          0          0          0          0          0          0          7 PCI-MSIX-0000:00:01.0   0-edge      virtio0-config\n"
	" NMI:          0          1          0          0          0          0          0          0          0          0          0          0   Non-maskable interrupts\n"
	" LOC:    1817698    2880122         10         20         30         40         50         60         70         80        900       1000   Local timer interrupts\n"
	" RES:        100        200          0          0          0          0          0          0          0          0          3          0   Rescheduling interrupts\n"
	" ERR:          4\n"
	" MIS:          0\n";

static void column_sums_every_row_of_that_cpu(void **state)
{
	(void)state;
	uint64_t sum;
	assert_true(irq_count_column(TEXT, 1, &sum));
	assert_int_equal(sum, 13 + 2 + 1 + 2880122 + 200);
	assert_true(irq_count_column(TEXT, 10, &sum));
	assert_int_equal(sum, 5 + 900 + 3);
	assert_true(irq_count_column(TEXT, 11, &sum));
	assert_int_equal(sum, 7 + 1000);
	/* ERR: has one column, CPU0's place: it adds to CPU0 and to no one else. */
	assert_true(irq_count_column(TEXT, 0, &sum));
	assert_int_equal(sum, 1 + 1817698 + 100 + 4);
}

static void column_of_a_cpu_not_named_is_refused(void **state)
{
	(void)state;
	uint64_t sum = 99;
	assert_false(irq_count_column(TEXT, 12, &sum));
	assert_int_equal(sum, 0);
	assert_false(irq_count_column("", 0, &sum));
	assert_false(irq_count_column("garbage without a header\n 1: 2 3\n", 0, &sum));
}

static void truncated_text_counts_what_it_holds(void **state)
{
	(void)state;
	/* A row cut short in the middle (a read that stopped at the buffer's end) adds what it has. */
	static const char cut[] = "   CPU0   CPU1\n LOC:   10   20   Local timer\n RES:   5";
	uint64_t sum;
	assert_true(irq_count_column(cut, 1, &sum));
	assert_int_equal(sum, 20);
	assert_true(irq_count_column(cut, 0, &sum));
	assert_int_equal(sum, 15);
}

static void chain_reuses_a_recent_count_on_the_same_cpu(void **state)
{
	(void)state;
	struct irq_chain c = { 0 };
	uint64_t count = 0;
	assert_false(irq_chain_reuse(&c, 1, 1000, &count)); /* nothing read yet */
	irq_chain_note(&c, 1, 4242, 1000000);
	assert_true(irq_chain_reuse(&c, 1, 1000000 + 5000, &count));
	assert_int_equal(count, 4242);
	assert_true(irq_chain_reuse(&c, 1, 1000000 + IRQ_CHAIN_MAX_NS, &count));
}

static void chain_reads_afresh_after_a_gap_another_cpu_or_a_clock_backwards(void **state)
{
	(void)state;
	struct irq_chain c = { 0 };
	uint64_t count = 7;
	irq_chain_note(&c, 1, 4242, 1000000);
	assert_false(irq_chain_reuse(&c, 1, 1000000 + IRQ_CHAIN_MAX_NS + 1, &count));
	assert_false(irq_chain_reuse(&c, 0, 1000000 + 10, &count));
	assert_false(irq_chain_reuse(&c, 1, 999999, &count));
	assert_int_equal(count, 7); /* untouched when refused */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(column_sums_every_row_of_that_cpu),
		cmocka_unit_test(column_of_a_cpu_not_named_is_refused),
		cmocka_unit_test(truncated_text_counts_what_it_holds),
		cmocka_unit_test(chain_reuses_a_recent_count_on_the_same_cpu),
		cmocka_unit_test(chain_reads_afresh_after_a_gap_another_cpu_or_a_clock_backwards),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
