"""pmucap compare - two runs side by side.

Kernel variants are matched by kernel, variant and arena.  For cycles and every
event counted in both runs: the medians, delta (B - A), ratio (B / A), and a flag
when the change is beyond the spread: the two [min, max] ranges do not overlap
and the medians differ by more than --min-change percent of A and more than the
absolute --floor (per iteration), so noise-free figures (0 vs 0.001 events) do
not raise alarms.  Variants measured in only one run are listed as such.
Differences in what was run (CPU, options) are printed first: they explain
many deltas.

Runs with `instr` records (the instruction table) get a section of their own:
the forms (matched by processor, asm and iform) whose latency (per operand
pair) or reciprocal throughput differ beyond their noise, by instr.py's rule:
|B - A| > max(0.15 cycle, 7%) for a latency, > max(0.05 cycle, 15%) for a
throughput (of the smaller figure), and > the spread (q3 - q1) of each run's
figure.  An unstable figure is listed as unstable, never as a difference; a
figure whose bound differs (exact against upper), one measured in one run
only, and forms in one run only are listed as such, with counts.  The
thresholds above are the tool's (--min-change and --floor are the bench
table's); --fail-on-change counts the instruction forms' differences too.
"""
import argparse
import csv
import json
import math
import sys

from . import capture, instr, topdown
from .capture import DICT, get

DEFAULT_MIN_CHANGE_PCT = 1.0
DEFAULT_FLOOR = 0.01
# Options whose difference changes the figures' meaning; shown when A and B differ.
OPTIONS_COMPARED = ("iterations", "reps", "warmup", "events", "arena_page", "bench")
CPU_COMPARED = ("vendor_string", "signature", "brand", "hypervisor_vendor")
PLATFORM_COMPARED = ("system_product", "bios_version")
# The records compare reads (the end record is always kept), and of the bench records the fields.
COMPARE_TYPES = ("begin", "cpu", "platform", "bench", topdown.RECORD_TYPE, instr.RECORD_TYPE)
COMPARE_FIELDS = {"bench": capture.KEY_FIELDS + ("cycles", "events"), topdown.RECORD_TYPE: topdown.FIELDS}


