"""The capture parser: clean captures, noise, and every kind of damage."""
import json
import zlib

import pmucap


def make_capture(records, noise=True):
    lines, crc = [], 0
    for r in records:
        t = json.dumps(r, separators=(",", ":"))
        crc = zlib.crc32((t + "\n").encode(), crc)
        lines.append("@pmuboot " + t)
        if noise:
            lines.append("\x1b[2J\x1b[01;01Hsome firmware text")
    lines.append("@pmuboot " + json.dumps({"type": "end", "status": "ok", "errors": 0,
                                           "records": len(records), "crc32": f"{crc:08x}"},
                                          separators=(",", ":")))
    return "\r\n".join(lines) + "\r\n"


RECS = [{"type": "begin", "format": 1}, {"type": "cpu", "brand": "X \u00e9"}, {"type": "bench", "n": 1}]


def test_clean_capture_with_noise(ctx):
    runs, stray = pmucap.parse("BdsDxe: loading\r\n" + make_capture(RECS))
    assert not stray and len(runs) == 1 and runs[0].complete, (stray, runs[0].problems)
    assert [r["type"] for _, r in runs[0].records] == ["begin", "cpu", "bench"]


def test_mixed_line_endings(ctx):
    cap = make_capture(RECS, noise=False).replace("\r\n", "\n", 1).replace("\r\n", "\r", 1)
    runs, _ = pmucap.parse(cap)
    assert runs[0].complete, runs[0].problems


def test_truncated_capture_detected(ctx):
    cap = make_capture(RECS)
    cut = cap[: cap.rindex("@pmuboot")]
    runs, _ = pmucap.parse(cut)
    assert not runs[0].complete and "no end record" in runs[0].problems[0]


def test_corrupted_byte_detected(ctx):
    cap = make_capture(RECS).replace('"n":1', '"n":7')
    runs, _ = pmucap.parse(cap)
    assert not runs[0].complete and "CRC mismatch" in " ".join(runs[0].problems)


def test_dropped_line_detected(ctx):
    cap = make_capture(RECS)
    lines = cap.split("\r\n")
    del lines[2]   # the cpu record
    runs, _ = pmucap.parse("\r\n".join(lines))
    assert not runs[0].complete and "counts 3 records" in " ".join(runs[0].problems)


def test_broken_json_detected(ctx):
    cap = make_capture(RECS).replace('"n":1}', '"n":1')
    runs, _ = pmucap.parse(cap)
    assert not runs[0].complete
    assert any("not valid JSON" in p for p in runs[0].problems), runs[0].problems


def test_two_runs_in_one_capture(ctx):
    runs, _ = pmucap.parse(make_capture(RECS) + "reboot noise\n" + make_capture(RECS[:2]))
    assert len(runs) == 2 and all(r.complete for r in runs)


def test_cli_exit_status(ctx, tmp=None):
    import os
    import subprocess
    import tempfile
    d = tempfile.mkdtemp()
    good, bad = os.path.join(d, "good.log"), os.path.join(d, "bad.log")
    with open(good, "w") as f:
        f.write(make_capture(RECS))
    with open(bad, "w") as f:
        f.write(make_capture(RECS)[:-40])
    tool = os.path.join(ctx.root, "tools", "pmucap")
    p = subprocess.run(["python3", tool, "parse", good], capture_output=True, text=True)
    assert p.returncode == 0 and len(p.stdout.splitlines()) == 4, p
    p = subprocess.run(["python3", tool, "parse", bad], capture_output=True, text=True)
    assert p.returncode == 2 and "no end record" in p.stderr, p
    p = subprocess.run(["python3", tool, "parse", good, "--format", "csv", "--type", "cpu"],
                       capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.splitlines()[0].startswith("type,"), p.stdout
