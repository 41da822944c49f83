"""Reading captures: the file, its records, its runs, their integrity, and typed field access.

Every subcommand reads through this module and nothing else, so the rules live once:

- a capture is a regular file of at most MAX_CAPTURE_BYTES (a FIFO, a device or a
  directory is refused, never waited on);
- it is read as a stream, a chunk at a time, and a command keeps only the records it needs
  (Capture's keep= and only_run=): memory stays a small multiple of the file, never the
  file's records all at once (docs/lab.md);
- serial noise (ANSI escapes, NUL bytes, any mix of CR and LF) is stripped, and a record
  is a line that *starts* with "@pmuboot " (docs/results-format.md); a file with no such
  line is read as a saved .jsonl, where a record is a line starting with "{"; a line
  longer than MAX_LINE_CHARS is no record (a damaged one when it starts like one);
- a record's JSON must be an object with a string `type`, finite numbers, integers of
  sane length and a shallow nesting: anything else is a damaged record, not a crash;
- a run is begin..end; it is complete when `end` counts its records and carries their CRC, and
  intact when besides its `status` and `errors` agree with the run errors its records hold
  (verdict.py: the run's PASS, FAIL, INCOMPLETE or INVALID);
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
import sys
import zlib

from . import verdict as _verdict

PREFIX = "@pmuboot "
# Captures are a few hundred KiB; a rig log of many chained runs stays far below this.
MAX_CAPTURE_BYTES = 64 << 20
# Records nest four levels at most (docs/results-format.md); anything deeper is not ours.
MAX_DEPTH = 16
# The longest integer a record holds is a 64-bit value (20 digits) written in decimal.
MAX_INT_DIGITS = 24
# Problems listed per run in a one-line message before "and N more".
MAX_PROBLEMS_SHOWN = 3
# The file is read this much at a time.
CHUNK_BYTES = 1 << 20
# The longest record is a few KiB; a longer line is kept only this far (to say what it was).
MAX_LINE_CHARS = 1 << 20
# An escape sequence cut by a chunk's end waits for the next chunk, up to this many characters.
ESCAPE_HOLD_CHARS = 4096
# The first characters of the file, kept to tell a binary file from a text capture.
SNIFF_CHARS = 4096
# The record types pmuboot writes (docs/results-format.md, "Record types"; a test keeps them equal).
RECORD_TYPES = frozenset((
    "begin", "platform", "results_file", "error", "cpu", "cache", "topology", "pass", "pmu", "audit", "program",
    "restore", "bench_setup", "bench", "check", "metrics", "ibs", "ibs_sample", "timing", "runtime", "selftest",
    "fault", "timeout", "user_kernels", "instr", "instr_pack", "end"))
# Record types a capture is seen to hold, at most this many (and this long) are remembered.
MAX_TYPES_SEEN, MAX_TYPE_CHARS = 256, 64
# Strings up to this long in a kept record are shared (interned): names and words that repeat.
SHARED_STR_CHARS = 48

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


class TooManyRecords(CaptureError):
    """A run with more records than the reader was told to take (_Scanner's max_records)."""

    def __init__(self, limit, line):
        super().__init__(f"more than {limit} records in one run (at line {line})")
        self.limit, self.line = limit, line


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

def _open_capture(path):
    """A file descriptor for the capture, and its stat.

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
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def iter_chunks(path):
    """The capture's text, CHUNK_BYTES at a time (Latin-1: every byte maps to one character,
    so CRCs round-trip).  The first item is the file's stat."""
    fd, st = _open_capture(path)
    try:
        yield st
        total = 0
        while True:
            try:
                b = os.read(fd, CHUNK_BYTES)
            except OSError as e:
                raise InputError(f"{path}: cannot read: {e.strerror}") from None
            if not b:
                return
            total += len(b)
            if total > MAX_CAPTURE_BYTES:
                raise InputError(f"{path}: grew past {MAX_CAPTURE_BYTES >> 20} MiB while being read")
            yield b.decode("latin-1")
    finally:
        os.close(fd)


