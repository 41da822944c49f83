"""QEMU: the no-OS runtime (issue 4) -- fixups, the fault path, NMIs, the window, paging, time.

Three boots: the self-tests on an Intel model (Skylake-Client) and on an AMD
model (EPYC), and the deliberate unexpected #UD (selftest=fault).  Benchmarks
are switched off to keep the boots short; every assertion reads records.
"""
import os
import subprocess

from testlib import Skip, describe
import qemurun

SOURCES = {"cpuid_15h", "cpuid_16h", "acpi_pm_timer", "hpet", "firmware_stall"}
VEC_UD, VEC_GP = 6, 13


def intel(ctx):
    return ctx.boot("runtime-skylake")


def amd(ctx):
    return ctx.boot("runtime-epyc")


def fault(ctx):
    return ctx.boot("runtime-fault")


def selftest(res, name):
    recs = [r for r in res.records("selftest") if r["test"] == name]
    assert len(recs) == 1, f"expected one selftest record for {name}: {recs}\n{describe(res)}"
    return recs[0]


def check(rec, name):
    found = [c for c in rec["checks"] if c["check"] == name]
    assert len(found) == 1, f"no check {name} in {rec}"
    return found[0]


def both(ctx):
    return [("Skylake-Client", intel(ctx)), ("EPYC", amd(ctx))]


def test_selftest_runs_are_clean_on_intel_and_amd_models(ctx):
    for model, res in both(ctx):
        assert res.status == qemurun.OK, f"{model}: {describe(res)}"
        assert res.qemu_rc == qemurun.QEMU_CLEAN, (model, res.qemu_rc)
        for name in ("fixup", "window", "nmi", "paging"):
            rec = selftest(res, name)
            bad = [c for c in rec["checks"] if not c["ok"]]
            assert rec["status"] == "pass" and not bad, f"{model} {name}: {bad}"
        vendor = res.first("cpu")["vendor"]
        assert vendor == ("intel" if model.startswith("Sky") else "amd"), (model, vendor)


def test_fixed_up_faults_return_the_right_vector(ctx):
    for model, res in both(ctx):
        rec = selftest(res, "fixup")
        # A write with a reserved bit to IA32_PKRS: #GP on every CPU and emulator.
        assert check(rec, "wrmsr_bogus")["value"] == VEC_GP, (model, rec)
        # QEMU's TCG has no RDPMC: #UD, for a real counter index and a bogus one.
        assert check(rec, "rdpmc_0")["value"] == VEC_UD, (model, rec)
        assert check(rec, "rdpmc_bogus")["value"] == VEC_UD, (model, rec)
        # A reserved x2APIC MSR read: #GP on silicon and KVM; QEMU 7.2's TCG reads unknown MSRs as 0.
        rd = check(rec, "rdmsr_bogus")
        assert rd["value"] in (VEC_GP, 0), (model, rd)
        if rd["value"] == 0:
            assert "does not fault" in rd["detail"], rd
        # Recovery is repeatable: a thousand faults, a thousand fixups, nothing else.
        assert check(rec, "repeat")["value"] == 1000, (model, rec)
        assert check(rec, "rdmsr_good")["ok"] and check(rec, "wrmsr_good")["ok"], (model, rec)


def test_self_nmi_is_dispatched_and_counted(ctx):
    for model, res in both(ctx):
        rec = selftest(res, "nmi")
        assert check(rec, "dispatched")["value"] == 1, (model, rec)
        assert check(rec, "counted")["value"] == 1, (model, rec)
        assert check(rec, "spurious_survived")["value"] == 1, (model, rec)
        assert check(rec, "window_polluted")["value"] == 1, (model, rec)
        # The run went on after the unclaimed NMI: the paging test and the end came after it.
        types = [r["type"] for r in res.records()]
        assert types.index("end") > types.index("selftest"), types


