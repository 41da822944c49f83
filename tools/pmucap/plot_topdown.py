"""pmucap plot --metric topdown: per kernel, each variant's level-1 classes stacked to 100 % of the
slots with its level-2 nodes under them, beside its control (the metrics records, topdown.py)."""
import sys
import textwrap

from . import capture, topdown
from .capture import STR, get
from .plot_common import (DPI, FLAG_COLOUR, MAX_PANELS, PANEL_INCHES, TITLE_CHARS, WIDTH_INCHES, Panel, _control_key,
                          _cpu_prefix, _fmt, _ordered, import_matplotlib, variants_drawn, write_picture)

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
