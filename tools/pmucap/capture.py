"""Reading captures: the file, its records, its runs, their integrity, and typed field access.

Every subcommand reads through this module and nothing else, so the rules live once:

- a capture is a regular file of at most MAX_CAPTURE_BYTES (a FIFO, a device or a
  directory is refused, never waited on);
- serial noise (ANSI escapes, NUL bytes, any mix of CR and LF) is stripped, and a record
  is a line that *starts* with "@pmuboot " (docs/results-format.md); a file with no such
  line is read as a saved .jsonl, where a record is a line starting with "{";
- a record's JSON must be an object with a string `type`, finite numbers, integers of
  sane length and a shallow nesting: anything else is a damaged record, not a crash;
- a run is begin..end; it is intact when `end` counts its records and carries their CRC;
- a field is read through get()/figure(), which check its type and name the record and
  field when it is wrong.

This is the authoritative capture reader: lib/capture_host.c (pmuboot-host ibs-report) follows
these rules, and tests/host/test_capture_readers.py holds the two to the same answers
(docs/results-format.md, "Reading a capture").
"""
import json
import math
import os
import re
import stat
import zlib

PREFIX = "@pmuboot "
# Captures are a few hundred KiB; a rig log of many chained runs stays far below this.
MAX_CAPTURE_BYTES = 64 << 20
# Records nest four levels at most (docs/results-format.md); anything deeper is not ours.
MAX_DEPTH = 16
# The longest integer a record holds is a 64-bit value (20 digits) written in decimal.
MAX_INT_DIGITS = 24
# Problems listed per run in a one-line message before "and N more".
MAX_PROBLEMS_SHOWN = 3

# CSI sequences (ESC [ ... final), OSC, and two-character ESC sequences.
ANSI_RE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
LINE_SPLIT_RE = re.compile(r"\r\n|\r|\n")
CRC_RE = re.compile(r"[0-9a-f]{8}")


class CaptureError(Exception):
    """A capture that cannot be used as asked.  str() is one line naming the file and why."""
    exit_status = 2


class InputError(CaptureError):
    """The file itself cannot be read as a capture (missing, not a regular file, too large)."""
    exit_status = 1


class FieldError(CaptureError):
    """A record field of the wrong type: names the record (run, line, type) and the field."""


def one_line(msg):
    """A message on one line, whatever the capture put in it."""
    return " ".join(str(msg).split())


_warnings = []


def warn(msg):
    """A problem the user allowed (--allow-incomplete).  Kept until the command is over
    (take_warnings): printed when it succeeds, folded into its one error line when it fails."""
    _warnings.append(one_line(msg))


def take_warnings():
    out = list(_warnings)
    _warnings.clear()
    return out


# --- reading the file ---

def read_capture(path):
    """The capture's text (Latin-1: every byte maps to one character, so CRCs round-trip).

    Opens without blocking and refuses anything but a regular file, so a FIFO with no
    writer or a terminal device is an error at once instead of a hang.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise InputError(f"{path}: cannot open: {e.strerror}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{path}: is a directory, not a capture file")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}: is not a regular file (a FIFO, device or socket); "
                             "save the capture to a file first")
        if st.st_size > MAX_CAPTURE_BYTES:
            raise InputError(f"{path}: {st.st_size} bytes is more than the {MAX_CAPTURE_BYTES >> 20} MiB "
                             "a capture can be")
        chunks, total = [], 0
        while total <= MAX_CAPTURE_BYTES:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            chunks.append(b)
            total += len(b)
        if total > MAX_CAPTURE_BYTES:
            raise InputError(f"{path}: grew past {MAX_CAPTURE_BYTES >> 20} MiB while being read")
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    finally:
        os.close(fd)
    return b"".join(chunks).decode("latin-1")


# --- records ---

class Record(dict):
    """A record's JSON object, with where it was found."""
    line = 0
    run = None       # 1-based run number, None outside any run

    def where(self):
        place = f"run {self.run}, line {self.line}" if self.run else f"line {self.line}"
        return f"{place}: {self.get('type')} record"


def _reject_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(s):
    v = float(s)
    if not math.isfinite(v):
        raise ValueError(f"number {s[:20]} is out of range")
    return v


def _bounded_int(s):
    if len(s.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(s.lstrip('-'))} digits")
    return int(s)


def _too_deep(obj):
    """True when obj nests containers deeper than MAX_DEPTH (walked without recursion)."""
    stack = [(obj, 1)]
    while stack:
        o, d = stack.pop()
        if d > MAX_DEPTH:
            return True
        if isinstance(o, dict):
            stack.extend((v, d + 1) for v in o.values())
        elif isinstance(o, list):
            stack.extend((v, d + 1) for v in o)
    return False


