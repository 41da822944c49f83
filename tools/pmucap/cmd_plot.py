"""pmucap plot - a run, or two runs side by side, drawn with matplotlib (PNG, SVG or PDF).

One panel per kernel: cycles per iteration, then (with --metric events or all) one
panel per kernel and event counted.  In a panel each variant is a row, drawn right
after its control (hatched): a bar to the median, a whisker over the spread of the
samples (min..max: the records carry no quartiles), and the penalty against the
control written beside it.  With two captures each row holds an A and a B bar, and
rows that changed beyond the spread (as `compare` judges it) are marked with *.

The axis of a panel is fitted to its ordinary values: an isolated bar or a whisker far
beyond them (more than OUTLIER_FACTOR times the next largest median) is cut at the edge
and marked with a red arrow and its value, so one outlier never squashes every other bar.

With --metric latency it draws the memory ladder instead: latency per load (cycles
above, nanoseconds below) against the ring's size on a log axis, `latency.<size>` as a
solid line and `tlb.<size>` (4 KiB pages) dashed, whiskers over min..max, and the cache
levels of the run's `cache` record drawn as vertical boundaries.

--metric topdown draws the run's top-down analysis instead (its `metrics` records,
topdown.py): one panel per kernel, each variant right after its control, a bar of its
level-1 classes stacked to 100 % of the slots and under it a thinner bar of each class's
level-2 nodes, the dominant one in bold and written beside the bar with the cycles.

matplotlib is needed for this command only (Debian: python3-matplotlib).
"""
import argparse
import math
import os
import sys
import tempfile
import textwrap

from . import capture, cmd_compare as compare, ladder, topdown
from .capture import STR, get

FORMATS = ("png", "svg", "pdf")
COLOURS = ("#4e79a7", "#f28e2b")   # A, B
FLAG_COLOUR = "#d62728"
# A median this many times the next largest, or a whisker this many times the largest
# ordinary median, is an outlier: cut at the axis edge and marked, not allowed to set the scale.
OUTLIER_FACTOR = 3.0
# ... and only when it would squash the others: above this many times the middle median
# (a bar under a tenth of the axis is still read; under a fiftieth it is not).
SQUASH_FACTOR = 10.0
# Room right of the largest ordinary value for the arrows and penalty labels.
LABEL_ROOM = 1.5
ROW_INCHES = 0.26
PANEL_INCHES = 0.75
WIDTH_INCHES = 11.0
DPI = 110
# More panels than this would make a picture nobody can read (and a huge file).
MAX_PANELS = 40
# Header lines wrap here (characters at the legend's font size across the picture).
TITLE_CHARS = 105
# The records plot reads (the end record is always kept), and of the bench records the fields.
PLOT_TYPES = ("begin", "cpu", "platform", "bench_setup", "bench", "cache", topdown.RECORD_TYPE)
PLOT_FIELDS = {"bench": capture.KEY_FIELDS + ("cycles", "events", "penalty", "control", "memory", "arena", "arena_page",
                                              "unstable", "emulated"),
               topdown.RECORD_TYPE: topdown.FIELDS}
# Top-down: each level-1 class's colour (by topdown.abbrev), then colours for classes not known.
CLASS_COLOURS = {"FE": "#4e79a7", "BS": "#e15759", "BE": "#f28e2b", "RE": "#59a14f", "SMT": "#9d9d9d"}
OTHER_COLOURS = ("#b07aa1", "#76b7b2", "#edc948", "#ff9da7")
# A level-2 node is its class's colour mixed with black (-) or white (+) by this much, in turn.
CHILD_SHADES = (-0.25, 0.4, 0.1, 0.6)
TD_ROW_INCHES = 0.5
# The bars span 0..100 % of the slots; the axis goes on this far for the text beside them.
TD_AXIS_END = 140.0
# A segment this wide (percent of slots) holds its label; a level-2 label needs this much per character.
TD_LABEL_MIN = 6.0
TD_CHAR_WIDTH = 0.95
# A row without a bar says why, wrapped at this many characters (inside the axis).
TD_WHY_CHARS = 150


