"""pmucap parse - the records of a capture as JSON lines or CSV, after checking every run."""
import csv
import json
import sys

from . import capture


def add_parser(sub):
    p = sub.add_parser("parse", help="extract and verify the records of a capture",
                       description="Print the records of a capture, one JSON object per line (with "
                       "\"_run\": the run's number, from 1 in capture order, the numbering --run and "
                       "compare's --run-a/--run-b use) or as CSV.  Every run printed is checked "
                       "first: a truncated or damaged run is refused (exit 2) unless --allow-incomplete.")
    p.add_argument("capture")
    p.add_argument("--format", choices=["json", "csv"], default="json")
    p.add_argument("--type", help="only records of this type (a type pmuboot writes, docs/results-format.md: "
                   "another is an error)")
    p.add_argument("--run", type=int, metavar="N", help="only run N (1 = the first in the capture; default all)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="print even a truncated or damaged run (its problems go to stderr as warnings)")
    p.set_defaults(func=run)


def csv_value(v):
    """A JSON value as CSV text: booleans as JSON writes them (true/false), null as empty."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return ""
    return v


def flatten(rec, prefix=""):
    """Nested objects as dotted columns; lists as compact JSON (records nest at most MAX_DEPTH)."""
    out = {}
    for k, v in rec.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        elif isinstance(v, list):
            out[key] = json.dumps(v, separators=(",", ":"))
        else:
            out[key] = csv_value(v)
    return out


def selected_records(cap, runs, rtype):
    """The records to print, read again from the file as a stream (never all held at once)."""
    for number, rec in cap.records(runs, rtype):
        yield dict(rec, _run=number)


def run(args):
    # First the verdict on every run printed, holding no record; then the records, streamed.
    cap = capture.Capture(args.capture, keep=(), keep_texts=False)
    runs = [cap.pick(args.run)] if args.run is not None else (cap.check_found() or cap.runs)
    if args.type is not None and args.type not in capture.RECORD_TYPES and args.type not in cap.types:
        # A type pmuboot never writes (a typo) is refused; one it writes but this run lacks prints nothing.
        raise capture.CaptureError(f"--type {_quoted(args.type)}: pmuboot writes no such record, and the capture "
                                   "holds none (types: " + ", ".join(sorted(capture.RECORD_TYPES)) + "; "
                                   "docs/results-format.md)")
    for w in cap.verify(runs, args.allow_incomplete):
        capture.warn(w)
    if args.format == "json":
        for rec in selected_records(cap, runs, args.type):
            sys.stdout.write(json.dumps(rec) + "\n")
        return 0
    # CSV: the columns are every field any record printed has, so they are gathered first.
    cols = {}
    for rec in selected_records(cap, runs, args.type):
        cols.update(dict.fromkeys(flatten(rec)))
    w = csv.DictWriter(sys.stdout, fieldnames=list(cols), lineterminator="\n")
    w.writeheader()
    for rec in selected_records(cap, runs, args.type):
        w.writerow(flatten(rec))
    return 0


def _quoted(s):
    return json.dumps(s[:40]) + ("..." if len(s) > 40 else "")