def read_capture(path):
    """The whole capture's text at once (small files, tests); the commands stream it instead."""
    chunks = iter_chunks(path)
    next(chunks)
    return "".join(chunks)


def _escape_cut(s):
    """Where a chunk can be cleaned up to: before an escape sequence its end may have cut.

    Only the last ESC can start a sequence that more text would change (a CSI without its
    final byte, an ESC alone), or an OSC ("ESC ]") whose text runs to that ESC without a BEL
    (its terminator may be that ESC and a backslash).  Held back at most ESCAPE_HOLD_CHARS.
    """
    e = s.rfind("\x1b")
    if e < 0:
        return len(s)
    cut = e
    j = s.rfind("\x1b]", 0, e)
    if j >= 0 and s.find("\x1b", j + 1) == e and "\x07" not in s[j:e]:
        cut = j
    return cut if len(s) - cut <= ESCAPE_HOLD_CHARS else len(s)


class _LineSplitter:
    """Serial noise out and lines cut, from text given a chunk at a time: the same lines, and
    the same numbers, as cleaning the whole text and splitting it at every CR, LF and CR LF.

    Yields (line number, line, overlong): a line longer than MAX_LINE_CHARS is cut there and
    flagged (its tail is dropped as it arrives, so one endless line never fills memory)."""

    def __init__(self):
        self.raw = ""        # text held back: an escape sequence the chunk's end may have cut
        self.partial = ""    # the cleaned start of the line not yet ended (a trailing CR kept)
        self.over = False    # that line is already longer than MAX_LINE_CHARS
        self.n = 0

    def feed(self, text, final=False):
        s = self.raw + text
        cut = len(s) if final else _escape_cut(s)
        self.raw = s[cut:]
        clean = ANSI_RE.sub("", s[:cut]).replace("\x00", "")
        buf = self.partial + clean
        # A CR at the end may be the first half of CR LF: keep it with the unfinished line.
        cr = not final and buf.endswith("\r")
        pieces = LINE_SPLIT_RE.split(buf[:-1] if cr else buf)
        last = None if final else pieces.pop()
        for piece in pieces:
            self.n += 1
            over = self.over or len(piece) > MAX_LINE_CHARS
            yield self.n, piece[:MAX_LINE_CHARS], over
            self.over = False
        if last is not None:
            if len(last) > MAX_LINE_CHARS:
                last, self.over = last[:MAX_LINE_CHARS], True
            self.partial = last + ("\r" if cr else "")


def clean_lines(text):
    """(line number, line) with serial noise removed: escapes, NUL bytes, CR/LF mixes."""
    for n, line, _ in _LineSplitter().feed(text, final=True):
        yield n, line


def text_lines(text):
    """clean_lines of a text already in memory, cut a chunk at a time (the same lines), so that the
    lines of a large text are never all held at once."""
    split = _LineSplitter()
    for i in range(0, len(text), CHUNK_BYTES):
        for n, line, _ in split.feed(text[i:i + CHUNK_BYTES]):
            yield n, line
    for n, line, _ in split.feed("", final=True):
        yield n, line


def _file_lines(path, sniff=None):
    """(line number, line, overlong) of a capture file, read as a stream.  sniff: a list that
    receives the file's stat and its first SNIFF_CHARS characters."""
    chunks = iter_chunks(path)
    st = next(chunks)
    head = []
    split = _LineSplitter()
    for text in chunks:
        if sniff is not None and sum(map(len, head)) < SNIFF_CHARS:
            head.append(text[:SNIFF_CHARS])
        yield from split.feed(text)
    yield from split.feed("", final=True)
    if sniff is not None:
        sniff[:] = [st, "".join(head)[:SNIFF_CHARS]]


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


# What no text may hold for a reader that asks for strict text (the collector): a lone surrogate
# (half of a UTF-16 pair, which no UTF-8 output can encode) or NUL (which PostgreSQL text cannot hold).
NOT_TEXT_RE = re.compile("[\x00\ud800-\udfff]")


