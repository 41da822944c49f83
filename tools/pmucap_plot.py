"""pmucap plot - a run, or two runs compared, as an SVG chart (written by hand, standard library).

One panel per metric: cycles per iteration first, then each event counted.  In a
panel each kernel variant is a row; a bar reaches the median and a whisker spans
min..max over the repetitions, so the spread is visible next to the figure.
With two captures each row holds two bars (A above B) in two colours, and rows
whose change is beyond the spread (as `compare` judges it) are marked.
"""
import math
import sys
from xml.sax.saxutils import escape

import pmucap
import pmucap_compare

WIDTH = 980
LABEL_W = 300          # left column: kernel.variant@arena
VALUE_W = 150          # right column: the median as text
CHART_W = WIDTH - LABEL_W - VALUE_W - 20
BAR_H = 12
ROW_GAP = 6
PANEL_TITLE_H = 28
AXIS_H = 22
COLOURS = ("#4e79a7", "#f28e2b")   # A, B
FLAG_COLOUR = "#d62728"
FONT = "font-family=\"DejaVu Sans, Arial, sans-serif\""


def add_parser(sub):
    p = sub.add_parser("plot", help="SVG chart of cycles and event counts per kernel variant, with the spread")
    p.add_argument("capture")
    p.add_argument("capture_b", nargs="?", help="a second capture: plot the two runs side by side")
    p.add_argument("-o", "--output", required=True, help="the SVG file to write")
    p.add_argument("--run-a", type=int, help="which run of the first capture (default the last)")
    p.add_argument("--run-b", type=int, help="which run of the second capture (default the last)")
    p.add_argument("--metric", choices=["cycles", "events", "all"], default="all")
    p.add_argument("--allow-incomplete", action="store_true", help="plot even a truncated or damaged run")
    p.set_defaults(func=cmd_plot)


