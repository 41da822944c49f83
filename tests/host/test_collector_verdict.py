"""The verdict rule on files (tools/pmucap/verdict.py, docs/results-format.md "Verdicts"): what
`pmucap table`, `parse` and `junit` say of a run whose end record's status and errors contradict the
records it closes, and the verdict of every upload fixture and of real captures.  Also: the upload
fixtures are what tests/fixtures/uploads/make_uploads.py writes."""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import testlib.collector as cl
from pmucap import capture  # noqa: E402

mk = cl.make_uploads
FIX = os.path.join(cl.ROOT, "tests", "fixtures", "captures")


def tool(*args):
    return subprocess.run([sys.executable, cl.PMUCAP, *args], capture_output=True, text=True, timeout=60)


def written(text):
    fd, path = tempfile.mkstemp(prefix="pmucap-verdict-", suffix=".jsonl")
    with os.fdopen(fd, "w", encoding="latin-1", newline="") as f:
        f.write(text)
    return path


def verdict_of(path):
    cap = capture.Capture(path)
    assert len(cap.runs) == 1
    return cap.runs[0].verdict(cap.stray)


def test_upload_fixtures_are_what_the_script_writes(ctx):
    made = mk.uploads()
    on_disk = sorted(f for f in os.listdir(cl.UPLOADS) if f.endswith(".jsonl"))
    assert on_disk == sorted(made), (on_disk, sorted(made))
    for name, text in made.items():
        assert cl.upload_text(name) == text, f"{name} differs from make_uploads.py's: run it again"


def test_verdict_of_each_upload(ctx):
    want = {"machine-a.jsonl": ("PASS", []), "machine-b.jsonl": ("PASS", []), "machine-c.jsonl": ("PASS", []),
            "other-cpu.jsonl": ("PASS", []),
            "fail-audit.jsonl": ("FAIL", ["line 4: audit instructions failed on pmc2 (pmc2 counted 39712 "
                                          "instructions, 40000 expected)"]),
            "fail-check.jsonl": ("FAIL", ["line 11: check store_forward.size_mismatch timing failed (penalty below "
                                          "the expected range)"])}
    for name, (verdict, reasons) in want.items():
        assert verdict_of(os.path.join(cl.UPLOADS, name)) == (verdict, reasons), name
    v, reasons = verdict_of(os.path.join(cl.UPLOADS, "truncated.jsonl"))
    assert v == "INCOMPLETE" and reasons[0].startswith("no end record"), reasons
    v, reasons = verdict_of(os.path.join(cl.UPLOADS, "crc-damaged.jsonl"))
    assert v == "INVALID" and reasons[0].startswith("CRC mismatch"), reasons
    v, reasons = verdict_of(os.path.join(cl.UPLOADS, "forged-ok.jsonl"))
    assert v == "INVALID" and reasons == [
        "end record says status 'ok', 0 error(s), but the records hold 2 run error(s): line 4: audit instructions "
        "failed on pmc2 (pmc2 counted 39712 instructions, 40000 expected); line 42: error record (bench: a variant "
        "faulted)"], reasons


def test_table_refuses_an_end_record_its_records_contradict(ctx):
    path = os.path.join(cl.UPLOADS, "forged-ok.jsonl")
    for cmd in (["table"], ["parse"], ["junit"]):
        p = tool(*cmd, path)
        err = p.stderr.strip().splitlines()
        assert p.returncode == 2, (cmd, p.returncode, p.stderr)
        assert len(err) == 1 and err[0].startswith(f"pmucap: {path}: invalid: run 1 (from line 1): end record says "
                                                   "status 'ok', 0 error(s), but the records hold 2 run error(s)"), err
        assert "audit instructions failed on pmc2" in err[0] and "error record (bench: a variant faulted)" in err[0]
    p = tool("table", "--allow-incomplete", path)
    assert p.returncode == 0 and p.stdout.splitlines()[-1].startswith("verdict: INVALID: end record says"), p.stdout
    assert "pmucap: warning:" in p.stderr and "invalid" in p.stderr, p.stderr
    # junit still writes its XML: the integrity case fails with the contradiction.
    root = ET.fromstring(tool("junit", path).stdout)
    integrity = next(tc for tc in root.iter("testcase") if tc.get("name") == "integrity")
    assert integrity.find("failure").get("message") == "the end record contradicts the records"
    # The same records under an honest end record: FAIL, and table exits 0 naming what failed.
    p = tool("table", os.path.join(cl.UPLOADS, "fail-audit.jsonl"))
    assert p.returncode == 0 and p.stdout.splitlines()[-1] == (
        "verdict: FAIL: line 4: audit instructions failed on pmc2 (pmc2 counted 39712 instructions, 40000 expected)"), \
        p.stdout[-400:]


