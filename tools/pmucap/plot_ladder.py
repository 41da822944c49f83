"""pmucap plot --metric latency: the memory ladder (latency per load in cycles and ns against the
ring's size, 4 KiB-page tlb points dashed, the cache levels of the run's cache record as boundaries).
The default plot draws the same curve (cycles) and the bandwidth by set size (draw_ladder_axis,
draw_bandwidth_axis).  An unstable point is drawn hollow; an emulated run is marked on every axis."""
import sys
import textwrap

from . import capture, ladder
from .plot_common import (COLOURS, DPI, TITLE_CHARS, UNSTABLE_COLOUR, WIDTH_INCHES, import_matplotlib, mark_emulated,
                          output_format, write_picture)

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


def ladder_unstable(run):
    """{(kernel, size)} of the latency and tlb points whose figure is unstable (drawn hollow)."""
    return {(kern, pt.size) for kern in ("latency", "tlb") for pt in ladder.points(run, kern) if pt.unstable}


# The bandwidth operations, in the order drawn, with their line styles.
BW_OPS = (("read", "-", "o"), ("write", "--", "s"), ("write_nt", ":", "^"), ("copy", "-.", "D"))


def bandwidth_series(run):
    """{op: [(set size, bytes per cycle, GB/s, unstable)]} of a run's bandwidth points, by size."""
    out = {}
    for pt in ladder.points(run, "bandwidth"):
        if pt.bpc is not None and pt.size:
            out.setdefault(pt.op or "?", []).append((pt.size, pt.bpc, pt.gbs, pt.unstable))
    return {op: sorted(v, key=lambda p: p[0]) for op, v in out.items()}


def size_ticks(lo, hi):
    """Powers of 4 from lo to hi, each with its label (4 KiB, 16 KiB, ... 1 GiB)."""
    ticks, t = [], 4096
    while t < lo:
        t *= 4
    while t <= hi * 1.01:
        ticks.append(t)
        t *= 4
    return ticks, [ladder.size_text(t).replace(" ", "\u2009") for t in ticks]


def draw_ladder_axis(ax, series, unit, levels, unstable=(), level_labels=True):
    """Latency per load against the ring's size on ax: each run's latency (solid) and tlb (dashed) curve,
    whiskers over min..max, unstable points hollow, the cache levels as dotted boundaries labelled inside."""
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
            shaky = [(s, f["median"]) for s, f in pts if (kern, s) in (unstable[i] if i < len(unstable) else ())]
            if shaky:
                ax.plot([s for s, _ in shaky], [m for _, m in shaky], linestyle="none", marker="o", markersize=9,
                        markerfacecolor="none", markeredgecolor=UNSTABLE_COLOUR, markeredgewidth=1.4)
    for lv in levels:
        ax.axvline(lv.size, color=LEVEL_COLOUR, linestyle=":", linewidth=1.2)
        if level_labels:
            # Inside the axes, beside its line: a label above the frame is cut off or lands on the title.
            ax.text(lv.size, 0.97, lv.label() + " ", transform=ax.get_xaxis_transform(), fontsize=8,
                    color=LEVEL_COLOUR, ha="right", va="top", clip_on=True)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.grid(True, which="major", color="#ddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.set_ylabel("cycles per load" if unit == "cycles" else "ns per load", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.yaxis.set_major_formatter(_plain_formatter())


def draw_bandwidth_axis(ax, series, levels):
    """Bandwidth against the set's size on ax: bytes per cycle on the left, GB/s on the right (the records'
    own ratio), one curve per operation, unstable points hollow, the cache levels as boundaries."""
    ratio = None
    for i, ser in enumerate(series):
        for op, style, marker in BW_OPS:
            pts = ser.get(op, [])
            if not pts:
                continue
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=COLOURS[i], linestyle=style, marker=marker,
                    markersize=4, linewidth=1.2, label=op if i == 0 else None)
            shaky = [p for p in pts if p[3]]
            if shaky:
                ax.plot([p[0] for p in shaky], [p[1] for p in shaky], linestyle="none", marker="o", markersize=9,
                        markerfacecolor="none", markeredgecolor=UNSTABLE_COLOUR, markeredgewidth=1.4)
            if ratio is None:
                ratio = next((p[2] / p[1] for p in pts if p[2] and p[1]), None)
    for lv in levels:
        ax.axvline(lv.size, color=LEVEL_COLOUR, linestyle=":", linewidth=1.2)
        # At the foot of the axis: the curves fall with size, and the key is at the top.
        ax.text(lv.size, 0.03, lv.label() + " ", transform=ax.get_xaxis_transform(), fontsize=8,
                color=LEVEL_COLOUR, ha="right", va="bottom", clip_on=True)
    ax.set_xscale("log", base=2)
    ax.grid(True, which="major", color="#ddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.set_ylim(bottom=0)
    ax.set_ylabel("bytes per cycle", fontsize=9)
    ax.tick_params(labelsize=8)
    if ratio:
        # GB/s = bytes per cycle x the core clock in GHz: the same curve on a second scale.
        sec = ax.secondary_yaxis("right", functions=(lambda v, r=ratio: v * r, lambda v, r=ratio: v / r))
        sec.set_ylabel("GB/s", fontsize=9)
        sec.tick_params(labelsize=8)
    ax.legend(loc="upper right", fontsize=8, frameon=False, ncol=4)


def set_size_axis(ax, sizes, label):
    lo, hi = min(sizes), max(sizes)
    ticks, labels = size_ticks(lo, hi)
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels)
    ax.set_xlim(lo / 1.3, hi * 1.3)
    ax.set_xlabel(label, fontsize=9)


