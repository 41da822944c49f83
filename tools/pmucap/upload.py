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
"""
import hashlib
import json

from . import capture
from .verdict import INTACT

# The longest text kept of a field naming a machine or a CPU (SMBIOS strings are short).
MAX_NAME_CHARS = 200


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

    def __init__(self, body_text, run, stray):
        # Kept as received but for NUL bytes (serial noise the reader drops anyway, and which a
        # PostgreSQL text cannot hold): read again, it gives the same run.
        self.body = body_text.replace("\x00", "")
        self.received_bytes = len(body_text)
        self.run = run
        self.verdict, self.reasons = run.verdict(stray)
        self.records = run.count + (1 if run.end is not None else 0)
        self.crc32 = f"{run.crc:08x}"
        self._identify(run)
        self.digest = self._digest(run)
        # The same run uploaded twice is stored once: an intact run is known by its build, CRC and
        # count (the image's own identity for its records), anything else by its exact contents.
        self.run_key = (f"{self.build or '-'}/{self.crc32}/{run.count}" if self.stored_ok
                        else f"sha256:{self.digest}")
        self.figures = self._figures(run) if self.stored_ok else []

    @property
    def stored_ok(self):
        """True when the run is intact (PASS or FAIL); False when it is kept only as evidence."""
        return self.verdict in INTACT

    @staticmethod
    def _digest(run):
        h = hashlib.sha256()
        for t in run.texts:
            h.update(t.encode("latin-1", "replace") + b"\n")
        if run.end is not None:
            h.update(json.dumps(dict(run.end), sort_keys=True).encode("latin-1", "replace"))
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


def machine_key(vendor, product, serial, uuid):
    """How the collector tells machines apart: SMBIOS vendor and product, and the serial number
    (else the system UUID).  Machines that give neither are one machine per product."""
    ident = serial or (f"uuid {uuid}" if uuid else "no serial")
    return f"{vendor or '?'} / {product or '?'} / {ident}"


def cpu_key(brand, vendor, signature):
    """The CPU model a run is grouped by (the SKU page): its brand string, else vendor and signature."""
    return brand or f"{vendor or 'unknown vendor'} {signature or '?'}"


def check(body):
    """The Upload for a request body (bytes), or Refused when it holds no single run."""
    if not body.strip():
        raise Refused(400, "empty upload: POST the records of one run (its saved results file)")
    text = body.decode("latin-1")
    runs, stray = capture.parse(text)
    if not runs:
        why = "the body looks binary" if "\x00" in text[:4096] else "no begin record"
        raise Refused(400, f"no pmuboot run in the upload ({why}): POST the records of one run, begin to end")
    if len(runs) > 1:
        raise Refused(400, f"{len(runs)} runs in one upload (begin records at lines "
                      + ", ".join(str(r.start_line) for r in runs[:5]) + "): POST each run on its own")
    return Upload(text, runs[0], stray)
