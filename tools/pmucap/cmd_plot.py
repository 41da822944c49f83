"""pmucap plot - a run, or two runs side by side, drawn with matplotlib (PNG, SVG or PDF).

One panel per kernel: cycles per iteration, then (with --metric events or all) one
panel per kernel and event counted; a run with the memory ladder adds its latency curve
(cycles per load against the ring's size, as --metric latency draws it) and its bandwidth
(bytes per cycle, GB/s on the right-hand scale, against the set's size).  A figure the
run marked unstable is drawn hatched (a ringed point on a curve) with "~" and why; a
variant the image did not run (e.g. "needs avx512f") has its row, saying why; an emulated
run says EMULATED in the title and across every panel.  In a panel each variant is a row, drawn right
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
import textwrap

from . import capture, cmd_compare as compare, ladder, topdown
from .capture import STR, get
from .plot_common import (COLOURS, DPI, EMULATED_MARK, FLAG_COLOUR, MAX_PANELS, PANEL_INCHES, SKIP_COLOUR, TITLE_CHARS,
                          UNSTABLE_COLOUR, WIDTH_INCHES, Bar, Panel, Row, _control_key, _cpu_prefix, _fmt, _ordered,
                          import_matplotlib, mark_emulated, output_format, run_emulated, skipped_variants,
                          variants_drawn, write_picture)
from .plot_ladder import (bandwidth_series, draw_bandwidth_axis, draw_ladder_axis, ladder_series, ladder_unstable,
                          run_ladder, set_size_axis)
from .plot_topdown import run_topdown

# A median this many times the next largest, or a whisker this many times the largest
# ordinary median, is an outlier: cut at the axis edge and marked, not allowed to set the scale.
OUTLIER_FACTOR = 3.0
# ... and only when it would squash the others: above this many times the middle median
# (a bar under a tenth of the axis is still read; under a fiftieth it is not).
SQUASH_FACTOR = 10.0
# Room right of the largest ordinary value for the arrows and penalty labels.
LABEL_ROOM = 1.5
ROW_INCHES = 0.26
# The records plot reads (the end record is always kept), and of the bench records the fields.
PLOT_TYPES = ("begin", "cpu", "platform", "bench_setup", "bench", "check", "cache", topdown.RECORD_TYPE)
PLOT_FIELDS = {"bench": capture.KEY_FIELDS + ("cycles", "events", "penalty", "control", "memory", "arena", "arena_page",
                                              "unstable", "emulated"),
               "check": capture.KEY_FIELDS + ("what", "status", "reason"),
               topdown.RECORD_TYPE: topdown.FIELDS}
# Height of the default plot's ladder and bandwidth panels.
MEMORY_PANEL_INCHES = 3.2


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


def build_panels(tables, metric_sel, skipped=None):
    """[Panel] for one or two bench tables ({variant key: bench record}).  The memory ladder's records are
    left out (they are curves: memory_series); skipped: {variant key: why} of the variants the image did
    not run, each a row of its kernel's cycles panel."""
    tables = [{k: r for k, r in t.items() if not ladder.is_ladder(r)} for t in tables]
    skipped = dict(skipped or {})
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
    skipped = {k: why for k, why in skipped.items() if k not in merged}
    for k in skipped:
        kern = k[len(_cpu_prefix(k)):].split(".")[0].split("@")[0]
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
                bars = [Bar(f[k][m], penalty(i, k, m),
                            get(tables[i][k], "unstable", STR) if m == "cycles" else None) if m in f.get(k, {}) else None
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
            if m == "cycles":
                for k, why in skipped.items():
                    bare = k[len(_cpu_prefix(k)):]
                    if bare.split(".")[0] == kern:
                        rows.append(Row(k, _cpu_prefix(k) + bare[len(kern) + 1:], False, [None] * len(tables), why))
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
    if not meds:
        return 0.0, 1.0
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


# --- drawing ---


def draw_panel(ax, panel, n):
    lo, hi = axis_limits(panel.rows)
    right = hi + (hi - lo) * (LABEL_ROOM - 1)
    h = 0.8 / n
    labels = []
    any_cut = False
    for i, row in enumerate(panel.rows):
        labels.append(("* " if row.flag else "") + row.label + (" (control)" if row.is_control else ""))
        if row.skipped:
            ax.text(max(lo, 0.0), i, "  not run: " + row.skipped, va="center", fontsize=7, color=SKIP_COLOUR,
                    style="italic", clip_on=True)
            continue
        for j, bar in enumerate(row.bars):
            y = i - 0.4 + h * (j + 0.5)
            if bar is None:
                ax.text(max(lo, 0.0), y, f"  not in {'AB'[j]}", va="center", fontsize=7, color="#888")
                continue
            f = bar.fig
            clip = lambda v: min(max(v, lo), hi)   # noqa: E731
            med = clip(f["median"])
            shaky = bar.unstable
            ax.barh(y, med, height=h * 0.9, color=COLOURS[j], alpha=0.45 if row.is_control or shaky else 0.9,
                    hatch="xxx" if shaky else "///" if row.is_control else None,
                    edgecolor=UNSTABLE_COLOUR if shaky else COLOURS[j], linewidth=0.6)
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
            label = "  " + (_fmt(f["median"]) + ("~" if bar.unstable else "") if f["median"] <= hi else "") \
                + (f"  ({note})" if note else "") + (f"  unstable: {bar.unstable}" if bar.unstable else "")
            if cut:
                label += "  cut: " + ", ".join(cut)
            ax.text(whi, y, label, va="center", fontsize=7, clip_on=True,
                    color=FLAG_COLOUR if cut else UNSTABLE_COLOUR if bar.unstable else "#333")
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


class Memory:
    """The memory ladder of the runs drawn, for the default plot's last panels: latency and bandwidth."""

    def __init__(self, runs):
        self.latency = [ladder_series(r) for r in runs]
        self.unstable = [ladder_unstable(r) for r in runs]
        self.bandwidth = [bandwidth_series(r) for r in runs]
        self.levels = ladder.cache_levels(runs[0]) if runs else []

    def panels(self):
        """How many panels it adds: the latency curve, the bandwidth, or both."""
        return int(any(s.get(("latency", "cycles")) or s.get(("tlb", "cycles")) for s in self.latency)) \
            + int(any(self.bandwidth))


def render(panels, names, path, fmt, memory=None, emulated=False):
    Figure, Patch = import_matplotlib()
    n = len(names)
    extra = memory.panels() if memory else 0
    heights = [PANEL_INCHES + ROW_INCHES * len(p.rows) * (1 + 0.6 * (n - 1)) for p in panels] \
        + [MEMORY_PANEL_INCHES] * extra
    head = 0.3 + 0.17 * (n + 4 + (n > 1) + emulated) + (0.17 * n if n > 1 else 0.0)
    fig = Figure(figsize=(WIDTH_INCHES, head + sum(heights)), dpi=DPI, layout="constrained")
    # The first row is a header holding the key; the panels follow.
    axes = fig.subplots(len(panels) + extra + 1, 1, squeeze=False,
                        gridspec_kw={"height_ratios": [head] + heights})[:, 0]
    for ax, panel in zip(axes[1:], panels):
        draw_panel(ax, panel, n)
    rest = list(axes[1 + len(panels):])
    if extra:
        draw_memory(rest, memory)
    if emulated:
        for ax in axes[1:]:
            mark_emulated(ax)
    handles = [Patch(facecolor=COLOURS[i], label="\n".join(textwrap.wrap(f"{'AB'[i]}: {names[i]}", TITLE_CHARS)))
               for i in range(n)] if n > 1 else []
    handles += [Patch(facecolor="white", edgecolor="#555", hatch="///", label="control (hatched)"),
                Patch(facecolor="white", edgecolor=UNSTABLE_COLOUR, hatch="xxx",
                      label="~ unstable (cross-hatched; a ringed point on a curve): not a plain measurement, why beside it"),
                Patch(facecolor="white", edgecolor="white", label="not run: a variant the image skipped, and why"),
                Patch(facecolor="white", edgecolor="white",
                      label="bar = median, whisker = min..max of the samples; label = median (penalty vs control)")]
    if n > 1:
        handles.append(Patch(facecolor="white", edgecolor="white",
                             label="* red label: changed beyond the spread (ranges apart, > 1% and > 0.01)"))
    head_ax = axes[0]
    head_ax.axis("off")
    title = "pmuboot" + ("" if n > 1 else ": " + names[0]) + (f" ({EMULATED_MARK})" if emulated else "")
    head_ax.set_title("\n".join(textwrap.wrap(title, TITLE_CHARS)), loc="left", fontsize=9, fontweight="bold")
    head_ax.legend(handles=handles, loc="upper left", fontsize=8, frameon=False, borderaxespad=0)
    write_picture(fig, path, fmt)


def draw_memory(axes, memory):
    """The ladder's latency curve (cycles per load) and its bandwidth, one axis each, as they exist."""
    axes = list(axes)
    if any(s.get(("latency", "cycles")) or s.get(("tlb", "cycles")) for s in memory.latency):
        ax = axes.pop(0)
        draw_ladder_axis(ax, memory.latency, "cycles", memory.levels, memory.unstable)
        sizes = [s for ser in memory.latency for (k, u), pts in ser.items() if u == "cycles" for s, _ in pts]
        set_size_axis(ax, sizes + [lv.size for lv in memory.levels],
                      "size of the ring (log scale); solid: latency (largest pages), dashed: tlb (4 KiB pages); "
                      "dotted: cache levels")
        ax.set_title("memory ladder: latency per load", loc="left", fontsize=10, fontweight="bold")
    if any(memory.bandwidth):
        ax = axes.pop(0)
        draw_bandwidth_axis(ax, memory.bandwidth, memory.levels)
        sizes = [p[0] for ser in memory.bandwidth for pts in ser.values() for p in pts]
        set_size_axis(ax, sizes + [lv.size for lv in memory.levels], "size of the set (log scale); dotted: cache levels")
        ax.set_title("bandwidth: bytes per cycle (left), GB/s (right)", loc="left", fontsize=10, fontweight="bold")


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
    skipped = {}
    for r in runs:
        skipped.update(skipped_variants(r))
    panels = build_panels(tables, args.metric, skipped)
    memory = Memory(runs) if args.metric in ("cycles", "all") else None
    if not panels and not (memory and memory.panels()):
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
    emulated = any(run_emulated(r) for r in runs)
    render(panels, names, args.output, fmt, memory, emulated)
    rows = sum(len(p.rows) for p in panels)
    extra = memory.panels() if memory else 0
    print(f"pmucap: wrote {args.output}: {variants_drawn(panels)} kernel variant(s) in {len(panels)} panel(s), "
          f"{rows} row(s)" + (f"; the memory ladder in {extra} panel(s)" if extra else "")
          + ("; EMULATED" if emulated else ""), file=sys.stderr)
    return 0


