"""pmucap's top-down (issue 23's metrics records): the table's column, its problems, and plot --metric topdown.

The captures are tests/fixtures/topdown/ (synthetic, README.md there).  Expected figures are worked
out here from the fixtures' own records, not copied from pmucap's output.
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import pmucap
from pmucap import plot_common, plot_topdown, topdown
from testlib import plot_python

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "tests", "fixtures", "topdown")
REAL = os.path.join(os.path.dirname(FIX), "captures", "qemu-usb-serial.log")
SKL, ZEN4, HYBRID, BAD, BAD_CPU = (os.path.join(FIX, n) for n in
                                   ("skylake.jsonl", "zen4.log", "hybrid.jsonl", "bad.jsonl", "bad-cpu.jsonl"))
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# The short names the column gives the level-1 classes (docs/lab.md), written out here on purpose.
SHORT = {"frontend_bound": "FE", "bad_speculation": "BS", "backend_bound": "BE", "retiring": "RE",
         "smt_contention": "SMT"}
STACK_ORDER = list(SHORT)


def tool(*args, python=None):
    return subprocess.run([python or sys.executable, os.path.join(ROOT, "tools", "pmucap"), *args],
                          capture_output=True, text=True, timeout=120)


def records(path):
    """(line number, record) of a fixture, serial prefix and noise ignored."""
    out = []
    with open(path, encoding="latin-1") as f:
        for n, line in enumerate(f.read().splitlines(), 1):
            line = line[len("@pmuboot "):] if line.startswith("@pmuboot ") else line
            if line.startswith("{"):
                out.append((n, json.loads(line)))
    return out


def run_of(path):
    runs, stray = pmucap.parse(pmucap.read_capture(path))
    assert len(runs) == 1 and runs[0].complete and not stray, (path, runs[0].problems, stray)
    return runs[0]


def table_rows(stdout):
    """{variant: row text} of a table, and the header line."""
    lines = stdout.splitlines()
    h = next(i for i, l in enumerate(lines) if l.startswith("variant"))
    rows = {}
    for l in lines[h + 1:]:
        if not l.strip() or l.startswith("top-down: "):
            break
        rows[l.split()[0]] = l
    return lines[h], rows


def expected_cell(values, levels, parents, ctl=None):
    """The column's text for a record's values, worked out from the record (the docs' rule)."""
    l1 = [n for n in values if levels.get(n) == 1 and n.lower() in SHORT]
    l1.sort(key=lambda n: STACK_ORDER.index(n.lower()))
    text = " ".join(f"{SHORT[n.lower()]} {round(values[n])}" for n in l1)
    l2 = [n for n in values if levels.get(n) == 2 and parents.get(n) in l1 and values[n] is not None]
    dom = max(l2, key=lambda n: values[n])
    text += f", {dom} {round(values[dom])}%"
    if ctl is not None:
        parent = parents[dom]
        text += f" (control {SHORT[parent.lower()]} {round(ctl[parent])}, {dom} {round(ctl[dom])}%)"
    return text


def test_column_gives_level1_and_the_dominant_node_beside_the_control(ctx):
    recs = [r for _, r in records(SKL)]
    p = tool("table", SKL)
    assert p.returncode == 0 and p.stderr == "", (p.returncode, p.stderr)
    head, rows = table_rows(p.stdout)
    assert head.rstrip().endswith("top-down (% of slots)"), head
    metrics = [r for r in recs if r["type"] == "metrics"]
    benches = [r for r in recs if r["type"] == "bench"]
    assert len(metrics) == len(benches) == len(rows) == 9, (len(metrics), len(benches), sorted(rows))
    # Each metrics record follows its bench record; split's name no arena and belong to the one before.
    for b, m in zip(benches, metrics):
        key = pmucap.variant_key(b)
        ctl = None
        if b["control"]:
            ctl = next(x["values"] for bb, x in zip(benches, metrics)
                       if bb["variant"] == b["control"] and bb["kernel"] == b["kernel"] and bb["arena"] == b["arena"])
        want = expected_cell(m["values"], m["levels"], m["parents"], ctl)
        assert rows[key].endswith("  " + want), (key, rows[key], want)
    # The arenas were told apart: load_page@4k and @2m show their own Backend_Bound.
    be = {pmucap.variant_key(b): round(m["values"]["Backend_Bound"]) for b, m in zip(benches, metrics)}
    assert be["split.load_page@4k"] != be["split.load_page@2m"], be
    assert f"BE {be['split.load_page@2m']} " in rows["split.load_page@2m"], rows["split.load_page@2m"]
    # Info_* metrics are level 1 in the records, but no class: never in the column.
    assert "Info" not in "".join(rows.values()) and "IPC" not in p.stdout
    assert "top-down: intel-perfmon skylake_metrics.json TMA 5.01\n" in p.stdout, p.stdout[-400:]


def test_fallback_tree_and_smt_class_on_the_serial_line(ctx):
    """Records without levels/parents: pmucap's table of the vendors' names, and the table says so."""
    recs = [r for _, r in records(ZEN4)]
    assert all("levels" not in r for r in recs if r["type"] == "metrics")
    p = tool("table", ZEN4)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    _, rows = table_rows(p.stdout)
    m = {r["variant"]: r["values"] for r in recs if r["type"] == "metrics"}
    # The tree the docs name for Zen 4 (Linux amdzen4/pipeline.json), written out here.
    levels = {n: 1 for n in ("frontend_bound", "bad_speculation", "backend_bound", "smt_contention", "retiring")}
    parents = {"frontend_bound_latency": "frontend_bound", "frontend_bound_bandwidth": "frontend_bound",
               "bad_speculation_mispredicts": "bad_speculation",
               "bad_speculation_pipeline_restarts": "bad_speculation",
               "backend_bound_memory": "backend_bound", "backend_bound_cpu": "backend_bound",
               "retiring_fastpath": "retiring", "retiring_microcode": "retiring"}
    levels.update({n: 2 for n in parents})
    want = expected_cell(m["size_mismatch"], levels, parents, m["forward"])
    assert rows["store_forward.size_mismatch"].endswith("  " + want), (rows, want)
    assert "SMT" in want and "backend_bound_memory" in want
    assert "(2 record(s) without levels or parents: their tree is pmucap's table of the vendors' names)" \
        in p.stdout, p.stdout[-300:]


def test_each_processor_its_own_record_and_tree(ctx):
    recs = [r for _, r in records(HYBRID)]
    p = tool("table", HYBRID)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    _, rows = table_rows(p.stdout)
    assert sorted(rows) == ["0:store_forward.forward", "0:store_forward.size_mismatch",
                            "4:store_forward.forward", "4:store_forward.size_mismatch"], sorted(rows)
    m = {}
    for r in recs:
        if r["type"] == "metrics":
            cpu = r["cpu"]["n"] if isinstance(r["cpu"], dict) else r["cpu"]
            m[(cpu, r["variant"])] = r
    for cpu in (0, 4):
        v, c = m[(cpu, "size_mismatch")], m[(cpu, "forward")]
        want = expected_cell(v["values"], v["levels"], v["parents"], c["values"])
        assert rows[f"{cpu}:store_forward.size_mismatch"].endswith("  " + want), (cpu, rows, want)
    assert "Resource_Bound" in rows["4:store_forward.size_mismatch"]
    assert "Memory_Bound" in rows["0:store_forward.size_mismatch"]
    assert ("top-down: intel-perfmon alderlake_metrics_goldencove_core.json TMA 5.1; "
            "intel-perfmon E-core_TMA_Metrics.csv GRT TMA 4") in p.stdout


def _line_of(path, test):
    """The line number of the one record for which test(record) holds."""
    hits = [n for n, r in records(path) if test(r)]
    assert len(hits) == 1, hits
    return hits[0]


def _metrics_line(path, variant, nth=0):
    return [n for n, r in records(path) if r["type"] == "metrics" and r.get("variant") == variant][nth]


def test_every_bad_record_is_a_problem_by_name_never_a_figure(ctx):
    p = tool("table", BAD)
    assert p.returncode == 0 and p.stderr == "", (p.returncode, p.stderr)
    _, rows = table_rows(p.stdout)
    notes = dict(re.findall(r"^\[(\d+)\] (.*)$", p.stdout, re.M))

    def note_of(variant):
        m = re.search(r"no breakdown\[(\d+)\]$", rows[variant])
        assert m, (variant, rows[variant])
        return notes[m.group(1)]

    at = lambda v, n=0: f"run 1, line {_metrics_line(BAD, v, n)}: metrics record "   # noqa: E731
    # Refused, each with its own reason, naming the record's line and the value.
    assert note_of("store_forward.size_mismatch").startswith(at("size_mismatch") + "store_forward.size_mismatch: "
                                                             "value Backend_Bound is a string \"85.5\"")
    n = note_of("store_forward.partial_overlap")
    assert n.startswith(at("partial_overlap")) and "sums to 130.000%, not 100 +- 5" in n, n
    n = note_of("store_forward.two_stores")
    assert n.startswith(at("two_stores")) and "Bad_Speculation is null (division by zero)" in n, n
    n = note_of("alias_4k.line_offset")
    assert n.startswith(at("line_offset")) and "field values is a list, expected an object" in n, n
    n = note_of("alias_4k.offset_4")
    assert "sums to 1.000% (fractions, not percent?)" in n, n
    assert "no level-1 top-down metric" in note_of("alias_4k.offset_32")
    assert "Frontend_Bound is -20.000%, outside 0..100" in note_of("alias_4k.offset_16")
    # The control had no breakdown: its variant says so rather than comparing with nothing.
    assert rows["alias_4k.same_offset"].endswith("(control: no breakdown[" +
                                                  next(k for k, v in notes.items() if "field values" in v) + "])")
    text = "\n".join(notes.values())
    # A bad Info value is a problem, but the tree beside it is still shown.
    assert at("same_offset") + "alias_4k.same_offset: value Info_Thread_IPC is a boolean true" in text
    assert re.search(r"  FE \d+ BS \d+ BE \d+ RE \d+, ", rows["alias_4k.same_offset"])
    assert "field levels is a string, expected an object" in text
    # ... and its tree is then pmucap's own, which the line under the table says.
    assert re.search(r"  FE \d+ BS \d+ BE \d+ RE \d+, ", rows["alias_4k.offset_8"]), rows["alias_4k.offset_8"]
    assert "(1 record(s) without levels or parents: their tree is pmucap's table" in p.stdout
    # Records no row shows: a second one, one for a variant not measured, one with no kernel.
    assert at("forward", 1) + "store_forward.forward: a second metrics record for store_forward.forward " \
        f"(the one on line {_metrics_line(BAD, 'forward', 0)} is used)" in text, text
    assert "no bench record for store_forward.no_such_variant in this run" in text
    nameless = _line_of(BAD, lambda r: r["type"] == "metrics" and "kernel" not in r)
    assert f"run 1, line {nameless}: metrics record: no kernel and variant" in text
    # No refused variant shows a figure; the good one does, from its first record.
    for v in ("size_mismatch", "partial_overlap", "two_stores"):
        assert "FE " not in rows[f"store_forward.{v}"], rows[f"store_forward.{v}"]
    assert re.search(r"  FE 8 BS 1 BE 35 RE 56, \w+ \d+%$", rows["store_forward.forward"]), rows


def test_a_record_of_another_processor_is_a_problem(ctx):
    p = tool("table", BAD_CPU)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    seven = _line_of(BAD_CPU, lambda r: r.get("cpu") == 7)
    word = _line_of(BAD_CPU, lambda r: r.get("cpu") == "zero")
    assert (f"run 1, line {seven}: metrics record store_forward.forward: no bench record for "
            "store_forward.forward on processor 7 in this run") in p.stdout, p.stdout
    assert f"run 1, line {word}: metrics record store_forward.forward: field cpu is a string \"zero\"" in p.stdout
    # The good records are read as in hybrid.jsonl: the same rows.
    _, good = table_rows(tool("table", HYBRID).stdout)
    _, rows = table_rows(p.stdout)
    assert rows == good


def test_every_problem_is_read_without_a_crash_in_process(ctx):
    """topdown.read itself: the same problems, one per bad thing, none for the good records."""
    td = topdown.read(run_of(BAD))
    # 13 records: 10 after their bench records, a second one, one for no variant measured, one nameless;
    # 10 problems: one per record but forward's, two_stores' (a null class is the run's own "not
    # measurable", no problem) and offset_32's (Info metrics only: nothing to show, nothing wrong).
    assert td.records == 13 and len(td.problems) == 10, (td.records, td.problems)
    assert all(p.startswith("run 1, line ") for p in td.problems), td.problems
    refused = {k for k, bd in td.by_key.items() if bd.why}
    assert refused == {"store_forward.size_mismatch", "store_forward.partial_overlap", "store_forward.two_stores",
                       "alias_4k.line_offset", "alias_4k.offset_4", "alias_4k.offset_16", "alias_4k.offset_32"}
    assert all(not td.by_key[k].level1 and td.by_key[k].dominant is None for k in refused)
    for path in (SKL, ZEN4, HYBRID):
        td = topdown.read(run_of(path))
        assert td.problems == [] and all(not bd.why for bd in td.by_key.values()), (path, td.problems)


def _record(values, levels=None, parents=None):
    r = pmucap.Record({"type": "metrics", "kernel": "k", "variant": "v", "values": values})
    if levels is not None:
        r["levels"], r["parents"] = levels, parents
    r.line, r.run = 9, 1
    return r


def test_the_sum_tolerance_and_the_bars_geometry(ctx):
    levels = {"Frontend_Bound": 1, "Bad_Speculation": 1, "Backend_Bound": 1, "Retiring": 1,
              "Memory_Bound": 2, "Core_Bound": 2}
    parents = {"Memory_Bound": "Backend_Bound", "Core_Bound": "Backend_Bound"}

    def bd(fe, bs, be, re_, mem, core):
        m, probs = topdown.read_record(_record({"Frontend_Bound": fe, "Bad_Speculation": bs, "Backend_Bound": be,
                                                "Retiring": re_, "Memory_Bound": mem, "Core_Bound": core},
                                               levels, parents))
        assert probs == [], probs
        return topdown.breakdown("k.v", m)

    tol = topdown.SUM_TOLERANCE
    b, probs = bd(10, 0, 60, 30 + tol - 0.01, 40, 20)        # just within 100 + tolerance
    assert probs == [] and b.why is None and b.dominant == ("Memory_Bound", 40.0, "Backend_Bound")
    b, probs = bd(10, 0, 60, 30 + tol + 0.01, 40, 20)        # just beyond
    assert len(probs) == 1 and b.why == probs[0] and "not 100 +- 5" in probs[0] and not b.level1, probs
    # Geometry: level 1 side by side from 0, each as wide as its value; level 2 inside its class,
    # a child the class cannot hold cut at its edge; a small negative class drawn 0 wide.
    b, _ = bd(10.5, -0.5, 60, 30, 50, 25)                    # children 75 > class 60
    segs = topdown.segments(b)
    l1 = [s for s in segs if s[0] == 1]
    assert [(s[1], s[3], s[4], s[5]) for s in l1] == [("Frontend_Bound", 0.0, 10.5, 10.5),
                                                      ("Bad_Speculation", 10.5, 0.0, -0.5),
                                                      ("Backend_Bound", 10.5, 60.0, 60.0),
                                                      ("Retiring", 70.5, 30.0, 30.0)], l1
    # A level-2 node outside 0..100 is a problem and not drawn; the rest of the breakdown stands.
    b, probs = bd(10, 0, 60, 30, 1e300, 20)
    assert len(probs) == 1 and "Memory_Bound is 1e+300%, outside 0..100 +- 5: not shown" in probs[0], probs
    assert b.why is None and b.children == {"Backend_Bound": [("Core_Bound", 20.0)]} and b.dominant[0] == "Core_Bound"
    l2 = [s for s in segs if s[0] == 2]
    assert [(s[1], s[2], s[3], s[4], s[5]) for s in l2] == [("Memory_Bound", "Backend_Bound", 10.5, 50.0, 50.0),
                                                            ("Core_Bound", "Backend_Bound", 60.5, 10.0, 25.0)], l2


def test_field_names_live_in_one_place(ctx):
    """A renamed field (the record is a draft) is one change to topdown.F."""
    r = _record({})
    del r["values"]
    r["vals"] = {"Frontend_Bound": 10, "Bad_Speculation": 5, "Backend_Bound": 60, "Retiring": 25}
    m, probs = topdown.read_record(r)
    assert m.unusable and "field values is null" in m.unusable, m.unusable
    saved = dict(topdown.F)
    try:
        topdown.F["values"] = "vals"
        m, probs = topdown.read_record(r)
        assert probs == [] and not m.unusable and m.values["Backend_Bound"] == 60.0, probs
        assert topdown.breakdown("k.v", m)[0].level1[2] == ("Backend_Bound", 60.0)
    finally:
        topdown.F.clear()
        topdown.F.update(saved)


def test_old_captures_have_no_column_and_plot_says_why(ctx):
    p = tool("table", REAL)
    assert p.returncode == 0 and "top-down" not in p.stdout, p.stdout[:400]
    head, _ = table_rows(p.stdout)
    assert head.rstrip().endswith("check"), head
    out = os.path.join(tempfile.mkdtemp(prefix="pmucap-td-"), "td.png")
    p = tool("plot", REAL, "--metric", "topdown", "-o", out, python=plot_python())
    assert p.returncode == 1 and p.stderr.count("\n") == 1, (p.returncode, p.stderr)
    assert "no top-down breakdown to plot" in p.stderr and "no metrics records" in p.stderr, p.stderr
    assert "PMU detection not implemented yet" in p.stderr, p.stderr   # the run's own counting reason
    assert not os.path.exists(out)
    os.rmdir(os.path.dirname(out))


def test_parse_passes_metrics_records_through(ctx):
    p = tool("parse", SKL, "--type", "metrics")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    got = [json.loads(l) for l in p.stdout.splitlines()]
    want = [dict(r, _run=1) for _, r in records(SKL) if r["type"] == "metrics"]
    assert got == want and len(got) == 9
    # A type pmuboot writes: asking for it in a capture that has none is no error.
    p = tool("parse", REAL, "--type", "metrics")
    assert p.returncode == 0 and p.stdout == "" and p.stderr == "", (p.returncode, p.stderr)


def test_plot_panels_rows_and_bars(ctx):
    """What plot draws, without matplotlib: one panel per kernel, each control first, and bars whose
    segments are the records' figures."""
    run = run_of(SKL)
    td = topdown.read(run)
    table = pmucap.bench_table(run)
    panels = plot_topdown.build_topdown_panels([table], [td])
    assert [p.title for p in panels] == ["store_forward: top-down", "alias_4k: top-down", "split: top-down"]
    labels = [[r.label for r in p.rows] for p in panels]
    assert labels == [["forward", "size_mismatch", "partial_overlap"], ["line_offset", "same_offset"],
                      ["load_aligned@4k", "load_page@4k", "load_aligned@2m", "load_page@2m"]], labels
    assert [r.label for p in panels for r in p.rows if r.is_control] == ["forward", "line_offset",
                                                                         "load_aligned@4k", "load_aligned@2m"]
    by_key = dict(zip((pmucap.variant_key(b) for _, b in records(SKL) if b["type"] == "bench"),
                      (m for _, m in records(SKL) if m["type"] == "metrics")))
    for p in panels:
        for row in p.rows:
            vals = by_key[row.key]["values"]
            segs = topdown.segments(row.bd)
            l1 = [s for s in segs if s[0] == 1]
            assert [s[1] for s in l1] == ["Frontend_Bound", "Bad_Speculation", "Backend_Bound", "Retiring"]
            left = 0.0
            for _, name, _, x, w, v in l1:
                assert abs(x - left) < 1e-9 and w == v == vals[name], (row.key, name, x, w, v)
                left += w
            assert abs(left - 100.0) < 0.01, (row.key, left)
            for _, name, parent, x, w, v in (s for s in segs if s[0] == 2):
                px, pw = next((s[3], s[4]) for s in l1 if s[1] == parent)
                assert by_key[row.key]["parents"][name] == parent and v == vals[name]
                assert px - 1e-9 <= x and x + w <= px + pw + 1e-9, (row.key, name)
    # Two captures: an [A] and a [B] row per variant each has.
    run_b = run_of(BAD)
    panels = plot_topdown.build_topdown_panels([table, pmucap.bench_table(run_b)], [td, topdown.read(run_b)])
    sf = [r.label for r in panels[0].rows]
    assert sf[:4] == ["forward [A]", "forward [B]", "size_mismatch [A]", "size_mismatch [B]"], sf


def _png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == PNG_MAGIC, head[:8]
    return struct.unpack(">II", head[16:24])


def test_plot_writes_a_picture_of_the_bars(ctx):
    py = plot_python()
    d = tempfile.mkdtemp(prefix="pmucap-td-")
    try:
        png = os.path.join(d, "skl.png")
        p = tool("plot", SKL, "--metric", "topdown", "-o", png, python=py)
        assert p.returncode == 0, p.stderr
        assert "top-down of 9 kernel variant(s) in 3 panel(s), 9 row(s)" in p.stderr and p.stderr.count("\n") == 1
        w, h = _png_size(png)
        # 11 inches at 110 dpi across; a header and three panels of 3, 2 and 4 rows down.
        assert w == round(plot_common.WIDTH_INCHES * plot_common.DPI) and 600 < h < 1600, (w, h)
        assert 20_000 < os.path.getsize(png) < 2_000_000, os.path.getsize(png)
        # The bad capture: drawn (its good rows), every problem a warning naming the file, its line.
        svg = os.path.join(d, "bad.svg")
        p = tool("plot", BAD, "--metric", "topdown", "-o", svg, python=py)
        assert p.returncode == 0, p.stderr
        warnings = [l for l in p.stderr.splitlines() if l.startswith("pmucap: warning: ")]
        assert len(warnings) == 10 and all(f"{BAD}: top-down: run 1, line " in l for l in warnings), warnings
        with open(svg, encoding="utf-8") as f:
            text = f.read()
        assert "no breakdown: Bad_Speculation is null (division by zero)" in text
        assert "intel-perfmon skylake_metrics.json TMA 5.01" in text
        assert [f for f in os.listdir(d) if f.startswith(".pmucap-plot-")] == []
    finally:
        subprocess.run(["rm", "-rf", d])


def test_drawn_rectangles_are_the_segments(ctx):
    """In the drawn panel every rectangle is a segment of topdown.segments: its left edge and width."""
    script = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import pmucap
from pmucap import plot_topdown as P, topdown
from matplotlib.figure import Figure
runs, _ = pmucap.parse(pmucap.read_capture(sys.argv[2]))
panels = P.build_topdown_panels([pmucap.bench_table(runs[0])], [topdown.read(runs[0])])
ax = Figure().subplots()
P.draw_topdown_panel(ax, panels[0], {})
rects = [[r.get_x(), r.get_width()] for r in ax.patches]
segs = [[s[3], s[4]] for row in panels[0].rows for s in topdown.segments(row.bd)]
print(json.dumps({"rects": rects, "segs": segs, "texts": [t.get_text() for t in ax.texts]}))
"""
    p = subprocess.run([plot_python(), "-c", script, os.path.join(ctx.root, "tools"), SKL],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert len(out["rects"]) == len(out["segs"]) > 0
    for (x, w), (sx, sw) in zip(out["rects"], out["segs"]):
        assert abs(x - sx) < 1e-9 and abs(w - sw) < 1e-9, (x, w, sx, sw)
    texts = out["texts"]
    sm = next(m for _, m in records(SKL) if m["type"] == "metrics" and m["variant"] == "size_mismatch")
    assert f"BE {round(sm['values']['Backend_Bound'])}" in texts, texts
    assert any(t.startswith(f"Memory_Bound {sm['values']['Memory_Bound']:.1f}%\n") and "vs control" in t
               for t in texts), texts


def _make_topdown():
    """The fixtures' generator, tests/fixtures/topdown/make_topdown.py, as a module."""
    sys.path.insert(0, FIX)
    try:
        import make_topdown
    finally:
        sys.path.remove(FIX)
    return make_topdown


def test_fixtures_are_what_the_generator_writes(ctx):
    make_topdown = _make_topdown()
    d = tempfile.mkdtemp(prefix="pmucap-td-")
    try:
        make_topdown.main(d)
        for name in make_topdown.FILES:
            with open(os.path.join(d, name), "rb") as a, open(os.path.join(FIX, name), "rb") as b:
                assert a.read() == b.read(), f"{name} differs from what make_topdown.py writes: run it"
    finally:
        subprocess.run(["rm", "-rf", d])


def test_compare_sets_level1_side_by_side_never_flagged(ctx):
    p = tool("compare", SKL, BAD, "--format", "json")
    assert p.returncode == 0, p.stderr
    rows = [r for r in json.loads(p.stdout)["rows"] if (r["metric"] or "").startswith("top-down ")]
    a = {m["variant"]: m["values"] for _, m in records(SKL) if m["type"] == "metrics"}
    b = {m["variant"]: m["values"] for _, m in records(BAD) if m["type"] == "metrics"}
    # Only variants with a breakdown in both runs: forward (B's first record) and same_offset.
    assert sorted({r["variant"] for r in rows}) == ["alias_4k.same_offset", "store_forward.forward"], rows
    for r in rows:
        name = r["metric"][len("top-down "):-len(" %")]
        va, vb = a[r["variant"].split(".")[1]][name], b[r["variant"].split(".")[1]][name]
        assert r["a"]["median"] == va and r["b"]["median"] == vb and abs(r["delta"] - (vb - va)) < 1e-9, r
        assert r["flag"] == "", r
    assert len(rows) == 8, rows
    # A top-down change alone never fails --fail-on-change (one figure has no spread to judge by).
    recs = [r for _, r in records(SKL)]
    for r in recs:
        if r["type"] == "metrics" and r["variant"] == "size_mismatch":
            r["values"]["Backend_Bound"] -= 20
            r["values"]["Retiring"] += 20
    fd, changed = tempfile.mkstemp(prefix="pmucap-td-", suffix=".jsonl")
    with os.fdopen(fd, "w", encoding="latin-1", newline="") as f:
        f.write(_make_topdown().frame(recs[:-1]))
    try:
        p = tool("compare", SKL, changed, "--fail-on-change")
        assert p.returncode == 0, (p.returncode, p.stderr, p.stdout[-400:])
        line = next(l for l in p.stdout.splitlines() if l.startswith("store_forward.size_mismatch ")
                    and "top-down Backend_Bound %" in l)
        assert "-20.000" in line and "beyond" not in line, line
        assert "0 figure(s) changed beyond the spread" in p.stdout
    finally:
        os.unlink(changed)
    p = tool("compare", REAL, REAL, "--format", "json")
    assert p.returncode == 0 and not any((r["metric"] or "").startswith("top-down")
                                         for r in json.loads(p.stdout)["rows"])