def non_negative(text):
    """A threshold: a finite number >= 0 (NaN or infinity would switch the judgement off unseen)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(v) or v < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a finite number, 0 or more, is needed "
                                         "(NaN or infinity would flag nothing, a negative anything)")
    return v


def add_parser(sub):
    p = sub.add_parser("compare", help="two runs side by side: deltas, ratios, changes beyond the spread",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", help="the reference capture (A)")
    p.add_argument("b", help="the capture compared with it (B)")
    p.add_argument("--run-a", type=int, metavar="N", help="which run of A (1 = the first; default the last)")
    p.add_argument("--run-b", type=int, metavar="N", help="which run of B (1 = the first; default the last)")
    p.add_argument("--format", choices=["text", "json", "csv"], default="text")
    p.add_argument("--min-change", type=non_negative, default=DEFAULT_MIN_CHANGE_PCT, metavar="PCT",
                   help=f"smallest change flagged, percent of A's median (default {DEFAULT_MIN_CHANGE_PCT})")
    p.add_argument("--floor", type=non_negative, default=DEFAULT_FLOOR,
                   help=f"smallest absolute change flagged, per iteration (default {DEFAULT_FLOOR})")
    p.add_argument("--fail-on-change", action="store_true", help="exit 3 when any figure is flagged")
    p.add_argument("--all", action="store_true",
                   help="text: list every unstable instruction figure, also those within the tolerance of the "
                        "other run's (json and csv always have them all)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="compare even a truncated or damaged run (its problems are printed)")
    p.set_defaults(func=run)


def judge(fa, fb, min_change_pct, floor):
    """(delta, ratio, flag) for two figures; flag is '', 'higher' or 'lower'."""
    a, b = fa.get("median"), fb.get("median")
    if a is None or b is None:
        return None, None, ""
    delta = b - a
    ratio = (b / a) if a else None
    # Figures near the float limits can overflow: say "no figure" rather than "inf".
    delta = delta if math.isfinite(delta) else None
    ratio = ratio if ratio is not None and math.isfinite(ratio) else None
    if delta is None:
        return None, ratio, ""
    flag = ""
    apart = (fb.get("min", b) > fa.get("max", a)) or (fb.get("max", b) < fa.get("min", a))
    if apart and abs(delta) > floor and abs(delta) > abs(a) * min_change_pct / 100:
        flag = "higher" if delta > 0 else "lower"
    return delta, ratio, flag


def compare_runs(run_a, run_b, min_change_pct=DEFAULT_MIN_CHANGE_PCT, floor=DEFAULT_FLOOR):
    """Rows of the comparison, and notes on how the two runs differ."""
    ta, tb = capture.bench_table(run_a), capture.bench_table(run_b)
    tda, tdb = topdown.read(run_a), topdown.read(run_b)   # level-1 top-down rows, never flagged
    rows = []
    for key in list(ta) + [k for k in tb if k not in ta]:
        ra, rb = ta.get(key), tb.get(key)
        if ra is None or rb is None:
            rows.append({"variant": key, "metric": None, "only_in": "A" if rb is None else "B"})
            continue
        fa, fb = capture.figures(ra), capture.figures(rb)
        for metric in list(fa) + [m for m in fb if m not in fa]:
            if metric not in fa or metric not in fb:
                rows.append({"variant": key, "metric": metric, "only_in": "A" if metric in fa else "B"})
                continue
            delta, ratio, flag = judge(fa[metric], fb[metric], min_change_pct, floor)
            rows.append({"variant": key, "metric": metric, "only_in": None,
                         "a": fa[metric], "b": fb[metric], "delta": delta, "ratio": ratio, "flag": flag})
        rows += topdown.compare_rows(key, tda, tdb)
    return rows, differences(run_a, run_b)


def _short(v):
    r = repr(v)
    return r if len(r) <= 60 else r[:60] + "..."


def differences(run_a, run_b):
    """How the two runs differ in CPU, options and machine (values compared as they are)."""
    notes = []
    ca, cb = capture.first_record(run_a, "cpu") or {}, capture.first_record(run_b, "cpu") or {}
    for k in CPU_COMPARED:
        if ca.get(k) != cb.get(k):
            notes.append(f"cpu {k}: A {_short(ca.get(k))}, B {_short(cb.get(k))}")
    ba, bb = capture.first_record(run_a, "begin") or {}, capture.first_record(run_b, "begin") or {}
    oa, ob = get(ba, "options", DICT, {}), get(bb, "options", DICT, {})
    for k in OPTIONS_COMPARED:
        if oa.get(k) != ob.get(k):
            notes.append(f"option {k}: A {_short(oa.get(k))}, B {_short(ob.get(k))}")
    pa, pb = capture.first_record(run_a, "platform") or {}, capture.first_record(run_b, "platform") or {}
    sa, sb = get(pa, "smbios", DICT, {}), get(pb, "smbios", DICT, {})
    for k in PLATFORM_COMPARED:
        if sa.get(k) != sb.get(k):
            notes.append(f"platform {k}: A {_short(sa.get(k))}, B {_short(sb.get(k))}")
    return notes


def _fig(f):
    return f"{f['median']:.3f} [{f['min']:.3f}..{f['max']:.3f}]"


# The order of the instruction rows (text, json, the collector's page): what differs first, what was not
# judged last; within a status, the forms' order.
INSTR_STATUS_ORDER = (instr.DIFFERS, instr.BOUND, instr.ONE_RUN, "only in A", "only in B", instr.UNSTABLE)


def compare_instr(run_a, run_b):
    """instr.compare of the two runs' instruction tables (and their unused records' problems), or None when
    neither run has instr records.  Rows in INSTR_STATUS_ORDER."""
    ta, tb = instr.read(run_a), instr.read(run_b)
    if not (ta.any or tb.any):
        return None
    res = instr.compare(ta, tb)
    res["rows"].sort(key=lambda r: INSTR_STATUS_ORDER.index(r["status"]))
    res["problems"] = [f"A: {p}" for p in ta.problems] + [f"B: {p}" for p in tb.problems]
    return res


def instr_json(res):
    """compare_instr's answer as JSON (--format json, the collector's /api/compare)."""
    return {"counts": res["counts"], "problems": res["problems"],
            "rows": [{"form": r["form"], "figure": r["what"], "status": r["status"],
                      "a": instr.fig_json(r["a"]), "b": instr.fig_json(r["b"])} for r in res["rows"]]}


def _instr_fig(f):
    if f is None:
        return "-"
    if f.cycles is None:
        return "-" + (f" ({f.why})" if f.why else "")
    s = f.spread
    iqr = f" [{s['q1']:.2f}..{s['q3']:.2f}]" if "q1" in s and "q3" in s else ""
    return f.text() + iqr + (f" ({f.unstable})" if f.unstable else "") + (f" {f.how}" if f.how else "")


INSTR_STATUS_WORDS = {instr.DIFFERS: "DIFFERS beyond noise", instr.UNSTABLE: "unstable: not judged",
                      instr.ONE_RUN: "measured in one run only", instr.BOUND: "bounds differ: not judged"}


def print_instr(res, out, all_unstable=False):
    """The instruction section as text.  An unstable figure within the tolerance of the other run's is counted,
    not listed, unless all_unstable: a full table has thousands (one run's figure with many outliers, the
    same in the other), and they buried the few that differ."""
    c = res["counts"]
    out.write(f"\ninstruction forms: {c['both']} in both ({c['compared']} figures compared), {c['only in A']} only "
              f"in A, {c['only in B']} only in B; {c[instr.DIFFERS]} figure(s) differ beyond noise, "
              f"{c[instr.UNSTABLE]} unstable, {c[instr.BOUND]} with bounds that differ, {c[instr.ONE_RUN]} "
              "measured in one run only\n")
    out.write(f"(beyond noise: |B - A| over max({instr.LATENCY_ABS} cycle, {instr.LATENCY_REL:.0%}) for a latency, "
              f"max({instr.THROUGHPUT_ABS} cycle, {instr.THROUGHPUT_REL:.0%}) for a throughput, of the smaller, "
              "and over both figures' spreads, q3 - q1)\n")
    rows = res["rows"]
    quiet = 0
    if not all_unstable:
        shown = [r for r in rows if r["status"] != instr.UNSTABLE or instr.apart((r["a"], r["b"]))]
        quiet = len(rows) - len(shown)
        rows = shown
    if rows:
        table = [("form", "figure", "A", "B", "delta", "")]
        for r in rows:
            a, b = r["a"], r["b"]
            if r["what"] is None:
                table.append((r["form"], "(all)", r["status"], "", "", ""))
                continue
            delta = f"{b.cycles - a.cycles:+.2f}" if a and b and a.cycles is not None and b.cycles is not None else ""
            words = INSTR_STATUS_WORDS[r["status"]]
            if r["status"] == instr.BOUND:
                words += f" (A {a.bound}, B {b.bound})"
            table.append((r["form"], r["what"], _instr_fig(a), _instr_fig(b), delta, words))
        widths = [max(len(t[i]) for t in table) for i in range(6)]
        for t in table:
            out.write("  ".join(f"{v:<{w}}" if i != 4 else f"{v:>{w}}" for i, (v, w) in enumerate(zip(t, widths)))
                      .rstrip() + "\n")
    if quiet:
        out.write(f"{quiet} unstable figure(s) within the tolerance of the other run's not listed (--all lists them)\n")
    for p in res["problems"]:
        out.write(f"not used: {p}\n")
    out.write(f"{c[instr.DIFFERS]} instruction figure(s) differ beyond noise\n")


def print_text(rows, notes, name_a, name_b, out, instr_res=None, all_unstable=False):
    out.write(f"A: {name_a}\nB: {name_b}\n")
    for n in notes:
        out.write(f"note: the runs differ: {n}\n")
    if not rows:
        if instr_res is None:
            out.write("no bench records in either run: nothing to compare\n")
        else:
            print_instr(instr_res, out, all_unstable)
        return
    w = max(len(r["variant"]) for r in rows)
    m = max([len(r["metric"] or "") for r in rows] + [6])
    out.write(f"{'variant':<{w}}  {'metric':<{m}}  {'A median [min..max]':>28}  {'B median [min..max]':>28}"
              f"  {'delta':>9}  {'ratio':>6}  change\n")
    for r in rows:
        if r["only_in"]:
            what = f"only in {r['only_in']}"
            out.write(f"{r['variant']:<{w}}  {(r['metric'] or '(all)'):<{m}}  {what}\n")
            continue
        ratio = f"{r['ratio']:.3f}" if r["ratio"] is not None else "-"
        delta = f"{r['delta']:+.3f}" if r["delta"] is not None else "-"
        flag = {"higher": "HIGHER beyond spread", "lower": "LOWER beyond spread"}.get(r["flag"], "")
        out.write(f"{r['variant']:<{w}}  {r['metric']:<{m}}  {_fig(r['a']):>28}  {_fig(r['b']):>28}"
                  f"  {delta:>9}  {ratio:>6}  {flag}\n")
    flagged = sum(1 for r in rows if r.get("flag"))
    out.write(f"{flagged} figure(s) changed beyond the spread\n")
    if instr_res is not None:
        print_instr(instr_res, out, all_unstable)


def run(args):
    run_a, warn_a = capture.load_run(args.a, args.run_a, args.allow_incomplete, keep=COMPARE_TYPES,
                                     fields=COMPARE_FIELDS)
    run_b, warn_b = capture.load_run(args.b, args.run_b, args.allow_incomplete, keep=COMPARE_TYPES,
                                     fields=COMPARE_FIELDS)
    for w in warn_a + warn_b:
        capture.warn(w)
    rows, notes = compare_runs(run_a, run_b, args.min_change, args.floor)
    ires = compare_instr(run_a, run_b)
    if ires is not None and args.format != "text":
        for p in ires["problems"]:
            capture.warn(f"{p}: the record is not used")
    if args.format == "text":
        print_text(rows, notes, f"{args.a} run {run_a.number}: {capture.describe_run(run_a)}",
                   f"{args.b} run {run_b.number}: {capture.describe_run(run_b)}", sys.stdout, ires, args.all)
    elif args.format == "json":
        out = {"a": args.a, "b": args.b, "run_a": run_a.number, "run_b": run_b.number,
               "differences": notes, "rows": rows}
        if ires is not None:
            out["instr"] = instr_json(ires)
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(["variant", "metric", "only_in", "a_median", "a_min", "a_max", "b_median", "b_min", "b_max",
                    "delta", "ratio", "change"])
        for r in rows:
            a, b = r.get("a") or {}, r.get("b") or {}
            w.writerow([r["variant"], r["metric"], r["only_in"] or "", a.get("median"), a.get("min"), a.get("max"),
                        b.get("median"), b.get("min"), b.get("max"), r.get("delta"), r.get("ratio"),
                        r.get("flag", "")])
        # The instruction forms' figures in the same columns: variant the form, metric the figure, change the
        # status (differs, unstable, bound, one run); only_in for a form in one run only.
        for r in (ires or {}).get("rows", []):
            a, b = r["a"], r["b"]
            only = r["status"][-1] if r["what"] is None else ""
            w.writerow([r["form"], r["what"] or "", only, a and a.cycles, a and a.spread.get("min"),
                        a and a.spread.get("max"), b and b.cycles, b and b.spread.get("min"), b and b.spread.get("max"),
                        round(b.cycles - a.cycles, 3) if a and b and a.cycles is not None and b.cycles is not None
                        else None,
                        round(b.cycles / a.cycles, 4) if a and b and a.cycles and b.cycles is not None else None,
                        "" if only else r["status"]])
    differs = ires is not None and ires["counts"][instr.DIFFERS] > 0
    if args.fail_on_change and (differs or any(r.get("flag") for r in rows)):
        return 3
    return 0
