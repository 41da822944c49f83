"""QEMU: freq=base boost=off under TCG pins nothing, says why, and the run is clean.

Under QEMU's TCG the clock is the emulator's: there is no frequency to pin and no HWP, PERF_CTL,
CPPC or P-state MSR behind it.  The `timing` record must carry the options as given, no control,
the reason (emulated), no measurement, and no `restore` record of the clock may follow, since
nothing was written; the run ends with status ok (docs/runtime.md, "A pinned clock").
"""
from testlib import describe
import qemurun

def test_freq_under_tcg_pins_nothing_and_says_why(ctx):
    res = ctx.boot("freq-tcg")
    assert res.status == qemurun.OK, describe(res)
    timing = res.records("timing")
    assert len(timing) == 1, describe(res)
    t = timing[0]
    assert t["emulated"] is True, t
    assert t["freq_option"] == "base", t
    assert t["freq_asked"] is None and t["freq_control"] is None, t
    assert t["freq_why"].startswith("emulated (QEMU TCG): the clock is the emulator's"), t
    assert t["freq_chosen"] is None, t
    assert t["freq_measured"] is None and t["freq_measured_why"] == "nothing was pinned", t
    assert t["freq_held"] is None, t
    assert t["boost"] == {"asked": "off", "done": "unchanged"}, t
    assert not [r for r in res.records("restore") if r.get("what") == "clock"], res.records("restore")
    assert "clock: not pinned (freq=base boost=off): emulated (QEMU TCG)" in res.log, describe(res)
    assert not res.records("error"), res.records("error")
    assert res.run.end["status"] == "ok", res.run.end
