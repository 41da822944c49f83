#!/usr/bin/env python3
"""pmucap - read pmuboot captures: parse, JUnit, compare, plot.

A capture is whatever a rig recorded from the serial line (firmware noise,
ANSI escapes, CR/LF mixes included) or a saved results-NNNN.jsonl file.
Records are the lines "@pmuboot {json}" (or bare JSON objects in a .jsonl
file).  A capture may hold several runs; each starts with a `begin` record
and is complete when its `end` record counts the records before it and
carries the CRC-32 of their JSON texts (each followed by "\\n").

    pmucap.py parse CAPTURE [--format json|csv] [--type TYPE] [--allow-incomplete]
    pmucap.py junit CAPTURE [-o FILE.xml] [--allow-incomplete]
    pmucap.py compare A B [--format text|json|csv] [--run-a N] [--run-b N]
                      [--min-change PCT] [--floor X] [--fail-on-change] [--allow-incomplete]
    pmucap.py plot CAPTURE [CAPTURE_B] -o FILE.svg [--metric cycles|events|all] [--allow-incomplete]

Exit status: 0 when every run read is complete and intact; 2 when a run is
truncated or damaged (the problems are printed to stderr; --allow-incomplete
goes on regardless and exits 0); 3 from `compare --fail-on-change` when a
figure moved beyond its spread; 1 on usage or I/O errors.  Python 3
standard library only.  docs/lab.md shows each command at work.
"""
import argparse
import csv
import json
import re
import sys
import zlib

PREFIX = "@pmuboot "
# CSI sequences (ESC [ ... final), OSC, and two-character ESC sequences.
ANSI_RE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
LINE_SPLIT_RE = re.compile(r"\r\n|\r|\n")


class Run:
    """One begin..end stream of records."""

    def __init__(self, start_line):
        self.start_line = start_line
        self.records = []      # (line number, dict)
        self.texts = []        # exact JSON text, for the CRC
        self.end = None
        self.problems = []

    @property
    def complete(self):
        return self.end is not None and not self.problems

    def check(self):
        if self.end is None:
            self.problems.append(
                f"run starting at line {self.start_line}: no end record (truncated capture)")
            return
        want = self.end.get("records")
        if want != len(self.texts):
            self.problems.append(
                f"run starting at line {self.start_line}: end record counts {want} records, "
                f"the capture holds {len(self.texts)}")
        crc = 0
        for t in self.texts:
            crc = zlib.crc32((t + "\n").encode("latin-1", "replace"), crc)
        if f"{crc:08x}" != self.end.get("crc32"):
            self.problems.append(
                f"run starting at line {self.start_line}: CRC mismatch (end record says "
                f"{self.end.get('crc32')}, records give {crc:08x}): a record was damaged")


def clean_lines(text):
    text = ANSI_RE.sub("", text)
    for n, line in enumerate(LINE_SPLIT_RE.split(text), 1):
        yield n, line


def extract(line):
    """The JSON text of a record line, or None."""
    i = line.find(PREFIX + "{")
    if i >= 0:
        return line[i + len(PREFIX):].rstrip()
    s = line.strip()
    if s.startswith("{") and '"type"' in s:
        return s
    return None


def parse(text):
    """Split a capture into runs.  Returns (runs, problems outside any run)."""
    runs, stray = [], []
    cur = None
    for n, line in clean_lines(text):
        js = extract(line)
        if js is None:
            if PREFIX.strip() in line and cur is not None:
                cur.problems.append(f"line {n}: damaged record line: {line[:80]!r}")
            continue
        try:
            rec = json.loads(js)
        except json.JSONDecodeError as e:
            target = cur.problems if cur is not None else stray
            target.append(f"line {n}: record is not valid JSON ({e.msg} at column {e.colno})")
            if cur is not None:
                cur.texts.append(js)   # it still counts towards the CRC, which will fail
            continue
        if not isinstance(rec, dict) or "type" not in rec:
            stray.append(f"line {n}: record has no type")
            continue
        if rec["type"] == "begin":
            if cur is not None:
                cur.check()
                runs.append(cur)
            cur = Run(n)
        elif cur is None:
            stray.append(f"line {n}: {rec['type']} record before any begin record")
            continue
        if rec["type"] == "end":
            cur.end = rec
            cur.check()
            runs.append(cur)
            cur = None
            continue
        cur.records.append((n, rec))
        cur.texts.append(js)
    if cur is not None:
        cur.check()
        runs.append(cur)
    return runs, stray


