"""QEMU: the audit stage on every -cpu model of the matrix: TCG has no PMU, so every check is `absent`
with the reason (never `pass`), none fails, and the run is `ok`.

The boots are the group `counters` of tests/qemu/matrix.cfg, shared with tests/qemu/test_identify.py
and test_counters.py, so a full run boots each once.
"""
from testlib import describe, matrix
import qemurun

CHECKS = ["instructions", "branches", "counters-agree", "fixed", "full-width", "overflow", "topdown", "clock"]


def audit_absent(ctx, row):
    res = ctx.boot(row.name)
    assert res.status == qemurun.OK, describe(res)
    audits = res.records("audit")
    assert [a["check"] for a in audits] == CHECKS, audits
    pmu = res.first("pmu")
    for a in audits:
        assert a["status"] == "absent", a
        assert a["why"], a
        assert a["runner"] == "ring 0", a
        assert a["counter"] is None and a["got"] is None, a
    # The counting checks say what the pmu stage said; the clock that the CPU is emulated.
    assert audits[0]["why"] == pmu["counting_reason"], (audits[0], pmu)
    assert "emulated" in audits[-1]["why"], audits[-1]
    assert "audit: 0 passed, 0 failed, 8 absent" in res.log, describe(res)
    # The audit comes before anything is measured with the counters.
    types = [r["type"] for r in res.records()]
    assert types.index("audit") == types.index("pmu") + 1, types
    assert res.run.end["status"] == "ok", res.run.end


CASES = matrix.cases("counters", audit_absent, "audit_absent")
