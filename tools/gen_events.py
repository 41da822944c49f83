#!/usr/bin/env python3
"""tools/gen_events.py - compile the event vocabulary (events/) into C tables.

    tools/gen_events.py --out build/gen/events_table.c [--dir events]
    tools/gen_events.py --roles-header build/gen/event_roles.h [--dir events]

events/sets.csv names every event set (microarchitecture key), the vendor data it is imported
from and the role fragments it builds on.  events/vendor/KEY.csv holds a set's events as
tools/events_import wrote them from the vendors' data (committed, so the build needs no
../shared); events/KEY.csv and events/_FRAGMENT.csv hold the hand-written role rows (which
events the benchmarks use, with our own one-line descriptions), each of which must name a
vendor event with the identical encoding.  Sets without vendor data (the intel_arch and
amd_legacy fallbacks) are their role files.  events/roles.csv is the one list of the benchmark
roles: the role rows are checked against it, and --roles-header turns it into enum event_role
for C.  events/ibs_derived.csv holds the AMD IBS derived events; events/amd_rules.csv the AMD
family counter rules, compiled into a table the scheduler applies at run time.  From each set's
rows the generator also derives the set's counter rules by event code and by code and unit mask
(code_rules below), which the scheduler applies to raw specs the catalogue has no row for.  The
output is packed (tools/events_pack.py, events/events_table.h): fixed-size rows stored once,
token-coded names, each set's lists a difference from a related set's; and all of it stored as one
compressed blob (tools/lzpack.py) that events/events.c inflates at first use.  Everything is checked
here, at build time: a bad row stops the build with the file, line and what is wrong.  The
output depends only on the input files, byte for byte.
"""
import argparse
import csv
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from events_import import vendor_csv  # noqa: E402
import events_pack  # noqa: E402
import lzpack  # noqa: E402


EVENT_COLUMNS = ["name", "event", "umask", "cmask", "flags", "counters", "fixed", "roles", "source",
                 "description"]
SET_COLUMNS = ["key", "vendor", "bases", "doc", "name", "perf", "vendor_name", "data"]
IBS_COLUMNS = ["code", "name", "abbrev", "description"]
UOP_COLUMNS = ["sets", "what", "port", "name"]
# events/uops.csv's kinds, in the order of enum event_uop_kind (events/events.h).
UOP_KINDS = ("retired", "issued", "dispatched", "port")
UOP_PORT_RE = re.compile(r"^[a-z0-9_]{1,15}$")    # EV_UOP_PORT_MAX - 1 characters at most

ROLE_COLUMNS = ["bit", "word", "description"]
ROLE_WORD_RE = re.compile(r"^[a-z][a-z0-9_]*$")
ROLE_BITS = 32         # enum event_role is a 32-bit mask (struct event_def.roles)
# Flags, in their bit order: the encoding flags are a side row's (ev_side.enc, EVS_*), the others a
# row's (ev_row.flags, EVF_*; events/events_table.h).  Role rows of a set with vendor data may use
# only the encoding flags.
ENCODING_FLAGS = ("inv", "edge", "any")
ROW_FLAGS = ("precise", "fixed_only", "pebs2", "taken_alone", "pair", "deprecated")
FLAGS = ENCODING_FLAGS + ROW_FLAGS
HAND_FLAGS = ("inv", "edge", "any", "precise", "fixed_only")
KEY_RE = re.compile(r"^[a-z0-9_]+$")
NAME_MAX = vendor_csv.NAME_MAX
DESC_MAX = 100         # keep the image small: descriptions are one short line
MAX_GP_COUNTERS = 16   # ev_limits.counters is a 16-bit mask
NO_COUNTER = -1        # a counter rule that leaves no counter (intersection of disjoint lists)
# ev_code_rule.flags and ev_amd_rule.flags (events/events_table.h)
RULE_CODE_ONLY, RULE_NONE, RULE_TAKEN_ALONE, RULE_PAIR = 0x01, 0x02, 0x04, 0x08
AMD_UMASK_TESTS = {"any": "EV_UMASK_ANY", "one_bit": "EV_UMASK_ONE_BIT", "many_bits": "EV_UMASK_MANY_BITS",
                   "both_nibbles": "EV_UMASK_BOTH_NIBBLES"}


class DataError(Exception):
    pass


def read_csv(path, columns):
    """Rows of a CSV file as (line number, dict); '#' lines are comments, the first other line
    must be the header."""
    if not os.path.exists(path):
        raise DataError(f"{path}: missing")
    rows, header = [], None
    with open(path, newline="", encoding="utf-8") as f:
        lines = [(i + 1, l) for i, l in enumerate(f.read().splitlines())]
    data = [(n, l) for n, l in lines if l.strip() and not l.lstrip().startswith("#")]
    for (n, line), fields in zip(data, csv.reader([l for _, l in data])):
        fields = [x.strip() for x in fields]
        if header is None:
            if fields != columns:
                raise DataError(f"{path}:{n}: header must be {','.join(columns)}")
            header = fields
            continue
        if len(fields) != len(columns):
            raise DataError(f"{path}:{n}: {len(fields)} fields, expected {len(columns)} ({','.join(columns)})")
        rows.append((n, dict(zip(columns, fields))))
    if header is None:
        raise DataError(f"{path}: no header line")
    return rows


