"""run-qemu's verdict (tools/qemurun.py judge) when the serial capture holds no record: QEMU's
debug-exit status and the results file the image saved decide, and they must agree.  Synthetic
captures, no boot."""
import json
import os
import shutil
import tempfile
import zlib

import qemurun


def run_text(status="ok", errors=0, damage=False, trailer=False):
    """A complete run as the image saves it (bare JSON lines), its count and CRC right unless damaged."""
    recs = ['{"type":"begin","format":1,"program":"image","version":"0.1.0","build":"x","options":{}}',
            '{"type":"cpu","vendor":"intel"}']
    recs += ['{"type":"error","source":"load-options","what":"reps","message":"bad"}'] * errors
    crc = 0
    for r in recs:
        crc = zlib.crc32((r + "\n").encode(), crc)
    if damage:
        recs[1] = recs[1].replace("intel", "amd  ")
    end = json.dumps({"type": "end", "status": status, "errors": errors, "records": len(recs),
                      "crc32": f"{crc:08x}"}, separators=(",", ":"))
    text = "".join(r + "\n" for r in recs) + end + "\n"
    if trailer:
        text += '{"type":"upload","final":true,"ok":false}\n'
    return text


def judged(text, rc, serial=""):
    d = tempfile.mkdtemp(prefix="pmuboot-verdict-")
    try:
        path = os.path.join(d, "results-0001.jsonl")
        if text is not None:
            with open(path, "w") as f:
                f.write(text)
        res = qemurun.Result()
        res.log = serial
        res.qemu_rc = rc
        res.qemu_output = ""   # what QEMU printed: nothing here (qemurun sets it after a real boot)
        res.saved = [path] if text is not None else []
        return qemurun.judge(res)
    finally:
        shutil.rmtree(d)


def test_clean_run_without_serial_is_0(ctx):
    res = judged(run_text(trailer=True), qemurun.QEMU_CLEAN)
    assert res.status == qemurun.OK and res.judged_by == "results file", res.reason
    assert "debug-exit" in res.reason and "results-0001.jsonl" in res.reason


def test_errors_without_serial_are_1(ctx):
    res = judged(run_text(status="error", errors=1), qemurun.QEMU_ERRORS)
    assert res.status == qemurun.RUN_ERRORS, res.reason


def test_disagreement_damage_or_no_debug_exit_are_2(ctx):
    cases = [(run_text(), qemurun.QEMU_ERRORS, "disagree"),                 # file ok, QEMU says errors
             (run_text(status="error", errors=1), qemurun.QEMU_CLEAN, "disagree"),
             (run_text(damage=True), qemurun.QEMU_CLEAN, "CRC mismatch"),
             (run_text().rsplit('{"type":"end"', 1)[0], qemurun.QEMU_CLEAN, "no end record"),
             ("", qemurun.QEMU_CLEAN, "holds no run"),
             (run_text(), 0, "not through the debug-exit device")]        # a plain power-off
    for text, rc, want in cases:
        res = judged(text, rc)
        assert res.status == qemurun.BROKEN and want in res.reason, (want, res.status, res.reason)
    # Neither a capture nor a file: nothing says the run finished.
    res = judged(None, qemurun.QEMU_CLEAN)
    assert res.status == qemurun.BROKEN and res.judged_by == "serial", res.reason


def test_a_serial_capture_is_judged_by_itself(ctx):
    serial = "".join("@pmuboot " + l + "\r\n" for l in run_text(status="error", errors=1).splitlines())
    res = judged(run_text(), qemurun.QEMU_ERRORS, serial=serial)
    assert res.judged_by == "serial" and res.status == qemurun.RUN_ERRORS, res.reason


def test_the_upload_trailer_is_not_damage(ctx):
    import pmucap
    runs, stray = pmucap.parse(run_text(trailer=True))
    assert runs[0].complete and len(stray) == 1 and qemurun.trailer_only(stray), stray
    runs, stray = pmucap.parse(run_text() + '{"type":"cpu"}\n')
    assert not qemurun.trailer_only(stray), stray
