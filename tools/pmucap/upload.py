"""An upload to the collector, checked as `pmucap parse` checks a capture, and what is stored of it.

An upload is the records of one run: the saved results file as the image writes it (JSON lines,
`begin` to `end`), or a serial capture holding one run.  It is read by capture.parse, the
authoritative reader, so the rules are the ones every pmucap command applies: strict JSON, the
count and the CRC, and the verdict rule (verdict.py).  What comes out is an Upload: the run's
verdict and reasons, the facts the dashboard groups by (machine, CPU, BIOS), its figures, and the
key that makes a second upload of the same run a no-op.

A body that holds no run, or more than one, cannot be stored at all (Refused).  A run that is not
intact (INCOMPLETE, INVALID) is stored as evidence with its verdict and reasons, but none of its
figures: a fleet comparison never sees a number from a run whose records do not hold.

The collector reads strictly what anyone may send: a string holding a lone surrogate or NUL makes
its record a damaged one (the run INVALID, the reason naming the record and the key), more than
MAX_RUN_RECORDS record lines are refused (413), and the image's own `upload` trailer after `end`
is the run's trailer, not a record outside it.  A run without its `end` (a live upload, or a run
that never finished) is known by its live key: the same machine, build and `begin` record, and the
records already stored as the start of its own; its upload replaces that stored partial state.
"""
import hashlib
import json
import re

from . import capture
from .verdict import INCOMPLETE, INTACT

# The longest text kept of a field naming a machine or a CPU (SMBIOS strings are short).
MAX_NAME_CHARS = 200
# Record lines one upload may hold.  A full run on a large machine writes some thousands (a bench,
# a check and a metrics record per variant and processor, IBS samples when asked for); far more is
# no run of ours, and each record costs the collector memory and time while it is read.
MAX_RUN_RECORDS = 200_000
# The record types the collector keeps of a run while reading it (the facts it groups by); the rest
# are counted, checked and let go (a bench record's figures are taken as it goes by: BenchFigures).
KEPT_TYPES = ("begin", "platform", "cpu")
# Bytes of a stored run's records sent at a time (records_json).
SEND_CHUNK = 1 << 20
NON_ASCII_RE = re.compile("[^\x00-\x7f]")


class Refused(Exception):
    """An upload that is no run at all: status is the HTTP status, str() the reason."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def _name(v):
    """A string field for the database, or None when it is not a non-empty string."""
    if not isinstance(v, str) or not v.strip():
        return None
    v = " ".join(v.split())
    return v if len(v) <= MAX_NAME_CHARS else v[:MAX_NAME_CHARS]


def _number(v, default):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else default


def _field(rec, *path):
    v = rec
    for k in path:
        if not isinstance(v, dict):
            return None
        v = v.get(k)
    return v


class Upload:
    """One run's upload, checked.  Attributes are what the store keeps (store.RUN_COLUMNS)."""

    def __init__(self, body_text, run, stray, stray_texts=(), live=False, bench=None):
        # Kept as received but for NUL bytes (serial noise the reader drops anyway, and which a
        # PostgreSQL text cannot hold): read again, it gives the same run.
        self.body = body_text.replace("\x00", "")
        self.received_bytes = len(body_text)
        self.run = run
        self.live = live
        self.verdict, self.reasons = run.verdict(stray)
        self.records = run.count + (1 if run.end is not None else 0)
        self.crc32 = f"{run.crc:08x}"
        self._identify(run)
        self.digest = self._digest(run, stray_texts)
        self.texts_digest = self.prefix_digest(run.count)
        # The same run uploaded twice is stored once: an intact run is known by its build, CRC and
        # count (the image's own identity for its records), anything else by its exact contents
        # (the records outside the run included: a different damaged upload is other evidence).
        self.run_key = (f"{self.build or '-'}/{self.crc32}/{run.count}" if self.stored_ok
                        else f"sha256:{self.digest}")
        self.live_key = self._live_key(run)
        self.figures = (bench.figures() if bench is not None else self._figures(run)) if self.stored_ok else []

    @property
    def partial_only(self):
        """True when the run lacks only its end: a live upload's state, or a run cut short, and nothing
        else wrong with it (what a live upload is answered 2xx for)."""
        return self.verdict == INCOMPLETE and self.run.end is None and len(self.reasons) == 1

    def prefix_digest(self, count):
        """The digest of the run's first count record lines (how a later upload of the same run is
        known to continue a stored partial one): over each line's own digest (TextDigests)."""
        return self.run.texts.prefix(count)

    def _live_key(self, run):
        begin = run.texts.first or ""
        h = hashlib.sha256("\n".join((self.machine, self.build or "-", begin)).encode("latin-1", "replace"))
        return h.hexdigest()

    @property
    def stored_ok(self):
        """True when the run is intact (PASS or FAIL); False when it is kept only as evidence."""
        return self.verdict in INTACT

    @staticmethod
    def _digest(run, stray_texts):
        h = run.texts.running.copy()
        if run.end is not None:
            h.update(json.dumps(dict(run.end), sort_keys=True).encode("latin-1", "replace"))
        if stray_texts:
            h.update(b"\0outside the run\n")
            for t in stray_texts:
                h.update(t.encode("latin-1", "replace") + b"\n")
        return h.hexdigest()

    def _identify(self, run):
        begin = capture.first_record(run, "begin") or {}
        plat = capture.first_record(run, "platform") or {}
        cpu = capture.first_record(run, "cpu") or {}
        end = run.end or {}
        self.program, self.version, self.build = (_name(begin.get(k)) for k in ("program", "version", "build"))
        smbios = plat.get("smbios") if isinstance(plat.get("smbios"), dict) else {}
        self.sys_vendor = _name(smbios.get("system_manufacturer"))
        self.sys_product = _name(smbios.get("system_product"))
        self.sys_serial = _name(smbios.get("system_serial"))
        self.sys_uuid = _name(smbios.get("system_uuid"))
        self.bios_vendor = _name(smbios.get("bios_vendor"))
        self.bios_version = _name(smbios.get("bios_version"))
        self.bios_date = _name(smbios.get("bios_date"))
        self.cpu_vendor = _name(cpu.get("vendor_string"))
        self.cpu_brand = _name(cpu.get("brand"))
        self.cpu_signature = _name(cpu.get("signature"))
        mc = cpu.get("microcode")
        self.microcode = _name(mc) if isinstance(mc, str) else (str(mc) if isinstance(mc, int) else None)
        self.machine = machine_key(self.sys_vendor, self.sys_product, self.sys_serial, self.sys_uuid)
        self.cpu = cpu_key(self.cpu_brand, self.cpu_vendor, self.cpu_signature)
        status, errors = end.get("status"), end.get("errors")
        self.end_status = _name(status)
        self.end_errors = errors if isinstance(errors, int) and not isinstance(errors, bool) else None

    @staticmethod
    def _figures(run):
        """(variant, metric, median, low, high, unstable) of every bench figure: cycles, the penalty
        against the control (low/high as the record gives them), and each event counted."""
        out = []
        for key, rec in capture.bench_table(run).items():
            unstable = capture.get(rec, "unstable", capture.STR)
            for metric, fig in capture.figures(rec).items():
                out.append((key, metric, fig["median"], fig["min"], fig["max"],
                            unstable if metric == "cycles" else None))
            pen = capture.get(rec, ("penalty", "median"), capture.NUM)
            if pen is not None:
                low, high = (_number(_field(rec, "penalty", k), pen) for k in ("low", "high"))
                out.append((key, "penalty", float(pen), float(low), float(high), unstable))
        return out