def parse_int(text, what, where, limit):
    try:
        v = int(text, 0)
    except ValueError:
        raise DataError(f"{where}: {what} '{text}' is not a number (0x.. or decimal)")
    if v < 0 or v > limit:
        raise DataError(f"{where}: {what} {text} is out of range 0..{limit:#x}")
    return v


def parse_counters(text, where):
    """'' = any counter; '0-3' a range; '0+2' a list; ranges and lists combine ('0-1+4'): the vendor
    format's spelling (tools/events_import/vendor_csv.py), which role rows share."""
    try:
        return vendor_csv.parse_mask(text, where)
    except vendor_csv.FormatError as e:
        raise DataError(str(e)) from None


def check_name(name, where):
    """The vendor format's name rule: a role row names a vendor event."""
    try:
        vendor_csv.check_name(name, where)
    except vendor_csv.FormatError as e:
        raise DataError(str(e)) from None


def parse_flags(text, where, allowed):
    flags = text.split()
    for fl in flags:
        if fl not in allowed:
            raise DataError(f"{where}: unknown flag '{fl}' (expected {', '.join(allowed)})")
    return set(flags)


def blank_event(name):
    return {"name": name, "event": 0, "umask": 0, "umask_ext": 0, "cmask": 0, "flags": set(), "counters": 0,
            "htoff": 0, "fixed": -1, "msr": (0, 0), "msr_value": 0, "alt": None, "errata": "", "roles": [],
            "source": "", "description": ""}


def parse_event(row, where, vendor, doc, with_data, role_words):
    """A hand-written row.  In a set with vendor data it is a role row: name, encoding, roles,
    description; the vendor row supplies the rest."""
    name = row["name"]
    check_name(name, where)
    ev = blank_event(name)
    ev["event"] = parse_int(row["event"], "event", where, 0xFFF if vendor == "amd" else 0xFF)
    ev["umask"] = parse_int(row["umask"], "umask", where, 0xFF)
    ev["cmask"] = parse_int(row["cmask"], "cmask", where, 0xFF) if row["cmask"] else 0
    ev["flags"] = parse_flags(row["flags"], where, ENCODING_FLAGS if with_data else HAND_FLAGS)
    if "any" in ev["flags"] and vendor != "intel":
        raise DataError(f"{where}: 'any' (AnyThread) exists only on Intel")
    if with_data and (row["counters"] or row["fixed"]):
        raise DataError(f"{where}: counters and fixed come from the vendor data in this set; leave them empty")
    ev["counters"] = parse_counters(row["counters"], where)
    ev["fixed"] = parse_int(row["fixed"], "fixed counter", where, 7) if row["fixed"] else -1
    if "fixed_only" in ev["flags"] and (ev["fixed"] < 0 or ev["counters"]):
        raise DataError(f"{where}: fixed_only needs a fixed counter and no general counters")
    if ev["fixed"] >= 0 and vendor != "intel":
        raise DataError(f"{where}: fixed counters are an Intel feature")
    roles = row["roles"].split()
    for r in roles:
        if r not in role_words:
            raise DataError(f"{where}: unknown role '{r}' (expected one of {', '.join(role_words)}; events/roles.csv)")
    ev["roles"] = sorted(set(roles), key=role_words.index)
    src = row["source"]
    if not src:
        raise DataError(f"{where}: every event needs its public source")
    if "@doc" in src:
        if not doc:
            raise DataError(f"{where}: source uses @doc but the set has no doc in events/sets.csv")
        src = src.replace("@doc", doc)
    ev["source"] = src
    desc = row["description"]
    if not desc or len(desc) > DESC_MAX:
        raise DataError(f"{where}: description must be 1..{DESC_MAX} characters (has {len(desc)})")
    ev["description"] = desc
    return ev


def parse_vendor_row(row, where, vendor, doc):
    """A vendor row, read as tools/events_import/vendor_csv.py (the format's one definition) says."""
    try:
        ev = dict(blank_event(row["name"]), **vendor_csv.decode(row, where, vendor))
    except vendor_csv.FormatError as e:
        raise DataError(str(e)) from None
    ev["source"] = doc
    return ev


def read_roles(path):
    """events/roles.csv: [{bit, word, enum, description}] in bit order, checked."""
    roles = []
    for n, r in read_csv(path, ROLE_COLUMNS):
        where = f"{path}:{n}"
        bit = parse_int(r["bit"], "bit", where, ROLE_BITS - 1)
        if bit != len(roles):
            raise DataError(f"{where}: bit {bit} out of order (expected {len(roles)}: bits run 0, 1, 2, ...)")
        if not ROLE_WORD_RE.match(r["word"]):
            raise DataError(f"{where}: role word '{r['word']}' must be lower-case letters, digits and _")
        if any(x["word"] == r["word"] for x in roles):
            raise DataError(f"{where}: role '{r['word']}' listed twice")
        if not r["description"]:
            raise DataError(f"{where}: the role needs a description")
        c_str(r["description"])
        if "*/" in r["description"]:
            raise DataError(f"{where}: a description may not hold */ (it becomes a C comment)")
        roles.append({"bit": bit, "word": r["word"], "enum": "EV_ROLE_" + r["word"].upper(),
                      "description": r["description"]})
    if not roles:
        raise DataError(f"{path}: no roles")
    return roles


