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


def _run_tool(ctx, *args, module=False):
    import subprocess
    import sys
    if module:
        env = dict(__import__("os").environ, PYTHONPATH=__import__("os").path.join(ctx.root, "tools"))
        return subprocess.run([sys.executable, "-m", "pmucap", *args], capture_output=True, text=True,
                              timeout=60, env=env, cwd="/")
    return subprocess.run([sys.executable, __import__("os").path.join(ctx.root, "tools", "pmucap"), *args],
                          capture_output=True, text=True, timeout=60)


def _two_run_file(text):
    import tempfile
    fd, path = tempfile.mkstemp(prefix="pmucap-test-", suffix=".log")
    with open(fd, "w", encoding="latin-1", newline="") as f:
        f.write(text)
    return path


def test_package_runs_both_ways_and_numbers_runs_from_one(ctx):
    import json
    import os
    second = [{"type": "begin", "format": 1}, {"type": "cpu", "brand": "second", "hypervisor": False}]
    path = _two_run_file(make_capture(RECS) + "reboot\r\n" + make_capture(second))
    try:
        for module in (False, True):
            p = _run_tool(ctx, "parse", path, module=module)
            assert p.returncode == 0, p.stderr
            recs = [json.loads(l) for l in p.stdout.splitlines()]
            assert sorted({r["_run"] for r in recs}) == [1, 2], recs
            assert [r["brand"] for r in recs if r["type"] == "cpu" and r["_run"] == 2] == ["second"]
        # --run N is the same numbering as _run (and compare's --run-a/--run-b).
        p = _run_tool(ctx, "parse", path, "--run", "2", "--type", "cpu")
        assert p.returncode == 0 and json.loads(p.stdout)["brand"] == "second", p.stdout
        p = _run_tool(ctx, "parse", path, "--run", "3")
        assert p.returncode == 2 and "holds 2 run(s); there is no run 3" in p.stderr, p.stderr
        p = _run_tool(ctx, "parse", "--help")
        assert "from 1" in p.stdout and "_run" in p.stdout, p.stdout
        # CSV booleans as JSON writes them.
        p = _run_tool(ctx, "parse", path, "--format", "csv", "--type", "cpu", "--run", "2")
        rows = p.stdout.splitlines()
        assert rows[1].split(",")[rows[0].split(",").index("hypervisor")] == "false", rows
    finally:
        os.unlink(path)


def test_table_of_the_real_capture(ctx):
    import os
    fix = os.path.join(ctx.root, "tests", "fixtures", "captures")
    runs, _ = pmucap.parse(open(os.path.join(fix, "qemu-usb-serial.log"), "rb").read().decode("latin-1"))
    benches = pmucap.run_records(runs[0], "bench")
    checks = pmucap.run_records(runs[0], "check")
    for cap in ("qemu-usb-serial.log", "qemu-usb-results.jsonl"):
        p = _run_tool(ctx, "table", os.path.join(fix, cap))
        assert p.returncode == 0 and p.stderr == "", p.stderr
        lines = p.stdout.splitlines()
        head = next(i for i, l in enumerate(lines) if l.startswith("variant"))
        rows = lines[head + 1: head + 1 + len(benches)]
        assert [r.split()[0] for r in rows] == [pmucap.variant_key(b) for b in benches], rows
        sm = next(r for r in rows if r.startswith("store_forward.size_mismatch "))
        b = next(b for b in benches if b["variant"] == "size_mismatch")
        assert f"{b['cycles']['median']:.3f}" in sm and f"{b['penalty']['median']:+.3f}" in sm and "forward" in sm
        # Counted in the image's summary line's words (issue 34).
        assert f"checks: 0 passed, 0 failed, {len(checks)} skipped, 0 unstable" in p.stdout and "timing under an emulator" in p.stdout, p.stdout[-400:]


def _per_cpu_capture(ctx, cpus):
    """The fixture run's bench and check records, once per processor in cpus (each with its cpu object);
    processor k's cycles are the fixture's plus 100 * k, so a row shows whose figure it holds."""
    import copy
    import os
    fix = os.path.join(ctx.root, "tests", "fixtures", "captures", "qemu-usb-serial.log")
    runs, _ = pmucap.parse(open(fix, "rb").read().decode("latin-1"))
    recs = [{"type": "begin", "format": 1}]
    for k in cpus:
        for _, r in runs[0].records:
            if r["type"] not in ("bench", "check"):
                continue
            r = copy.deepcopy(r)
            r["cpu"] = {"n": k, "apic_id": 2 * k}
            if r["type"] == "bench":
                for f in ("min", "median", "max"):
                    r["cycles"][f] += 100 * k
            recs.append(r)
    return runs[0], make_capture(recs)


def test_table_and_plot_keep_processors_apart(ctx):
    """A run measured on processors 0 and 1 (cpus=all): one row per processor and variant, each with its own
    figure and checks, each variant against its own processor's control; one processor: no prefix."""
    import os
    from pmucap import cmd_plot
    fixture, text = _per_cpu_capture(ctx, (0, 1))
    benches = pmucap.run_records(fixture, "bench")
    path = _two_run_file(text)
    try:
        p = _run_tool(ctx, "table", path)
        assert p.returncode == 0, p.stderr
        rows = {l.split()[0]: l for l in p.stdout.splitlines() if l[:2] in ("0:", "1:")}
        assert len(rows) == 2 * len(benches), sorted(rows)
        b = next(b for b in benches if b["variant"] == "size_mismatch")
        for k in (0, 1):
            row = rows[f"{k}:{pmucap.variant_key(b)}"]
            assert f"{b['cycles']['median'] + 100 * k:.3f}" in row, row
            assert "timing:skip[1]" in row and row.count("skip") == 1, row   # its own check only
        runs, _ = pmucap.parse(text)
        panels = cmd_plot.build_panels([pmucap.bench_table(runs[0])], "cycles")
        sf = next(pl for pl in panels if pl.title.startswith("store_forward"))
        labels = [r.label for r in sf.rows]
        assert "0:forward" in labels and "1:size_mismatch" in labels, labels
        # Each processor's control is hatched, and 1:size_mismatch is placed after 1:forward.
        assert {r.label for r in sf.rows if r.is_control} >= {"0:forward", "1:forward"}, labels
        assert labels.index("1:forward") < labels.index("1:size_mismatch"), labels
    finally:
        os.unlink(path)
    _, one = _per_cpu_capture(ctx, (3,))
    runs, _ = pmucap.parse(one)
    assert list(pmucap.bench_table(runs[0])) == [pmucap.variant_key(b) for b in benches]
