"""QEMU: processors from the firmware's MP Services, cpus= and the per-CPU records.

Under -smp the topology record lists every processor with its own APIC ID,
probed on that processor (CPUID via StartupThisAP).  Measuring on an
application processor is not supported in the image yet: cpus=all is
refused plainly (an error record) and the boot processor still measures.
"""
from testlib import describe
import qemurun

SMP4 = ("-smp", "4,sockets=1,cores=2,threads=2")
QUICK = "reps=3 iterations=100 warmup=0 ibs=off"


def test_smp4_all(ctx):
    res = ctx.boot("mp-smp4-all", cfg_text=f"cpus=all bench=store_forward {QUICK}\n", extra_args=SMP4)
    # The refusal is an error; the run still ends cleanly and QEMU exits with the run's status.
    assert res.status == qemurun.RUN_ERRORS, describe(res)
    end = res.first("end")
    assert end and end["errors"] == 1 and res.qemu_rc is not None, describe(res)
    topo = res.records("topology")
    assert len(topo) == 1, describe(res)
    t = topo[0]
    assert t["source"] == "uefi mp services" and t["count"] == 4 and len(t["cpus"]) == 4, t
    assert len({c["apic_id"] for c in t["cpus"]}) == 4, t["cpus"]
    assert [c["bsp"] for c in t["cpus"]].count(True) == 1, t["cpus"]
    assert all(c["probed"] and c["enabled"] for c in t["cpus"]), t["cpus"]
    # The firmware's location and CPUID's on each AP agree: 2 cores x 2 threads.
    assert sorted((c["core"], c["thread"]) for c in t["cpus"]) == [(0, 0), (0, 1), (1, 0), (1, 1)], t["cpus"]
    assert t["summary"] == "1 package x 2 cores x 2 threads", t
    assert "firmware's MP wait loop" in t["neighbours"], t
    assert "APIC ID" not in "".join(l for l in res.log.splitlines() if "lister says" in l), res.log
    errors = res.records("error")
    assert len(errors) == 1 and "not supported yet" in errors[0]["message"], errors
    bsp = next(c for c in t["cpus"] if c["bsp"])
    assert [(c["n"], c["apic_id"]) for c in t["chosen"]] == [(bsp["n"], bsp["apic_id"])], t["chosen"]
    bench = res.records("bench")
    assert bench and all(b["cpu"] == {"n": bsp["n"], "apic_id": bsp["apic_id"]} for b in bench), bench[:1]


def test_smp2_default_measures_once(ctx):
    res = ctx.boot("mp-smp2", cfg_text=f"bench=ref {QUICK}\n", extra_args=("-smp", "2"))
    assert res.status == qemurun.OK, describe(res)
    t = res.records("topology")[0]
    assert t["count"] == 2 and len({c["apic_id"] for c in t["cpus"]}) == 2, t
    assert t["cpus_option"] == "types" and len(t["chosen"]) == 1, t
    bench = res.records("bench")
    assert len(res.records("bench_setup")) == 1, describe(res)
    assert {(b["cpu"]["n"], b["cpu"]["apic_id"]) for b in bench} == {(t["chosen"][0]["n"], t["chosen"][0]["apic_id"])}


def test_smp2_default_costs_little(ctx):
    """The default run under -smp 2 (one probe per AP) takes no more than 20% longer than under -smp 1.

    TCG boot times vary with the host's load, so 3 s of absolute slack is allowed on top."""
    two = ctx.boot("mp-smp2", cfg_text=f"bench=ref {QUICK}\n", extra_args=("-smp", "2"))
    one = ctx.boot("mp-smp1", cfg_text=f"bench=ref {QUICK}\n", extra_args=("-smp", "1"))
    assert one.status == qemurun.OK and two.status == qemurun.OK, (describe(one), describe(two))
    assert one.records("topology")[0]["count"] == 1, describe(one)
    assert two.elapsed <= one.elapsed * 1.2 + 3.0, (two.elapsed, one.elapsed)


def test_bad_cpus_value_is_named(ctx):
    res = ctx.boot("mp-bad", cfg_text=f"cpus=apic:x bench=none {QUICK}\n")
    assert res.status == qemurun.RUN_ERRORS, describe(res)
    errors = res.records("error")
    assert len(errors) == 1 and errors[0]["what"] == "cpus" and "apic:x" in errors[0]["message"], errors
    assert res.records("topology")[0]["cpus_option"] == "types", describe(res)