def emit_roles_header(roles):
    """enum event_role and the words, for events/events.h."""
    o = ["/* Generated by tools/gen_events.py from events/roles.csv - do not edit. */",
         "#ifndef PMUBOOT_GEN_EVENT_ROLES_H", "#define PMUBOOT_GEN_EVENT_ROLES_H", "",
         "/* What an event means to the benchmarks; an event may have several roles. */",
         "enum event_role {"]
    for r in roles:
        o.append(f"\t{r['enum']} = 1u << {r['bit']},\t/* {r['description']} */")
    o += ["};", "", f"#define EV_ROLE_COUNT {len(roles)}",
          "/* The roles' words in bit order, NUL-separated (events_role_name, events_role_parse). */",
          "#define EV_ROLE_WORDS \\"]
    o += [f"\t{c_str(r['word'])[:-1]}\\0\" \\" for r in roles]
    o += ["\t\"\"", "", "#endif"]
    return "\n".join(o) + "\n"


class Vocabulary:
    def __init__(self, root):
        self.root = root
        self.sets = []          # [(key, vendor, name, [events], meta)] in sets.csv order
        self.ibs = []
        self.used = set()

    def path(self, stem):
        return os.path.join(self.root, stem + ".csv")

    def load(self):
        self.roles = read_roles(self.path("roles"))
        rows = read_csv(self.path("sets"), SET_COLUMNS)
        self.setrows = {}
        order = []
        for n, r in rows:
            where = f"{self.path('sets')}:{n}"
            if not KEY_RE.match(r["key"]):
                raise DataError(f"{where}: key '{r['key']}' must be lower-case letters, digits and _")
            if r["key"] in self.setrows:
                raise DataError(f"{where}: key '{r['key']}' listed twice")
            if r["vendor"] not in ("intel", "amd"):
                raise DataError(f"{where}: vendor '{r['vendor']}' must be intel or amd")
            if not r["name"]:
                raise DataError(f"{where}: the set needs a name")
            self.setrows[r["key"]] = (where, r)
            order.append(r["key"])
        if "ibs" in self.setrows:
            raise DataError(f"{self.path('sets')}: 'ibs' is reserved for the IBS derived events")
        for key in order:
            where, r = self.setrows[key]
            hand = self.resolve(key, r["vendor"], r["doc"], [], bool(r["data"]))
            events = self.merge(key, r, hand) if r["data"] else hand
            self.sets.append((key, r["vendor"], r["name"], events,
                              {"perf": r["perf"], "vendor_name": r["vendor_name"], "doc": r["doc"],
                               "family": self.amd_family(where, r)}))
        self.load_ibs()
        self.load_amd_rules()
        self.load_uops()
        self.check_unused()

    @staticmethod
    def amd_family(where, r):
        """An AMD set's family=0xNN (the data column): whose counter rules apply to it."""
        fam = [p[len("family="):] for p in r["data"].split() if p.startswith("family=")]
        if r["vendor"] != "amd" or not fam:
            return 0
        return parse_int(fam[0], "family", where, 0xFF)

    def merge(self, key, r, hand):
        """The vendor rows, in the vendor's order, with the role rows' roles and descriptions;
        every role row must name a vendor event with the identical encoding."""
        vpath = os.path.join(self.root, "vendor", key + ".csv")
        if not os.path.exists(vpath):
            raise DataError(f"{vpath}: missing; run `python3 -m tools.events_import` (needs ../shared/vendor-events)")
        events, by_name = [], {}
        for n, row in read_csv(vpath, vendor_csv.COLUMNS):
            where = f"{vpath}:{n}"
            ev = parse_vendor_row(row, where, r["vendor"], r["doc"])
            if ev["name"].upper() in by_name:
                raise DataError(f"{where}: '{ev['name']}' appears twice")
            by_name[ev["name"].upper()] = ev
            events.append(ev)
        self.role_order = getattr(self, "role_order", {})
        order = []
        for h in hand:
            v = by_name.get(h["name"].upper())
            where = h["where"]
            if v is None:
                raise DataError(f"{where}: role row {h['name']} is not an event of {vpath} (the vendor data)")
            mine = (h["event"], h["umask"], h["cmask"], sorted(h["flags"] & set(ENCODING_FLAGS)))
            theirs = (v["event"], v["umask"], v["cmask"], sorted(v["flags"] & set(ENCODING_FLAGS)))
            if mine != theirs or h["name"] != v["name"]:
                raise DataError(f"{where}: role row {h['name']} encodes event {h['event']:#x} umask {h['umask']:#x} "
                                f"cmask {h['cmask']} {' '.join(mine[3])}; the vendor data ({vpath}) has "
                                f"{v['name']} event {v['event']:#x} umask {v['umask']:#x} cmask {v['cmask']} "
                                f"{' '.join(theirs[3])}")
            v["roles"], v["description"], v["source"] = h["roles"], h["description"], h["source"]
            order.append(events.index(v))
        self.role_order[key] = order
        return events

    def resolve(self, unit, vendor, doc, stack, with_data):
        """Hand-written rows of a set or fragment, bases first, with overrides and removals."""
        if unit in stack:
            raise DataError(f"{self.path('sets')}: bases loop {' -> '.join(stack + [unit])}")
        merged = {}     # upper-case name -> event; dicts keep insertion order
        bases = []
        if not unit.startswith("_"):
            if unit not in self.setrows:
                raise DataError(f"{self.path('sets')}: base '{unit}' is neither a set nor a _fragment")
            where, r = self.setrows[unit]
            if r["vendor"] != vendor:
                raise DataError(f"{where}: '{unit}' is {r['vendor']} but is used by a {vendor} set")
            bases = r["bases"].split()
        for b in bases:
            for ev in self.resolve(b, vendor, doc, stack + [unit], with_data):
                merged[ev["name"].upper()] = ev
        path = self.path(unit)
        if unit.startswith("_") or os.path.exists(path):
            seen = set()
            for n, row in read_csv(path, EVENT_COLUMNS):
                where = f"{path}:{n}"
                key = row["name"].upper()
                if key in seen:
                    raise DataError(f"{where}: '{row['name']}' appears twice in this file")
                seen.add(key)
                if row["event"] == "-":
                    if key not in merged:
                        raise DataError(f"{where}: '{row['name']}' removed but not inherited")
                    del merged[key]
                    continue
                ev = parse_event(row, where, vendor, doc, with_data, [r["word"] for r in self.roles])
                ev["where"] = where
                merged[key] = ev
        self.used.add(unit)
        return list(merged.values())

    def load_ibs(self):
        seen = set()
        for n, r in read_csv(self.path("ibs_derived"), IBS_COLUMNS):
            where = f"{self.path('ibs_derived')}:{n}"
            code = parse_int(r["code"], "code", where, 0xFFFF)
            if not 0xF000 <= code <= 0xF2FF:
                raise DataError(f"{where}: IBS derived event code {r['code']} outside 0xF000..0xF2FF")
            if code in seen:
                raise DataError(f"{where}: code {r['code']} listed twice")
            seen.add(code)
            for col in ("name", "abbrev", "description"):
                if not r[col]:
                    raise DataError(f"{where}: empty {col}")
            self.ibs.append({"code": code, "name": r["name"], "abbrev": r["abbrev"],
                             "description": r["description"]})
        self.ibs.sort(key=lambda e: e["code"])

    def load_amd_rules(self):
        """events/amd_rules.csv through the importer's reader, so both read it the same way."""
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from events_import import amd_rules
        from events_import.rows import ImportError_
        try:
            self.amd_rules = amd_rules.read(self.path("amd_rules"))
        except ImportError_ as e:
            raise DataError(str(e))

    def load_uops(self):
        """events/uops.csv: per set, its µop events as (index in the set, kind, port label), in file order.
        A row names a vendor event only, so its encoding is the vendor data's.  A tree without the file
        (the importer's tests build small ones) has no µop events."""
        path = self.path("uops")
        index = {key: ({e["name"].upper(): i for i, e in enumerate(ev)}, vendor)
                 for key, vendor, _, ev, _ in self.sets}
        self.uops = {key: [] for key in index}
        for n, r in read_csv(path, UOP_COLUMNS) if os.path.exists(path) else []:
            where = f"{path}:{n}"
            if r["what"] not in UOP_KINDS:
                raise DataError(f"{where}: what '{r['what']}' (expected {', '.join(UOP_KINDS)})")
            port = r["port"]
            if (r["what"] == "port") != bool(port):
                raise DataError(f"{where}: a port row needs its port label, and only a port row has one")
            if port and not UOP_PORT_RE.match(port):
                raise DataError(f"{where}: port label '{port}' must be 1..15 lower-case letters, digits and _")
            keys = r["sets"].split()
            if not keys:
                raise DataError(f"{where}: no sets")
            for key in keys:
                if key not in index:
                    raise DataError(f"{where}: '{key}' is not a set of events/sets.csv")
                at = index[key][0].get(r["name"].upper())
                if at is None:
                    raise DataError(f"{where}: {r['name']} is not an event of {key} (events/vendor/{key}.csv)")
                rows = self.uops[key]
                if any(i == at for i, _, _ in rows):
                    raise DataError(f"{where}: {r['name']} is listed twice for {key}")
                rows.append((at, UOP_KINDS.index(r["what"]), port))
        if len(UOP_KINDS) > 4:
            raise DataError("struct ev_uop has two bits for the kind")

    def check_unused(self):
        """A stray CSV file is a mistake (a typo in a base or key), not extra data."""
        known = {"sets", "roles", "ibs_derived", "amd_rules", "uops"} | self.used
        for f in sorted(os.listdir(self.root)):
            if f.endswith(".csv") and f[:-4] not in known:
                raise DataError(f"{os.path.join(self.root, f)}: not used by any set in sets.csv")
        vdir = os.path.join(self.root, "vendor")
        with_data = {k for k, (_, r) in self.setrows.items() if r["data"]}
        for f in sorted(os.listdir(vdir)) if os.path.isdir(vdir) else []:
            if f.endswith(".csv") and f[:-4] not in with_data:
                raise DataError(f"{os.path.join(vdir, f)}: no set in sets.csv imports it")