def nice_step(span, ticks=5):
    """A 1/2/5 x 10^k step giving about `ticks` intervals over span."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    mag = 10.0 ** math.floor(math.log10(raw))
    for m in (1, 2, 5):
        if mag * m >= raw:
            return mag * m
    return mag * 10


def fmt(v):
    return f"{v:.3f}".rstrip("0").rstrip(".") if abs(v) < 1000 else f"{v:.0f}"


def panels(tables, metric_sel):
    """[(metric, [(variant, [fig or None per run])])] in the order first seen."""
    order = []
    for t in tables:
        for key, rec in t.items():
            for m in pmucap_compare.figures(rec):
                if m not in order:
                    order.append(m)
    if metric_sel == "cycles":
        order = [m for m in order if m == "cycles"]
    elif metric_sel == "events":
        order = [m for m in order if m != "cycles"]
    keys = []
    for t in tables:
        keys += [k for k in t if k not in keys]
    out = []
    for m in order:
        rows = []
        for k in keys:
            figs = [pmucap_compare.figures(t[k]).get(m) if k in t else None for t in tables]
            if any(f is not None for f in figs):
                rows.append((k, figs))
        out.append((m, rows))
    return out


def render(tables, names, metric_sel="all", title="pmuboot"):
    """The SVG text for one or two runs' bench tables."""
    n = len(tables)
    row_h = n * BAR_H + ROW_GAP + (2 if n > 1 else 0)
    parts = []
    y = 0

    def text(x, yy, s, size=12, anchor="start", colour="#222", weight="normal"):
        parts.append(f'<text x="{x:.1f}" y="{yy:.1f}" font-size="{size}" text-anchor="{anchor}" '
                     f'fill="{colour}" font-weight="{weight}" {FONT}>{escape(str(s))}</text>')

    y += 24
    text(10, y, title, 16, weight="bold")
    for i, nm in enumerate(names):
        y += 18
        parts.append(f'<rect x="10" y="{y - 10}" width="12" height="12" fill="{COLOURS[i]}"/>')
        text(28, y, f"{'AB'[i]}: {nm}", 11)
    y += 10

    plotted = panels(tables, metric_sel)
    if not plotted:
        y += 24
        text(10, y, "no bench records to plot", 13)
    for metric, rows in plotted:
        values = [v for _, figs in rows for f in figs if f for v in (f.get("min"), f.get("median"), f.get("max"))
                  if isinstance(v, (int, float))]
        lo, hi = min(values + [0.0]), max(values + [0.0])
        step = nice_step(hi - lo)
        lo_axis = step * math.floor(lo / step)
        hi_axis = step * math.ceil(hi / step)
        if hi_axis <= lo_axis:
            hi_axis = lo_axis + step
        span = hi_axis - lo_axis

        def sx(v):
            return LABEL_W + (v - lo_axis) / span * CHART_W

        y += PANEL_TITLE_H
        unit = "cycles per iteration" if metric == "cycles" else "events per iteration"
        text(10, y - 8, f"{metric} ({unit}; bar = median, whisker = min..max)", 13, weight="bold")
        top = y
        height = len(rows) * row_h
        # Grid and axis.
        t = lo_axis
        while t <= hi_axis + step / 2:
            x = sx(t)
            parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + height}" stroke="#ddd"/>')
            text(x, top + height + 14, fmt(t), 10, "middle", "#555")
            t += step
        parts.append(f'<line x1="{sx(0):.1f}" y1="{top}" x2="{sx(0):.1f}" y2="{top + height}" stroke="#888"/>')
        for r, (key, figs) in enumerate(rows):
            ry = top + r * row_h + ROW_GAP / 2
            flag = ""
            if n == 2 and all(figs):
                flag = pmucap_compare.judge(figs[0], figs[1], pmucap_compare.DEFAULT_MIN_CHANGE_PCT,
                                            pmucap_compare.DEFAULT_FLOOR)[2]
            text(LABEL_W - 8, ry + n * BAR_H / 2 + 4, key + (" *" if flag else ""), 11, "end",
                 FLAG_COLOUR if flag else "#222")
            for i, f in enumerate(figs):
                by = ry + i * BAR_H
                if f is None:
                    text(LABEL_W + 4, by + BAR_H - 2, f"not in {'AB'[i]}", 10, colour="#888")
                    continue
                med = f.get("median", 0)
                x0, x1 = sorted((sx(0), sx(med)))
                parts.append(f'<rect class="bar" x="{x0:.1f}" y="{by + 1:.1f}" width="{max(x1 - x0, 0.5):.1f}" '
                             f'height="{BAR_H - 2}" fill="{COLOURS[i]}"><title>{escape(key)} {escape(metric)} '
                             f'{"AB"[i]}: median {fmt(med)}, min {fmt(f.get("min", med))}, '
                             f'max {fmt(f.get("max", med))}</title></rect>')
                wl, wh = sx(f.get("min", med)), sx(f.get("max", med))
                cy = by + BAR_H / 2
                parts.append(f'<line class="whisker" x1="{wl:.1f}" y1="{cy:.1f}" x2="{wh:.1f}" y2="{cy:.1f}" '
                             f'stroke="#222" stroke-width="1.2"/>')
                for wx in (wl, wh):
                    parts.append(f'<line x1="{wx:.1f}" y1="{cy - 4:.1f}" x2="{wx:.1f}" y2="{cy + 4:.1f}" '
                                 f'stroke="#222" stroke-width="1.2"/>')
                text(LABEL_W + CHART_W + 10, by + BAR_H - 2, f"{fmt(med)} [{fmt(f.get('min', med))}.."
                     f"{fmt(f.get('max', med))}]", 10, colour="#333")
        y = top + height + AXIS_H
    if n == 2:
        y += 16
        text(10, y, "* changed beyond the spread (ranges apart, > 1% and > 0.01 per iteration)", 11,
             colour=FLAG_COLOUR)
    y += 16
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y}" viewBox="0 0 {WIDTH} {y}">'
            f'<rect width="100%" height="100%" fill="white"/>')
    return head + "\n" + "\n".join(parts) + "\n</svg>\n"


def cmd_plot(args):
    specs = [(args.capture, args.run_a)] + ([(args.capture_b, args.run_b)] if args.capture_b else [])
    tables, names = [], []
    for path, idx in specs:
        run, probs = pmucap.load_run(path, idx, args.allow_incomplete)
        for p in probs:
            print(f"pmucap: {path}: {p}", file=sys.stderr)
        tables.append(pmucap_compare.bench_table(run))
        names.append(f"{path}: {pmucap.describe_run(run)}")
    title = "pmuboot: " + (" vs ".join(p for p, _ in specs))
    svg = render(tables, names, args.metric, title)
    with open(args.output, "w") as f:
        f.write(svg)
    rows = sum(len(t) for t in tables)
    print(f"pmucap: wrote {args.output} ({rows} kernel variant(s))", file=sys.stderr)
    return 0
