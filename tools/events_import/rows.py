"""One imported event and the vendor CSV files (events/vendor/KEY.csv) that hold them."""
import csv
import io
import re

COLUMNS = ["name", "event", "umask", "umask_ext", "cmask", "flags", "counters", "counters_htoff", "fixed",
           "msr", "msr_value", "alt", "errata"]
# Row flags, in the order they are written.
FLAG_ORDER = ("inv", "edge", "any", "precise", "pebs2", "fixed_only", "taken_alone", "pair", "deprecated")
NAME_RE = re.compile(r"^[A-Za-z0-9_.]+$")
NAME_MAX = 79


class ImportError_(Exception):
    """Input the importer cannot check; the message names the file and the event."""


class Row:
    def __init__(self, name):
        self.name = name
        self.event = self.umask = self.umask_ext = self.cmask = 0
        self.inv = self.edge = self.any = self.precise = self.pebs2 = False
        self.fixed_only = self.taken_alone = self.pair = self.deprecated = False
        self.counters = 0           # bit n = general counter n; 0 = any
        self.counters_htoff = None  # the list with SMT off, where it differs
        self.fixed = -1
        self.msr = []               # extra MSRs: [index] or [index form 1, index form 2]
        self.msr_value = 0
        self.alt = None             # (event, umask) of the second offcore form
        self.errata = ""

    def flags(self):
        return " ".join(f for f in FLAG_ORDER if getattr(self, f))

    def encoding(self):
        return (self.event, self.umask, self.cmask, self.inv, self.edge, self.any)


def mask_text(mask):
    """0b1111 -> '0-3'; 0b1001 -> '0+3'."""
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


def write_csv(path_label, header_lines, rows):
    """The vendor CSV text: comment lines, the header, one line per row (input order)."""
    out = io.StringIO()
    for h in header_lines:
        out.write(f"# {h}\n" if h else "#\n")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    seen = set()
    for r in rows:
        key = r.name.upper()
        if key in seen:
            raise ImportError_(f"{path_label}: event {r.name} appears twice")
        seen.add(key)
        if not NAME_RE.match(r.name) or len(r.name) > NAME_MAX:
            raise ImportError_(f"{path_label}: event name {r.name!r} is not 1..{NAME_MAX} of A-Z a-z 0-9 _ .")
        w.writerow([r.name, f"{r.event:#04x}", f"{r.umask:#04x}", f"{r.umask_ext:#04x}" if r.umask_ext else "",
                    str(r.cmask) if r.cmask else "", r.flags(), mask_text(r.counters),
                    mask_text(r.counters_htoff) if r.counters_htoff is not None else "",
                    str(r.fixed) if r.fixed >= 0 else "", "+".join(f"{m:#x}" for m in r.msr),
                    f"{r.msr_value:#x}" if r.msr else "",
                    f"{r.alt[0]:#04x}/{r.alt[1]:#04x}" if r.alt else "", r.errata])
    return out.getvalue()