def load_record(js):
    """(dict, None) for a record's JSON text, or (None, why it is not a record)."""
    try:
        obj = json.loads(js, parse_constant=_reject_constant, parse_float=_finite_float,
                         parse_int=_bounded_int)
    except json.JSONDecodeError as e:
        return None, f"record is not valid JSON ({e.msg}, column {e.colno})"
    except RecursionError:
        return None, "record is not valid JSON (nested too deeply)"
    except ValueError as e:
        return None, f"record is not valid JSON ({e})"
    if not isinstance(obj, dict):
        return None, f"record is a JSON {type_name(obj)}, not an object"
    # Nesting needs brackets: only a text with more of them than MAX_DEPTH can be too deep.
    if js.count("{") + js.count("[") > MAX_DEPTH and _too_deep(obj):
        return None, f"record nests deeper than {MAX_DEPTH} levels"
    if not isinstance(obj.get("type"), str) or not obj["type"]:
        return None, "record has no type" if "type" not in obj else \
            f"record type is {type_name(obj['type'])}, not a string"
    return obj, None


def clean_lines(text):
    """(line number, line) with serial noise removed: escapes, NUL bytes, CR/LF mixes."""
    text = ANSI_RE.sub("", text).replace("\x00", "")
    for n, line in enumerate(LINE_SPLIT_RE.split(text), 1):
        yield n, line


class Run:
    """One begin..end stream of records."""

    def __init__(self, start_line, number):
        self.start_line = start_line
        self.number = number   # 1-based, in capture order
        self.records = []      # (line number, Record)
        self.texts = []        # exact JSON text, for the CRC
        self.end = None
        self.problems = []

    @property
    def complete(self):
        return self.end is not None and not self.problems

    def name(self):
        return f"run {self.number} (from line {self.start_line})"

    def check(self):
        if self.end is None:
            self.problems.append("no end record (truncated capture)")
            return
        want, crc_text = self.end.get("records"), self.end.get("crc32")
        if not _is_int(want):
            self.problems.append(f"end record field 'records' is {type_name(want)}, expected an integer")
        elif want != len(self.texts):
            self.problems.append(f"end record counts {want} records, the capture holds {len(self.texts)}")
        if not isinstance(crc_text, str) or not CRC_RE.fullmatch(crc_text):
            self.problems.append(f"end record field 'crc32' is {_short(crc_text)}, expected 8 hex digits")
            return
        crc = 0
        for t in self.texts:
            crc = zlib.crc32((t + "\n").encode("latin-1", "replace"), crc)
        if f"{crc:08x}" != crc_text:
            self.problems.append(f"CRC mismatch (end record says {crc_text}, records give {crc:08x}): "
                                 "a record was damaged")
        for f in ("status",):
            if not isinstance(self.end.get(f), str):
                self.problems.append(f"end record field '{f}' is {type_name(self.end.get(f))}, expected a string")

    def summary(self):
        """One line: this run and what is wrong with it."""
        shown = "; ".join(self.problems[:MAX_PROBLEMS_SHOWN])
        more = len(self.problems) - MAX_PROBLEMS_SHOWN
        return f"{self.name()}: {shown}" + (f"; and {more} more problem(s)" if more > 0 else "")


def parse(text):
    """Split a capture into runs.  Returns (runs, problems outside any run).

    A text holding any line that starts with the record prefix is a serial capture and
    only such lines are records; otherwise it is a saved .jsonl of bare JSON lines.
    """
    serial = any(line.startswith(PREFIX) for _, line in clean_lines(text))
    runs, stray = [], []
    cur = None

    def close(run):
        run.check()
        runs.append(run)

    for n, line in clean_lines(text):
        if serial:
            if not line.startswith(PREFIX):
                if PREFIX.strip() in line and cur is not None:
                    cur.problems.append(f"line {n}: damaged record line: {_short(line[:60])}")
                continue
            js = line[len(PREFIX):].rstrip()
        else:
            if not line.startswith("{"):
                if line.strip() and cur is not None:
                    cur.problems.append(f"line {n}: not a record: {_short(line[:60])}")
                continue
            js = line.rstrip()
        obj, why = load_record(js)
        if obj is None:
            if cur is not None:
                cur.problems.append(f"line {n}: {why}")
                cur.texts.append(js)   # it still counts towards the CRC, which will fail
            else:
                stray.append(f"line {n}: {why}")
            continue
        rec = Record(obj)
        rec.line = n
        if rec["type"] == "begin":
            if cur is not None:
                close(cur)
            cur = Run(n, len(runs) + 1)
        elif cur is None:
            stray.append(f"line {n}: {_short(rec['type'][:40])} record before any begin record")
            continue
        rec.run = cur.number
        if rec["type"] == "end":
            cur.end = rec
            close(cur)
            cur = None
            continue
        cur.records.append((n, rec))
        cur.texts.append(js)
    if cur is not None:
        close(cur)
    return runs, stray


