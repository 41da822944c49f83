"""pmucap table - the results of one run as a table a person reads.

Per kernel variant (in the order measured): cycles per iteration (median and
[min..max]), the penalty against its control (variant median - control median, as
the bench record gives it; where there is none, why, as a note), the key events (those its `check` records judged, with
the control's figure) and what its checks said.  Reasons for skipped or failed
checks are listed once under the table, then the samples the quiet-machine ledger
found disturbed (by source), and the figures marked unstable (a ~ after the median:
"disturbed" when its budget went on disturbed samples).

The memory ladder (kernels latency, tlb and bandwidth) is shown apart, shortly: one
line per size with the latency in cycles and ns on the largest pages, the same size on
4 KiB pages and the difference, the cache levels of the `cache` record, and one line per
cache level (or DRAM) with the bandwidth of each operation.  Under an emulator, whose times are
no silicon's, the ladder is one line per kernel (its range); --ladder shows it whole.

The check counts are those of every `check` record of the run, the count the image's own
summary line gave ("bench: checks P passed, F failed, S skipped, U unstable"); a variant the
image did not run (a `check` record "runs: skip", e.g. "needs avx512f") has a row saying why.
The verdict is the last line; a PASS says what it rests on (verdict.py): "PASS (15 of 19
checks passed; ...)" or "PASS (nothing verified: emulated, no PMU counting; 0 of 21 checks ran)".
--legend explains every abbreviation of the table and of the image's result lines.
"""
import argparse
import sys
import textwrap

from . import capture, instr, ladder, topdown
from . import verdict as _verdict
from .capture import BOOL, DICT, INT, NUM, STR, get

# Events shown for a variant whose checks name none (counted extras), at most.
MAX_OTHER_EVENTS = 2


