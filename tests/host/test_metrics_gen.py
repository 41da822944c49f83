"""tools/gen_metrics.py: the import from ../shared reproduces the committed tables, a few imported metrics are as
the vendor file has them (checked by hand), and the compiler refuses what it cannot check, naming the place."""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "tools", "gen_metrics.py")
MDIR = os.path.join(ROOT, "events", "metrics")


def gen(*args, cwd=ROOT):
    return subprocess.run([sys.executable, GEN, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def rows(path):
    with open(path) as f:
        return {r["name"]: r for r in csv.DictReader(line for line in f if not line.startswith("#"))}


def test_import_reproduces_the_committed_tables(ctx):
    shared = os.path.dirname(ctx.shared_path("vendor-events"))
    with tempfile.TemporaryDirectory() as tmp:
        p = gen("--import", "--shared", shared, "--import-to", tmp)
        assert p.returncode == 0, p.stderr
        made = sorted(os.listdir(tmp))
        assert len(made) == 25, made          # 20 perfmon files and 5 E-core columns; zen4/zen5 are by hand
        for name in made:
            with open(os.path.join(tmp, name)) as a, open(os.path.join(MDIR, name)) as b:
                assert a.read() == b.read(), f"events/metrics/{name} differs from the import: re-run --import"


def test_imported_metrics_checked_by_hand(ctx):
    """The committed form of a few metrics, read against the vendor files by hand."""
    skl = rows(os.path.join(MDIR, "skylake.csv"))
    # skylake_metrics.json Frontend_Bound: "100 * ( a / ( ( 4 ) * ( ( b / 2 ) if smt_on else ( c ) ) ) )" with
    # a IDQ_UOPS_NOT_DELIVERED.CORE, b CPU_CLK_UNHALTED.THREAD_ANY, c CPU_CLK_UNHALTED.THREAD.
    fe = skl["Frontend_Bound"]
    assert (fe["level"], fe["parent"], fe["unit"]) == ("1", "", "percent")
    assert fe["formula"] == ("100 * ( {IDQ_UOPS_NOT_DELIVERED.CORE} / ( 4 * ( {CPU_CLK_UNHALTED.THREAD_ANY} / 2 if "
                             "{const:HYPERTHREADING_ON} else {CPU_CLK_UNHALTED.THREAD} ) ) )"), fe["formula"]
    assert skl["Fetch_Latency"]["parent"] == "Frontend_Bound" and skl["Fetch_Latency"]["level"] == "2"
    assert skl["Info_Thread_IPC"]["formula"] == "{INST_RETIRED.ANY} / {CPU_CLK_UNHALTED.THREAD}"
    # Sapphire Rapids Memory_Bound: PERF_METRICS.MEMORY_BOUND over the four level-1 fields' sum.
    spr = rows(os.path.join(MDIR, "sapphirerapids.csv"))["Memory_Bound"]["formula"]
    assert spr == ("100 * ( {PERF_METRICS.MEMORY_BOUND} / ( {PERF_METRICS.FRONTEND_BOUND} + "
                   "{PERF_METRICS.BAD_SPECULATION} + {PERF_METRICS.RETIRING} + {PERF_METRICS.BACKEND_BOUND} ) )"), spr
    # The E-core spreadsheet, column GRT: Bad_Speculation is "( #SLOTS - ( FE + BE + RET ) ) / #SLOTS" with
    # #SLOTS = #Pipeline_Width (5) * #CLKS (CPU_CLK_UNHALTED.CORE), a fraction: pmuboot gives percent.
    grt = rows(os.path.join(MDIR, "gracemont.csv"))
    assert grt["Bad_Speculation"]["formula"] == (
        "100 * ( ( 5 * {CPU_CLK_UNHALTED.CORE} - ( {TOPDOWN_FE_BOUND.ALL} + {TOPDOWN_BE_BOUND.ALL} + "
        "{TOPDOWN_RETIRING.ALL} ) ) / ( 5 * {CPU_CLK_UNHALTED.CORE} ) )"), grt["Bad_Speculation"]["formula"]
    assert grt["Resource_Bound"]["parent"] == "Backend_Bound"
    assert grt["Info_Core_IPC"]["formula"] == "{INST_RETIRED.ANY} / {CPU_CLK_UNHALTED.CORE}"
    # Skymont (ARL-SKT): 8 slots a cycle; Crestmont (CMT): 6.
    assert "8 * {CPU_CLK_UNHALTED.CORE}" in rows(os.path.join(MDIR, "skymont.csv"))["Frontend_Bound"]["formula"]
    assert "6 * {CPU_CLK_UNHALTED.CORE}" in rows(os.path.join(MDIR, "crestmont.csv"))["Frontend_Bound"]["formula"]


def test_compiled_listing_matches_the_vendor_inputs(ctx):
    """--list: Skylake's Frontend_Bound needs exactly the vendor's events and constant; Info_System_Power, over an
    uncore event Skylake's core table lacks, is left out by name."""
    p = gen("--list", "skylake")
    assert p.returncode == 0, p.stderr
    t = json.loads(p.stdout)
    assert t["source"] == "intel-perfmon skylake_metrics.json TMA 5.01"
    fe = next(m for m in t["metrics"] if m["name"] == "Frontend_Bound")
    assert fe["inputs"] == ["CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.THREAD_ANY", "IDQ_UOPS_NOT_DELIVERED.CORE",
                            "const:HYPERTHREADING_ON"], fe["inputs"]
    assert "UNC_PKG_ENERGY_STATUS" in t["left_out"]["Info_System_Power"]
    names = [m["name"] for m in t["metrics"]]
    assert len(names) == len(set(names))


def test_each_tables_width_is_the_one_its_formulas_count(ctx):
    """tables.csv `width` (the metrics records' pipeline_width) against the tables: where SLOTS is a literal times
    the clocks (Intel before Ice Lake, the E-cores, AMD), the literal in the level 1 frontend formula is the width;
    the PERF_METRICS cores count TOPDOWN.SLOTS instead, and their widths are TMA_Metrics' #Pipeline_Width."""
    import re
    with open(os.path.join(MDIR, "tables.csv")) as f:
        tables = list(csv.DictReader(line for line in f if not line.startswith("#")))
    clocks = r"(\d+) \* \(? ?\{(?:CPU_CLK_UNHALTED\.(?:THREAD_ANY|CORE)|ls_not_halted_cyc\|CYCLES_NOT_IN_HALT)\}"
    by_literal = {}
    for t in tables:
        fe = rows(os.path.join(MDIR, t["key"] + ".csv")).get("Frontend_Bound") or \
            rows(os.path.join(MDIR, t["key"] + ".csv"))["frontend_bound"]
        m = re.search(clocks, fe["formula"])
        if m:
            by_literal[t["key"]] = (int(m.group(1)), int(t["width"]))
        else:
            assert "PERF_METRICS" in fe["formula"] or "TOPDOWN.SLOTS" in fe["formula"], (t["key"], fe["formula"])
    assert {k: w for k, (_, w) in by_literal.items()} == {k: lit for k, (lit, _) in by_literal.items()}, by_literal
    assert len(by_literal) == 16, sorted(by_literal)        # 7 Intel P-cores before Ice Lake, 7 E-core tables, AMD 2
    widths = {t["key"]: int(t["width"]) for t in tables}
    assert [widths[k] for k in ("icelake", "tigerlake", "goldencove", "graniterapids", "lioncove")] == [5, 5, 6, 6, 8]


def test_a_bad_width_is_refused_by_name(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        ev = copy_tree(tmp)
        path = os.path.join(ev, "metrics", "tables.csv")
        text = open(path).read()
        open(path, "w").write(text.replace("(Linux amdzen5/pipeline.json),hand,8", "(Linux amdzen5/pipeline.json),hand,0"))
        p = gen("--out", os.path.join(tmp, "out.c"), "--dir", ev)
        assert p.returncode == 1 and "width '0' must be the issue slots per cycle, 1..15" in p.stderr, p.stderr
        assert not os.path.exists(os.path.join(tmp, "out.c"))


def copy_tree(tmp):
    """events/ as the compiler reads it, to break."""
    ev = os.path.join(tmp, "events")
    shutil.copytree(os.path.join(ROOT, "events"), ev)
    return ev


def broken(tmp, ev, key, old, new):
    """Compile ev with one edit to metrics/KEY.csv (put back afterwards)."""
    path = os.path.join(ev, "metrics", key + ".csv")
    text = open(path).read()
    assert old in text, (key, old)
    open(path, "w").write(text.replace(old, new, 1))
    try:
        return gen("--out", os.path.join(tmp, "out.c"), "--dir", ev)
    finally:
        open(path, "w").write(text)


def test_compiler_refuses_bad_tables_naming_the_line(ctx):
    cases = [
        ("zen4", "frontend_bound,1,,percent,", "frontend_bound,3,,percent,", "zen4.csv:14: level must be 1 or 2"),
        ("zen4", "backend_bound_memory,2,backend_bound,", "backend_bound_memory,2,nothing,",
         "zen4.csv:23: parent 'nothing' is not a level 1 metric above it"),
        ("zen4", "retiring,1,,percent,", "retiring,1,,furlongs,", "zen4.csv:18: unit 'furlongs'"),
        ("zen4", "100 * {ex_ret_ops|RETIRED_OPS} / ( 6", "100 * {ex_ret_ops|RETIRED_OPS} / ( 6 +",
         "zen4.csv:18: unexpected"),
        ("zen4", "100 * {ex_ret_ops|RETIRED_OPS} / ( 6", "1 < 2 < {ex_ret_ops|RETIRED_OPS} / ( 6",
         "zen4.csv:18: chained comparisons"),
        ("tables", "zen5,amd", "zen5x,amd", "tables.csv"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        ev = copy_tree(tmp)
        for key, old, new, want in cases:
            p = broken(tmp, ev, key, old, new)
            assert p.returncode == 1 and want in p.stderr, (key, new, p.stderr)
            assert not os.path.exists(os.path.join(tmp, "out.c")), "nothing written on an error"


def test_an_event_the_set_lacks_leaves_the_metric_out(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        ev = copy_tree(tmp)
        path = os.path.join(ev, "metrics", "zen4.csv")
        text = open(path).read().replace("{ex_ret_ops|RETIRED_OPS} / ( 6", "{ex_ret_ops|NO_SUCH_EVENT} / ( 6", 1)
        open(path, "w").write(text)
        p = gen("--list", "zen4", "--dir", ev)
        assert p.returncode == 0, p.stderr
        t = json.loads(p.stdout)
        assert t["left_out"] == {"retiring": "NO_SUCH_EVENT is not an event of the set",
                                 "retiring_fastpath": "it uses metric retiring, which is not above it or was left out",
                                 "retiring_microcode": "it uses metric retiring, which is not above it or was left out"}
        assert "retiring" not in [m["name"] for m in t["metrics"]]


def test_output_is_deterministic(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a.c"), os.path.join(tmp, "b.c")
        assert gen("--out", a).returncode == 0 and gen("--out", b).returncode == 0
        assert open(a).read() == open(b).read()
