"""The collector's dashboard: server-rendered pages (Jinja2 templates in templates/, no script).

    GET /                        runs by machine, newest first, with their verdicts; the CPU models
    GET /runs/ID                 one run: its facts, verdict, results table and plots, and its instruction
                                 table when it has instr records
    GET /runs/ID/plot.png        its plot (pmucap plot): ?metric=cycles|events
    GET /sku?cpu=MODEL           every machine of one CPU model against the fleet median (&bios=&microcode=);
                                 with instr records, the instruction forms whose figures differ between them
    GET /compare?a=ID&b=ID       two runs side by side (and their instruction forms that differ, as pmucap compare)

A run that is not intact (INCOMPLETE, INVALID) shows its verdict and reasons but no table and no
plot: a figure from records that do not hold is never shown as a measurement.
"""
import collections
import math
import os
import tempfile
import threading

from flask import Response, abort, render_template, request

from . import capture, cmd_plot, cmd_table, fleet, instr, ladder, plot_common, web, web_api
from .verdict import INTACT, shown as _shown


def verdict_shown(run):
    return _shown(run)[2]

# Runs shown on the front page (the newest), and per machine.
FRONT_RUNS, RUNS_PER_MACHINE = 1000, 12
# Plots kept rendered (PNG bytes), the most recently drawn; plots drawn at once.
PLOT_CACHE, DRAWING = 64, 2


