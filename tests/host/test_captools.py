"""The capture tools (tools/pmucap parse, table, junit, compare, plot) on real captures, and on damaged copies.

The real captures are tests/fixtures/captures/ (a QEMU boot of the USB image: the serial
log and the saved results file); tests/qemu/test_results_file.py runs the same tools on
the captures of its own boots.  Every kind of damage must be detected and reported, never
silently accepted.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import pmucap
from pmucap import cmd_compare as pmucap_compare
from pmucap import cmd_plot as pmucap_plot
from testlib import plot_python, reframe

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "captures")
SERIAL = os.path.join(FIX, "qemu-usb-serial.log")
SAVED = os.path.join(FIX, "qemu-usb-results.jsonl")


def read(path):
    with open(path, "rb") as f:
        return f.read().decode("latin-1")


def tool(ctx, *args):
    return subprocess.run([sys.executable, os.path.join(ctx.root, "tools", "pmucap"), *args],
                          capture_output=True, text=True, timeout=60)


def plot_tool(ctx, *args):
    return subprocess.run([plot_python(), os.path.join(ctx.root, "tools", "pmucap"), "plot", *args],
                          capture_output=True, text=True, timeout=120)


def tmpfile(text, suffix=".log"):
    fd, path = tempfile.mkstemp(prefix="pmucap-test-", suffix=suffix)
    with os.fdopen(fd, "w", encoding="latin-1", newline="") as f:
        f.write(text)
    return path


def record_lines(text):
    """Indices of the record lines of a capture split on CRLF."""
    lines = text.split("\r\n")
    return lines, [i for i, l in enumerate(lines) if l.startswith("@pmuboot {")]


def real_records():
    runs, _ = pmucap.parse(read(SERIAL))
    return [r for _, r in runs[0].records]


# --- the real captures, intact ---

def test_real_serial_capture_is_complete(ctx):
    runs, stray = pmucap.parse(read(SERIAL))
    assert not stray and len(runs) == 1, (stray, len(runs))
    run = runs[0]
    assert run.complete, run.problems
    types = [r["type"] for _, r in run.records]
    assert types[0] == "begin" and "platform" in types and "cpu" in types, types
    assert run.end["records"] == len(run.records)
    # The serial log really is raw: escapes, CRLF and firmware lines are in it.
    raw = read(SERIAL)
    assert "\x1b[" in raw and "\r\n" in raw and "BdsDxe" in raw


def test_saved_file_holds_the_serial_records(ctx):
    s_runs, _ = pmucap.parse(read(SERIAL))
    f_runs, f_stray = pmucap.parse(read(SAVED))
    assert not f_stray and len(f_runs) == 1 and f_runs[0].complete, (f_stray, f_runs[0].problems)
    assert f_runs[0].texts == s_runs[0].texts
    assert f_runs[0].end == s_runs[0].end
    # Bare JSON lines, LF only.
    assert "\r" not in read(SAVED) and "@pmuboot" not in read(SAVED)


def test_parse_cli_json_and_csv(ctx):
    p = tool(ctx, "parse", SERIAL)
    assert p.returncode == 0, p.stderr
    recs = [json.loads(l) for l in p.stdout.splitlines()]
    n_bench = sum(1 for r in recs if r["type"] == "bench")
    assert recs[-1]["type"] == "end" and recs[-1]["records"] == len(recs) - 1
    p = tool(ctx, "parse", SAVED, "--format", "csv", "--type", "bench")
    assert p.returncode == 0, p.stderr
    rows = p.stdout.splitlines()
    assert len(rows) == 1 + n_bench, (len(rows), n_bench)
    header = rows[0].split(",")
    assert "kernel" in header and "cycles.median" in header, header


# --- damage: every kind detected by parse, junit, compare and plot ---

def damaged_variants():
    """(name, text, expected problem) for damaged copies of the real serial capture."""
    text = read(SERIAL)
    lines, recs = record_lines(text)
    out = []
    # Truncated: in the middle of a record line, and cleanly after a record line.
    mid = lines[recs[len(recs) // 2]]
    cut = text.index(mid) + len(mid) // 2
    out.append(("truncated mid-record", text[:cut], "not valid JSON|no end record"))
    out.append(("truncated before end", text[:text.index('@pmuboot {"type":"end"')], "no end record"))
    # A corrupted byte inside a figure: still valid JSON, so only the CRC can tell.
    bench = next(i for i in recs if '"type":"bench"' in lines[i])
    m = re.search(r'"median":(\d)', lines[bench])
    digit = m.group(1)
    bad = lines[:]
    bad[bench] = lines[bench][:m.start(1)] + str((int(digit) + 1) % 10) + lines[bench][m.end(1):]
    out.append(("corrupted digit", "\r\n".join(bad), "CRC mismatch"))
    # A corrupted line that is no longer JSON.
    bad = lines[:]
    bad[bench] = lines[bench].replace('"cycles":{', '"cycles":{{', 1)
    out.append(("broken JSON line", "\r\n".join(bad), "not valid JSON"))
    # A dropped record line and a repeated one.
    bad = lines[:recs[2]] + lines[recs[2] + 1:]
    out.append(("dropped line", "\r\n".join(bad), "counts \\d+ records"))
    bad = lines[:recs[3]] + [lines[recs[3]]] + lines[recs[3]:]
    out.append(("repeated line", "\r\n".join(bad), "counts \\d+ records"))
    # Noise spliced into a record line (a line break and firmware text in the middle of it).
    bad = lines[:]
    half = len(lines[bench]) // 2
    bad[bench] = lines[bench][:half] + "\r\nBdsDxe: noise\r\n" + lines[bench][half:]
    out.append(("noise inside a record", "\r\n".join(bad), "not valid JSON|damaged record line|counts"))
    # A record line whose prefix was hit: it no longer counts, so the count is short.
    bad = lines[:]
    bad[recs[4]] = lines[recs[4]].replace("@pmuboot ", "@pmub0ot ", 1)
    out.append(("damaged prefix", "\r\n".join(bad), "counts \\d+ records"))
    return out


def test_damage_is_detected_by_parse(ctx):
    for name, text, want in damaged_variants():
        runs, stray = pmucap.parse(text)
        problems = list(stray) + [p for r in runs for p in r.problems]
        assert problems, f"{name}: not detected"
        assert any(re.search(want, p) for p in problems), (name, problems)
        path = tmpfile(text)
        try:
            p = tool(ctx, "parse", path)
            assert p.returncode == 2, (name, p.returncode, p.stderr)
            assert re.search(want, p.stderr), (name, p.stderr)
            p = tool(ctx, "parse", path, "--allow-incomplete")
            assert p.returncode == 0 and p.stderr.strip(), (name, p.returncode)
        finally:
            os.unlink(path)


def test_damage_fails_junit_integrity(ctx):
    for name, text, _ in damaged_variants():
        path = tmpfile(text)
        try:
            p = tool(ctx, "junit", path)
            assert p.returncode == 2, (name, p.returncode, p.stderr)
            root = ET.fromstring(p.stdout)
            integrity = [tc for tc in root.iter("testcase") if tc.get("name") == "integrity"]
            assert integrity and integrity[0].find("failure") is not None, name
            assert int(root.get("failures")) >= 1, name
        finally:
            os.unlink(path)


def test_damage_stops_compare_and_plot(ctx):
    d = tempfile.mkdtemp(prefix="pmucap-test-")
    for name, text, _ in damaged_variants():
        path = os.path.join(d, "bad.log")
        with open(path, "w", encoding="latin-1", newline="") as f:
            f.write(text)
        p = tool(ctx, "compare", SERIAL, path)
        assert p.returncode == 2 and "truncated or damaged" in p.stderr, (name, p.returncode, p.stderr)
        svg = os.path.join(d, "x.svg")
        p = tool(ctx, "plot", path, "-o", svg)
        assert p.returncode == 2 and not os.path.exists(svg), (name, p.returncode)
        # Asked to go on regardless, they do, and still say what is wrong.
        p = tool(ctx, "compare", SERIAL, path, "--allow-incomplete")
        assert p.returncode == 0 and p.stderr.strip(), (name, p.returncode)
    subprocess.run(["rm", "-rf", d])


def test_noise_between_records_is_tolerated(ctx):
    """Noise between lines, LF-only and CR-only line ends, escapes: the run is still intact."""
    lines, recs = record_lines(read(SERIAL))
    noisy = []
    for i, l in enumerate(lines):
        noisy.append(l)
        if i in recs:
            noisy.append("\x1b[1;33mFirmware: SMM handler says hello\x1b[0m")
    text = "\r\n".join(noisy).replace("\r\n", "\n", 5).replace("\r\n", "\r", 5)
    runs, stray = pmucap.parse(text)
    assert not stray and len(runs) == 1 and runs[0].complete, (stray, runs[0].problems)


def test_saved_file_truncated_mid_line(ctx):
    text = read(SAVED)
    runs, _ = pmucap.parse(text[: len(text) * 2 // 3])
    assert not runs[0].complete
    assert any("no end record" in p for p in runs[0].problems), runs[0].problems


# --- junit on the real capture ---

def test_junit_real_capture(ctx):
    d = tempfile.mkdtemp(prefix="pmucap-test-")
    out = os.path.join(d, "junit.xml")
    p = tool(ctx, "junit", SERIAL, "-o", out)
    assert p.returncode == 0, p.stderr
    root = ET.parse(out).getroot()
    run = pmucap.parse(read(SERIAL))[0][0]
    checks = pmucap.run_records(run, "check")
    errors = pmucap.run_records(run, "error")
    cases = list(root.iter("testcase"))
    # integrity, the verdict, one per check and error record
    assert len(cases) == 2 + len(checks) + len(errors), (len(cases), len(checks))
    # This QEMU run verified nothing: its verdict case is skipped too (issue 34), never a green pass.
    skipped = 1 + sum(1 for c in checks if c.get("status") == "skip")
    failed = sum(1 for c in checks if c.get("status") == "fail") + len(errors)
    assert int(root.get("skipped")) == skipped and int(root.get("failures")) == failed
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props.get("build") == run.records[0][1]["build"], props
    subprocess.run(["rm", "-rf", d])


def test_junit_failing_check_and_error(ctx):
    recs = real_records()
    check = dict(next(r for r in recs if r["type"] == "check"), status="fail", reason="penalty was negative")
    err = {"type": "error", "source": "pmuboot.cfg:3", "what": "reps", "message": "out of range"}
    odd = dict(check, status="maybe")
    text = reframe(recs + [check, err, odd])
    path = tmpfile(text)
    try:
        p = tool(ctx, "junit", path)
        assert p.returncode == 0, p.stderr
        root = ET.fromstring(p.stdout)
        fails = [tc for tc in root.iter("testcase") if tc.find("failure") is not None]
        msgs = [tc.find("failure").get("message") for tc in fails]
        assert "penalty was negative" in msgs and "out of range" in msgs, msgs
        # An unknown status is an error, never a pass.
        assert any(tc.find("error") is not None for tc in root.iter("testcase"))
    finally:
        os.unlink(path)


def test_junit_fault_a_selftest_asked_for_is_no_failure(ctx):
    """selftest=fault/apfault: the fault record says expected; junit passes it, and fails an unexpected one."""
    recs = real_records()
    fault = {"type": "fault", "name": "#UD", "activity": "selftest apfault", "expected": True,
             "expected_because": "selftest=apfault executes ud2 on purpose", "cpu": {"n": 1, "apic_id": 1}}
    path = tmpfile(reframe(recs + [fault, dict(fault, expected=False, expected_because=None)]))
    try:
        p = tool(ctx, "junit", path)
        assert p.returncode == 0, p.stderr
        cases = {tc.get("name"): tc for tc in ET.fromstring(p.stdout).iter("testcase")}
        assert cases["fault.1"].find("failure") is None, ET.tostring(cases["fault.1"])
        assert cases["fault.2"].find("failure") is not None, ET.tostring(cases["fault.2"])
    finally:
        os.unlink(path)


# --- compare ---

def test_compare_serial_with_saved_file(ctx):
    p = tool(ctx, "compare", SERIAL, SAVED, "--format", "json", "--fail-on-change")
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)
    n_bench = len([r for r in real_records() if r["type"] == "bench"])
    cyc = [r for r in res["rows"] if r["metric"] == "cycles"]
    assert len(cyc) == n_bench and all(r["delta"] == 0 and not r["flag"] for r in cyc), cyc[:2]
    assert res["differences"] == []


def test_compare_flags_a_change_beyond_the_spread(ctx):
    recs = real_records()
    benches = [r for r in recs if r["type"] == "bench"]
    target = max(benches, key=lambda r: r["cycles"]["median"] - (r["cycles"]["max"] - r["cycles"]["min"]))
    key = pmucap.variant_key(target)
    changed, dropped = [], pmucap.variant_key(benches[0])
    for r in recs:
        if r["type"] == "bench" and pmucap.variant_key(r) == key:
            c = r["cycles"]
            shift = (c["max"] - c["min"]) + 0.5 * abs(c["median"]) + 1
            r = dict(r, cycles={k: (v + shift if k in ("min", "median", "max") else v) for k, v in c.items()})
        if r["type"] == "bench" and pmucap.variant_key(r) == dropped:
            continue
        changed.append(r)
    path = tmpfile(reframe(changed))
    try:
        p = tool(ctx, "compare", SERIAL, path, "--fail-on-change")
        assert p.returncode == 3, (p.returncode, p.stderr)
        flagged = [l for l in p.stdout.splitlines() if "beyond spread" in l]
        assert len(flagged) == 1 and flagged[0].startswith(key) and "HIGHER" in flagged[0], flagged
        assert any(l.startswith(dropped) and "only in A" in l for l in p.stdout.splitlines()), p.stdout
        p = tool(ctx, "compare", SERIAL, path, "--format", "csv")
        assert p.returncode == 0
        rows = [l.split(",") for l in p.stdout.splitlines()[1:]]
        assert sum(1 for r in rows if r[-1] == "higher") == 1
    finally:
        os.unlink(path)


def test_table_shows_disturbances_and_unclean_figures(ctx):
    """The ledger's counts by source are summed under the table; a figure marked unstable carries a ~."""
    recs = real_records()
    benches = [i for i, r in enumerate(recs) if r["type"] == "bench"]
    assert len(benches) >= 2
    first, second = recs[benches[0]], recs[benches[1]]
    recs[benches[0]] = dict(first, dropped=3, retaken=3, unstable=None,
                            disturbed={"smi_count": 2, "smi_event": 0, "frequency": 0, "thermal": 0,
                                       "package_thermal": 0, "nmi": 1})
    recs[benches[1]] = dict(second, dropped=16, retaken=15, unstable="disturbed",
                            disturbed={"smi_count": 0, "smi_event": 0, "frequency": 16, "thermal": 0,
                                       "package_thermal": 0, "nmi": 0})
    path = tmpfile(reframe(recs))
    try:
        p = tool(ctx, "table", path)
        assert p.returncode == 0, p.stderr
        out = p.stdout
        assert "19 sample(s) disturbed in all (frequency 16, nmi 1, smi_count 2), 18 taken again" in out, out
        k2 = pmucap.variant_key(second)
        row = next(l for l in out.splitlines() if l.startswith(k2 + " ") or l.startswith(k2 + "\t"))
        assert f"{second['cycles']['median']:.3f}~" in row, row
        assert f"~ unstable: {k2} (disturbed)" in out, out
        # A field of the wrong type is one error up front, not a crash.
        recs[benches[0]] = dict(first, disturbed=[1, 2])
        bad = tmpfile(reframe(recs))
        try:
            p = tool(ctx, "table", bad)
            assert p.returncode != 0 and "disturbed" in p.stderr and "Traceback" not in p.stderr, p.stderr
        finally:
            os.unlink(bad)
    finally:
        os.unlink(path)
    # The real capture (before the ledger existed): dropped only, nothing disturbed, no ~.
    p = tool(ctx, "table", SERIAL)
    assert p.returncode == 0 and "~" not in p.stdout and "disturbed" not in p.stdout, p.stdout