def c_str(s):
    out = ['"']
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            raise DataError(f"non-ASCII character in {s!r}: keep the tables plain ASCII")
    out.append('"')
    return "".join(out)


class Pool:
    """NUL-separated strings in one C array, each stored once; offsets are 16-bit."""

    def __init__(self, what):
        self.what, self.data, self.at, self.size = what, [], {}, 0

    def add(self, s):
        c_str(s)    # plain ASCII only
        if s not in self.at:
            self.at[s] = self.size
            self.data.append(s)
            self.size += len(s) + 1
            if self.at[s] > 0xFFFF:
                raise DataError(f"{self.what} string pool passed 64 KiB: offsets are 16-bit")
        return self.at[s]

    def emit(self, name):
        out = [f"const char {name}[] ="]
        for s in self.data:
            out.append("\t" + c_str(s)[:-1] + "\\0\"")
        out[-1] += ";"
        return out if self.data else [f"const char {name}[] = \"\";"]


def split_name(name):
    """Names share their parts: 'MEM_INST_RETIRED.SPLIT_LOADS' is stored as the prefix
    'MEM_INST_RETIRED' and the last part 'SPLIT_LOADS' (two pools of 16-bit offsets)."""
    pre, dot, last = name.rpartition(".")
    return pre, last


def meet(a, b):
    """Two counter lists (0 = any, NO_COUNTER = none) -> the counters both allow."""
    if a == NO_COUNTER or b == NO_COUNTER:
        return NO_COUNTER
    if not a or not b:
        return a or b
    return a & b or NO_COUNTER