class PlotCache:
    """PNGs drawn once per run and metric, the most recently drawn kept.  Each plot has a lock of its
    own (asked for twice at once, it is drawn once) and at most DRAWING are drawn at a time; nothing
    else waits for a drawing (matplotlib's object interface keeps its state in each figure)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.png = collections.OrderedDict()
        self.pending = {}
        self.drawing = threading.BoundedSemaphore(DRAWING)

    def get(self, key, draw):
        with self.lock:
            if key in self.png:
                self.png.move_to_end(key)
                return self.png[key]
            mine = self.pending.setdefault(key, threading.Lock())
        with mine:
            with self.lock:
                if key in self.png:
                    return self.png[key]
            with self.drawing:
                data = draw()
            with self.lock:
                self.pending.pop(key, None)
                self.png[key] = data
                if len(self.png) > PLOT_CACHE:
                    self.png.popitem(last=False)
            return data


def _drawable(rec):
    """True when every figure of a bench record can be drawn (finite, within fleet.MAX_FIGURE)."""
    try:
        figs = capture.figures(rec)
        pen = capture.get(rec, ("penalty", "median"), capture.NUM)
    except capture.FieldError:
        return False
    values = [v for f in figs.values() for v in (f.get("median"), f.get("min"), f.get("max")) if v is not None]
    values += [pen] if pen is not None else []
    return all(isinstance(v, (int, float)) and math.isfinite(v) and abs(v) <= fleet.MAX_FIGURE for v in values)


def draw_plot(run, metric):
    """The PNG of pmucap plot for one run, or (None, why) when there is nothing to draw.  A variant with
    a figure that cannot be drawn (beyond fleet.MAX_FIGURE) is left out, and the title says so."""
    table = capture.bench_table(run)
    left_out = [k for k, rec in table.items() if not _drawable(rec)]
    for k in left_out:
        del table[k]
    panels = cmd_plot.build_panels([table], metric, plot_common.skipped_variants(run))
    memory = None
    if metric == "cycles":
        try:
            # The ladder is drawn as pmucap plot draws it: curves, not bars; only of figures that can be drawn.
            memory = cmd_plot.Memory([run])
            if any(not _drawable(p.rec) for k in ladder.KERNELS for p in ladder.points(run, k)):
                memory = None
        except capture.FieldError:
            memory = None
    if not panels and not (memory and memory.panels()):
        return None, f"no {'event counts' if metric == 'events' else 'bench figures'} to plot" + \
            (f" ({len(left_out)} variant(s) left out: a figure beyond {fleet.MAX_FIGURE:g})" if left_out else "")
    if len(panels) > cmd_plot.MAX_PANELS:
        return None, f"{len(panels)} panels are too many for one picture"
    name = capture.describe_run(run)
    if left_out:
        name += (f"; not drawn: {len(left_out)} variant(s) with a figure beyond {fleet.MAX_FIGURE:g} "
                 f"({', '.join(left_out[:3])}{', ...' if len(left_out) > 3 else ''})")
    with tempfile.TemporaryDirectory(prefix="pmucap-serve-") as d:
        path = os.path.join(d, "plot.png")
        try:
            cmd_plot.render(panels, [name], path, "png", memory, plot_common.run_emulated(run))
        except capture.CaptureError as e:   # no matplotlib
            return None, str(e)
        except (ValueError, OverflowError, RuntimeError) as e:   # what matplotlib refuses to draw
            return None, f"the plot cannot be drawn: {capture.one_line(e)[:200]}"
        with open(path, "rb") as f:
            return f.read(), None


def results(run):
    """What the run page shows of an intact run: table rows, notes, audit failures; or the reason
    the records cannot be tabled (a field of the wrong type)."""
    try:
        rows, notes, tallies = cmd_table.build_rows(run)
    except capture.FieldError as e:
        return {"error": str(e)}
    itable = instr.read(run)
    ishown = None
    if itable.any:
        irows, inotes, ishaky = instr.rows(itable)
        ishown = {"rows": irows, "notes": inotes, "unstable": [instr.unstable_text(u) for u in ishaky],
                  "problems": itable.problems,
                  "emulated": bool(itable.forms) and all(f.emulated for f in itable.forms)}
    # Identification's doubt of the model number (the cpu record's uarch_doubt): a fleet groups runs by
    # that number, and a hypervisor's may not be its core's.
    doubt = None
    cpu = capture.first_record(run, "cpu")
    if cpu is not None:
        try:
            doubt = capture.get(cpu, "uarch_doubt", capture.STR)
        except capture.FieldError as e:
            doubt = f"not used: {e}"
    audits = capture.run_records(run, "audit")
    tally = collections.Counter(capture.get(a, "status", capture.STR, "?") for a in audits)
    # The counts of every check record (the image's own summary counts the same) and the verdict as a
    # person reads it: a PASS says what it rests on, "nothing verified" included (verdict.shown).
    return {"rows": rows, "notes": notes, "instr": ishown, "doubt": doubt,
            "checks": run.tally.checks_in_words() if run.tally.checks else "none",
            "verdict_shown": verdict_shown(run),
            "audit": dict(tally), "audit_failed": [a for a in audits if a.get("status") == "fail"],
            "events": any(m != "cycles" for r in capture.run_records(run, "bench") for m in capture.figures(r))}


def finds(match, name):
    """Whether the run page's ?match= finds an asm name: the text anywhere in it, at its start after a leading
    ^, at its end before a trailing $.  Not a regular expression: anyone who may read the page may type one,
    and a backtracking expression ((a+)+$) can hold a server thread for hours."""
    start, end = match.startswith("^"), match.endswith("$") and len(match) > 1
    core = match[1 if start else 0:len(match) - 1 if end else len(match)]
    if start and end:
        return name == core
    if start:
        return name.startswith(core)
    if end:
        return name.endswith(core)
    return core in name


def choose_forms(shown, match):
    """The run page's instruction rows whose form `match` (?match=, finds()) finds, and their unstable figures;
    shown["every"] is how many there were.  A full table is 15,686 rows, 7 MB of HTML."""
    shown["every"] = len(shown["rows"])
    if not match:
        return
    shown["rows"] = [r for r in shown["rows"] if finds(match, r["form"])]
    shown["unstable"] = [instr.unstable_text(u) for r in shown["rows"] for u in r["unstable"]]


def by_machine(rows):
    """Runs (newest first) grouped by machine, machines in the order of their newest run."""
    groups = collections.OrderedDict()
    for r in rows:
        groups.setdefault(r["machine"], []).append(r)
    return [{"machine": m, "newest": runs[0], "runs": runs[:RUNS_PER_MACHINE], "more": len(runs) - RUNS_PER_MACHINE,
             "verdicts": dict(collections.Counter(r["verdict"] for r in runs))} for m, runs in groups.items()]


def register(app, settings):
    st = settings.store
    plots = PlotCache()

    @app.get("/")
    def index():
        rows = st.runs(limit=FRONT_RUNS)
        return render_template("index.html", machines=by_machine(rows), skus=st.skus(), total=st.count(),
                               shown=len(rows))

    @app.get(f"/runs/<int(max={web_api.RUN_ID_MAX}):run_id>")
    def run_page(run_id):
        row = st.run(run_id)
        if row is None:
            abort(404)
        intact = row["verdict"] in INTACT
        res = None
        match = request.args.get("match") or None
        if intact:
            run, _ = web.load_run(row, settings)
            res = results(run)
            if res.get("instr"):
                choose_forms(res["instr"], match)
        earlier = [r for r in st.runs(machine=row["machine"], limit=50)
                   if r["id"] < run_id and r["verdict"] in INTACT] if intact else []
        return render_template("run.html", run=row, intact=intact, res=res, match=match,
                               previous=earlier[0] if earlier else None)

    @app.get(f"/runs/<int(max={web_api.RUN_ID_MAX}):run_id>/plot.png")
    def plot(run_id):
        metric = request.args.get("metric", "cycles")
        if metric not in ("cycles", "events"):
            abort(404)
        row = st.run(run_id)
        if row is None or row["verdict"] not in INTACT:
            abort(404)

        def draw():
            run, _ = web.load_run(row, settings)
            return draw_plot(run, metric)
        png, why = plots.get((run_id, metric), draw)
        if png is None:
            return web.json_error(why, 404)
        return Response(png, mimetype="image/png", headers={"Cache-Control": "max-age=3600"})

    @app.get("/sku")
    def sku_page():
        cpu = request.args.get("cpu")
        if not cpu:
            abort(404)
        bios, microcode = request.args.get("bios") or None, request.args.get("microcode") or None
        res = web_api.sku_comparison(st, cpu, bios, microcode, settings.margin_pct, settings.floor, settings)
        ix = res.get("instr") if isinstance(res, dict) else None
        if ix:
            # As pmucap compare: an unstable figure that agrees across the machines within the tolerance is
            # counted, not listed (two full tables have thousands); /api/sku has every row.
            shown = [r for r in ix["rows"] if r["status"] != instr.UNSTABLE or instr.apart(list(r["cells"].values()))]
            ix["quiet"] = len(ix["rows"]) - len(shown)
            ix["rows"] = shown
        return render_template("sku.html", cpu=cpu, bios=bios, microcode=microcode, res=res,
                               min_machines=web_api.fleet.MIN_MACHINES)

    @app.get("/compare")
    def compare_page():
        try:
            a, b = (web_api.arg_run_id(k) for k in ("a", "b"))
        except web_api.BadQuery:
            abort(404)
        if a is None or b is None:
            abort(404)
        out = web_api.compare_runs(st, a, b, web_api.cmd_compare.DEFAULT_MIN_CHANGE_PCT,
                                   web_api.cmd_compare.DEFAULT_FLOOR, settings)
        if isinstance(out, tuple):
            return render_template("message.html", title="No comparison", message=out[1]), out[0]
        ix = out.get("instr")
        if ix:
            # As pmucap compare's text: an unstable figure within the tolerance of the other run's is counted.
            shown = [r for r in ix["rows"] if r["status"] != instr.UNSTABLE or instr.apart_values(
                r["figure"], [(r[k] or {}).get("cycles") for k in ("a", "b")])]
            ix["quiet"], ix["rows"] = len(ix["rows"]) - len(shown), shown
        return render_template("compare.html", cmp=out)
