"""pmucap export --instr - a run's instruction table as CSV (RFC 4180), for a spreadsheet or a script.

One row per form and latency pair: the form's fields repeated on each of its rows, then the pair's
(`from`, `to`, its cycles, bound, connecting instruction and spread, `latency_chain_rate` where the renamer
resolved the chain (its latency then 0), and `largest_register_pair` true for
the pair `pmucap table` marks with *).  A form without a latency pair (not measured, or only a throughput)
has one row whose pair columns are empty.  Numbers are written as read (a record's 1.000 is 1.0), a
missing figure as an empty field, true/false as words; fields holding a comma, a quote or a line break
are quoted, quotes doubled, and lines end in CRLF (RFC 4180).  `uops` and `ports` are written as the table
shows them (`retired 1`, `p0:0.5 p1:0.5`).

An instr record that does not hold is not written; a warning names its line and what is wrong (exit 0:
the rest of the table is written).  A run without instr records is nothing to show (exit 1).
"""
import argparse
import csv
import os
import sys
import tempfile

from . import capture, instr

COLUMNS = ("cpu", "asm", "iform", "extension", "isa_set", "from", "to", "latency", "bound", "via",
           "latency_q1", "latency_q3", "latency_min", "latency_max", "latency_n", "latency_unstable", "latency_why",
           "latency_chain_rate", "largest_register_pair", "throughput", "throughput_how", "throughput_q1",
           "throughput_q3", "throughput_unstable", "throughput_why", "uops", "ports", "why", "emulated", "line")
EXPORT_TYPES = ("begin", "cpu", "platform", instr.RECORD_TYPE)
# The latency pair's columns, empty on the one row of a form without a pair.
PAIR_COLUMNS = COLUMNS[COLUMNS.index("from"):COLUMNS.index("largest_register_pair") + 1]


def add_parser(sub):
    p = sub.add_parser("export", help="a run's instruction table as CSV (--instr)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("capture", help="a serial capture or a saved results .jsonl")
    p.add_argument("--instr", action="store_true", required=True,
                   help="the instruction table (the instr records): the one thing export writes today")
    p.add_argument("--match", type=instr.match_pattern, metavar="REGEX",
                   help="only the forms whose asm name this regular expression finds (Python's re)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the CSV here (default: standard output)")
    p.add_argument("--run", type=int, metavar="N", help="which run (1 = the first in the capture; default the last)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="export even a truncated or damaged run (its problems are printed)")
    p.set_defaults(func=run)


def _v(x):
    if isinstance(x, bool):
        return "true" if x else "false"
    return "" if x is None else x


def form_rows(table):
    """The CSV rows (lists, COLUMNS) of a Table."""
    out = []
    for f in table.forms:
        tp = f.throughput or instr.Figure("throughput")
        tail = [tp.cycles, tp.how, tp.spread.get("q1"), tp.spread.get("q3"), tp.unstable, tp.why,
                f.uops_text() if f.uops is not None else None, f.ports_text() if f.ports is not None else None,
                f.why, f.emulated, f.line]
        head = [f.cpu, f.asm, f.iform, f.extension, f.isa_set]
        largest = f.largest_register_pair()
        pairs = f.latency or [None]
        for p in pairs:
            if p is None:
                mid = [None] * len(PAIR_COLUMNS)
            else:
                s = p.spread
                mid = [p.src, p.dst, p.cycles, p.bound if p.cycles is not None else None, p.via, s.get("q1"),
                       s.get("q3"), s.get("min"), s.get("max"), s.get("n"), p.unstable, p.why, p.chain_rate,
                       p is largest]
            out.append([_v(x) for x in head + mid + tail])
    return out


def write(rows, stream):
    w = csv.writer(stream, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    w.writerow(COLUMNS)
    w.writerows(rows)


def run(args):
    r, warnings = capture.load_run(args.capture, args.run, args.allow_incomplete, keep=EXPORT_TYPES)
    for w in warnings:
        capture.warn(w)
    table = instr.read(r)
    for p in table.problems:
        capture.warn(f"{p}: the record is not used")
    if not table.forms:
        raise capture.InputError(f"{args.capture}: run {r.number} has no instr records to export"
                                 + (f" ({len(table.problems)} could not be used)" if table.problems else ""))
    if args.match is not None:
        every = len(table.forms)
        table = instr.only(table, args.match)
        if not table.forms:
            raise capture.InputError(f"{args.capture}: none of run {r.number}'s {every} instruction forms matches "
                                     f"{args.match.pattern!r}")
    rows = form_rows(table)
    if args.output is None:
        sys.stdout.reconfigure(newline="")
        write(rows, sys.stdout)
        return 0
    # Written beside the output and put in its place: a failed export never leaves half a file.
    where = os.path.dirname(os.path.abspath(args.output))
    fd, tmp = tempfile.mkstemp(prefix=".pmucap-export-", suffix=".csv", dir=where)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            write(rows, f)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, args.output)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return 0