def add_parser(sub):
    p = sub.add_parser("table", help="the results table of a run: cycles, penalty, key events, checks",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("capture", nargs="?", help="a serial capture or a saved results .jsonl")
    p.add_argument("--run", type=int, metavar="N", help="which run (1 = the first in the capture; default the last)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="show even a truncated or damaged run (its problems are printed)")
    p.add_argument("--ladder", action="store_true",
                   help="show the memory ladder size by size even for an emulated run (whose times mean nothing)")
    p.add_argument("--match", type=instr.match_pattern, metavar="REGEX",
                   help="the instruction table: only the forms whose asm name this regular expression finds "
                        "(Python's re: 'VADDPS', '^ADD r64', 'zmm')")
    p.add_argument("--legend", action="store_true",
                   help="explain every abbreviation of the table and of the image's result lines, after the table "
                        "(or alone, without a capture)")
    p.set_defaults(func=run)


# What each abbreviation means: the table's and those of the image's result lines (bench/bench_record.c).
# docs/results-format.md ("Reading a result line") says the same.
LEGEND = (
    ("cycles", "median cycles per iteration of the variant's samples"),
    ("[min..max]", "the smallest and largest kept sample that is not an outlier"),
    ("~", "after a figure: unstable, not a plain measurement (why: the `~ unstable:` line; "
          "disturbed, budget, outliers or spread)"),
    ("penalty", "variant median minus its control's median (cycles per iteration); -[N]: none, note N says why"),
    ("vs control", "the variant it is measured against (same kernel, same arena)"),
    ("check", "what:status of each check on the variant (timing, reference, events, runs); [N]: note N"),
    ("@4k, @2m", "the arena: the buffer's page size (4 KiB, 2 MiB or 1 GiB pages)"),
    ("iqr", "image line: interquartile range of the kept samples (q3 - q1), cycles per iteration"),
    ("n=", "image line: samples kept for the figure (`reps` wanted)"),
    ("out=", "image line: of those, outliers (more than about 5.2 median absolute deviations from the median); "
             "[min..max] leaves them out"),
    ("rej=", "image line: samples rejected as impossible (negative, the 2N run not near twice the N run, "
             "below the chain's floor, a clock step) and taken again"),
    ("drop=", "image line: samples thrown away because the ledger saw a disturbance (SMI, NMI, a frequency or "
              "thermal event; on a host a context switch or interrupt) and taken again"),
    ("it=", "image line: iterations per run used for this variant (adaptive: at least bench_setup's)"),
    ("* (instr)", "instruction table: after a latency, the largest of the form's register-to-register pairs"),
    ("<=, >= (instr)", "instruction table: before a figure, an upper or a lower bound, not an exact figure"),
    ("r (instr)", "instruction table: after a latency of 0, the renamer resolved the chain (the record's "
                  "chain_rate is the rate it ran at)"),
    ("disturbed: ...", "image line under a result: N samples thrown away (by source: smi_count, smi_event, nmi, "
                       "frequency, thermal; on a host context switches and interrupts) and M taken again in their "
                       "place; the first disturbance, as the ledger saw it"),
    ("clock: ...", "image line under a result whose cycles come from the TSC: its samples ran at a clock more "
                   "than 3% from the one measured right before the variant (a step of the clock, or the kernel "
                   "moving it, as 512-bit vector code does on some cores); its cycles take the clock right after "
                   "the kernel as the kernel's own"),
)


# The legend wraps at this many characters (a terminal's).
LEGEND_COLUMNS = 100


def write_legend(out):
    width = max(len(k) for k, _ in LEGEND)
    out.write("legend:\n")
    for k, v in LEGEND:
        lines = textwrap.wrap(v, LEGEND_COLUMNS - width - 4)
        out.write(f"  {k:<{width}}  {lines[0]}\n" + "".join(f"  {'':<{width}}  {l}\n" for l in lines[1:]))


def num(v):
    return "-" if v is None else f"{v:.3f}"


def key_events(bench, checks):
    """'EVENT value (control c)' for the events the checks judged, else a few counted ones."""
    out = []
    for c in checks:
        if get(c, "what", STR) != "events":
            continue
        ev = get(c, "event", STR)
        role = get(c, "role", STR, "?")
        if ev is None:
            out.append(f"{role}: no event on this core")
            continue
        val, ctl = get(c, "value", NUM), get(c, "control_value", NUM)
        out.append(f"{ev} {num(val)}" + (f" (control {num(ctl)})" if ctl is not None else ""))
    if out:
        return ", ".join(out)
    others = [(n, f) for n, f in capture.figures(bench).items() if n != "cycles"][:MAX_OTHER_EVENTS]
    return ", ".join(f"{n} {num(f['median'])}" for n, f in others) or "-"


def build_rows(run):
    """(rows, notes, tallies): one row per bench record; notes are the numbered reasons."""
    checks, multi = {}, capture.per_cpu(run)
    for c in capture.run_records(run, "check"):
        checks.setdefault(capture.variant_key(c, multi), []).append(c)
    notes, tallies, rows = [], {}, []
    benches = capture.bench_table(run)
    for key, bench in benches.items():
        if ladder.is_ladder(bench):
            continue	# the memory ladder has a short table of its own (write_ladder)
        cyc = capture.figure(bench, "cycles")
        pen = get(bench, ("penalty", "median"), NUM)
        verdicts = []
        for c in checks.get(key, []):
            status = get(c, "status", STR, "?")
            tallies[status] = tallies.get(status, 0) + 1
            text = f"{get(c, 'what', STR, 'check')}:{status}"
            reason = get(c, "reason", STR)
            if reason and status != "pass":
                if reason not in notes:
                    notes.append(reason)
                text += f"[{notes.index(reason) + 1}]"
            verdicts.append(text)
        penalty = "-" if pen is None else f"{pen:+.3f}"
        why = get(bench, "penalty_why", STR)
        if pen is None and why and get(bench, "control", STR):
            # A variant with a control but no penalty: why, among the notes (older captures do not say).
            if why not in notes:
                notes.append(why)
            penalty += f"[{notes.index(why) + 1}]"
        dropped = get(bench, "dropped", INT, 0)
        # A figure whose samples could not be cleaned is never shown as a plain measurement.
        unstable = get(bench, "unstable", STR)
        rows.append({
            "variant": key,
            # A figure the audit refused is no number: "invalid".
            "median": (num(cyc["median"]) + ("~" if unstable else "")) if cyc else
                      ("invalid" if get(bench, "cycles_invalid", STR) else "-"),
            "unstable": unstable,
            "range": f"[{num(cyc['min'])}..{num(cyc['max'])}]" if cyc else "",
            "penalty": penalty,
            "control": get(bench, "control", STR) or "-",
            "events": key_events(bench, checks.get(key, [])),
            "check": " ".join(verdicts) or "-",
            "dropped": dropped,
            "retaken": get(bench, "retaken", INT),
            "disturbed": {k: v for k, v in (get(bench, "disturbed", DICT) or {}).items() if isinstance(v, int) and v},
        })
    _add_skipped(rows, checks, benches, notes, tallies)
    return rows, notes, tallies


def _kernel_of(key):
    """The kernel of a variant key ("3:split.load_line@4k" -> "split")."""
    return key.split(":", 1)[-1].split(".", 1)[0]


def _add_skipped(rows, checks, benches, notes, tallies):
    """A row for each variant that has check records but no bench record (the image did not run it:
    "runs: skip", e.g. needs avx512f), placed after its kernel's last row."""
    for key, cs in checks.items():
        if key in benches or any(get(c, "kernel", STR) in ladder.KERNELS for c in cs):
            continue
        verdicts = []
        for c in cs:
            status = get(c, "status", STR, "?")
            tallies[status] = tallies.get(status, 0) + 1
            reason = get(c, "reason", STR)
            text = f"{get(c, 'what', STR, 'check')}:{status}"
            if reason:
                if reason not in notes:
                    notes.append(reason)
                text += f"[{notes.index(reason) + 1}]"
            verdicts.append(text)
        kernel = get(cs[0], "kernel", STR)
        row = {"variant": key, "median": "not run", "unstable": None, "range": "", "penalty": "-",
               "control": get(cs[0], "control", STR) or "-", "events": "-", "check": " ".join(verdicts),
               "dropped": 0, "retaken": None, "disturbed": {}}
        at = max((i + 1 for i, r in enumerate(rows) if _kernel_of(r["variant"]) == kernel), default=len(rows))
        rows.insert(at, row)


COLUMNS = (("variant", "variant", "<"), ("median", "cycles", ">"), ("range", "[min..max]", "<"),
           ("penalty", "penalty", ">"), ("control", "vs control", "<"), ("events", "key events", "<"),
           ("check", "check", "<"))


def iterations_text(floor, adaptive, used):
    """The iterations per run as the rows used them: "1000 iterations" when every row used bench_setup's,
    else their range beside it ("336..28704 iterations per run (bench_setup: at least 1000, adaptive)")."""
    said = "?" if floor is None else str(floor)
    if not used or used == [floor]:
        return f"{said} iterations"
    rng = f"{used[0]}..{used[-1]}" if len(used) > 1 else str(used[0])
    return f"{rng} iterations per run (bench_setup: {'at least ' if adaptive else ''}{said}" \
        + (", adaptive" if adaptive else "") + ")"


def render(run, path, total_runs, out, legend=False, whole_ladder=False, iterations=None, match=None):
    out.write(f"{path} run {run.number} of {total_runs}: {capture.describe_run(run)}\n")
    setup = capture.first_record(run, "bench_setup") or {}
    first = next(iter(capture.bench_table(run).values()), {})
    src = get(first, "cycles_source", STR)
    # The iterations the rows used: gathered as the records went by (run), or read off the records.
    if iterations is None:
        iterations = [b.get("iterations") for _, b in run.records if b.get("type") == "bench"]
    its = sorted({i for i in iterations if isinstance(i, int) and not isinstance(i, bool)})
    if setup:
        line = iterations_text(get(setup, "iterations", INT), get(setup, ("adaptive", "on"), BOOL), its) \
            + f" x {get(setup, 'reps', INT, '?')} reps"
        if src:
            line += f"; cycles per iteration from {src}"
        get(setup, "counting", DICT)
        if get(setup, ("counting", "available"), BOOL) is False:
            line += f"; no event counting ({get(setup, ('counting', 'reason'), STR, 'no reason given')})"
        out.write(line + "\n")
    write_audit(run, out)
    out.write("\n")
    rows, notes, tallies = build_rows(run)
    # Top-down (topdown.py): a column only when the run has metrics records; their problems are notes.
    td, columns, benches = topdown.read(run), COLUMNS, capture.bench_table(run)
    if td.any:
        columns = COLUMNS + (("topdown", "top-down (% of slots)", "<"),)
        for r in rows:
            r["topdown"] = topdown.cell(td, r["variant"], benches.get(r["variant"]), notes)
        topdown.add_notes(td, notes)
    itable = instr.read(run)
    if not rows:
        # A run of instr records alone has its table below, and no bench table to miss.
        if not itable.any:
            out.write("no bench records in this run\n")
    else:
        widths = {k: max(len(title), *(len(r[k]) for r in rows)) for k, title, _ in columns}
        out.write("  ".join(f"{title:{al}{widths[k]}}" for k, title, al in columns).rstrip() + "\n")
        for r in rows:
            out.write("  ".join(f"{r[k]:{al}{widths[k]}}" for k, _, al in columns).rstrip() + "\n")
    if td.any:
        out.write(topdown.summary(td) + "\n")
    end = run.end or {}
    for i, n in enumerate(notes, 1):
        out.write(f"[{i}] {n}\n")
    write_disturbances(rows, out)
    write_ladder(run, out, whole_ladder)
    if itable.any and match is not None:
        every = len(itable.forms)
        itable = instr.only(itable, match)
        instr.write_table(itable, out, f" of {every} matching {match.pattern!r}")
    elif itable.any:
        instr.write_table(itable, out)
    if legend:
        out.write("\n")
        write_legend(out)
    else:
        out.write("\n(pmucap table --legend explains every abbreviation)\n")
    # The count of every check record: the image's own summary line ("bench: checks ...") counts the same.
    out.write("checks: " + (run.tally.checks_in_words() if run.tally.checks else "none")
              + f"; run status {get(end, 'status', STR, 'unknown (no end record)')}"
              + (f", {get(end, 'errors', INT)} error(s)" if get(end, "errors", INT) is not None else "") + "\n")
    verdict, reasons, words = _verdict.shown(run)
    out.write(f"verdict: {words}" + (": " + "; ".join(reasons) if reasons else "") + "\n")


def _med(fig, unstable=None):
    return "-" if fig is None else f"{fig['median']:.2f}" + ("~" if unstable else "")


def write_ladder(run, out, whole=False):
    """The memory ladder in a few lines: latency by size (cycles, ns, 4 KiB pages), bandwidth by level.
    Under an emulator (unless whole) one line per kernel: its sizes and range, no figure to read as silicon's."""
    lat, tlb, bw = (ladder.points(run, k) for k in ladder.KERNELS)
    if not (lat or tlb or bw):
        return
    levels = ladder.cache_levels(run, (lat or tlb or bw)[0].cpu)
    emulated = any(p.emulated for p in lat + tlb + bw)
    out.write("\nmemory ladder" + (" (EMULATED: times are not any silicon's)" if emulated else "") + "; cache: "
              + (", ".join(lv.label() for lv in levels) or "no cache record") + "\n")
    if emulated and not whole:
        for kern, pts in zip(ladder.KERNELS, (lat, tlb, bw)):
            if kern == "bandwidth":
                meds, unit = [p.bpc for p in pts if p.bpc is not None], "bytes per cycle"
            else:
                meds, unit = [p.cycles["median"] for p in pts if p.cycles], "cycles per load"
            if pts:
                sizes = sorted(p.size for p in pts)
                out.write(f"  {kern}: {len(pts)} point(s), {ladder.size_text(sizes[0])}..{ladder.size_text(sizes[-1])}"
                          + (f", {min(meds):.2f}..{max(meds):.2f} {unit}" if meds else "")
                          + " (emulated: --ladder shows each)\n")
        return
    if lat or tlb:
        by_size = {}
        for p in lat:
            by_size.setdefault(p.size, [None, None])[0] = p
        for p in tlb:
            by_size.setdefault(p.size, [None, None])[1] = p
        page = next((p.arena for p in lat), "2m")
        rows = [("size", f"cycles ({page})", "ns", "cycles (4k)", "4k - " + page)]
        for size in sorted(by_size):
            a, b = by_size[size]
            diff = b.difference if b and b.difference is not None else None
            rows.append((ladder.size_text(size), _med(a.cycles, a.unstable) if a else "-",
                         _med(a.ns) if a else "-", _med(b.cycles, b.unstable) if b else "-",
                         "-" if diff is None else f"{diff:+.2f}"))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for r in rows:
            out.write("  " + "  ".join(f"{c:>{w}}" for c, w in zip(r, widths)).rstrip() + "\n")
    if bw:
        ops = ("read", "write", "write_nt", "copy")
        vec = next((p.vector for p in bw if p.vector), "?")
        out.write(f"bandwidth ({vec}), bytes per cycle / GB/s:\n")
        sets = {}
        for p in bw:
            sets.setdefault(p.level or 0, {})[p.op] = p
        rows = [("level", "set") + ops]
        for level in sorted(sets, key=lambda v: v or 99):
            cells = sets[level]
            size = max(p.size for p in cells.values())
            rows.append((f"L{level}" if level else "DRAM", ladder.size_text(size)) + tuple(
                "-" if op not in cells or cells[op].bpc is None and cells[op].gbs is None else
                f"{cells[op].bpc if cells[op].bpc is not None else float('nan'):.1f} / "
                f"{cells[op].gbs if cells[op].gbs is not None else float('nan'):.1f}" for op in ops))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for r in rows:
            out.write("  " + "  ".join(f"{c:>{w}}" for c, w in zip(r, widths)).rstrip() + "\n")


def write_audit(run, out):
    """The self-audit in one line (each processor's checks tallied), and every failure with its counter."""
    recs = capture.run_records(run, "audit")
    if not recs:
        return
    tally = {}
    for r in recs:
        s = get(r, "status", STR, "?")
        tally[s] = tally.get(s, 0) + 1
    out.write("audit: " + ", ".join(f"{tally[s]} {s}" for s in ("pass", "fail", "absent") if s in tally) + "\n")
    for r in recs:
        if get(r, "status", STR) == "fail":
            counter = get(r, "counter", STR)
            out.write(f"  audit {get(r, 'check', STR, '?')} failed{' on ' + counter if counter else ''}: "
                      f"{get(r, 'why', STR, 'no reason given')}\n")


def write_disturbances(rows, out):
    """Samples the ledger found disturbed, by source, and the figures marked unstable."""
    dropped = sum(r["dropped"] for r in rows)
    if dropped:
        by = {}
        for r in rows:
            for k, v in r["disturbed"].items():
                by[k] = by.get(k, 0) + v
        retaken = [r["retaken"] for r in rows if r["retaken"] is not None]
        sources = ", ".join(f"{k} {v}" for k, v in sorted(by.items()))
        # Older captures carry only `dropped` (an SMI or NMI, or on a host a context switch or interrupt).
        out.write(f"{dropped} sample(s) disturbed in all ({sources or 'SMI/NMI, or a context switch on a host'})"
                  + (f", {sum(retaken)} taken again" if retaken else ", taken again") + "\n")
    shaky = [r for r in rows if r["unstable"]]
    if shaky:
        out.write("~ unstable: " + ", ".join(f"{r['variant']} ({r['unstable']})" for r in shaky) + "\n")


# The records the table reads (the end record is always kept); only the run shown keeps them, and
# of its bench and check records (there may be thousands) only the fields read here.
TABLE_TYPES = ("begin", "cpu", "platform", "bench_setup", "bench", "check", "audit", "cache", topdown.RECORD_TYPE,
               instr.RECORD_TYPE)
TABLE_FIELDS = {
    "bench": capture.KEY_FIELDS + ("cycles", "events", "penalty", "penalty_why", "control", "dropped", "retaken",
                                   "disturbed", "unstable", "cycles_invalid", "cycles_source", "memory", "arena",
                                   "arena_page", "emulated"),
    "check": capture.KEY_FIELDS + ("what", "status", "reason", "role", "event", "value", "control_value"),
    topdown.RECORD_TYPE: topdown.FIELDS,
}


def run(args):
    if args.capture is None:
        if not args.legend:
            raise capture.InputError("table: give a capture (a serial log or results .jsonl), or --legend alone")
        write_legend(sys.stdout)
        return 0
    # Each run's iterations per row, gathered as its bench records go by: a field not kept on each of them.
    iterations = {}

    def note_iterations(run_, rec):
        it = rec.get("iterations")
        if rec.get("type") == "bench" and run_.kept and isinstance(it, int) and not isinstance(it, bool):
            iterations.setdefault(run_.number, set()).add(it)
    cap = capture.Capture(args.capture, keep=TABLE_TYPES, only_run=args.run if args.run is not None else "last",
                          keep_texts=False, fields=TABLE_FIELDS, on_record=note_iterations)
    r = cap.pick(args.run)
    for w in cap.verify([r], args.allow_incomplete):
        capture.warn(w)
    render(r, args.capture, len(cap.runs), sys.stdout, args.legend, args.ladder, iterations.get(r.number, set()),
           args.match)
    return 0
