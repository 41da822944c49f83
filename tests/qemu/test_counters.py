"""QEMU: no counters to program on any -cpu model of the matrix, said plainly, and the run goes on.

QEMU's TCG emulates no PMU, so the counter driver must decline in the `pmu` record with the reason
identification gave, write no MSR (no `restore` record follows), and the run must end cleanly.  The
boots are the group `counters` of tests/qemu/matrix.cfg, shared with tests/qemu/test_identify.py.
"""
from testlib import describe, matrix
import qemurun


def no_counting(ctx, row):
    res = ctx.boot(row.name)
    assert res.status == qemurun.OK, describe(res)
    pmu = res.first("pmu")
    assert pmu is not None, describe(res)
    assert pmu["count_backend"] == "msr", pmu
    assert pmu["counting"] is False, pmu
    # The driver's reason is identification's: no PMU, and why.
    assert pmu["counting_reason"] and pmu["counting_reason"] == pmu["absent_reason"], pmu
    assert not res.records("restore"), res.records("restore")
    assert "pmu: no event counting: " + pmu["counting_reason"] in res.log, describe(res)
    assert res.run.end["status"] == "ok", res.run.end


CASES = matrix.cases("counters", no_counting, "no_counting")
