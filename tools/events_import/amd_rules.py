"""AMD counter restrictions by family, read from events/amd_rules.csv (the file's header says what
the columns mean and where each rule comes from).  The same file is compiled into the C table the
scheduler applies at run time (tools/gen_events.py), so import and run time cannot disagree.

Rules(path).counters(family, event, umask) -> (mask, pair):
  mask  allowed PERF_CTL indices (0 = any, NONE = no core counter)
  pair  True for a large-increment event that needs the merged odd counter beside it
"""
import csv
import os

from .rows import ImportError_

NONE = -1       # the family counts this event on no core counter
COLUMNS = ["family", "last_family", "event", "mask", "umask", "counters", "pair", "source"]
UMASK_TESTS = {
    "any": lambda u: True,
    "one_bit": lambda u: bin(u).count("1") <= 1,
    "many_bits": lambda u: bin(u).count("1") > 1,
    "both_nibbles": lambda u: bool(u & 0xF0) and bool(u & 0x0F),
}
MAX_COUNTERS = 16


def parse_mask(text, where):
    """'0-2' / '3' / '0+3' / 'any' / 'none' -> PERF_CTL bit mask (0 any, NONE none)."""
    if text == "any":
        return 0
    if text == "none":
        return NONE
    mask = 0
    for part in text.split("+"):
        lo, _, hi = part.partition("-")
        try:
            a, b = int(lo), int(hi or lo)
        except ValueError:
            raise ImportError_(f"{where}: counters '{text}' is not a list such as 0-2, 0+3, any or none")
        if not 0 <= a <= b < MAX_COUNTERS:
            raise ImportError_(f"{where}: counters '{text}' out of range 0..{MAX_COUNTERS - 1}")
        for c in range(a, b + 1):
            mask |= 1 << c
    return mask


def num(text, what, where, limit):
    try:
        v = int(text, 0)
    except ValueError:
        raise ImportError_(f"{where}: {what} '{text}' is not a number")
    if not 0 <= v <= limit:
        raise ImportError_(f"{where}: {what} {text} out of range 0..{limit:#x}")
    return v


def read(path):
    """The rules as dicts, in file order; refuses anything malformed, naming the line."""
    if not os.path.exists(path):
        raise ImportError_(f"{path}: missing")
    with open(path, newline="", encoding="utf-8") as f:
        lines = [(i + 1, l) for i, l in enumerate(f.read().splitlines())]
    data = [(n, l) for n, l in lines if l.strip() and not l.lstrip().startswith("#")]
    rules, header = [], None
    for (n, _), fields in zip(data, csv.reader([l for _, l in data])):
        fields = [x.strip() for x in fields]
        where = f"{path}:{n}"
        if header is None:
            if fields != COLUMNS:
                raise ImportError_(f"{where}: header must be {','.join(COLUMNS)}")
            header = fields
            continue
        if len(fields) != len(COLUMNS):
            raise ImportError_(f"{where}: {len(fields)} fields, expected {len(COLUMNS)}")
        r = dict(zip(COLUMNS, fields))
        fam = num(r["family"], "family", where, 0xFF)
        last = num(r["last_family"], "last_family", where, 0xFF) if r["last_family"] else fam
        if last < fam:
            raise ImportError_(f"{where}: last_family {r['last_family']} is below family {r['family']}")
        if r["umask"] not in UMASK_TESTS:
            raise ImportError_(f"{where}: umask '{r['umask']}' must be one of {', '.join(UMASK_TESTS)}")
        if r["pair"] not in ("", "1"):
            raise ImportError_(f"{where}: pair '{r['pair']}' must be empty or 1")
        if not r["source"]:
            raise ImportError_(f"{where}: every rule needs its source")
        event, mask = num(r["event"], "event", where, 0xFFF), num(r["mask"], "mask", where, 0xFFF)
        if event & ~mask:
            raise ImportError_(f"{where}: event {r['event']} has bits outside mask {r['mask']}")
        rules.append({"family": fam, "last_family": last, "event": event, "mask": mask, "umask": r["umask"],
                      "counters": parse_mask(r["counters"], where), "pair": r["pair"] == "1",
                      "source": r["source"], "where": where})
    if header is None:
        raise ImportError_(f"{path}: no header line")
    return rules


class Rules:
    def __init__(self, path):
        self.rules = read(path)

    def counters(self, family, event, umask):
        for r in self.rules:
            if r["family"] <= family <= r["last_family"] and (event & r["mask"]) == r["event"] \
                    and UMASK_TESTS[r["umask"]](umask):
                return r["counters"], r["pair"]
        return 0, False