def read_capture(path):
    with open(path, "rb") as f:
        return f.read().decode("latin-1")


class CaptureError(Exception):
    """A capture that cannot be used as asked (no run, a damaged run without --allow-incomplete)."""


def load_run(path, index=None, allow_incomplete=False):
    """The run `index` (1-based; default: the last) of a capture, and the problems found in it.

    Raises CaptureError when there is no such run, or when the run (or the
    text around it) is damaged and allow_incomplete is false: figures from a
    damaged capture are never used silently.
    """
    runs, stray = parse(read_capture(path))
    if not runs:
        raise CaptureError(f"{path}: no pmuboot run found in the capture")
    if index is None:
        index = len(runs)
    if not 1 <= index <= len(runs):
        raise CaptureError(f"{path}: the capture holds {len(runs)} run(s); there is no run {index}")
    run = runs[index - 1]
    problems = list(stray) + list(run.problems)
    if problems and not allow_incomplete:
        raise CaptureError(f"{path}: run {index} is truncated or damaged: " + "; ".join(problems))
    return run, problems


def run_records(run, rtype=None):
    """The records of a run, end included, optionally of one type."""
    recs = [r for _, r in run.records] + ([run.end] if run.end else [])
    return [r for r in recs if rtype is None or r.get("type") == rtype]


def first_record(run, rtype):
    recs = run_records(run, rtype)
    return recs[0] if recs else None


def describe_run(run):
    """One line naming a run: build, CPU and machine."""
    begin = first_record(run, "begin") or {}
    cpu = first_record(run, "cpu") or {}
    plat = first_record(run, "platform") or {}
    smb = plat.get("smbios") or {}
    machine = " ".join(x for x in (smb.get("system_manufacturer"), smb.get("system_product")) if x)
    parts = [f"pmuboot {begin.get('version', '?')} build {begin.get('build', '?')}",
             cpu.get("brand") or cpu.get("vendor_string") or "unknown CPU"]
    if machine:
        parts.append(machine)
    return ", ".join(parts)


def variant_key(rec):
    """kernel.variant[@arena]: how a bench or check record names what it measured."""
    name = f"{rec.get('kernel', '?')}.{rec.get('variant', '?')}"
    return name + (f"@{rec['arena']}" if rec.get("arena") else "")


def flatten(rec, prefix=""):
    out = {}
    for k, v in rec.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        elif isinstance(v, list):
            out[key] = json.dumps(v, separators=(",", ":"))
        else:
            out[key] = v
    return out


def cmd_parse(args):
    runs, stray = parse(read_capture(args.capture))
    problems = list(stray)
    for r in runs:
        problems.extend(r.problems)
    recs = []
    for i, r in enumerate(runs):
        for _, rec in r.records + ([(0, r.end)] if r.end else []):
            if args.type and rec.get("type") != args.type:
                continue
            recs.append(dict(rec, _run=i))
    if args.format == "json":
        for rec in recs:
            print(json.dumps(rec, sort_keys=False))
    else:
        rows = [flatten(r) for r in recs]
        cols = []
        for r in rows:
            for k in r:
                if k not in cols:
                    cols.append(k)
        w = csv.DictWriter(sys.stdout, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(r)
    if not runs:
        problems.append("no pmuboot run found in the capture")
    for p in problems:
        print(f"pmucap: {args.capture}: {p}", file=sys.stderr)
    if problems and not args.allow_incomplete:
        return 2
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="pmucap", description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="docs/lab.md and docs/results-format.md describe the records.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("parse", help="extract and verify the records of a capture")
    p.add_argument("capture")
    p.add_argument("--format", choices=["json", "csv"], default="json")
    p.add_argument("--type", help="only records of this type")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="exit 0 even when a run is truncated or damaged (problems still printed)")
    p.set_defaults(func=cmd_parse)

    import pmucap_junit
    import pmucap_compare
    import pmucap_plot
    pmucap_junit.add_parser(sub)
    pmucap_compare.add_parser(sub)
    pmucap_plot.add_parser(sub)

    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except CaptureError as e:
        print(f"pmucap: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"pmucap: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    # Run as the module `pmucap`, the one the subcommand modules import, so
    # there is one CaptureError class and one parser, not two copies.
    import pmucap
    sys.exit(pmucap.main())
