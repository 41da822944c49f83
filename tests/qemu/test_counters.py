"""QEMU: no counters to program on any -cpu model of the matrix, said plainly, and the run goes on.

QEMU's TCG emulates no PMU, so the counter driver must decline in the `pmu` record with the reason
identification gave, write no MSR (no `restore` record follows), and the run must end cleanly.  The
boots are those of tests/qemu/test_identify.py (same keys and options), so a full run boots once.
"""
from testlib import describe
import qemurun

CFG = "bench=none\n"

MATRIX = [("id-conroe", "Conroe"), ("id-penryn", "Penryn"), ("id-nehalem", "Nehalem"),
          ("id-skylake", "Skylake-Client"), ("id-icelake-server", "Icelake-Server"),
          ("id-denverton", "Denverton"), ("id-opteron-g3", "Opteron_G3"), ("id-epyc", "EPYC"),
          ("id-epyc-milan", "EPYC-Milan")]


def no_counting_on(key, cpu):
    def test(ctx):
        res = ctx.boot(key, cpu=cpu, cfg_text=CFG)
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
    return test


CASES = [(f"no_counting_{cpu.split(',')[0].lower()}", no_counting_on(key, cpu)) for key, cpu in MATRIX]