def test_compare_judgement_rules(ctx):
    fig = lambda lo, med, hi: {"min": lo, "median": med, "max": hi}
    # Overlapping ranges: never flagged, however large the delta.
    assert pmucap_compare.judge(fig(1, 2, 10), fig(5, 9, 12), 1.0, 0.01)[2] == ""
    # Apart and large: flagged, with delta and ratio.
    d, ratio, flag = pmucap_compare.judge(fig(9.9, 10, 10.1), fig(11.9, 12, 12.1), 1.0, 0.01)
    assert flag == "higher" and abs(d - 2) < 1e-9 and abs(ratio - 1.2) < 1e-9
    assert pmucap_compare.judge(fig(9.9, 10, 10.1), fig(7, 7.5, 8), 1.0, 0.01)[2] == "lower"
    # Apart but below the noise floor: not flagged.
    assert pmucap_compare.judge(fig(0, 0, 0), fig(0.002, 0.002, 0.002), 1.0, 0.01)[2] == ""
    assert pmucap_compare.judge(fig(100, 100, 100), fig(100.5, 100.5, 100.5), 1.0, 0.01)[2] == ""
    # A zero reference has no ratio.
    assert pmucap_compare.judge(fig(0, 0, 0), fig(1, 1, 1), 1.0, 0.01)[1] is None