def code_rules(events):
    """A set's counter rules for raw specs, from its rows (fixed-only pseudo-encodings aside; an
    offcore row counts for its second form's code too): for each (code, unit mask) and each code,
    the counters every row with it allows (the intersection, NO_COUNTER when they share none), the
    same for the SMT-off lists, and whether any such row is TakenAlone.  Only rules that restrict
    are kept: a code's rule when it restricts anything, a (code, unit mask) rule when it differs from
    its code's.  Returns [(event, umask, flags, counters, htoff)] sorted."""
    by_umask, by_code = {}, {}
    for e in events:
        if "fixed_only" in e["flags"]:
            continue
        c = e["counters"]
        rule = (c, e["htoff"] or c, "taken_alone" in e["flags"])
        for ev, um in [(e["event"], e["umask"])] + ([e["alt"]] if e["alt"] else []):
            for table, key in ((by_umask, (ev, um)), (by_code, ev)):
                old = table.get(key)
                table[key] = rule if old is None else (meet(old[0], rule[0]), meet(old[1], rule[1]),
                                                        old[2] or rule[2])
    out, code_rule = [], {}
    for ev, (c, h, ta) in by_code.items():
        if c or h or ta:
            code_rule[ev] = (c, h, ta)
            out.append((ev, 0, RULE_CODE_ONLY) + (c, h, ta))
    for (ev, um), rule in by_umask.items():
        if rule != code_rule.get(ev, (0, 0, False)):
            out.append((ev, um, 0) + rule)
    rules = []
    for ev, um, kind, c, h, ta in sorted(out):
        flags = kind | (RULE_TAKEN_ALONE if ta else 0) | (RULE_NONE if NO_COUNTER in (c, h) else 0)
        c, h = (0, 0) if NO_COUNTER in (c, h) else (c, h)
        rules.append((ev, um, flags, c, 0 if h == c else h))
    return rules


# Field widths of the packed rows, as events/events_table.h declares them (the generated file
# asserts each one, so the two cannot drift apart).
ROW_FIELDS = [("pre", 12), ("last", 12), ("event", 8), ("umask", 8), ("limits", 5), ("flags", 6), ("side", 13)]
SIDE_FIELDS = [("cmask", 8), ("enc", 3), ("event_hi", 4), ("umask_ext", 8), ("fixed", 4), ("offcore", 4),
               ("value_lo", 14), ("value_hi", 8)]
NOTE_FIELDS = [("index", 12), ("roles", 20)]


class Interned:
    """Distinct values in first-use order; index 0 is the given zero value."""

    def __init__(self, zero):
        self.at, self.items = {zero: 0}, [zero]

    def add(self, v):
        if v not in self.at:
            self.at[v] = len(self.items)
            self.items.append(v)
        return self.at[v]


