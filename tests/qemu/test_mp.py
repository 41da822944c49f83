"""QEMU: processors from the firmware's MP Services, cpus=, measuring passes on
application processors and parking.

Under -smp the topology record lists every processor with its own APIC ID,
probed on that processor (CPUID via StartupThisAP).  cpus=all runs the
measuring stages on each processor in turn (platform/metal/ap.h, boot/mp_pass.c):
every record of a pass carries that processor's cpu object, and its `pass`
record says how it ended and what the other processors did meanwhile.
"""
from testlib import describe
import qemurun

SMP4 = ("-smp", "4,sockets=1,cores=2,threads=2")
QUICK = "reps=3 iterations=100 warmup=0 ibs=off"


def cpu_of(rec):
    c = rec.get("cpu")
    return (c["n"], c["apic_id"]) if isinstance(c, dict) else None


def test_smp4_all(ctx):
    """The acceptance: 4 processors listed, bench records from 4 distinct APIC IDs, a valid end, power off."""
    res = ctx.boot("mp-smp4-all", cfg_text=f"cpus=all bench=store_forward {QUICK}\n", extra_args=SMP4)
    assert res.status == qemurun.OK, describe(res)
    end = res.first("end")
    assert end and end["errors"] == 0 and end["records"] == len(res.records()) - 1, describe(res)
    assert res.qemu_rc is not None and not res.stopped_after_end, describe(res)
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
    assert "parked by pmuboot" in t["neighbours"], t
    listed = {(c["n"], c["apic_id"]) for c in t["cpus"]}
    assert {(c["n"], c["apic_id"]) for c in t["chosen"]} == listed, t["chosen"]
    # Every processor measured the same variants, each record labelled with its own processor.
    bench = res.records("bench")
    by_cpu = {}
    for b in bench:
        by_cpu.setdefault(cpu_of(b), set()).add(b["variant"])
    assert set(by_cpu) == listed, sorted(by_cpu, key=str)
    assert len({frozenset(v) for v in by_cpu.values()}) == 1 and len(next(iter(by_cpu.values()))) >= 5, by_cpu
    assert len({b["cpu"]["apic_id"] for b in bench}) == 4
    # The window was established on each processor (its own local APIC masked, IF=0 verified).
    assert all(b["interrupts_off"] is True for b in bench), [b["cpu"] for b in bench if not b["interrupts_off"]]
    # Each application processor identified itself in its pass (its own cpu and pmu records).
    aps = listed - {(c["n"], c["apic_id"]) for c in t["cpus"] if c["bsp"]}
    assert {cpu_of(r) for r in res.records("cpu")} >= aps, [cpu_of(r) for r in res.records("cpu")]
    assert {cpu_of(r) for r in res.records("pmu")} == listed
    passes = res.records("pass")
    assert sorted(cpu_of(p) for p in passes) == sorted(listed), passes
    assert all(p["outcome"] == "measured" and p["why"] is None for p in passes), passes
    for p in passes:
        # -smp 4 leaves 3 others for the boot CPU's pass, 2 for an AP's (the boot CPU waits instead).
        # Under TCG MWAIT is a spin, so park=auto sleeps them in HLT.
        want = 3 if p["boot_processor"] else 2
        assert f"0 parked with MWAIT, {want} with HLT, 0 with PAUSE" in p["neighbours"], p
        assert p["boot_processor"] or "boot processor waited with HLT" in p["neighbours"], p
    assert "FAULT" not in res.log and not res.records("error"), describe(res)