def add_parser(sub):
    p = sub.add_parser("plot", help="chart of cycles and event counts per kernel variant (PNG/SVG)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("capture")
    p.add_argument("capture_b", nargs="?", help="a second capture: plot the two runs side by side")
    p.add_argument("-o", "--output", required=True,
                   help="the picture to write; its extension chooses the format: .png, .svg or .pdf")
    p.add_argument("--run-a", type=int, metavar="N", help="which run of the first capture (1 = first; default last)")
    p.add_argument("--run-b", type=int, metavar="N", help="which run of the second capture (1 = first; default last)")
    p.add_argument("--metric", choices=["cycles", "events", "all", "latency", "topdown"], default="cycles",
                   help="cycles per iteration (default), the events counted, or both; latency: the memory "
                        "ladder against size, with the cache levels; topdown: the top-down breakdown of each "
                        "variant (its metrics record)")
    p.add_argument("--allow-incomplete", action="store_true", help="plot even a truncated or damaged run")
    p.set_defaults(func=run)


# --- what to draw (no matplotlib here, so it is tested and used without it) ---

class Bar:
    """One run's figure for one row: the figure, its penalty against the control, or None."""

    def __init__(self, fig, penalty):
        self.fig, self.penalty = fig, penalty


class Row:
    def __init__(self, key, label, is_control, bars):
        self.key, self.label, self.is_control, self.bars = key, label, is_control, bars
        self.flag = ""


class Panel:
    def __init__(self, title, unit, rows):
        self.title, self.unit, self.rows = title, unit, rows


def _cpu_prefix(key):
    """The "N:" a key of a run measured on several processors starts with (capture.variant_key), or ""."""
    head, sep, _ = key.partition(":")
    return head + sep if sep and head.isdigit() else ""


def _control_key(key, rec):
    """The key of rec's control: same kernel, arena and processor."""
    ctl = get(rec, "control", STR)
    return _cpu_prefix(key) + capture.variant_key(rec, variant=ctl) if ctl else None


def _ordered(keys, recs):
    """Variant keys with each control first, followed by the variants measured against it."""
    controls = {k: _control_key(k, recs[k]) for k in keys}
    out = []
    for k in keys:
        ctl = controls[k]
        if ctl in recs and ctl != k:
            continue   # placed after its control below
        if k in out:
            continue
        out.append(k)
        out += [v for v in keys if v not in out and controls[v] == k and v != k]
    return out + [k for k in keys if k not in out]


def build_panels(tables, metric_sel):
    """[Panel] for one or two bench tables ({variant key: bench record})."""
    keys = []
    for t in tables:
        keys += [k for k in t if k not in keys]
    merged = {}
    for t in tables:
        for k, r in t.items():
            merged.setdefault(k, r)
    kernels = []
    for k in keys:
        kern = get(merged[k], "kernel", STR, "?")
        if kern not in kernels:
            kernels.append(kern)
    figs = [{k: capture.figures(r) for k, r in t.items()} for t in tables]
    controls = {k: _control_key(k, r) for k, r in merged.items()}
    is_control = set(c for c in controls.values() if c)

    def penalty(i, key, metric):
        rec = tables[i].get(key)
        if rec is None or metric not in figs[i].get(key, {}):
            return None
        if metric == "cycles":
            pen = get(rec, ("penalty", "median"), capture.NUM)
            if pen is not None:
                return float(pen)
        ctl = controls.get(key)
        if ctl and metric in figs[i].get(ctl, {}):
            return figs[i][key][metric]["median"] - figs[i][ctl][metric]["median"]
        return None

    panels = []
    for kern in kernels:
        kkeys = _ordered([k for k in keys if get(merged[k], "kernel", STR, "?") == kern], merged)
        metrics = []
        if metric_sel in ("cycles", "all"):
            metrics.append("cycles")
        if metric_sel in ("events", "all"):
            for k in kkeys:
                for f in figs:
                    metrics += [m for m in f.get(k, {}) if m != "cycles" and m not in metrics]
        for m in metrics:
            rows = []
            for k in kkeys:
                bars = [Bar(f[k][m], penalty(i, k, m)) if m in f.get(k, {}) else None
                        for i, f in enumerate(figs)]
                if not any(bars):
                    continue
                cpu = _cpu_prefix(k)
                bare = k[len(cpu):]
                row = Row(k, cpu + (bare[len(kern) + 1:] if bare.startswith(kern + ".") else bare), k in is_control,
                          bars)
                if len(bars) == 2 and all(bars):
                    row.flag = compare.judge(bars[0].fig, bars[1].fig, compare.DEFAULT_MIN_CHANGE_PCT,
                                             compare.DEFAULT_FLOOR)[2]
                rows.append(row)
            if rows:
                unit = "cycles per iteration" if m == "cycles" else f"{m} per iteration"
                panels.append(Panel(f"{kern}: {'cycles' if m == 'cycles' else m}", unit, rows))
    return panels


def axis_limits(rows):
    """(low, high): the axis range fitted to the ordinary values.

    Outliers do not set the scale.  A median is one when, with three bars or more, it is
    more than OUTLIER_FACTOR times the next largest median (an isolated peak, not a group
    of large values: a quarter of the bars at most) and more than SQUASH_FACTOR times the
    middle median (it would squash the others); a whisker end is one when it reaches
    more than OUTLIER_FACTOR times the largest ordinary median (one slow sample).  Low:
    zero, or a little below the lowest median when one is negative; whiskers below it (a
    noisy differential sample) are cut too.  Whatever is cut is drawn to the edge and marked.
    """
    meds = sorted(b.fig["median"] for r in rows for b in r.bars if b)
    middle = meds[len(meds) // 2]
    kept = list(meds)
    while len(meds) >= 3 and len(meds) - len(kept) < max(1, len(meds) // 4) and len(kept) >= 2 \
            and kept[-2] > 0 and kept[-1] > OUTLIER_FACTOR * kept[-2] and kept[-1] > SQUASH_FACTOR * middle:
        kept.pop()
    top = max(kept[-1], 0.0)
    whisker_cut = OUTLIER_FACTOR * top if top > 0 else math.inf
    hi = max([top] + [b.fig["max"] for r in rows for b in r.bars if b and b.fig["max"] <= whisker_cut])
    lo = min(0.0, meds[0])
    if lo < 0:
        lo -= 0.05 * (hi - lo)
    if hi <= lo:
        hi = lo + 1.0
    return lo, hi


def variants_drawn(panels):
    return len({r.key for p in panels for r in p.rows})


class TdRow:
    """One variant's top-down bar: its Breakdown (bd.why set: nothing to draw, and why), and which
    capture (0 or 1; None with one capture)."""

    def __init__(self, key, label, is_control, bd, bench, which=None):
        self.key, self.label, self.is_control, self.bd, self.bench, self.which = \
            key, label, is_control, bd, bench, which


def build_topdown_panels(tables, tds):
    """[Panel] of TdRows, one panel per kernel: the variants with a metrics record, each control first."""
    keys, merged = [], {}
    for t, td in zip(tables, tds):
        for k, r in t.items():
            merged.setdefault(k, r)
            if k in td.by_key and k not in keys:
                keys.append(k)
    is_control = {_control_key(k, r) for k, r in merged.items()}
    panels, by_kernel = [], {}
    for k in _ordered(keys, {k: merged[k] for k in keys}):
        kern = get(merged[k], "kernel", STR, "?")
        cpu = _cpu_prefix(k)
        bare = k[len(cpu):]
        label = cpu + (bare[len(kern) + 1:] if bare.startswith(kern + ".") else bare)
        if kern not in by_kernel:
            by_kernel[kern] = Panel(f"{kern}: top-down", "% of slots", [])
            panels.append(by_kernel[kern])
        for i, (t, td) in enumerate(zip(tables, tds)):
            if k in td.by_key:
                which = i if len(tables) > 1 else None
                by_kernel[kern].rows.append(TdRow(k, label + (f" [{'AB'[i]}]" if which is not None else ""),
                                                  k in is_control, td.by_key[k], t.get(k), which))
    return panels


# --- drawing ---

def import_matplotlib():
    """matplotlib with a file-only backend, or CaptureError saying how to get it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        # SVG text stays text (searchable, small), not glyph outlines.
        matplotlib.rcParams["svg.fonttype"] = "none"
        from matplotlib.figure import Figure
        from matplotlib.patches import Patch
        return Figure, Patch
    except ImportError:
        debian = "/usr/lib/python3/dist-packages/matplotlib"
        if os.path.isdir(debian) and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
            raise capture.InputError(f"plot needs matplotlib, which is installed for /usr/bin/python3 but not for "
                                     f"this Python ({sys.executable}): run /usr/bin/python3 tools/pmucap plot ...")
        raise capture.InputError("plot needs matplotlib: install it with apt-get install python3-matplotlib "
                                 "(or run tools/deps.sh as root)") from None


def _fmt(v):
    a = abs(v)
    return f"{v:.0f}" if a >= 1000 else f"{v:.1f}" if a >= 100 else f"{v:.2f}" if a >= 1 else f"{v:.3f}"


def draw_panel(ax, panel, n):
    lo, hi = axis_limits(panel.rows)
    right = hi + (hi - lo) * (LABEL_ROOM - 1)
    h = 0.8 / n
    labels = []
    any_cut = False
    for i, row in enumerate(panel.rows):
        labels.append(("* " if row.flag else "") + row.label + (" (control)" if row.is_control else ""))
        for j, bar in enumerate(row.bars):
            y = i - 0.4 + h * (j + 0.5)
            if bar is None:
                ax.text(max(lo, 0.0), y, f"  not in {'AB'[j]}", va="center", fontsize=7, color="#888")
                continue
            f = bar.fig
            clip = lambda v: min(max(v, lo), hi)   # noqa: E731
            med = clip(f["median"])
            ax.barh(y, med, height=h * 0.9, color=COLOURS[j], alpha=0.45 if row.is_control else 0.9,
                    hatch="///" if row.is_control else None, edgecolor=COLOURS[j], linewidth=0.6)
            wlo, whi = clip(f["min"]), clip(f["max"])
            ax.plot([wlo, whi], [y, y], color="#222", linewidth=1.0)
            for end, real in ((wlo, f["min"]), (whi, f["max"])):
                if lo <= real <= hi:
                    ax.plot([end, end], [y - h * 0.3, y + h * 0.3], color="#222", linewidth=1.0)
            cut = []
            if f["median"] > hi or f["max"] > hi:
                ax.plot([hi], [y], marker=">", color=FLAG_COLOUR, markersize=6, clip_on=False)
                cut.append(f"median {_fmt(f['median'])}" if f["median"] > hi else f"max {_fmt(f['max'])}")
            if f["min"] < lo:
                ax.plot([lo], [y], marker="<", color=FLAG_COLOUR, markersize=6, clip_on=False)
                cut.append(f"min {_fmt(f['min'])}")
            any_cut = any_cut or bool(cut)
            note = "control" if row.is_control else (
                f"{'+' if bar.penalty >= 0 else ''}{_fmt(bar.penalty)} vs control" if bar.penalty is not None else "")
            label = "  " + (_fmt(f["median"]) if f["median"] <= hi else "") + (f"  ({note})" if note else "")
            if cut:
                label += "  cut: " + ", ".join(cut)
            ax.text(whi, y, label, va="center", fontsize=7, color=FLAG_COLOUR if cut else "#333")
    ax.set_yticks(range(len(panel.rows)))
    ax.set_yticklabels(labels, fontsize=8)
    for tick, row in zip(ax.get_yticklabels(), panel.rows):
        if row.flag:
            tick.set_color(FLAG_COLOUR)
    ax.set_ylim(len(panel.rows) - 0.5, -0.5)
    ax.set_xlim(lo, right)
    ax.axvline(0, color="#888", linewidth=0.8)
    ax.grid(axis="x", color="#ddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.set_title(panel.title, loc="left", fontsize=10, fontweight="bold")
    ax.set_xlabel(panel.unit + ("; red arrow: a value beyond the axis, cut (its figure written)" if any_cut else ""),
                  fontsize=8)
    ax.tick_params(axis="x", labelsize=8)


def _mix(colour, amount):
    """colour mixed with white (amount > 0) or black (amount < 0)."""
    from matplotlib.colors import to_rgb
    target = 1.0 if amount > 0 else 0.0
    return tuple(c + (target - c) * abs(amount) for c in to_rgb(colour))


def class_colour(name, others):
    """The colour of a level-1 class; others: {name: colour} given so far to classes not known."""
    short = topdown.abbrev(name)
    if short in CLASS_COLOURS:
        return CLASS_COLOURS[short]
    if name not in others:
        others[name] = OTHER_COLOURS[len(others) % len(OTHER_COLOURS)]
    return others[name]


def _side_text(row):
    """Beside the bar: the dominant level-2 node, and under it the cycles and the penalty against the control."""
    parts = []
    if row.bd.dominant:
        parts.append(f"{row.bd.dominant[0]} {row.bd.dominant[1]:.1f}%")
    fig = capture.figure(row.bench, "cycles") if row.bench is not None else None
    if fig:
        pen = get(row.bench, ("penalty", "median"), capture.NUM)
        parts.append(f"{_fmt(fig['median'])} cycles" + (f" ({'+' if pen >= 0 else ''}{_fmt(pen)} vs control)"
                                                         if pen is not None else ""))
    return "\n".join(parts)


def draw_topdown_panel(ax, panel, others):
    """The panel's rows: a level-1 bar (hatched for a control) over a thin level-2 bar; labels inside
    the segments wide enough; the dominant node and the cycles beside; why, where nothing is drawn."""
    from matplotlib.patheffects import withStroke
    labels = []
    for i, row in enumerate(panel.rows):
        labels.append(row.label + (" (control)" if row.is_control else ""))
        if row.bd.why:
            # The why without where it is (the warnings say that) nor what follows from it.
            reason = row.bd.why.split(": ", 2)[-1].removesuffix(topdown.NOT_SHOWN)
            ax.text(1, i, textwrap.fill("no breakdown: " + reason, TD_WHY_CHARS), va="center", fontsize=7,
                    color=FLAG_COLOUR, in_layout=False)
            continue
        shade = {}
        for level, name, parent, left, width, value in topdown.segments(row.bd):
            if level == 1:
                colour = class_colour(name, others)
                ax.barh(i - 0.12, width, left=left, height=0.5, color=colour, edgecolor="white", linewidth=0.6,
                        hatch="//" if row.is_control else None)
                if width >= TD_LABEL_MIN:
                    # Outlined in the segment's colour, so a control's hatching does not run through it.
                    ax.text(left + width / 2, i - 0.12, f"{topdown.abbrev(name)} {topdown.pct(value)}",
                            ha="center", va="center", fontsize=7, color="white", fontweight="bold",
                            path_effects=[withStroke(linewidth=3, foreground=colour)], in_layout=False)
                continue
            n = shade.get(parent, 0)
            shade[parent] = n + 1
            ax.barh(i + 0.27, width, left=left, height=0.2, linewidth=0.4, edgecolor="white",
                    color=_mix(class_colour(parent, others), CHILD_SHADES[n % len(CHILD_SHADES)]))
            dominant = row.bd.dominant is not None and name == row.bd.dominant[0]
            text = f"{name} {topdown.pct(value)}"
            if width >= len(text) * TD_CHAR_WIDTH:
                ax.text(left + width / 2, i + 0.27, text, ha="center", va="center", fontsize=5.5,
                        color="#111", fontweight="bold" if dominant else "normal")
        ax.text(101.5, i, _side_text(row), va="center", fontsize=7, color="#333", in_layout=False)
    ax.set_yticks(range(len(panel.rows)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_ylim(len(panel.rows) - 0.5, -0.5)
    ax.set_xlim(0, TD_AXIS_END)
    ax.set_xticks(range(0, 101, 20))
    ax.grid(axis="x", color="#ddd", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.spines["bottom"].set_bounds(0, 100)
    ax.set_title(panel.title, loc="left", fontsize=10, fontweight="bold")
    ax.set_xlabel("% of pipeline slots", fontsize=8, loc="left")
    ax.tick_params(axis="x", labelsize=8)


def render_topdown(panels, names, sources, path, fmt):
    Figure, Patch = import_matplotlib()
    heights = [PANEL_INCHES + TD_ROW_INCHES * len(p.rows) for p in panels]
    head = 0.9 + 0.17 * len(names)
    fig = Figure(figsize=(WIDTH_INCHES, head + sum(heights)), dpi=DPI, layout="constrained")
    axes = fig.subplots(len(panels) + 1, 1, squeeze=False, gridspec_kw={"height_ratios": [head] + heights})[:, 0]
    others, classes = {}, []
    for ax, panel in zip(axes[1:], panels):
        draw_topdown_panel(ax, panel, others)
        for row in panel.rows:
            classes += [n for n, _ in row.bd.level1 if n not in classes]
    handles = [Patch(facecolor=class_colour(c, others), label=f"{topdown.abbrev(c)}  {c}")
               for c in sorted(classes, key=topdown.stack_order)]
    handles.append(Patch(facecolor="white", edgecolor="#555", hatch="//", label="control (hatched)"))
    head_ax = axes[0]
    head_ax.axis("off")
    title = "pmuboot top-down: " + (names[0] if len(names) == 1 else "; ".join(
        f"{'AB'[i]} = {n}" for i, n in enumerate(names)))
    title += "\nformulas: " + "; ".join(sources or ["no source named"])
    head_ax.set_title("\n".join(textwrap.fill(t, TITLE_CHARS) for t in title.split("\n")), loc="left",
                      fontsize=9, fontweight="bold")
    head_ax.legend(handles=handles, loc="upper left", fontsize=8, frameon=False, borderaxespad=0,
                   ncol=len(handles))
    note = ("Each variant: a bar of its level-1 classes (% of slots, to 100) over a thinner bar of each class's "
            "level-2 nodes; beside it the dominant level-2 node, the cycles per iteration and the penalty against "
            "the control.")
    head_ax.text(0, 0, textwrap.fill(note, TITLE_CHARS + 25), transform=head_ax.transAxes, fontsize=7.5,
                 color="#444", va="bottom", in_layout=False)
    write_picture(fig, path, fmt)


def render(panels, names, path, fmt):
    Figure, Patch = import_matplotlib()
    n = len(names)
    heights = [PANEL_INCHES + ROW_INCHES * len(p.rows) * (1 + 0.6 * (n - 1)) for p in panels]
    head = 0.3 + 0.17 * (n + 2 + (n > 1)) + (0.17 * n if n > 1 else 0.0)
    fig = Figure(figsize=(WIDTH_INCHES, head + sum(heights)), dpi=DPI, layout="constrained")
    # The first row is a header holding the key; the panels follow.
    axes = fig.subplots(len(panels) + 1, 1, squeeze=False, gridspec_kw={"height_ratios": [head] + heights})[:, 0]
    for ax, panel in zip(axes[1:], panels):
        draw_panel(ax, panel, n)
    handles = [Patch(facecolor=COLOURS[i], label="\n".join(textwrap.wrap(f"{'AB'[i]}: {names[i]}", TITLE_CHARS)))
               for i in range(n)] if n > 1 else []
    handles += [Patch(facecolor="white", edgecolor="#555", hatch="///", label="control (hatched)"),
                Patch(facecolor="white", edgecolor="white",
                      label="bar = median, whisker = min..max of the samples; label = median (penalty vs control)")]
    if n > 1:
        handles.append(Patch(facecolor="white", edgecolor="white",
                             label="* red label: changed beyond the spread (ranges apart, > 1% and > 0.01)"))
    head_ax = axes[0]
    head_ax.axis("off")
    title = "pmuboot" + ("" if n > 1 else ": " + names[0])
    head_ax.set_title("\n".join(textwrap.wrap(title, TITLE_CHARS)), loc="left", fontsize=9, fontweight="bold")
    head_ax.legend(handles=handles, loc="upper left", fontsize=8, frameon=False, borderaxespad=0)
    write_picture(fig, path, fmt)


def write_picture(fig, path, fmt):
    """Draw into a temporary file beside path, then put it in place: a failure leaves no half picture.
    The temporary name is ours, not the user's: an error names path."""
    directory = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".pmucap-plot-", suffix="." + fmt, dir=directory)
        os.close(fd)
        fig.savefig(tmp, format=fmt)
        os.replace(tmp, path)
    except OSError as e:
        raise capture.InputError(f"{path}: cannot write the picture: {e.strerror or e}") from None
    finally:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)


def output_format(path):
    if os.path.isdir(path):
        raise capture.InputError(f"{path}: is a directory; give the picture's file name")
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in FORMATS:
        raise capture.InputError(f"{path}: the picture's name must end in " + ", ".join("." + f for f in FORMATS)
                                 + " (it chooses the format)")
    return ext


# --- the memory ladder (--metric latency) ---

LADDER_HEIGHT_INCHES = 7.5
LEVEL_COLOUR = "#59a14f"


def ladder_series(run):
    """{(kernel, unit): [(size, figure)]} of a run's latency and tlb points, unit "cycles" or "ns"."""
    out = {}
    for kern in ("latency", "tlb"):
        for pt in ladder.points(run, kern):
            for unit, fig in (("cycles", pt.cycles), ("ns", pt.ns)):
                if fig is not None and pt.size:
                    out.setdefault((kern, unit), []).append((pt.size, fig))
    return out


def size_ticks(lo, hi):
    """Powers of 4 from lo to hi, each with its label (4 KiB, 16 KiB, ... 1 GiB)."""
    ticks, t = [], 4096
    while t < lo:
        t *= 4
    while t <= hi * 1.01:
        ticks.append(t)
        t *= 4
    return ticks, [ladder.size_text(t).replace(" ", "\u2009") for t in ticks]


def render_ladder(series, levels, names, emulated, path, fmt):
    Figure, Patch = import_matplotlib()
    from matplotlib.lines import Line2D
    fig = Figure(figsize=(WIDTH_INCHES, LADDER_HEIGHT_INCHES), dpi=DPI, layout="constrained")
    axes = fig.subplots(2, 1, sharex=True)
    sizes = [s for ser in series for pts in ser.values() for s, _ in pts]
    lo, hi = min(sizes), max(sizes)
    for ax, unit in zip(axes, ("cycles", "ns")):
        for i, ser in enumerate(series):
            for kern, style, marker in (("latency", "-", "o"), ("tlb", "--", "x")):
                pts = ser.get((kern, unit), [])
                if not pts:
                    continue
                xs = [s for s, _ in pts]
                med = [f["median"] for _, f in pts]
                err = [[f["median"] - f["min"] for _, f in pts], [f["max"] - f["median"] for _, f in pts]]
                ax.errorbar(xs, med, yerr=err, color=COLOURS[i], linestyle=style, marker=marker, markersize=4,
                            linewidth=1.2, elinewidth=0.8, capsize=2)
        for lv in levels:
            ax.axvline(lv.size, color=LEVEL_COLOUR, linestyle=":", linewidth=1.2)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.grid(True, which="major", color="#ddd", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.set_ylabel("cycles per load" if unit == "cycles" else "ns per load", fontsize=9)
        ax.tick_params(labelsize=8)
        ax.yaxis.set_major_formatter(_plain_formatter())
    top = axes[0]
    for lv in levels:
        top.text(lv.size, 1.01, " " + lv.label(), transform=top.get_xaxis_transform(), rotation=0, fontsize=8,
                 color=LEVEL_COLOUR, ha="left", va="bottom")
    ticks, labels = size_ticks(lo, hi)
    axes[1].set_xticks(ticks)
    axes[1].set_xticklabels(labels)
    axes[1].set_xlim(lo / 1.3, hi * 1.3)
    axes[1].set_xlabel("size of the ring (log scale); dotted: the cache levels of the run's cache record", fontsize=9)
    handles = [Line2D([], [], color="#333", linestyle="-", marker="o", markersize=4,
                      label="latency.<size>: largest pages (2 MiB or 1 GiB)"),
               Line2D([], [], color="#333", linestyle="--", marker="x", markersize=4,
                      label="tlb.<size>: 4 KiB pages"),
               Line2D([], [], color=LEVEL_COLOUR, linestyle=":", label="cache level (CPUID)")]
    if len(names) > 1:
        handles += [Patch(facecolor=COLOURS[i], label=f"{'AB'[i]}: {names[i]}") for i in range(len(names))]
    title = "pmuboot memory ladder" + ("" if len(names) > 1 else ": " + names[0])
    if emulated:
        title += " (EMULATED: times are the emulator's, not any silicon's)"
    top.set_title("\n".join(textwrap.wrap(title, TITLE_CHARS)), loc="left", fontsize=9, fontweight="bold", pad=16)
    top.legend(handles=handles, loc="upper left", fontsize=8, frameon=False)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".pmucap-plot-", suffix="." + fmt, dir=directory)
    os.close(fd)
    try:
        fig.savefig(tmp, format=fmt)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _plain_formatter():
    """Log-axis labels as plain numbers (5, 20, 500), not powers of ten."""
    from matplotlib.ticker import FuncFormatter
    return FuncFormatter(lambda v, _: f"{v:g}")


def run_ladder(args, runs, names):
    series = [ladder_series(r) for r in runs]
    if not any(series):
        raise capture.InputError("no latency or tlb records to plot (choose bench=latency,tlb in the run); "
                                 "the other figures: --metric cycles")
    levels = ladder.cache_levels(runs[0])
    emulated = any(pt.emulated for r in runs for k in ("latency", "tlb") for pt in ladder.points(r, k))
    render_ladder(series, levels, names, emulated, args.output, output_format(args.output))
    n = sum(len(v) for s in series for k, v in s.items() if k[1] == "cycles")
    print(f"pmucap: wrote {args.output}: {n} ladder point(s), {len(levels)} cache level(s)", file=sys.stderr)
    return 0


def run(args):
    fmt = output_format(args.output)
    specs = [(args.capture, args.run_a)] + ([(args.capture_b, args.run_b)] if args.capture_b else [])
    tables, names, runs = [], [], []
    for path, idx in specs:
        r, warnings = capture.load_run(path, idx, args.allow_incomplete, keep=PLOT_TYPES, fields=PLOT_FIELDS)
        for w in warnings:
            capture.warn(w)
        tables.append(capture.bench_table(r))
        names.append(f"{os.path.basename(path)} run {r.number}: {capture.describe_run(r)}")
        runs.append(r)
    if args.metric == "latency":
        return run_ladder(args, runs, names)
    if args.metric == "topdown":
        return run_topdown(args, fmt, specs, tables, names, runs)
    panels = build_panels(tables, args.metric)
    if not panels:
        if args.metric == "events":
            why = []
            for r in runs:
                setup = capture.first_record(r, "bench_setup") or {}
                reason = get(setup, ("counting", "reason"), STR)
                why.append(f"run {r.number}: " + (reason or "no event in any bench record"))
            raise capture.InputError("no event counts to plot (" + "; ".join(why) + "); try --metric cycles")
        raise capture.InputError("no bench records with figures to plot in " + " or ".join(p for p, _ in specs))
    if len(panels) > MAX_PANELS:
        raise capture.InputError(f"{len(panels)} panels are too many for one picture (at most {MAX_PANELS}): "
                                 "choose --metric cycles, or fewer events")
    render(panels, names, args.output, fmt)
    rows = sum(len(p.rows) for p in panels)
    print(f"pmucap: wrote {args.output}: {variants_drawn(panels)} kernel variant(s) in {len(panels)} panel(s), "
          f"{rows} row(s)", file=sys.stderr)
    return 0


def no_topdown_why(run, td):
    """Why a run gives no top-down bar, in words."""
    if td.any:
        why = next((bd.why for bd in td.by_key.values() if bd.why), None) or (td.problems[:1] or ["?"])[0]
        return f"run {run.number}: {td.records} metrics record(s), none with a breakdown (first: {why})"
    setup = capture.first_record(run, "bench_setup") or {}
    reason = get(setup, ("counting", "reason"), STR)
    return f"run {run.number}: no metrics records (" + (
        f"no event counting: {reason}" if reason else
        "a pmuboot without top-down, or a core without top-down formulas") + ")"


def run_topdown(args, fmt, specs, tables, names, runs):
    tds = [topdown.read(r) for r in runs]
    for (path, _), td in zip(specs, tds):
        for p in td.problems:
            capture.warn(f"{path}: top-down: {p}")
    panels = build_topdown_panels(tables, tds)
    if not any(not row.bd.why for p in panels for row in p.rows):
        raise capture.InputError("no top-down breakdown to plot (" + "; ".join(
            no_topdown_why(r, td) for r, td in zip(runs, tds)) + "); try --metric cycles")
    if len(panels) > MAX_PANELS:
        raise capture.InputError(f"{len(panels)} panels are too many for one picture (at most {MAX_PANELS})")
    sources = []
    for td in tds:
        sources += [s for s in td.sources if s not in sources]
    if any(td.fallback for td in tds):
        sources.append("the tree from pmucap's table of the vendors' names (records without levels or parents)")
    render_topdown(panels, names, sources, args.output, fmt)
    rows = sum(len(p.rows) for p in panels)
    print(f"pmucap: wrote {args.output}: top-down of {variants_drawn(panels)} kernel variant(s) in {len(panels)} "
          f"panel(s), {rows} row(s)", file=sys.stderr)
    return 0