# The catalogue's structs as events/events_table.h declares them, for the bytes stored in the blob:
# little-endian with each field at its natural alignment (the SysV x86-64 ABI; the generated file
# asserts every size).  Bit fields fill their word from bit 0 in declaration order.
TABLE_ALIGN = 8             # events/events_table.h EV_TABLE_ALIGN: every table starts so aligned
LIMITS_FMT = "<HH"
OFFCORE_FMT = "<HHbbBx"     # one byte of padding: the struct is 2-aligned
CODE_RULE_FMT = "<HBBHH"
AMD_RULE_FMT = "<BBHHBBH"
LIST_FMT = "HHHHBx"         # struct ev_list, padded to its 2-byte alignment
SET_REC_FMT = "<HHHHH" + LIST_FMT * 2 + "HHBB"
IBS_REC_FMT = "<HHHH"
UOP_FMT = "<HBBH"           # struct ev_uop: index in the set, set, kind, port label (offset in events_strs)
STRUCT_SIZES = {"struct ev_row": 8, "struct ev_side": 8, "struct ev_note": 4,
                "struct ev_limits": struct.calcsize(LIMITS_FMT), "struct ev_offcore": struct.calcsize(OFFCORE_FMT),
                "struct ev_code_rule": struct.calcsize(CODE_RULE_FMT),
                "struct ev_amd_rule": struct.calcsize(AMD_RULE_FMT), "struct ev_list": struct.calcsize("<" + LIST_FMT),
                "struct ev_set_rec": struct.calcsize(SET_REC_FMT), "struct ev_ibs_rec": struct.calcsize(IBS_REC_FMT),
                "struct ev_uop": struct.calcsize(UOP_FMT)}
# Where the formats above put the fields after a padding byte or a nested struct (asserted with offsetof).
FIELD_OFFSETS = {("struct ev_offcore", "has_alt"): 6, ("struct ev_amd_rule", "counters"): 8,
                 ("struct ev_set_rec", "events"): 10, ("struct ev_set_rec", "rules"): 20,
                 ("struct ev_set_rec", "notes_first"): 30, ("struct ev_set_rec", "amd"): 34,
                 ("struct ev_list", "base"): 8}


def pack(fmt, rows):
    """Rows (tuples) as structs of the struct module's format fmt, one after another."""
    return lzpack.pack_rows(fmt, rows, DataError)


def pack_bits(fields, rows, size, what):
    """Rows {field: value} as words of `size` bytes with the fields from bit 0 up (checked to fit)."""
    out = bytearray()
    for i, r in enumerate(rows):
        events_pack.bits(fields, r, f"{what} {i}")
        word, shift = 0, 0
        for f, w in fields:
            word |= r[f] << shift
            shift += w
        out += word.to_bytes(size, "little")
    return bytes(out)


def pack_rows(vocab, names, text):
    """Every event as a row (and, where it needs one, a side row), deduplicated across sets."""
    limits, offcore = Interned((0, 0)), Interned((0, 0, 0, 0, 0))
    lo, hi = Interned(0), Interned(0)
    sides = Interned((0, 0, 0, 0, 0, 0, 0, 0, 0))
    lists = []
    for key, vendor, name, events, meta in vocab.sets:
        rows = []
        for e in events:
            pre, last = split_name(e["name"])
            alt = e["alt"]
            shape = (e["msr"][0], e["msr"][1], int(alt is not None),
                     (alt[0] - e["event"]) if alt else 0, (alt[1] - e["umask"]) if alt else 0)
            if not all(-128 <= d < 128 for d in shape[3:]):
                raise DataError(f"{key}: {e['name']}: its second form is too far from its own encoding")
            val = e["msr_value"]
            side = (e["cmask"], sum(1 << i for i, f in enumerate(ENCODING_FLAGS) if f in e["flags"]), e["event"] >> 8,
                    e["umask_ext"], e["fixed"] + 1, offcore.add(shape), lo.add(val & 0xFFFFFFFF), hi.add(val >> 32),
                    text.add(e["errata"]))
            rows.append((names.add(pre), names.add(last), e["event"] & 0xFF, e["umask"],
                         limits.add((e["counters"], e["htoff"])),
                         sum(1 << i for i, f in enumerate(ROW_FLAGS) if f in e["flags"]), sides.add(side)))
        lists.append(rows)
    return lists, limits, offcore, lo, hi, sides


