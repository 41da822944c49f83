"""QEMU: top-down analysis where there are no counters.

-cpu Skylake-Client identifies as Skylake, whose formulas exist (events/metrics/skylake.csv), but QEMU under
TCG has no PMU: the run says once, plainly, that top-down needs counters, emits no metrics record, and goes
on measuring.  No boot of its own: the benchmark matrix's Skylake-Client boot (tests/qemu/test_bench.py) is
shared through its key.
"""
from testlib import describe
import qemurun


def test_skylake_client_says_top_down_needs_counters_and_goes_on(ctx):
    res = ctx.boot("bench-skylake")
    assert res.status == qemurun.OK, describe(res)
    said = [line for line in res.log.splitlines() if "top-down analysis needs counters" in line]
    assert len(said) == 1, said
    assert said[0].startswith("metrics: "), said
    assert res.records("metrics") == [], "no counters: no metrics record"
    assert len(res.records("bench")) > 4, describe(res)      # the run went on
    assert res.first("end")["status"] == "ok", describe(res)