class TextDigests:
    """What the collector keeps of a run's record texts (capture.Run.texts) instead of the texts: the
    digest of them all (sha256 over each text and a newline, as stored runs' digests have always
    been), each text's own digest (for the digest of its first N: prefix), and the first text (the
    begin record, for the live key)."""

    def __init__(self):
        self.running = hashlib.sha256()
        self.each = []
        self.first = None

    def append(self, js):
        b = js.encode("latin-1", "replace") + b"\n"
        self.running.update(b)
        self.each.append(hashlib.sha256(b).digest())
        if self.first is None:
            self.first = js

    def prefix(self, count):
        return hashlib.sha256(b"".join(self.each[:count])).hexdigest()


class BenchFigures:
    """The figures of a run's bench records, taken as each goes by (_Scanner's on_record), so that the
    records need not be kept: what Upload._figures takes from capture.bench_table, in a few tuples."""

    def __init__(self):
        self.rows = []      # (key, key with its processor, processor, [(metric, median, low, high, unstable)])
        self.cpus = []      # the processors seen, in order (capture.processors)

    def __call__(self, run, rec):
        if rec.get("type") != "bench":
            return
        try:
            n = capture.get(rec, ("cpu", "n"), capture.INT)
            keys = capture.variant_key(rec), capture.variant_key(rec, True)
            unstable = capture.get(rec, "unstable", capture.STR)
            figs = [(metric, fig["median"], fig["min"], fig["max"], unstable if metric == "cycles" else None)
                    for metric, fig in capture.figures(rec).items()]
            pen = capture.get(rec, ("penalty", "median"), capture.NUM)
        except capture.FieldError:
            return   # the run is INVALID (its field_error): no figure of it is stored
        if pen is not None:
            low, high = (_number(_field(rec, "penalty", k), pen) for k in ("low", "high"))
            figs.append(("penalty", float(pen), float(low), float(high), unstable))
        if n is not None and n not in self.cpus:
            self.cpus.append(n)
        self.rows.append((keys[0], keys[1], figs))

    def figures(self):
        multi = len(self.cpus) > 1
        seen, out = set(), []
        for key, per_cpu_key, figs in self.rows:
            k = per_cpu_key if multi else key
            if k in seen:
                continue
            seen.add(k)
            out += [(k, *f) for f in figs]
        return out