class Capture:
    """A capture file read and split into runs."""

    def __init__(self, path):
        self.path = path
        text = read_capture(path)
        self.runs, self.stray = parse(text)
        self.binary = "\x00" in text[:4096] or (bool(text) and not self.runs and _mostly_binary(text))

    def check_found(self):
        if not self.runs:
            what = "the file looks binary, not a text capture" if self.binary else \
                "no begin record"
            raise CaptureError(f"{self.path}: no pmuboot run found ({what})")

    def pick(self, index=None):
        """Run `index` (1-based, as `parse` numbers them; default the last)."""
        self.check_found()
        if index is None:
            return self.runs[-1]
        if not 1 <= index <= len(self.runs):
            raise CaptureError(f"{self.path}: the capture holds {len(self.runs)} run(s); there is no run {index}")
        return self.runs[index - 1]

    def verify(self, runs, allow_incomplete):
        """Refuse damaged runs (and damage outside every run) unless allowed.

        First every field the tools read is type-checked (FieldError, whatever
        allow_incomplete says: a figure that is not a number cannot be shown).
        Returns the warning lines to print when allowed; raises CaptureError (one line
        naming each damaged run and why) when not.
        """
        try:
            for r in runs:
                validate_run(r)
        except FieldError as e:
            raise FieldError(f"{self.path}: {e}") from None
        bad = [r.summary() for r in runs if r.problems]
        if self.stray:
            more = len(self.stray) - MAX_PROBLEMS_SHOWN
            bad.append("outside any run: " + "; ".join(self.stray[:MAX_PROBLEMS_SHOWN])
                       + (f"; and {more} more" if more > 0 else ""))
        if not bad:
            return []
        if not allow_incomplete:
            raise CaptureError(f"{self.path}: truncated or damaged: " + " | ".join(bad)
                               + " (--allow-incomplete reads it anyway)")
        return [f"{self.path}: truncated or damaged: {b}" for b in bad]


def _mostly_binary(text):
    sample = text[:4096]
    odd = sum(1 for c in sample if c < " " and c not in "\r\n\t\x1b" or "\x7f" <= c <= "\x9f")
    return odd > len(sample) // 10


def load_run(path, index=None, allow_incomplete=False):
    """The run `index` (1-based; default the last) of a capture file, and the warnings about it."""
    cap = Capture(path)
    run = cap.pick(index)
    return run, cap.verify([run], allow_incomplete)


# --- typed field access ---

STR, INT, NUM, BOOL, DICT, LIST = "a string", "an integer", "a number", "true or false", "an object", "a list"


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


_CHECKS = {
    STR: lambda v: isinstance(v, str),
    INT: _is_int,
    NUM: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    BOOL: lambda v: isinstance(v, bool),
    DICT: lambda v: isinstance(v, dict),
    LIST: lambda v: isinstance(v, list),
}


def type_name(v):
    if v is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            dict: "an object", list: "a list"}.get(type(v), "an object" if isinstance(v, dict) else type(v).__name__)


def _short(v, limit=40):
    """v as JSON writes it (as repr when JSON cannot), cut to about limit characters."""
    try:
        r = json.dumps(v)
    except (TypeError, ValueError):
        r = repr(v)
    return r if len(r) <= limit else r[:limit] + "..."


def _where(rec):
    return rec.where() if isinstance(rec, Record) else f"{rec.get('type')} record"


def get(rec, path, kind, default=None):
    """rec[path] checked to be `kind`; default when absent or null.

    path is a key or a tuple of keys into nested objects.  A value of another type raises
    FieldError naming the record and the field, e.g. "run 1, line 57: bench record: field
    cycles.median is a string, expected a number".
    """
    keys = path if isinstance(path, tuple) else (path,)
    v = rec
    for i, k in enumerate(keys):
        if v is None:
            return default
        if not isinstance(v, dict):
            name = ".".join(keys[:i])
            raise FieldError(f"{_where(rec)}: field {name} is {type_name(v)}, expected an object")
        v = v.get(k)
    if v is None:
        return default
    if not _CHECKS[kind](v):
        raise FieldError(f"{_where(rec)}: field {'.'.join(keys)} is {type_name(v)} {_short(v, 24)}, "
                         f"expected {kind}")
    return v


def figure(rec, path):
    """A {min, median, max, n} figure as floats (min and max default to the median), or None."""
    fig = get(rec, path, DICT)
    if fig is None:
        return None
    keys = path if isinstance(path, tuple) else (path,)
    med = get(rec, keys + ("median",), NUM)
    if med is None:
        raise FieldError(f"{_where(rec)}: field {'.'.join(keys)} has no median")
    out = {"median": float(med),
           "min": float(get(rec, keys + ("min",), NUM, med)),
           "max": float(get(rec, keys + ("max",), NUM, med))}
    n = get(rec, keys + ("n",), INT)
    if n is not None:
        out["n"] = n
    return out