def test_compare_notes_different_runs(ctx):
    recs = real_records()
    other = []
    for r in recs:
        if r["type"] == "begin":
            r = dict(r, options=dict(r["options"], iterations="5000"))
        if r["type"] == "cpu":
            r = dict(r, brand="Another CPU")
        other.append(r)
    path = tmpfile(reframe(other))
    try:
        p = tool(ctx, "compare", SERIAL, path)
        assert p.returncode == 0, p.stderr
        assert "option iterations" in p.stdout and "cpu brand" in p.stdout, p.stdout[:600]
    finally:
        os.unlink(path)


# --- plot ---

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_plot_one_run_and_a_comparison(ctx):
    d = tempfile.mkdtemp(prefix="pmucap-test-")
    n_bench = len([r for r in real_records() if r["type"] == "bench"])
    one, two, svg = os.path.join(d, "one.png"), os.path.join(d, "two.png"), os.path.join(d, "two.svg")
    p = plot_tool(ctx, SERIAL, "-o", one)
    assert p.returncode == 0, p.stderr
    with open(one, "rb") as f:
        assert f.read(8) == PNG_MAGIC
    # The message counts the variants drawn, one line.
    assert p.stderr.count("\n") == 1 and f" {n_bench} kernel variant(s)" in p.stderr, p.stderr
    # Two runs, one variant dropped from B: the union is drawn.
    recs = [r for r in real_records() if not (r["type"] == "bench" and r["variant"] == "offset_32")]
    b = tmpfile(reframe(recs))
    try:
        p = plot_tool(ctx, SERIAL, b, "-o", two)
        assert p.returncode == 0 and f" {n_bench} kernel variant(s)" in p.stderr, p.stderr
        # The extension chooses the format.
        p = plot_tool(ctx, SERIAL, b, "-o", svg)
        assert p.returncode == 0, p.stderr
        root = ET.parse(svg).getroot()
        assert root.tag.endswith("svg")
        texts = "".join(root.itertext())
        assert "not in B" in texts or "offset_32" in texts, texts[:300]
        p = plot_tool(ctx, SERIAL, "-o", os.path.join(d, "x.gif"))
        assert p.returncode == 1 and "must end in" in p.stderr, p.stderr
        # No event counts in a QEMU run: asking for events is an error, not an empty picture.
        p = plot_tool(ctx, SERIAL, "--metric", "events", "-o", os.path.join(d, "ev.png"))
        assert p.returncode == 1 and "no event counts" in p.stderr, p.stderr
        assert not os.path.exists(os.path.join(d, "ev.png"))
    finally:
        os.unlink(b)
    assert [f for f in os.listdir(d) if f.startswith(".pmucap-plot-")] == []
    subprocess.run(["rm", "-rf", d])


