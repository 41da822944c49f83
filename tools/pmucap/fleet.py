"""The SKU comparison: every machine of one CPU model, variant by variant, against the fleet median.

For each kernel variant and figure (the penalty against its control, and cycles per iteration),
the median over the machines (each machine's latest intact run) is the fleet's figure; a machine
whose figure is further from it than the margin (a share of the median, and at least an absolute
floor, so figures near zero do not raise alarms) is flagged.  With fewer than MIN_MACHINES
machines nothing is flagged: two machines that differ do not say which of them is the odd one.
A figure beyond MAX_FIGURE (none is measured so large; the arithmetic on it would overflow) is
left out of the comparison, and a share that is not a finite number (a median of almost 0) is null:
the answer is strict JSON.
"""
import math

DEFAULT_MARGIN_PCT = 10.0
DEFAULT_FLOOR = 0.5          # cycles per iteration
MIN_MACHINES = 3
# The largest figure (cycles or events per iteration) compared: far beyond any measurement.
MAX_FIGURE = 1e15
# The figures compared, in the order shown: the penalty first (what a variant is there to show).
METRICS = ("penalty", "cycles")


def latest_per_machine(runs):
    """The newest run of each machine, from runs listed newest first."""
    seen, out = set(), []
    for r in runs:
        if r["machine"] not in seen:
            seen.add(r["machine"])
            out.append(r)
    return out


def compare(runs, figures, margin_pct=DEFAULT_MARGIN_PCT, floor=DEFAULT_FLOOR):
    """The comparison of runs (one per machine) from their figures ({run id: [figure rows]}).

    Returns {"machines": [run], "rows": [row], "flagged": [(machine, row, cell)]}; a row is
    {"variant", "metric", "median", "n", "cells": {machine: cell}} and a cell {"value", "delta",
    "pct" (None when the median is 0), "flag", "unstable"}."""
    import statistics   # here: the other pmucap commands import this module for its defaults only

    values = {}
    for r in runs:
        for f in figures.get(r["id"], []):
            if f["metric"] in METRICS and math.isfinite(f["median"]) and abs(f["median"]) <= MAX_FIGURE:
                values.setdefault((f["variant"], f["metric"]), {})[r["machine"]] = f
    rows, flagged = [], []
    order = {m: i for i, m in enumerate(METRICS)}
    for (variant, metric) in sorted(values, key=lambda k: (k[0], order[k[1]])):
        got = values[(variant, metric)]
        med = statistics.median(f["median"] for f in got.values())
        allowed = max(abs(med) * margin_pct / 100.0, floor)
        row = {"variant": variant, "metric": metric, "median": med, "n": len(got), "allowed": allowed, "cells": {}}
        for machine, f in got.items():
            delta = f["median"] - med
            pct = 100.0 * delta / abs(med) if med else None
            cell = {"value": f["median"], "delta": delta, "pct": pct if pct is not None and math.isfinite(pct) else None,
                    "flag": len(got) >= MIN_MACHINES and abs(delta) > allowed, "unstable": f["unstable"]}
            row["cells"][machine] = cell
            if cell["flag"]:
                flagged.append((machine, row, cell))
        rows.append(row)
    return {"machines": runs, "rows": rows, "flagged": flagged}
