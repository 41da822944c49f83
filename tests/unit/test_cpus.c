/*
 * cpus=: parsing, and choosing processors on fake multi-CPU machines.  Each
 * fake CPU answers CPUID with its own leaves (a P-core and an E-core of an
 * Alder Lake differ in leaf 1AH and 0BH), topo_probe runs "on" each in
 * turn, and the selection and per-type event sets are checked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <stdio.h>

#include "cpu/topo.h"
#include "cpu/uarch.h"
#include "run/config.h"
#include "run/cpus.h"
#include "tests/fake/cpus_fake.h"
#include "tests/fake/hw_fake.h"
#include "tests/fake/mp_fake.h"
#include "tests/fake/capture.h"
#include "run/run.h"
#include "platform/firmware.h"

static struct topology topo;

/* Build the table as the image does: the lister's entries, then topo_probe "on" each CPU. */
static void machine(const struct fake_cpu *cpus, size_t n, size_t bsp)
{
	memset(&topo, 0, sizeof(topo));
	topo.source = "fake";
	topo.n = topo.total = n;
	for (size_t i = 0; i < n; i++) {
		struct topo_cpu *c = &topo.cpu[i];
		c->n = (uint32_t)i;
		c->apic_id = cpus[i].x2apic;
		c->bsp = i == bsp;
		c->enabled = c->healthy = true;
		c->package = c->die = c->core = c->thread = TOPO_NONE;
		fake_cpu_become(&cpus[i]);
		topo_probe(c);
		topo_locate_from_cpuid(c);
	}
	topo_classify(&topo);
}

/* QEMU -smp 4,sockets=1,cores=2,threads=2: one type, APIC IDs 0..3. */
static const struct fake_cpu smp4[] = {
	{ SIG_SKL, false, 0, 0, 1, 2 }, { SIG_SKL, false, 0, 1, 1, 2 },
	{ SIG_SKL, false, 0, 2, 1, 2 }, { SIG_SKL, false, 0, 3, 1, 2 },
};

static size_t choose(const char *v, size_t *out, char *why)
{
	struct cpus_spec s;
	char err[200];
	assert_true(cpus_parse(v, strlen(v), &s, err, sizeof(err)));
	return cpus_select(&s, &topo, out, TOPO_MAX_CPUS, why, 200);
}

static void parse_values(void **state)
{
	(void)state;
	struct cpus_spec s;
	char why[200];

	assert_true(cpus_parse("types", 5, &s, why, sizeof(why)));
	assert_int_equal(s.mode, CPUS_TYPES);
	assert_true(cpus_parse("bsp", 3, &s, why, sizeof(why)));
	assert_int_equal(s.mode, CPUS_BSP);
	assert_true(cpus_parse("0,2-3,apic:0x10", 15, &s, why, sizeof(why)));
	assert_int_equal(s.mode, CPUS_LIST);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.item[1].lo, 2);
	assert_int_equal(s.item[1].hi, 3);
	assert_true(s.item[2].apic);
	assert_int_equal(s.item[2].lo, 16);

	static const char *const bad[] = { "everything", "3-1", "apic:", "apic:zz", "1,x", "0x3", "-1", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = 0;
		assert_false(cpus_parse(bad[i], strlen(bad[i]), &s, why, sizeof(why)));
		assert_non_null(strstr(why, "cpus="));
	}
	assert_false(cpus_parse("1,x", 3, &s, why, sizeof(why)));
	assert_non_null(strstr(why, "'x'"));
}

static void config_option(void **state)
{
	(void)state;
	struct config c;
	struct config_error e;

	config_defaults(&c);
	assert_string_equal(c.cpus, "types");
	assert_true(config_apply_word(&c, "test", "cpus=apic:2,0", 13, &e));
	assert_string_equal(c.cpus, "apic:2,0");
	assert_false(config_apply_word(&c, "test", "cpus=somewhere", 14, &e));
	assert_non_null(strstr(e.message, "somewhere"));
	assert_string_equal(e.key, "cpus");
	assert_string_equal(c.cpus, "apic:2,0");	/* the bad value changed nothing */
}

static void hybrid_types_one_of_each(void **state)
{
	(void)state;
	size_t out[TOPO_MAX_CPUS];
	char why[200];

	machine(fake_adl, FAKE_ADL_N, 0);
	size_t n = choose("types", out, why);
	assert_int_equal(n, 2);
	assert_int_equal(out[0], 0);	/* the boot CPU measures its own type */
	assert_int_equal(out[1], 4);	/* the first E-core */
	/* Each type's own event set. */
	assert_string_equal(topo.cpu[out[0]].event_set, "goldencove");
	assert_string_equal(topo.cpu[out[1]].event_set, "gracemont");
	assert_false(topo.cpu[out[0]].fallback);
	assert_false(topo.cpu[out[1]].fallback);
	assert_string_equal(why, "");

	char sum[160];
	topo_summary(&topo, sum, sizeof(sum));
	assert_string_equal(sum, "2 P-cores x 2 threads, 4 E-cores");
	size_t first[4];
	assert_int_equal(topo_types(&topo, first, 4), 2);
}