def test_plot_panels_controls_and_penalties(ctx):
    """What is drawn, without matplotlib: one panel per kernel, each control first, penalties."""
    run = pmucap.parse(read(SERIAL))[0][0]
    table = pmucap.bench_table(run)
    panels = pmucap_plot.build_panels([table], "cycles")
    kernels = []
    for r in pmucap.run_records(run, "bench"):
        if r["kernel"] not in kernels:
            kernels.append(r["kernel"])
    assert [p.title.split(":")[0] for p in panels] == kernels
    assert pmucap_plot.variants_drawn(panels) == len(table)
    for p in panels:
        seen = set()
        for row in p.rows:
            rec = table[row.key]
            if rec.get("control"):
                ctl = f"{rec['kernel']}.{rec['control']}" + (f"@{rec['arena']}" if rec.get("arena") else "")
                assert ctl in seen, (row.key, "drawn before its control", ctl)
                assert row.bars[0].penalty == rec["penalty"]["median"]
            seen.add(row.key)
    assert any(row.is_control for p in panels for row in p.rows)
    assert pmucap_plot.build_panels([table], "events") == []


def test_plot_axis_cuts_an_outlier(ctx):
    """One huge figure must not set the scale: the axis fits the others and the outlier is cut."""
    mk = lambda m, hi=None: pmucap_plot.Bar({"min": m * 0.9, "median": m, "max": hi or m * 1.1}, None)
    rows = [pmucap_plot.Row(f"k.v{i}", f"v{i}", False, [mk(m)]) for i, m in enumerate((10, 12, 11, 9, 500))]
    lo, hi = pmucap_plot.axis_limits(rows)
    assert lo == 0 and 12 * 1.1 <= hi < 50, (lo, hi)
    # A whisker far out (one slow sample) is cut too, the median kept.
    rows[0] = pmucap_plot.Row("k.v0", "v0", False, [mk(10, hi=900)])
    lo, hi = pmucap_plot.axis_limits(rows)
    assert hi < 50, hi
    # Few bars: nothing is called an outlier.
    lo, hi = pmucap_plot.axis_limits(rows[3:])
    assert hi >= 500


