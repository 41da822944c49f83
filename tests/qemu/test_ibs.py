"""QEMU: IBS where there is none.

QEMU under TCG offers no IBS: with an AMD -cpu model the run must say so in
one ibs record ("available":false with the reason) and go on to the end; with
an Intel model IBS is not even attempted.
"""
from testlib import describe
import qemurun

def ibs_records(res):
    return res.records("ibs"), res.records("ibs_sample")


def test_epyc_reports_ibs_absent_and_completes(ctx):
    res = ctx.boot("ibs-epyc")
    assert res.status == qemurun.OK, describe(res)
    assert res.run.end["status"] == "ok", res.run.end
    cpu = res.first("cpu")
    assert cpu and cpu["vendor"] == "amd", cpu
    ibs, samples = ibs_records(res)
    assert len(ibs) == 1, ibs
    assert ibs[0]["available"] is False and ibs[0]["reason"], ibs[0]
    # An AMD CPU: the reason is about IBS itself, not the vendor.
    assert "not attempted" not in ibs[0]["reason"], ibs[0]
    assert samples == [], samples[:2]
    # The benchmarks still ran after the IBS step.
    assert res.records("bench"), describe(res)
    assert "IBS: not used:" in res.log


def test_intel_model_does_not_attempt_ibs(ctx):
    res = ctx.boot("ibs-skylake")
    assert res.status == qemurun.OK, describe(res)
    ibs, samples = ibs_records(res)
    assert len(ibs) == 1, ibs
    assert ibs[0]["available"] is False, ibs[0]
    assert "not attempted" in ibs[0]["reason"] and "GenuineIntel" in ibs[0]["reason"], ibs[0]
    assert samples == []
    assert res.records("bench"), describe(res)