def test_park_modes(ctx):
    """park= chooses how the others wait; each mode parks, wakes and measures, and the record says which.

    -cpu max has MONITOR under TCG, Skylake-Client has not: asked for MWAIT there, the others fall
    back to HLT (woken by an NMI)."""
    cases = [("max", "mwait", "MWAIT", "MWAIT"), ("max", "pause", "PAUSE", "PAUSE"),
             ("Skylake-Client", "mwait", "HLT", "HLT between the firmware's timer ticks")]
    for cpu, mode, parked, waited in cases:
        res = ctx.boot(f"mp-park-{cpu}-{mode}", cpu=cpu, cfg_text=f"cpus=0,3 park={mode} bench=ref {QUICK}\n",
                       extra_args=("-smp", "4"))
        assert res.status == qemurun.OK, (cpu, mode, describe(res))
        passes = res.records("pass")
        assert [cpu_of(p)[0] for p in passes] == [0, 3], passes
        counts = {"MWAIT": 0, "HLT": 0, "PAUSE": 0}
        counts[parked] = 3
        assert "{MWAIT} parked with MWAIT, {HLT} with HLT, {PAUSE} with PAUSE".format(**counts) \
            in passes[0]["neighbours"], (cpu, mode, passes[0])
        counts[parked] = 2
        assert "{MWAIT} parked with MWAIT, {HLT} with HLT, {PAUSE} with PAUSE".format(**counts) \
            in passes[1]["neighbours"], (cpu, mode, passes[1])
        assert f"boot processor waited with {waited}" in passes[1]["neighbours"], (cpu, mode, passes[1])
        assert "did not come out of parking" not in res.log and "did not report parked" not in res.log, res.log
        assert {cpu_of(b) for b in res.records("bench")} == {cpu_of(p) for p in passes}


def test_fault_on_an_ap_ends_only_its_pass(ctx):
    res = ctx.boot("mp-apfault", cfg_text=f"cpus=all selftest=apfault bench=ref {QUICK}\n", extra_args=("-smp", "3"))
    # The deliberate fault is marked expected: the run is clean.
    assert res.status == qemurun.OK, describe(res)
    faults = res.records("fault")
    assert sorted(cpu_of(f)[0] for f in faults) == [1, 2], faults
    for f in faults:
        assert f["name"] == "#UD" and f["expected"] is True and f["in_window"] is True, f
        assert f["activity"].startswith("selftest apfault"), f
        assert f["firmware_timer_ok"] is None, f   # an AP may not ask the firmware
        assert "the run goes on" in f["outcome"], f
    passes = {cpu_of(p)[0]: p for p in res.records("pass")}
    assert passes[0]["outcome"] == "measured" and passes[1]["outcome"] == "fault" == passes[2]["outcome"], passes
    # Only the boot CPU's pass reached the benchmarks; the APs' ended at the fault, before them.
    assert {cpu_of(b)[0] for b in res.records("bench")} == {0}
    assert "on processor 2 (APIC ID 2): its pass ends here, the run goes on" in res.log


def test_ap_that_never_returns_is_skipped(ctx):
    """selftest=aphang: the first AP pass spins inside a window; the firmware stops it at pass_timeout_s,
    and the next AP is measured normally (its windows open: the stuck one was forgotten, not nested)."""
    res = ctx.boot("mp-aphang", cfg_text=f"cpus=all selftest=aphang pass_timeout_s=2 bench=ref {QUICK}\n",
                   extra_args=("-smp", "3"), timeout=120)
    assert res.status == qemurun.OK, describe(res)
    passes = {cpu_of(p)[0]: p for p in res.records("pass")}
    assert passes[0]["outcome"] == "measured" and passes[2]["outcome"] == "measured", passes
    assert passes[1]["outcome"] == "timeout" and "within 2 s" in passes[1]["why"], passes[1]
    assert passes[1]["expected_because"] == "selftest=aphang spins on purpose", passes[1]
    # Processor 1 was stopped by the firmware and is parked again during processor 2's pass.
    assert "1 with HLT" in passes[2]["neighbours"], passes[2]
    # What the stuck processor wrote before its bound was not lost.
    assert res.log.count("selftest aphang: spinning inside a window on purpose") == 1, res.log
    # Processor 2 measured after it: windows, counters set-up and the bench ran there.
    assert {cpu_of(b)[0] for b in res.records("bench")} == {0, 2}, describe(res)
    assert all(b["interrupts_off"] is True for b in res.records("bench")), describe(res)
    assert not res.records("error"), res.records("error")