def test_plot_bars_follow_the_figures(ctx):
    """In the drawn picture, bar length is the median: a doubled figure draws a doubled bar,
    and an outlier bar stops at the axis edge."""
    script = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from pmucap import cmd_plot as P
from matplotlib.figure import Figure
fig = lambda m: {"min": m * 0.9, "median": m, "max": m * 1.1}
rows = [P.Row("k.a", "a", True, [P.Bar(fig(10.0), None)]), P.Row("k.b", "b", False, [P.Bar(fig(20.0), 10.0)]),
        P.Row("k.c", "c", False, [P.Bar(fig(11.0), 1.0)]), P.Row("k.d", "d", False, [P.Bar(fig(900.0), 890.0)])]
ax = Figure().subplots()
P.draw_panel(ax, P.Panel("k: cycles", "cycles per iteration", rows), 1)
widths = [r.get_width() for r in ax.patches]
texts = [t.get_text() for t in ax.texts]
print(json.dumps({"widths": widths, "xlim": list(ax.get_xlim()), "texts": texts}))
"""
    p = subprocess.run([plot_python(), "-c", script, os.path.join(ctx.root, "tools")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    w = out["widths"]
    assert len(w) == 4 and abs(w[1] / w[0] - 2.0) < 1e-6, w
    assert w[3] < 100 and w[3] == max(w), w                  # cut at the edge, not 900 long
    assert out["xlim"][1] < 100, out["xlim"]
    assert any("median 900" in t for t in out["texts"]), out["texts"]
    assert any("+10.00 vs control" in t for t in out["texts"]), out["texts"]