def emit(vocab):
    """The catalogue in the compact forms of events/events_table.h and tools/events_pack.py: no
    pointers (each costs the image a 24-byte relocation besides itself), every row and name part
    stored once, each set's list a difference from a related set's.  events.c decodes on access into
    the caller's struct.  Sources, descriptions and errata are only compiled into the host program."""
    strs, names, text = Pool("set"), events_pack.NameParts(), Pool("text")
    try:
        row_lists, limits, offcore, lo, hi, sides = pack_rows(vocab, names, text)
        tokens, coded, part_at = names.build()
        vendor = [v for _, v, _, _, _ in vocab.sets]
        same_vendor = lambda k, b: vendor[k] == vendor[b]      # noqa: E731
        row_num = events_pack.Numbering()
        row_ids, row_fresh = row_num.number(row_lists)
        ev_lists = events_pack.encode_lists(row_ids, row_fresh, same_vendor)
        rule_num = events_pack.Numbering()
        rule_ids, rule_fresh = rule_num.number([code_rules(ev) for _, _, _, ev, _ in vocab.sets])
        rule_lists = events_pack.encode_lists(rule_ids, rule_fresh, same_vendor)
    except events_pack.PackError as e:
        raise DataError(str(e))
    if len(limits.items) > 1 << 5 or len(offcore.items) > 1 << 4:
        raise DataError("more counter lists or offcore forms than events/events_table.h has bits for")
    ops, op_at = bytearray(), []
    for lst in (ev_lists, rule_lists):
        at = []
        for o, fresh, base in lst:
            at.append((len(ops), len(o), fresh, 0xFF if base is None else base))
            ops += o
        op_at.append(at)
    if len(ops) > 0xFFFF or len(row_num.items) > 0xFFFF or len(rule_num.items) > 0xFFFF:
        raise DataError("the packed lists passed 16-bit offsets")

    note_rows, note_text, note_comments, set_recs = [], [], [], []
    role_order = getattr(vocab, "role_order", {})
    role_bit = {r["word"]: r["bit"] for r in vocab.roles}
    for k, (key, vend, name, events, meta) in enumerate(vocab.sets):
        order = role_order.get(key, range(len(events)))
        nfirst = len(note_rows)
        for i in order:
            e = events[i]
            note_rows.append({"index": i, "roles": sum(1 << role_bit[r] for r in e["roles"])})
            note_text.append(f"{text.add(e['source'])}, {text.add(e['description'])}")
            note_comments.append(f"{key}: {e['name']} {' '.join(e['roles'])}".rstrip())
        lists = []
        for at, n in ((op_at[0][k], len(events)), (op_at[1][k], len(rule_ids[k]))):
            lists += [at[0], at[1], at[2], n, at[3]]
        set_recs.append([strs.add(key), strs.add(name), strs.add(meta["perf"]), strs.add(meta["vendor_name"]),
                         text.add(meta["doc"])] + lists + [nfirst, len(note_rows) - nfirst, int(vend == "amd"),
                                                           meta["family"]])
    ibs_recs = [(e["code"], strs.add(e["name"]), strs.add(e["abbrev"]), text.add(e["description"]))
                for e in vocab.ibs]
    uop_recs = [(at, k, kind, strs.add(port)) for k, (key, _, _, _, _) in enumerate(vocab.sets)
                for at, kind, port in getattr(vocab, "uops", {}).get(key, [])]
    amd_recs = []
    for r in vocab.amd_rules:
        none = r["counters"] == NO_COUNTER
        fl = (RULE_NONE if none else 0) | (RULE_PAIR if r["pair"] else 0)
        amd_recs.append((r["family"], r["last_family"], r["event"], r["mask"],
                         list(AMD_UMASK_TESTS).index(r["umask"]), fl, 0 if none else r["counters"]))
    tok_at, w = [], 0
    for t in tokens:
        tok_at.append(w)
        w += len(t)
    tok_at.append(w)
    if w > 0xFFFF:
        raise DataError("name tokens passed 64 KiB: offsets are 16-bit")

    # The tables, in events/events_table.h's layouts (little-endian, as x86 lays the structs out;
    # the sizes are asserted below), stored compressed (tools/lzpack.py).  Byte planes of each
    # struct's size put like fields side by side; rising offsets are stored as differences.
    blob = lzpack.Blob()
    place = []

    def table(name, ctype, data, stride=1, delta=False):
        place.append((name, ctype, blob.add(name, data, TABLE_ALIGN, stride, delta)))

    def strings(pool):
        return "".join(s + "\0" for s in pool.data).encode("ascii") + b"\0"

    row_dicts = [dict(zip([f for f, _ in ROW_FIELDS], r)) for r in row_num.items]
    side_fields = [f for f, _ in SIDE_FIELDS]
    side_dicts = [dict(zip(side_fields, x[:len(side_fields)])) for x in sides.items]
    table("events_strs", "char", strings(strs))
    table("events_token_text", "char", "".join(tokens).encode("ascii") + b"\0")
    table("events_token_at", "uint16_t", pack("<H", [(v,) for v in tok_at]), 2, True)
    table("events_part_codes", "uint8_t", bytes(coded))
    table("events_part_at", "uint16_t", pack("<H", [(v,) for v in part_at]), 2, True)
    table("events_limits", "struct ev_limits", pack(LIMITS_FMT, limits.items), struct.calcsize(LIMITS_FMT))
    table("events_offcore", "struct ev_offcore",
          pack(OFFCORE_FMT, [(m0, m1, d_ev, d_um, has) for m0, m1, has, d_ev, d_um in offcore.items]),
          struct.calcsize(OFFCORE_FMT))
    table("events_msr_lo", "uint32_t", pack("<I", [(v,) for v in lo.items]), 4)
    table("events_msr_hi", "uint32_t", pack("<I", [(v,) for v in hi.items]), 4)
    table("events_rows", "struct ev_row", pack_bits(ROW_FIELDS, row_dicts, 8, "row"), 8)
    table("events_side", "struct ev_side", pack_bits(SIDE_FIELDS, side_dicts, 8, "side row"), 8)
    table("events_ops", "uint8_t", bytes(ops))
    table("events_code_rules", "struct ev_code_rule", pack(CODE_RULE_FMT, rule_num.items), struct.calcsize(CODE_RULE_FMT))
    table("events_amd_rules", "struct ev_amd_rule", pack(AMD_RULE_FMT, amd_recs), struct.calcsize(AMD_RULE_FMT))
    table("events_notes", "struct ev_note", pack_bits(NOTE_FIELDS, note_rows, 4, "note"), 4)
    table("events_set_recs", "struct ev_set_rec", pack(SET_REC_FMT, set_recs), struct.calcsize(SET_REC_FMT))
    table("events_ibs_recs", "struct ev_ibs_rec", pack(IBS_REC_FMT, ibs_recs), struct.calcsize(IBS_REC_FMT))
    table("events_uops", "struct ev_uop", pack(UOP_FMT, uop_recs), struct.calcsize(UOP_FMT))

    o = ["/* Generated by tools/gen_events.py from events/ - do not edit. */",
         '#include "events/events_table.h"', ""]
    for fields, struct_name in ((ROW_FIELDS, "ev_row"), (SIDE_FIELDS, "ev_side"), (NOTE_FIELDS, "ev_note")):
        for f, w in fields:
            o.append(f"_Static_assert(EV_{struct_name[3:].upper()}_{f.upper()}_BITS == {w}, \"{struct_name}.{f}: "
                     f"tools/gen_events.py packs it in {w} bits\");")
    o.append(f"_Static_assert(EV_LIST_MAX_DEPTH == {events_pack.LIST_MAX_DEPTH}, \"tools/events_pack.py "
             f"LIST_MAX_DEPTH\");")
    o.append(f"_Static_assert(EV_TOKEN_ONE_BYTE == {events_pack.TOKEN_ONE_BYTE} && EV_TOKEN_TWO_BYTE_LEAD == "
             f"{events_pack.TOKEN_TWO_BYTE_LEAD}, \"tools/events_pack.py token codes\");")
    o.append(f"_Static_assert(EV_ROLE_COUNT <= {NOTE_FIELDS[1][1]}, \"ev_note.roles has a bit per role\");")
    o.append(f"_Static_assert(EV_TABLE_ALIGN == {TABLE_ALIGN}, \"tools/gen_events.py TABLE_ALIGN\");")
    o += lzpack.layout_asserts(STRUCT_SIZES, FIELD_OFFSETS, "tools/gen_events.py")
    o.append("")
    o += blob.emit_c("events_blob")
    o.append("")
    o += lzpack.place_function("events_tables_place", place)
    o.append("")
    o.append(f"const size_t events_set_recs_n = {len(set_recs)};")
    o.append(f"const size_t events_ibs_recs_n = {len(ibs_recs)};")
    o.append(f"const size_t events_amd_rules_n = {len(amd_recs)};")
    o.append(f"const size_t events_uops_n = {len(uop_recs)};")
    o.append(f"_Static_assert({len(set_recs)} <= EV_MAX_SETS, \"raise EV_MAX_SETS\");")
    o.append(f"_Static_assert({len(ibs_recs)} <= EV_MAX_IBS, \"raise EV_MAX_IBS\");")
    o.append("")
    o.append("/* The hand-written rows as events_notes holds them ({ index, roles }), for whoever reads this file:")
    o.append(" * the blob has them packed. */")
    o.append("#if 0")
    o += [f"\t{{ {r['index']}, {r['roles']} }},\t/* {c} */" for r, c in zip(note_rows, note_comments)]
    o.append("#endif")
    o.append("")
    o.append("#ifdef PMUBOOT_HOSTED")
    o.append("/* The host program's text: sources, descriptions and errata (events_table.h). */")
    o += text.emit("events_text")
    o += lzpack.c_array("const uint16_t events_side_errata[]", [x[-1] for x in sides.items])
    o.append("const struct ev_note_text events_note_text[] = {")
    o += [f"\t{{ {t} }}," for t in note_text]
    o.append("};")
    o.append("#endif")
    return "\n".join(o) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--out", help="C file to write: the event tables")
    what.add_argument("--roles-header", help="C header to write: enum event_role (events/roles.csv)")
    ap.add_argument("--dir", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                    "events"), help="folder with the CSV files")
    a = ap.parse_args()
    vocab = Vocabulary(a.dir)
    try:
        if a.roles_header:
            text = emit_roles_header(read_roles(vocab.path("roles")))
        else:
            vocab.load()
            text = emit(vocab)
    except DataError as e:
        print(f"gen_events: {e}", file=sys.stderr)
        return 1
    write_generated(a.roles_header or a.out, text)
    return 0


# The generators' one way to write their output (tools/lzpack.py, which every generator imports).
write_generated = lzpack.write_generated


if __name__ == "__main__":
    sys.exit(main())