def shown_key(k):
    """A key or path part as a message shows it: printable ASCII, anything else escaped."""
    return json.dumps(k)[1:-1] if isinstance(k, str) else str(k)


def text_problem(obj):
    """Where obj (a parsed record) holds a string that is not text (NOT_TEXT_RE), in words, or None.
    Keys are strings too.  Walked without recursion (records are shallow, but not trusted)."""
    stack = [(obj, "")]
    while stack:
        o, path = stack.pop()
        if isinstance(o, dict):
            for k, v in o.items():
                where = f"{path}.{shown_key(k)}" if path else shown_key(k)
                m = NOT_TEXT_RE.search(k)
                if m:
                    return f"key '{where}' holds U+{ord(m.group()):04X}"
                stack.append((v, where))
        elif isinstance(o, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(o))
        elif isinstance(o, str):
            m = NOT_TEXT_RE.search(o)
            if m:
                return f"field '{path}' holds U+{ord(m.group()):04X}"
    return None


class Run:
    """One begin..end stream of records.

    records holds the records kept ((line number, Record); all of them unless the reader was
    told which it needs), texts their exact JSON text when asked for (parse() keeps them);
    the count and the CRC are taken as the records go by, so integrity needs neither.
    """

    def __init__(self, start_line, number, keep_texts=True):
        self.start_line = start_line
        self.number = number   # 1-based, in capture order
        self.records = []      # (line number, Record)
        # keep_texts: True keeps the texts in a list; a callable makes what receives them (append).
        self.texts = (keep_texts() if callable(keep_texts) else []) if keep_texts else None
        self.count = 0         # record lines in the run, end excluded
        self.crc = 0
        self.end = None
        self.problems = []
        self.field_error = None   # the first field of a wrong type, as FieldError words
        self.kept = True          # False: its records were not kept (Capture's only_run)
        self.tally = _verdict.Tally()   # its run errors and failed checks, counted as they go by
        self.contradictions = []  # what its end record's status/errors claim against the records
        self.trailer = None       # the upload record after its end (_Scanner's trailer)

    @property
    def complete(self):
        """Its end record holds: the count and the CRC match (the framing both readers check)."""
        return self.end is not None and not self.problems

    def verdict(self, stray=()):
        """(PASS|FAIL|INCOMPLETE|INVALID, [reasons]): verdict.py."""
        return _verdict.verdict(self, stray)

    def name(self):
        return f"run {self.number} (from line {self.start_line})"

    def add_text(self, js):
        """A record line of this run (damaged or not): it counts, and goes into the CRC."""
        self.count += 1
        self.crc = zlib.crc32((js + "\n").encode("latin-1", "replace"), self.crc)
        if self.texts is not None:
            self.texts.append(js)

    def check(self):
        if self.end is None:
            self.problems.append("no end record (truncated capture)")
            return
        want, crc_text = self.end.get("records"), self.end.get("crc32")
        if not _is_int(want):
            self.problems.append(f"end record field 'records' is {type_name(want)}, expected an integer")
        elif want != self.count:
            self.problems.append(f"end record counts {want} records, the capture holds {self.count}")
        if not isinstance(crc_text, str) or not CRC_RE.fullmatch(crc_text):
            self.problems.append(f"end record field 'crc32' is {_short(crc_text)}, expected 8 hex digits")
            return
        if f"{self.crc:08x}" != crc_text:
            self.problems.append(f"CRC mismatch (end record says {crc_text}, records give {self.crc:08x}): "
                                 "a record was damaged")
        for f in ("status",):
            if not isinstance(self.end.get(f), str):
                self.problems.append(f"end record field '{f}' is {type_name(self.end.get(f))}, expected a string")
        # Not a framing problem (the C reader does not judge it): a claim the records refute.
        self.contradictions = _verdict.contradictions(self.end, self.tally)

    def summary(self):
        """One line: this run and what is wrong with it."""
        wrong = self.problems + self.contradictions
        shown = "; ".join(wrong[:MAX_PROBLEMS_SHOWN])
        more = len(wrong) - MAX_PROBLEMS_SHOWN
        return f"{self.name()}: {shown}" + (f"; and {more} more problem(s)" if more > 0 else "")