def test_window_masks_and_restores_every_source(ctx):
    for model, res in both(ctx):
        rec = selftest(res, "window")
        runtime = res.first("runtime")
        lvts = runtime["apic"]["lvt"]
        assert runtime["apic"]["mode"] == "xapic", runtime["apic"]
        assert check(rec, "lvt_masked")["value"] == len(lvts) >= 4, (model, rec, lvts)
        assert check(rec, "lvt_restored")["value"] == len(lvts), (model, rec)
        assert check(rec, "pic_masked")["value"] == 0xFFFF, (model, rec)
        assert check(rec, "if_clear")["ok"] and check(rec, "no_nesting")["ok"], (model, rec)
        # The firmware's own timer interrupt (a vector >= 32 left to its IDT entries) still works.
        assert check(rec, "firmware_timer")["value"] == 1, (model, rec)


def test_arena_walk_reports_the_page_sizes_mapped(ctx):
    for model, res in both(ctx):
        rec = selftest(res, "paging")
        assert check(rec, "arena_4k")["value"] == 4096, (model, rec)
        assert check(rec, "arena_2m")["value"] == 2 * 1024 * 1024, (model, rec)
        assert check(rec, "memory_4k")["ok"] and check(rec, "memory_2m")["ok"], (model, rec)
        assert check(rec, "own_tables")["ok"] and check(rec, "cr3_restored")["ok"], (model, rec)
        assert check(rec, "firmware_walk")["value"] in (4096, 2 * 1024 * 1024, 1024 ** 3), (model, rec)


def test_every_run_has_a_timing_record(ctx):
    for model, res in both(ctx) + [("max, fault", fault(ctx))]:
        timing = res.records("timing")
        assert len(timing) == 1, f"{model}: {describe(res)}"
        t = timing[0]
        assert t["source"] in SOURCES, (model, t)
        # QEMU's TSC runs at the host's rate: a plausible figure, measured with a stated error.
        assert 100_000_000 < t["tsc_hz"] < 10_000_000_000, (model, t)
        assert 0 < t["error_ppm"] < 100_000, (model, t)
        assert t["emulated"] is True, (model, t)
        assert t["core_source"] == "add_chain" and t["core_per_tsc"] > 0, (model, t)
        if t["measured"] is not None:
            m = t["measured"]
            assert m["runs"] >= 1 and m["hz"] > 0 and m["against"] in SOURCES, (model, m)


def fault_symbol(ctx, offset):
    """The function of build/pmuboot.so containing offset (the ELF is linked at 0, like the PE)."""
    so = os.path.join(ctx.build, "pmuboot.so")
    try:
        out = subprocess.run(["nm", "-n", so], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise Skip(f"nm cannot read {so}: {e}")
    best = None
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tT" and int(parts[0], 16) <= offset:
            best = parts[2]
    return best


def test_unexpected_ud_gives_fault_record_and_clean_end(ctx):
    res = fault(ctx)
    # Complete and CRC-valid (judge() checks count and CRC); the fault was asked for, so it is marked
    # expected and is not a run error: selftest=fault (and all) ends clean.
    assert res.run is not None and res.run.complete, describe(res)
    assert res.status == qemurun.OK and res.qemu_rc == qemurun.QEMU_CLEAN, describe(res)
    assert res.run.end["errors"] == 0 and res.run.end["status"] == "ok", res.run.end
    types = [r["type"] for r in res.records()]
    assert types[0] == "begin" and {"cpu", "timing", "runtime"} <= set(types), types
    assert types[-2:] == ["fault", "end"], types
    f = res.first("fault")
    assert f["vector"] == VEC_UD and f["name"] == "#UD", f
    assert f["code"].startswith("0f 0b"), f  # the ud2 itself
    assert "selftest fault" in f["activity"] and f["in_window"] is True, f
    assert f["expected"] is True and "on purpose" in f["expected_because"], f
    assert int(f["rip"], 16) - int(f["image_base"], 16) == int(f["image_offset"], 16), f
    assert fault_symbol(ctx, int(f["image_offset"], 16)) == "selftest_fault_ud", f
    # The window it happened in was undone before the report: the firmware's timer ticks again.
    assert f["firmware_timer_ok"] is True, f
    assert "EXPECTED, not a run error" in res.log and "run finished (clean)" in res.log, describe(res)
