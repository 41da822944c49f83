"""Host: pmuboot-host's timing record and the self-test stage (issue 4)."""
import json

SOURCES = {"cpuid_15h", "cpuid_16h", "clock_monotonic_raw"}


def records(out):
    return [json.loads(l.split(" ", 1)[1]) for l in out.splitlines() if l.startswith("@pmuboot ")]


def test_host_run_has_a_timing_record(ctx):
    p = ctx.run_host("run", "bench=none", check=True)
    t = [r for r in records(p.stdout) if r["type"] == "timing"]
    assert len(t) == 1, p.stdout[-2000:]
    t = t[0]
    assert t["source"] in SOURCES and t["tsc_hz"] > 100_000_000, t
    assert 0 < t["error_ppm"] < 100_000, t
    assert t["core_source"] == "add_chain" and t["core_per_tsc"] > 0, t
    if t["source"] == "clock_monotonic_raw":
        assert "clocksource" in t["measured"]["how"], t


def test_host_skips_selftests_and_rejects_unknown_names(ctx):
    p = ctx.run_host("run", "bench=none", "selftest=fixup,paging")
    st = [r for r in records(p.stdout) if r["type"] == "selftest"]
    assert [(r["test"], r["status"]) for r in st] == [("fixup", "skipped"), ("paging", "skipped")], st
    p = ctx.run_host("run", "bench=none", "selftest=fixup,bogus")
    errs = [r for r in records(p.stdout) if r["type"] == "error"]
    # The error names the argument that held the word (issue 26), not the stage that ran.
    assert any(e["source"] == "argument 2" and "'bogus'" in e["message"] for e in errs), errs
    assert p.returncode != 0