def machine_key(vendor, product, serial, uuid):
    """How the collector tells machines apart: SMBIOS vendor and product, and the serial number
    (else the system UUID).  Machines that give neither are one machine per product."""
    ident = serial or (f"uuid {uuid}" if uuid else "no serial")
    return f"{vendor or '?'} / {product or '?'} / {ident}"


def cpu_key(brand, vendor, signature):
    """The CPU model a run is grouped by (the SKU page): its brand string, else vendor and signature."""
    return brand or f"{vendor or 'unknown vendor'} {signature or '?'}"


def is_serial(text):
    """capture.parse's rule: a serial capture when any line starts with the prefix (a text without the
    prefix anywhere is none, found without cutting it into lines)."""
    return capture.PREFIX in text and any(line.startswith(capture.PREFIX) for _, line in capture.text_lines(text))


def record_lines_at_least(text):
    """How many record lines a text holds at least, counted without reading it (so that a body far
    over MAX_RUN_RECORDS is refused at once): the lines that start with the prefix (a serial capture),
    else those that start with "{" (capture.parse's rule; a line after an escape sequence is not seen)."""
    prefix = text.startswith(capture.PREFIX) + text.count("\n" + capture.PREFIX) + text.count("\r" + capture.PREFIX)
    return prefix if prefix else text.startswith("{") + text.count("\n{") + text.count("\r{")


def read(text, keep=KEPT_TYPES, fields=None, on_record=None):
    """(runs, stray problems, stray texts) of an upload's text, read as the collector reads it (strict
    text, the trailer, MAX_RUN_RECORDS: TooManyRecords past it); keep: the record types kept (None:
    all), fields: of them the fields kept (_Scanner); on_record: sees every record."""
    serial = is_serial(text)
    stray_texts = []
    sc = capture._Scanner(serial, keep=keep, fields=fields, on_record=on_record, keep_texts=TextDigests,
                          strict_text=True, trailer=True,
                          max_records=MAX_RUN_RECORDS, stray_texts=stray_texts)
    for n, line in capture.text_lines(text):
        sc.line(n, line)
    runs, stray = sc.finish()
    return runs, stray, stray_texts


def records_json(body, intact):
    """The records of a stored run's body (its run's, end included; not the trailer, not what lies
    outside the run, not a damaged record) as the pieces of a JSON array, read as a stream: a read
    costs about the body.  intact: the run is PASS or FAIL, so every record line of it is whole and
    needs no reading; else each is read (capture.load_record and the strict-text rule) and a damaged
    one left out.  Non-ASCII characters are escaped (strict, ASCII JSON as the API's other answers)."""
    serial = is_serial(body)
    state, parts, size, first = "before", ["["], 1, True
    for _, line in capture.text_lines(body):
        if serial:
            if not line.startswith(capture.PREFIX):
                continue
            js = line[len(capture.PREFIX):].rstrip()
        else:
            if not line.startswith("{"):
                continue
            js = line.rstrip()
        if state == "after":
            break
        if not intact or state == "before":
            obj, _ = capture.load_record(js)
            if obj is None or capture.text_problem(obj) is not None:
                continue
            if state == "before":
                if obj["type"] != "begin":
                    continue
                state = "in"
            if obj["type"] == "end":
                state = "after"
        elif js.startswith('{"type":"end"'):
            obj, _ = capture.load_record(js)
            state = "after" if obj is not None and obj["type"] == "end" else state
        parts.append(js if first else "," + js)
        first = False
        size += len(js) + 1
        if size >= SEND_CHUNK:
            yield _ascii("".join(parts))
            parts, size = [], 0
    parts.append("]")
    yield _ascii("".join(parts))


def _ascii(text):
    return text if text.isascii() else NON_ASCII_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def check(body, live=False):
    """The Upload for a request body (bytes, or its text read as Latin-1), or Refused when it holds no
    single run.  live: the image's live upload of a run not yet finished (X-Pmuboot-Upload: live)."""
    if not body.strip():
        raise Refused(400, "empty upload: POST the records of one run (its saved results file)")
    text = body.decode("latin-1") if isinstance(body, bytes) else body
    del body
    at_least = record_lines_at_least(text)
    if at_least > MAX_RUN_RECORDS:
        raise Refused(413, f"the upload holds at least {at_least} record lines: the collector takes at most "
                      f"{MAX_RUN_RECORDS} records per run (upload.MAX_RUN_RECORDS)")
    bench = BenchFigures()
    try:
        runs, stray, stray_texts = read(text, on_record=bench)
    except capture.TooManyRecords as e:
        raise Refused(413, f"the upload holds {e}: the collector takes at most {e.limit} records per run "
                      "(upload.MAX_RUN_RECORDS)") from None
    if not runs:
        why = "the body looks binary" if "\x00" in text[:4096] else "no begin record"
        raise Refused(400, f"no pmuboot run in the upload ({why}): POST the records of one run, begin to end")
    if len(runs) > 1:
        raise Refused(400, f"{len(runs)} runs in one upload (begin records at lines "
                      + ", ".join(str(r.start_line) for r in runs[:5]) + "): POST each run on its own")
    return Upload(text, runs[0], stray, stray_texts, live, bench)
