"""pmucap plot --metric latency: the memory ladder (latency per load in cycles and ns against the
ring's size, 4 KiB-page tlb points dashed, the cache levels of the run's cache record as boundaries)."""
import sys
import textwrap

from . import capture, ladder
from .plot_common import COLOURS, DPI, TITLE_CHARS, WIDTH_INCHES, import_matplotlib, output_format, write_picture

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
    render_ladder(series, levels, names, emulated, args.output, output_format(args.output))
    n = sum(len(v) for s in series for k, v in s.items() if k[1] == "cycles")
    print(f"pmucap: wrote {args.output}: {n} ladder point(s), {len(levels)} cache level(s)", file=sys.stderr)
    return 0