def _compact(v):
    """A JSON value with its keys and short strings shared: records kept by the thousand repeat
    the same names, and each json.loads makes them anew."""
    if isinstance(v, dict):
        return {sys.intern(k): _compact(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_compact(x) for x in v]
    if isinstance(v, str) and len(v) <= SHARED_STR_CHARS:
        return sys.intern(v)
    return v


def slim(rec, fields):
    """A kept record: only the top-level fields a command reads (fields None: all), compacted."""
    out = Record((sys.intern(k), _compact(v)) for k, v in rec.items() if fields is None or k in fields
                 or k == "type")
    out.line, out.run = rec.line, rec.run
    return out


def check_fields(rec):
    """Raise FieldError for the first field of rec of the wrong type among those the tools read."""
    for path, kind in FIELD_TYPES.get(rec.get("type"), {}).items():
        get(rec, path, kind)
    if rec.get("type") == "bench":
        figures(rec)


class _Scanner:
    """Lines in, runs out: the rules of parse(), one line at a time.

    serial: records are the lines starting with PREFIX (else: bare JSON lines).  keep: the
    record types a run keeps (None: all); fields: {type: the top-level fields kept} (kept
    records are then slimmed and compacted; None keeps them as read).  only_run: None keeps every run's records, "last"
    only the last run's, N only run N's.  on_record(run, rec), when given, sees every record of
    every run (end included) as it is read.  on_run(run), when given, is called as each run
    closes; that run's records are let go after it.

    For the collector (upload.py), which reads what anyone may send: strict_text makes a record
    holding a lone surrogate or NUL (text_problem) a damaged one; trailer takes an `upload` record
    right after a run's `end` as its trailer (docs/results-format.md, "The upload trailer"), not as
    a record outside every run; max_records raises TooManyRecords past that many record lines;
    stray_texts, a list, receives the text of every record line outside the runs.
    """

    def __init__(self, serial, keep=None, keep_texts=True, only_run=None, on_record=None, on_run=None,
                 fields=None, strict_text=False, trailer=False, max_records=None, stray_texts=None):
        self.serial, self.keep, self.keep_texts, self.fields = serial, keep, keep_texts, fields
        self.only_run, self.on_record, self.on_run = only_run, on_record, on_run
        self.strict_text, self.trailer, self.max_records = strict_text, trailer, max_records
        self.stray_texts = stray_texts
        self.runs, self.stray, self.cur = [], [], None
        self.types = set()   # record types seen in runs (bounded: MAX_TYPES_SEEN)
        self.lines = 0       # record lines read
        self.just_ended = None   # the run whose end record was the last record line

    def _close(self, run):
        run.check()
        self.runs.append(run)
        if self.on_run is not None:
            self.on_run(run)
            run.records, run.kept = [], False

    def line(self, n, line, overlong=False):
        cur = self.cur
        if self.serial:
            if not line.startswith(PREFIX):
                if PREFIX.strip() in line and cur is not None:
                    cur.problems.append(f"line {n}: damaged record line: {_short(line[:60])}")
                return
            js = line[len(PREFIX):].rstrip()
        else:
            if not line.startswith("{"):
                if line.strip() and cur is not None:
                    cur.problems.append(f"line {n}: not a record: {_short(line[:60])}")
                return
            js = line.rstrip()
        self.lines += 1
        if self.max_records is not None and self.lines > self.max_records:
            raise TooManyRecords(self.max_records, n)
        ended, self.just_ended = self.just_ended, None
        if overlong:
            obj, why = None, f"record line longer than {MAX_LINE_CHARS} characters"
        else:
            obj, why = load_record(js)
        if obj is not None and self.strict_text and "\\u" in js:
            bad = text_problem(obj)
            if bad is not None:
                obj, why = None, (f"{shown_key(obj['type'])[:MAX_TYPE_CHARS]} record: {bad}, which is not text "
                                  "(a lone surrogate or NUL)")
        if obj is None:
            if cur is not None:
                cur.problems.append(f"line {n}: {why}")
                cur.add_text(js)   # it still counts towards the CRC, which will fail
            else:
                self.stray.append(f"line {n}: {why}")
                if self.stray_texts is not None:
                    self.stray_texts.append(js)
            return
        rec = Record(obj)
        rec.line = n
        if self.trailer and ended is not None and cur is None and rec["type"] == "upload" and ended.trailer is None:
            ended.trailer = rec
            return
        if rec["type"] == "begin":
            if cur is not None:
                self._close(cur)
            cur = self.cur = Run(n, len(self.runs) + 1, self.keep_texts)
            if self.only_run == "last" and self.runs and self.runs[-1].kept and self.on_run is None:
                self.runs[-1].records, self.runs[-1].kept = [], False
            cur.kept = self.only_run in (None, "last") or self.only_run == cur.number
        elif cur is None:
            self.stray.append(f"line {n}: {_short(rec['type'][:40])} record before any begin record")
            if self.stray_texts is not None:
                self.stray_texts.append(js)
            return
        rec.run = cur.number
        if len(self.types) < MAX_TYPES_SEEN and len(rec["type"]) <= MAX_TYPE_CHARS:
            self.types.add(rec["type"])
        if cur.field_error is None:
            try:
                check_fields(rec)
            except FieldError as e:
                cur.field_error = str(e)
        if self.on_record is not None:
            self.on_record(cur, rec)
        if rec["type"] == "end":
            cur.end = rec
            self._close(cur)
            self.cur = None
            self.just_ended = cur
            return
        cur.tally.note(rec)
        if cur.kept and (self.keep is None or rec["type"] in self.keep):
            cur.records.append((n, rec if self.fields is None else slim(rec, self.fields.get(rec["type"]))))
        cur.add_text(js)

    def finish(self):
        if self.cur is not None:
            self._close(self.cur)
            self.cur = None
        return self.runs, self.stray


def parse(text):
    """Split a capture into runs.  Returns (runs, problems outside any run).

    A text holding any line that starts with the record prefix is a serial capture and
    only such lines are records; otherwise it is a saved .jsonl of bare JSON lines.
    Every record is kept, with its text (Capture reads a file with less).
    """
    serial = any(line.startswith(PREFIX) for _, line in clean_lines(text))
    sc = _Scanner(serial)
    for n, line in clean_lines(text):
        sc.line(n, line)
    return sc.finish()


def is_serial(path):
    """True when a line of the file starts with the record prefix (read until one does)."""
    return any(line.startswith(PREFIX) for _, line, _ in _file_lines(path))


class Capture:
    """A capture file read and split into runs, as a stream.

    By default every run keeps every record.  A command that needs less says so, and memory
    follows what it keeps, not the file: keep, the record types kept (the end record is
    always there); only_run, "last" or a run number (the others keep none); on_run, a
    function given each run as it closes, whose records are then let go (junit's suites).
    keep_texts: keep each record's JSON text too (for comparing two captures line for line).
    fields: {type: top-level fields} a kept record of that type is cut down to (other types
    whole); with fields given, kept records are compacted (shared keys and short strings).
    """

    def __init__(self, path, keep=None, only_run=None, on_run=None, keep_texts=True, on_record=None, fields=None):
        self.path = path
        self.serial = is_serial(path)
        sniff = []
        sc = _Scanner(self.serial, keep, keep_texts, only_run, on_record, on_run, fields)
        for n, line, over in _file_lines(path, sniff):
            sc.line(n, line, over)
        self.runs, self.stray = sc.finish()
        self.types = sc.types
        self.stat, head = sniff
        self.binary = "\x00" in head or (bool(head) and not self.runs and _mostly_binary(head))

    def check_found(self):
        if not self.runs:
            what = "the file looks binary, not a text capture" if self.binary else \
                "no begin record"
            raise CaptureError(f"{self.path}: no pmuboot run found ({what})")

    def pick(self, index=None):
        """Run `index` (1-based, as `parse` numbers them; default the last)."""
        self.check_found()
        if index is not None and not 1 <= index <= len(self.runs):
            raise CaptureError(f"{self.path}: the capture holds {len(self.runs)} run(s); there is no run {index}")
        run = self.runs[-1 if index is None else index - 1]
        if not run.kept:
            raise ValueError(f"run {run.number} was read without its records (Capture's only_run)")
        return run

    def records(self, runs, rtype=None):
        """The records of the given runs (optionally of one type), read again from the file as a
        stream, in capture order: (run number, Record).  The file must not have changed."""
        wanted = {r.number for r in runs}
        found = []
        sc = _Scanner(self.serial, keep=(), keep_texts=False,
                      on_record=lambda run, rec: found.append((run.number, rec))
                      if run.number in wanted and (rtype is None or rec["type"] == rtype) else None)
        sniff = []
        for n, line, over in _file_lines(self.path, sniff):
            sc.line(n, line, over)
            yield from found
            found.clear()
        sc.finish()
        yield from found
        st = sniff[0] if sniff else None
        if st is None or (st.st_size, st.st_mtime_ns) != (self.stat.st_size, self.stat.st_mtime_ns):
            raise InputError(f"{self.path}: changed while being read")

    def verify(self, runs, allow_incomplete):
        """Refuse damaged runs (and damage outside every run), and runs whose end record's status
        or errors contradict their records (verdict.py: INVALID), unless allowed.

        First every field the tools read is type-checked (FieldError, whatever
        allow_incomplete says: a figure that is not a number cannot be shown).
        Returns the warning lines to print when allowed; raises CaptureError (one line
        naming each damaged run and why) when not.
        """
        for r in runs:
            if r.field_error:
                raise FieldError(f"{self.path}: {r.field_error}")
        bad = [r.summary() for r in runs if r.problems or r.contradictions]
        if self.stray:
            more = len(self.stray) - MAX_PROBLEMS_SHOWN
            bad.append("outside any run: " + "; ".join(self.stray[:MAX_PROBLEMS_SHOWN])
                       + (f"; and {more} more" if more > 0 else ""))
        if not bad:
            return []
        # A run whose framing holds but whose end record claims what its records refute is INVALID.
        what = "truncated or damaged" if self.stray or any(r.problems for r in runs) else "invalid"
        if not allow_incomplete:
            raise CaptureError(f"{self.path}: {what}: " + " | ".join(bad)
                               + " (--allow-incomplete reads it anyway)")
        return [f"{self.path}: {what}: {b}" for b in bad]


def _mostly_binary(text):
    sample = text[:SNIFF_CHARS]
    odd = sum(1 for c in sample if c < " " and c not in "\r\n\t\x1b" or "\x7f" <= c <= "\x9f")
    return odd > len(sample) // 10


def load_run(path, index=None, allow_incomplete=False, keep=None, fields=None):
    """The run `index` (1-based; default the last) of a capture file, and the warnings about it.
    keep, fields: the record types and fields the caller reads (Capture); only that run's are kept."""
    cap = Capture(path, keep=keep, only_run=index if index is not None else "last", keep_texts=False,
                  fields=fields if fields is not None else ({} if keep is not None else None))
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


# The fields that name what a bench or check record measured (variant_key, processors).
KEY_FIELDS = ("kernel", "variant", "arena", "cpu")


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
              "penalty": DICT, ("penalty", "median"): NUM, "penalty_why": STR, "events": DICT,
              "cpu": DICT, ("cpu", "n"): INT, "memory": DICT, ("memory", "size"): INT},
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
        check_fields(rec)


def bench_table(run):
    """{[N:]kernel.variant@arena: bench record}, in the order measured (N: see per_cpu)."""
    table, multi = {}, per_cpu(run)
    for rec in run_records(run, "bench"):
        table.setdefault(variant_key(rec, multi), rec)
    return table
