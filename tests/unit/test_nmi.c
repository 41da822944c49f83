/* NMI dispatch (platform/nmi.c): every callback runs, claims are counted, a stray NMI is survived. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "platform/nmi.h"

struct src {
	unsigned calls;
	bool fired;	/* this source raised the NMI */
};

static bool handler(void *ctx)
{
	struct src *s = ctx;
	s->calls++;
	bool f = s->fired;
	s->fired = false;
	return f;
}

static void every_handler_runs_and_claims_are_counted(void **state)
{
	(void)state;
	struct src a = { 0, false }, b = { 0, false };
	struct nmi_counts c0, c1;

	nmi_unregister_all();
	nmi_get_counts(&c0);
	assert_true(nmi_register(handler, &a));
	assert_true(nmi_register(handler, &b));
	assert_false(nmi_register(handler, &a));	/* the same pair twice */

	a.fired = true;
	b.fired = true;	/* two sources, one NMI: both must be serviced */
	nmi_dispatch();
	assert_int_equal(a.calls, 1);
	assert_int_equal(b.calls, 1);
	assert_false(a.fired || b.fired);

	nmi_dispatch();	/* nobody's */
	nmi_get_counts(&c1);
	assert_int_equal(c1.total - c0.total, 2);
	assert_int_equal(c1.claimed - c0.claimed, 1);
	assert_int_equal(c1.unclaimed - c0.unclaimed, 1);
	assert_int_equal(nmi_unclaimed(), c1.unclaimed);

	nmi_unregister(handler, &a);
	b.fired = true;
	nmi_dispatch();
	assert_int_equal(a.calls, 2);	/* unregistered: not called again */
	assert_int_equal(b.calls, 3);
	nmi_unregister_all();
}

static void spurious_nmi_with_no_handlers(void **state)
{
	(void)state;
	struct nmi_counts c0, c1;
	nmi_unregister_all();
	nmi_get_counts(&c0);
	for (int i = 0; i < 5; i++)
		nmi_dispatch();
	nmi_get_counts(&c1);
	assert_int_equal(c1.unclaimed - c0.unclaimed, 5);
	assert_int_equal(c1.claimed, c0.claimed);
}

static void table_fills_and_frees(void **state)
{
	(void)state;
	struct src s[NMI_MAX_HANDLERS + 1];
	nmi_unregister_all();
	for (int i = 0; i < NMI_MAX_HANDLERS; i++)
		assert_true(nmi_register(handler, &s[i]));
	assert_false(nmi_register(handler, &s[NMI_MAX_HANDLERS]));
	nmi_unregister(handler, &s[3]);
	assert_true(nmi_register(handler, &s[NMI_MAX_HANDLERS]));
	nmi_unregister_all();
	assert_true(nmi_register(handler, &s[0]));
	nmi_unregister_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_handler_runs_and_claims_are_counted),
		cmocka_unit_test(spurious_nmi_with_no_handlers),
		cmocka_unit_test(table_fills_and_frees),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
