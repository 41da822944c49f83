"""The vendor CSV format (events/vendor/KEY.csv): its one definition.

The importer writes it (write, from rows.Row objects) and tools/gen_events.py reads it (decode),
so the columns, the flag words, the name rule and how each field is spelled live here only;
docs/events.md describes the columns for people.  A file is '#' comment lines, the header
(COLUMNS) and one line per event, in the vendor's order:

  name            A-Z a-z 0-9 _ . (at most NAME_MAX), unique in the file ignoring case
  event, umask    hex (0x..): the event select (12 bits on AMD, 8 on Intel) and unit mask
  umask_ext       hex, empty = 0: Intel's extended unit mask
  cmask           decimal, empty = 0: the counter mask
  flags           space-separated words of FLAGS, in that order
  counters        the general counters allowed, empty = any: '0-3' a range, '0+2' a list, combined '0-1+4'
  counters_htoff  the same with SMT off, where it differs; empty = as counters
  fixed           the Intel fixed counter (0..FIXED_MAX), empty = none
  msr, msr_value  one or two extra MSRs, hex, '+'-joined, and the value for them (hex)
  alt             the second offcore form, hex event/umask ('0xb7/0x01')
  errata          free text: the vendor's errata notes
"""
import csv
import io
import re

COLUMNS = ["name", "event", "umask", "umask_ext", "cmask", "flags", "counters", "counters_htoff", "fixed",
           "msr", "msr_value", "alt", "errata"]
# The flag words, in the order a row writes them.
FLAGS = ("inv", "edge", "any", "precise", "pebs2", "fixed_only", "taken_alone", "pair", "deprecated")
NAME_RE = re.compile(r"^[A-Za-z0-9_.]+$")
NAME_MAX = 79           # struct event_spec.name is char[80]
MAX_COUNTERS = 16       # a counter list is a 16-bit mask
FIXED_MAX = 7
MSRS_MAX = 2


class FormatError(Exception):
    """A row the format cannot hold or a field it cannot read; the message names the place."""


def check_name(name, where):
    if not NAME_RE.match(name) or len(name) > NAME_MAX:
        raise FormatError(f"{where}: event name {name!r} must be 1..{NAME_MAX} of A-Z a-z 0-9 _ .")


# --- writing ---

def mask_text(mask):
    """0b1111 -> '0-3'; 0b1001 -> '0+3'; 0 -> '' (any)."""
    if not mask:
        return ""
    parts, c = [], 0
    while c < 64:
        if mask >> c & 1:
            e = c
            while mask >> (e + 1) & 1:
                e += 1
            parts.append(str(c) if e == c else f"{c}-{e}")
            c = e + 1
        else:
            c += 1
    return "+".join(parts)


def encode(r):
    """One row's fields, from an object with rows.Row's attributes."""
    return [r.name, f"{r.event:#04x}", f"{r.umask:#04x}", f"{r.umask_ext:#04x}" if r.umask_ext else "",
            str(r.cmask) if r.cmask else "", " ".join(f for f in FLAGS if getattr(r, f)), mask_text(r.counters),
            mask_text(r.counters_htoff) if r.counters_htoff is not None else "",
            str(r.fixed) if r.fixed >= 0 else "", "+".join(f"{m:#x}" for m in r.msr),
            f"{r.msr_value:#x}" if r.msr else "",
            f"{r.alt[0]:#04x}/{r.alt[1]:#04x}" if r.alt else "", r.errata]


def write(path_label, header_lines, rows):
    """The file's text: comment lines, the header, one line per row (input order)."""
    out = io.StringIO()
    for h in header_lines:
        out.write(f"# {h}\n" if h else "#\n")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    seen = set()
    for r in rows:
        if r.name.upper() in seen:
            raise FormatError(f"{path_label}: event {r.name} appears twice")
        seen.add(r.name.upper())
        check_name(r.name, path_label)
        w.writerow(encode(r))
    return out.getvalue()


# --- reading ---

def parse_int(text, what, where, limit):
    try:
        v = int(text, 0)
    except ValueError:
        raise FormatError(f"{where}: {what} '{text}' is not a number (0x.. or decimal)") from None
    if v < 0 or v > limit:
        raise FormatError(f"{where}: {what} {text} is out of range 0..{limit:#x}")
    return v


def parse_mask(text, where):
    """mask_text's inverse: '' = 0 (any counter), '0-3', '0+2', '0-1+4'."""
    if not text:
        return 0
    mask = 0
    for part in text.split("+"):
        lo, _, hi = part.partition("-")
        a = parse_int(lo, "counter", where, MAX_COUNTERS - 1)
        b = parse_int(hi, "counter", where, MAX_COUNTERS - 1) if hi else a
        if b < a:
            raise FormatError(f"{where}: counter range '{part}' runs backwards")
        for c in range(a, b + 1):
            mask |= 1 << c
    return mask


def parse_flags(text, where, allowed=FLAGS):
    flags = text.split()
    for fl in flags:
        if fl not in allowed:
            raise FormatError(f"{where}: unknown flag '{fl}' (expected {', '.join(allowed)})")
    return set(flags)


def decode(row, where, vendor):
    """One line (a dict by COLUMNS) of a set of `vendor` ('intel' or 'amd') as values: name, event,
    umask, umask_ext, cmask, flags (a set), counters and htoff (masks, 0 = any / as counters), fixed
    (-1 = none), msr (a pair, 0 = none), msr_value, alt ((event, umask) or None), errata."""
    check_name(row["name"], where)
    msrs = [parse_int(m, "msr", where, 0xFFFF) for m in row["msr"].split("+")] if row["msr"] else []
    if len(msrs) > MSRS_MAX:
        raise FormatError(f"{where}: more than two extra MSRs")
    alt = None
    if row["alt"]:
        a, _, b = row["alt"].partition("/")
        alt = (parse_int(a, "alt event", where, 0xFF), parse_int(b, "alt umask", where, 0xFF))
    return {
        "name": row["name"],
        "event": parse_int(row["event"], "event", where, 0xFFF if vendor == "amd" else 0xFF),
        "umask": parse_int(row["umask"], "umask", where, 0xFF),
        "umask_ext": parse_int(row["umask_ext"], "umask_ext", where, 0xFF) if row["umask_ext"] else 0,
        "cmask": parse_int(row["cmask"], "cmask", where, 0xFF) if row["cmask"] else 0,
        "flags": parse_flags(row["flags"], where),
        "counters": parse_mask(row["counters"], where),
        "htoff": parse_mask(row["counters_htoff"], where),
        "fixed": parse_int(row["fixed"], "fixed counter", where, FIXED_MAX) if row["fixed"] else -1,
        "msr": tuple(msrs + [0] * (MSRS_MAX - len(msrs))),
        "msr_value": parse_int(row["msr_value"], "msr_value", where, (1 << 64) - 1) if row["msr_value"] else 0,
        "alt": alt,
        "errata": row["errata"],
    }