def render_ladder(series, levels, names, emulated, path, fmt, unstable=()):
    Figure, Patch = import_matplotlib()
    from matplotlib.lines import Line2D
    fig = Figure(figsize=(WIDTH_INCHES, LADDER_HEIGHT_INCHES), dpi=DPI, layout="constrained")
    axes = fig.subplots(2, 1, sharex=True)
    # The axis spans the cache levels too, so each boundary and its label stay inside it.
    sizes = [s for ser in series for pts in ser.values() for s, _ in pts] + [lv.size for lv in levels]
    for ax, unit in zip(axes, ("cycles", "ns")):
        draw_ladder_axis(ax, series, unit, levels, unstable, level_labels=ax is axes[0])
        if emulated:
            mark_emulated(ax)
    top = axes[0]
    set_size_axis(axes[1], sizes, "size of the ring (log scale); dotted: the cache levels of the run's cache record")
    handles = [Line2D([], [], color="#333", linestyle="-", marker="o", markersize=4,
                      label="latency.<size>: largest pages (2 MiB or 1 GiB)"),
               Line2D([], [], color="#333", linestyle="--", marker="x", markersize=4,
                      label="tlb.<size>: 4 KiB pages"),
               Line2D([], [], color=LEVEL_COLOUR, linestyle=":", label="cache level (CPUID)"),
               Line2D([], [], linestyle="none", marker="o", markersize=8, markerfacecolor="none",
                      markeredgecolor=UNSTABLE_COLOUR, label="ringed: unstable (not a plain measurement)")]
    if len(names) > 1:
        handles += [Patch(facecolor=COLOURS[i], label=f"{'AB'[i]}: {names[i]}") for i in range(len(names))]
    title = "pmuboot memory ladder" + ("" if len(names) > 1 else ": " + names[0])
    if emulated:
        title += " (EMULATED: times are the emulator's, not any silicon's)"
    top.set_title("\n".join(textwrap.wrap(title, TITLE_CHARS)), loc="left", fontsize=9, fontweight="bold")
    top.legend(handles=handles, loc="center left", fontsize=8, frameon=False)
    write_picture(fig, path, fmt)


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
    render_ladder(series, levels, names, emulated, args.output, output_format(args.output),
                  [ladder_unstable(r) for r in runs])
    n = sum(len(v) for s in series for k, v in s.items() if k[1] == "cycles")
    print(f"pmucap: wrote {args.output}: {n} ladder point(s), {len(levels)} cache level(s)", file=sys.stderr)
    return 0