static void hybrid_boot_on_e_core(void **state)
{
	(void)state;
	size_t out[TOPO_MAX_CPUS];
	char why[200];

	/* Booted on an E-core: it measures the E type, the first P-core thread the P type. */
	machine(fake_adl, FAKE_ADL_N, 6);
	size_t n = choose("types", out, why);
	assert_int_equal(n, 2);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 6);
	/* A disabled P-core thread is passed over. */
	topo.cpu[0].enabled = false;
	n = choose("types", out, why);
	assert_int_equal(n, 2);
	assert_int_equal(out[0], 1);
}

static void non_hybrid_types_is_the_boot_cpu(void **state)
{
	(void)state;
	size_t out[TOPO_MAX_CPUS];
	char why[200];

	machine(smp4, 4, 0);
	assert_int_equal(choose("types", out, why), 1);
	assert_int_equal(out[0], 0);
	assert_int_equal(choose("bsp", out, why), 1);
	assert_int_equal(choose("all", out, why), 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(topo.cpu[out[i]].apic_id, i);

	char sum[160];
	topo_summary(&topo, sum, sizeof(sum));
	assert_string_equal(sum, "1 package x 2 cores x 2 threads");
	assert_int_equal(topo.cpu[3].core, 1);
	assert_int_equal(topo.cpu[3].thread, 1);
}

static void lists_and_missing_cpus(void **state)
{
	(void)state;
	size_t out[TOPO_MAX_CPUS];
	char why[200];

	machine(smp4, 4, 0);
	assert_int_equal(choose("apic:3,1,1", out, why), 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 3);
	assert_string_equal(why, "");

	assert_int_equal(choose("2,7,apic:9", out, why), 1);
	assert_int_equal(out[0], 2);
	assert_non_null(strstr(why, "no processor 7"));
	assert_non_null(strstr(why, "no processor with APIC ID 9"));

	topo.cpu[2].enabled = false;
	assert_int_equal(choose("all", out, why), 3);
	assert_non_null(strstr(why, "processor 2 is disabled"));
	assert_int_equal(choose("0-3", out, why), 3);
	assert_int_equal(choose("0-4000000000", out, why), 3);	/* a silly range ends, naming what is absent */
	assert_non_null(strstr(why, "no processor 4"));
}

static void p_core_only_sku_is_exact(void **state)
{
	(void)state;
	/* i5-12400: model 0x97, Hybrid clear, leaf 1AH not enumerated. */
	static const struct fake_cpu p_only[] = { { SIG_ADL_S, false, 0, 0, 1, 7 }, { SIG_ADL_S, false, 0, 1, 1, 7 } };
	machine(p_only, 2, 0);
	assert_string_equal(topo.cpu[0].uarch_key, "goldencove");
	assert_false(topo.cpu[0].fallback);

	/* The same model with the Hybrid bit set but no core type stays a marked guess. */
	static const struct fake_cpu unknown[] = { { SIG_ADL_S, true, 0, 0, 1, 7 } };
	machine(unknown, 1, 0);
	assert_string_equal(topo.cpu[0].uarch_key, "goldencove");
	assert_true(topo.cpu[0].fallback);

	/* And cpu_identify, the boot CPU's identification, agrees. */
	struct cpu_info ci;
	fake_cpu_become(&p_only[0]);
	cpu_identify(&ci);
	assert_false(ci.hybrid);
	assert_false(ci.fallback);
	assert_string_equal(ci.event_set, "goldencove");
}

/* ---- the topology stage on a fake firmware: every AP probed on itself, a timeout, the refusal ---- */

static size_t fw_timeout_cpu = MP_FAKE_NONE;
static bool fw_measure;
static struct capture cap;

/* StartupThisAP on processor fw_timeout_cpu: the AP does not return. */
static int run_starting(size_t n, const char **why)
{
	if (n != fw_timeout_cpu)
		return FW_RUN_OK;
	*why = "fake: the AP did not return (EFI_TIMEOUT)";
	return FW_RUN_TIMEOUT;
}

static const struct mp_fake_hooks fw_hooks = { .run_starting = run_starting };

static struct run_mp fake_mp = { .source = "fake mp services", .count = mp_fake_count, .info = mp_fake_info,
				 .run_on = mp_fake_run_on, .why_not = "fake: no AP runtime",
				 .neighbours = "fake: waiting in the firmware" };

static struct config stage_cfg;
static struct run_env stage_env;

static void stage(const struct fake_cpu *cpus, size_t n, size_t bsp, const char *opts)
{
	struct config_error e;
	fake_mp.measure_on = fw_measure ? mp_fake_measure_on : NULL;	/* pmuboot-host measures; the image not yet */
	config_defaults(&stage_cfg);
	if (opts)
		assert_true(config_apply_word(&stage_cfg, "test", opts, strlen(opts), &e));
	memset(&stage_env, 0, sizeof(stage_env));
	stage_env.cfg = &stage_cfg;
	stage_env.mp = &fake_mp;
	mp_fake_start(cpus, n, bsp, &fw_hooks);
	capture_free(&cap);	/* the previous stage's capture, if any */
	capture_start(&cap);
	run_topology_stage(&stage_env);
}

static bool text_has(const char *a, const char *b)
{
	for (size_t i = 0; i < cap.n; i++)
		if (cap.lines[i] && strstr(cap.lines[i], a) && (!b || strstr(cap.lines[i], b)))
			return true;
	return false;
}

static size_t records_of(const char *type)
{
	char want[40];
	size_t k = 0;
	snprintf(want, sizeof(want), "\"type\":\"%s\"", type);
	for (size_t i = 0; i < capture_record_count(&cap); i++)
		k += strstr(capture_record(&cap, i), want) != NULL;
	return k;
}

static void stage_probes_each_ap_and_survives_a_timeout(void **state)
{
	(void)state;
	fw_timeout_cpu = 2;
	fw_measure = false;
	stage(smp4, 4, 0, "cpus=all");
	fw_timeout_cpu = MP_FAKE_NONE;
	const struct topology *t = run_topology();
	assert_int_equal(t->n, 4);
	assert_true(t->cpu[1].probed && t->cpu[3].probed);
	assert_false(t->cpu[2].probed);
	assert_int_equal(t->cpu[3].cpuid_apic_id, 3);	/* CPUID ran on processor 3, not on the boot CPU */
	assert_int_equal(t->cpu[3].core, 1);
	assert_true(text_has("processor 2 (APIC ID 2): not identified", "EFI_TIMEOUT"));
	/* The image cannot measure on APs: asked for all, it says so as an error and keeps the boot CPU. */
	assert_int_equal(records_of("error"), 1);
	assert_non_null(strstr(capture_find(&cap, "error"), "not supported yet: fake: no AP runtime"));
	assert_int_equal(stage_env.nsel, 1);
	assert_int_equal(stage_env.sel[0], 0);
	const char *topo_rec = capture_find(&cap, "topology");
	assert_non_null(topo_rec);
	assert_non_null(strstr(topo_rec, "\"chosen\":[{\"n\":0,\"apic_id\":0}]"));
	assert_non_null(strstr(topo_rec, "\"probed\":false"));
	assert_non_null(strstr(topo_rec, "\"neighbours\":\"fake: waiting in the firmware\""));
}

static void stage_hybrid_default_is_a_note(void **state)
{
	(void)state;
	fw_measure = false;
	stage(fake_adl, FAKE_ADL_N, 0, NULL);
	const char *topo_rec = capture_find(&cap, "topology");
	assert_non_null(strstr(topo_rec, "\"event_set\":\"goldencove\""));
	assert_non_null(strstr(topo_rec, "\"event_set\":\"gracemont\""));
	assert_non_null(strstr(topo_rec, "2 P-cores x 2 threads, 4 E-cores"));
	/* The default on a hybrid part wants an E-core too; without the AP runtime that is a note, not an error. */
	assert_int_equal(records_of("error"), 0);
	assert_true(text_has("not supported yet", "core type only"));
	assert_int_equal(stage_env.nsel, 1);
	assert_int_equal(stage_env.sel[0], 0);

	/* Where processors can be measured (pmuboot-host), types keeps both, and a list names what is missing. */
	fw_measure = true;
	stage(fake_adl, FAKE_ADL_N, 0, NULL);
	assert_int_equal(stage_env.nsel, 2);
	assert_int_equal(stage_env.sel[1], 4);
	stage(fake_adl, FAKE_ADL_N, 0, "cpus=5,12");
	assert_int_equal(stage_env.nsel, 1);
	assert_int_equal(stage_env.sel[0], 5);
	assert_non_null(strstr(capture_find(&cap, "error"), "no processor 12"));
}

static int free_capture(void **state)
{
	(void)state;
	capture_free(&cap);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_values),
		cmocka_unit_test(config_option),
		cmocka_unit_test(hybrid_types_one_of_each),
		cmocka_unit_test(hybrid_boot_on_e_core),
		cmocka_unit_test(non_hybrid_types_is_the_boot_cpu),
		cmocka_unit_test(lists_and_missing_cpus),
		cmocka_unit_test(p_core_only_sku_is_exact),
		cmocka_unit_test_teardown(stage_probes_each_ap_and_survives_a_timeout, free_capture),
		cmocka_unit_test_teardown(stage_hybrid_default_is_a_note, free_capture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
