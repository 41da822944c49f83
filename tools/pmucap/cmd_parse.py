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
    p.add_argument("--type", help="only records of this type")
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


def selected_records(runs, rtype):
    for r in runs:
        for rec in capture.run_records(r):
            if rtype is None or rec.get("type") == rtype:
                yield dict(rec, _run=r.number)


def run(args):
    cap = capture.Capture(args.capture)
    runs = [cap.pick(args.run)] if args.run is not None else (cap.check_found() or cap.runs)
    for w in cap.verify(runs, args.allow_incomplete):
        capture.warn(w)
    recs = selected_records(runs, args.type)
    if args.format == "json":
        for rec in recs:
            sys.stdout.write(json.dumps(rec) + "\n")
        return 0
    rows = [flatten(r) for r in recs]
    cols = {}
    for r in rows:
        cols.update(dict.fromkeys(r))
    w = csv.DictWriter(sys.stdout, fieldnames=list(cols), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return 0