# --- views of a run ---

def run_records(run, rtype=None):
    """The records of a run, end included, optionally of one type."""
    recs = [r for _, r in run.records] + ([run.end] if run.end else [])
    return [r for r in recs if rtype is None or r.get("type") == rtype]


def first_record(run, rtype):
    recs = run_records(run, rtype)
    return recs[0] if recs else None


def describe_run(run):
    """One line naming a run: build, CPU and machine."""
    begin = first_record(run, "begin") or Record()
    cpu = first_record(run, "cpu") or Record()
    plat = first_record(run, "platform") or Record()
    machine = " ".join(x for x in (get(plat, ("smbios", "system_manufacturer"), STR),
                                   get(plat, ("smbios", "system_product"), STR)) if x)
    parts = [f"pmuboot {get(begin, 'version', STR, '?')} build {get(begin, 'build', STR, '?')}",
             get(cpu, "brand", STR) or get(cpu, "vendor_string", STR) or "unknown CPU"]
    if machine:
        parts.append(machine)
    return ", ".join(parts)


def variant_key(rec, per_cpu=False, variant=None):
    """[N:]kernel.variant[@arena]: how a bench or check record names what it measured.

    per_cpu: prefixed by the processor the record came from (its cpu object), for a run that
    measured on several (processors(run)); variant: another variant of the same kernel and arena
    on the same processor (a record's control)."""
    name = f"{get(rec, 'kernel', STR, '?')}.{variant or get(rec, 'variant', STR, '?')}"
    arena = get(rec, "arena", STR)
    n = get(rec, ("cpu", "n"), INT) if per_cpu else None
    return (f"{n}:" if n is not None else "") + name + (f"@{arena}" if arena else "")


def processors(run):
    """The processors a run measured on (the cpu objects of its bench records), in order."""
    seen = []
    for rec in run_records(run, "bench"):
        n = get(rec, ("cpu", "n"), INT)
        if n is not None and n not in seen:
            seen.append(n)
    return seen


def per_cpu(run):
    """True when the run measured on more than one processor: its figures are told apart by processor."""
    return len(processors(run)) > 1


def figures(rec):
    """{metric: figure} of a bench record: cycles, then each event counted."""
    out = {}
    cyc = figure(rec, "cycles")
    if cyc is not None:
        out["cycles"] = cyc
    for name in (get(rec, "events", DICT) or {}):
        fig = figure(rec, ("events", name))
        if fig is not None:
            out[name] = fig
    return out


# The fields the subcommands read, and their types (null is always allowed: "not known").
# A tuple is a path into nested objects.  Figures ({min, median, max, n}) are checked by
# figures().  Checked once when a run is read, so a wrong type is one error up front, never
# a crash half-way through the output.
FIELD_TYPES = {
    "begin": {"version": STR, "build": STR, "program": STR, "options": DICT},
    "cpu": {"brand": STR, "vendor_string": STR, "signature": STR},
    "platform": {"smbios": DICT, ("smbios", "system_manufacturer"): STR, ("smbios", "system_product"): STR,
                 ("smbios", "bios_version"): STR},
    "bench_setup": {"iterations": INT, "reps": INT, "counting": DICT, ("counting", "available"): BOOL,
                    ("counting", "reason"): STR},
    "bench": {"kernel": STR, "variant": STR, "arena": STR, "control": STR, "cycles_source": STR,
              "cycles_invalid": STR, "invalid": DICT,
              "dropped": INT, "disturbed": DICT, "retaken": INT, "unstable": STR,
              "penalty": DICT, ("penalty", "median"): NUM, "events": DICT},
    "check": {"kernel": STR, "variant": STR, "arena": STR, "what": STR, "status": STR, "role": STR,
              "event": STR, "reason": STR, "value": NUM, "control_value": NUM},
    "error": {"source": STR, "what": STR, "message": STR},
    "audit": {"check": STR, "status": STR, "counter": STR, "expected": NUM, "got": NUM, "why": STR,
              "measured": STR, "disturbed": INT, "retaken": INT},
    "end": {"status": STR, "errors": INT, "records": INT, "crc32": STR},
}


def validate_run(run):
    """Raise FieldError for the first field of the wrong type among those the tools read."""
    for rec in run_records(run):
        for path, kind in FIELD_TYPES.get(rec.get("type"), {}).items():
            get(rec, path, kind)
        if rec.get("type") == "bench":
            figures(rec)


def bench_table(run):
    """{[N:]kernel.variant@arena: bench record}, in the order measured (N: see per_cpu)."""
    table, multi = {}, per_cpu(run)
    for rec in run_records(run, "bench"):
        table.setdefault(variant_key(rec, multi), rec)
    return table
