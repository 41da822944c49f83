"""QEMU: the benchmark suite runs to completion on each CPU model of the matrix.

Under TCG timings mean nothing, so nothing here looks at a figure: the
records must be complete and well-formed, marked emulated, and the timing
checks skipped rather than failed.  Option handling (bench=, reps=,
iterations=, a bad benchmark name) is checked on one boot.
"""
from testlib import describe, matrix
from testlib.bench import check_bench, CHECK_KEYS
import qemurun


def suite_completes(ctx, row):
    """A boot of the group `bench` of tests/qemu/matrix.cfg: the foundation's clean boot (tests/qemu/test_boot.py,
    "default", -cpu max), an old Intel core, a client Skylake and an AMD Zen 3 model."""
    res = ctx.boot(row.name)
    assert res.status == qemurun.OK, describe(res)
    setup = res.first("bench_setup")
    assert setup is not None, describe(res)
    assert setup["emulated"] is True and setup["emulator"] is True, setup
    benches = res.records("bench")
    for b in benches:
        check_bench(b, setup)
        assert b["emulated"] is True, b
    kernels = {b["kernel"] for b in benches}
    assert {"ref", "store_forward", "alias_4k", "split"} <= kernels, kernels
    split = [b for b in benches if b["kernel"] == "split"]
    # Vector variants the emulated CPU cannot run are chosen but skipped, each with a `runs` check.
    skipped = [c for c in res.records("check") if c["what"] == "runs"]
    assert all(c["status"] == "skip" and "not usable here" in c["reason"] for c in skipped), skipped
    assert len(benches) + len(skipped) == setup["variants"] - len({b["variant"] for b in split}) + len(split), setup
    for c in res.records("check"):
        assert CHECK_KEYS <= set(c), c
        # Timing under TCG is never judged: no pass or fail from it.
        if c["what"] in ("timing", "reference"):
            assert c["status"] == "skip", c
    assert "bench: checks" in res.log, describe(res)


CASES = matrix.cases("bench", suite_completes, "suite_completes")


def test_options_choose_and_size_the_runs(ctx):
    res = ctx.boot("bench-opts", cfg_text="bench=store_forward.size_mismatch,warp reps=3 iterations=100 warmup=0\n")
    assert res.status == qemurun.RUN_ERRORS, describe(res)
    errors = res.records("error")
    assert len(errors) == 1 and errors[0]["what"] == "bench" and "warp" in errors[0]["message"], errors
    benches = res.records("bench")
    assert [(b["kernel"], b["variant"]) for b in benches] == [
        ("ref", "add_chain"), ("ref", "load_chain"), ("store_forward", "forward"),
        ("store_forward", "size_mismatch")], benches
    for b in benches:
        # 100 rounded up to a whole number of unrolled loop trips.
        assert b["reps"] == 3 and b["iterations"] == 104, b
        assert b["cycles"]["n"] == 3 or b["exhausted"], b