def test_every_way_an_end_record_can_contradict(ctx):
    base = mk.machine_run("LAB-0001")
    audit = {"type": "audit", "check": "branches", "status": "fail", "counter": "pmc1", "why": "short by 3"}
    selftest = {"type": "selftest", "test": "window", "status": "fail", "passed": 9, "failed": 1}
    fault = {"type": "fault", "vector": 13, "name": "#GP", "activity": "bench store_forward", "expected": False}
    asked = dict(fault, expected=True, expected_because="selftest=fault asks for it")
    user = {"type": "fault", "kernel": "user.bad", "name": "#UD", "outcome": "kernel not measured"}
    error = {"type": "error", "source": "pmuboot.cfg:3", "what": "reps", "message": "out of range"}
    check = {"type": "check", "kernel": "store_forward", "what": "timing", "status": "fail", "reason": "negative"}
    cases = [
        # (records added, status, errors, the verdict, words its first reason holds)
        ([], "ok", 0, "PASS", None),
        ([asked, user], "ok", 0, "PASS", None),          # neither is a run error
        ([error], "error", 1, "FAIL", "error record (pmuboot.cfg:3: out of range)"),
        ([audit, selftest, fault], "error", 3, "FAIL", "audit branches failed on pmc1 (short by 3)"),
        ([error], "ok", 0, "INVALID", "end record says status 'ok', 0 error(s), but the records hold 1 run error(s)"),
        ([selftest], "ok", 0, "INVALID", "self-test window failed"),
        ([fault], "ok", 0, "INVALID", "fault #GP during bench store_forward"),
        ([], "error", 1, "INVALID", "end record says status 'error', 1 error(s), but no record holds a run error"),
        ([], "error", 0, "INVALID", "end record contradicts itself: status 'error' with 0 error(s)"),
        ([], "ok", 2, "INVALID", "end record contradicts itself: status 'ok' with 2 error(s)"),
        ([audit], "error", 3, "INVALID", "end record counts 3 error(s), the records hold 1: line 41: audit branches"),
        ([], "fine", 0, "INVALID", "end record status 'fine' is neither 'ok' nor 'error'"),
        # Failed checks are no run errors, and do not hide the one behind them.
        ([dict(check, variant=f"v{i}") for i in range(12)] + [error], "ok", 0, "INVALID",
         "hold 1 run error(s): line 53: error record (pmuboot.cfg:3: out of range)"),
        ([dict(check, variant=f"v{i}") for i in range(12)], "ok", 0, "FAIL", "and 4 more"),
    ]
    for added, status, errors, verdict, words in cases:
        path = written(mk.frame(base + added, status=status, errors=errors))
        try:
            v, reasons = verdict_of(path)
            assert v == verdict and (words is None or any(words in r for r in reasons)), \
                (added, status, errors, v, reasons)
            p = tool("table", path)
            if verdict == "INVALID":
                assert p.returncode == 2 and words in p.stderr and len(p.stderr.splitlines()) == 1, (words, p.stderr)
            else:
                assert p.returncode == 0 and p.stdout.splitlines()[-1].startswith(f"verdict: {verdict}"), p.stdout[-300:]
        finally:
            os.unlink(path)


def test_real_captures_are_believed(ctx):
    """No false contradiction: the image's own captures and a pmuboot-host run here are PASS."""
    for name in ("qemu-usb-serial.log", "qemu-usb-results.jsonl"):
        assert verdict_of(os.path.join(FIX, name)) == ("PASS", []), name
    p = ctx.run_host("run", "bench=ref", check=True)
    path = written(p.stdout)
    try:
        cap = capture.Capture(path)
        run = cap.runs[-1]
        errors = [json.dumps(dict(r))[:120] for _, r in run.records if r["type"] == "error"]
        v, reasons = run.verdict()
        assert run.end["errors"] == len(errors) and v == ("FAIL" if errors else "PASS"), (v, reasons, errors)
        assert tool("table", path).returncode == 0
    finally:
        os.unlink(path)
