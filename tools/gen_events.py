#!/usr/bin/env python3
"""tools/gen_events.py - compile the event vocabulary (events/*.csv) into C tables.

    tools/gen_events.py --out build/gen/events_table.c [--dir events]

events/sets.csv names every event set (microarchitecture key) and the sets or
fragments it builds on; events/KEY.csv and events/_FRAGMENT.csv hold the
events; events/ibs_derived.csv holds the AMD IBS derived events.  The README
in events/ describes the columns.  Everything is checked here, at build time:
a bad row stops the build with the file, line and what is wrong.  The output
depends only on the input files, byte for byte.
"""
import argparse
import csv
import os
import re
import sys

EVENT_COLUMNS = ["name", "event", "umask", "cmask", "flags", "counters", "fixed", "roles", "source",
                 "description"]
SET_COLUMNS = ["key", "vendor", "bases", "doc", "name"]
IBS_COLUMNS = ["code", "name", "abbrev", "description"]

# Role words in the CSV -> enum event_role names in events/events.h.
ROLES = {
    "cycles": "EV_ROLE_CYCLES",
    "instructions": "EV_ROLE_INSTRUCTIONS",
    "ref_cycles": "EV_ROLE_REF_CYCLES",
    "stlf_block": "EV_ROLE_STLF_BLOCK",
    "stlf_ok": "EV_ROLE_STLF_OK",
    "sta_block": "EV_ROLE_STA_BLOCK",
    "std_block": "EV_ROLE_STD_BLOCK",
    "overlap_store": "EV_ROLE_OVERLAP_STORE",
    "alias_4k": "EV_ROLE_ALIAS_4K",
    "split_load": "EV_ROLE_SPLIT_LOAD",
    "split_store": "EV_ROLE_SPLIT_STORE",
    "page_split_load": "EV_ROLE_PAGE_SPLIT_LOAD",
    "page_split_store": "EV_ROLE_PAGE_SPLIT_STORE",
    "misalign": "EV_ROLE_MISALIGN",
    "loads": "EV_ROLE_LOADS",
    "stores": "EV_ROLE_STORES",
    "smi": "EV_ROLE_SMI",
    "hw_int": "EV_ROLE_HW_INT",
}
FLAGS = ("inv", "edge", "any", "precise", "fixed_only")
NAME_RE = re.compile(r"^[A-Za-z0-9_.]+$")
KEY_RE = re.compile(r"^[a-z0-9_]+$")
NAME_MAX = 63          # struct event_spec.name is char[64]
DESC_MAX = 100         # keep the image small: descriptions are one short line
MAX_GP_COUNTERS = 32   # event_def.counters is a 32-bit mask


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
    """'' = any counter; '0-3' a range; '0+2' a list; ranges and lists combine ('0-1+4')."""
    if not text:
        return 0
    mask = 0
    for part in text.split("+"):
        lo, _, hi = part.partition("-")
        a = parse_int(lo, "counter", where, MAX_GP_COUNTERS - 1)
        b = parse_int(hi, "counter", where, MAX_GP_COUNTERS - 1) if hi else a
        if b < a:
            raise DataError(f"{where}: counter range '{part}' runs backwards")
        for c in range(a, b + 1):
            mask |= 1 << c
    return mask


def parse_event(row, where, vendor, doc):
    name = row["name"]
    if not NAME_RE.match(name) or len(name) > NAME_MAX:
        raise DataError(f"{where}: event name '{name}' must be 1..{NAME_MAX} of A-Z a-z 0-9 _ .")
    ev = {"name": name}
    ev["event"] = parse_int(row["event"], "event", where, 0xFFF if vendor == "amd" else 0xFF)
    ev["umask"] = parse_int(row["umask"], "umask", where, 0xFF)
    ev["cmask"] = parse_int(row["cmask"], "cmask", where, 0xFF) if row["cmask"] else 0
    flags = row["flags"].split()
    for fl in flags:
        if fl not in FLAGS:
            raise DataError(f"{where}: unknown flag '{fl}' (expected {', '.join(FLAGS)})")
    if "any" in flags and vendor != "intel":
        raise DataError(f"{where}: 'any' (AnyThread) exists only on Intel")
    for fl in FLAGS:
        ev[fl] = fl in flags
    ev["counters"] = parse_counters(row["counters"], where)
    ev["fixed"] = parse_int(row["fixed"], "fixed counter", where, 7) if row["fixed"] else -1
    if ev["fixed_only"] and (ev["fixed"] < 0 or ev["counters"]):
        raise DataError(f"{where}: fixed_only needs a fixed counter and no general counters")
    if ev["fixed"] >= 0 and vendor != "intel":
        raise DataError(f"{where}: fixed counters are an Intel feature")
    roles = row["roles"].split()
    for r in roles:
        if r not in ROLES:
            raise DataError(f"{where}: unknown role '{r}' (expected one of {', '.join(ROLES)})")
    ev["roles"] = sorted(set(roles), key=list(ROLES).index)
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


class Vocabulary:
    def __init__(self, root):
        self.root = root
        self.sets = []          # [(key, vendor, name, [events])] in sets.csv order
        self.ibs = []

    def path(self, stem):
        return os.path.join(self.root, stem + ".csv")

    def load(self):
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
            events = self.resolve(key, r["vendor"], r["doc"], [])
            self.sets.append((key, r["vendor"], r["name"], events))
        self.load_ibs()
        self.check_unused()

    def resolve(self, unit, vendor, doc, stack):
        """Events of a set or fragment, bases first, with overrides and removals applied."""
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
            for ev in self.resolve(b, vendor, doc, stack + [unit]):
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
                merged[key] = parse_event(row, where, vendor, doc)
        self.used = getattr(self, "used", set()) | {unit}
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

    def check_unused(self):
        """A stray CSV file is a mistake (a typo in a base or key), not extra data."""
        known = {"sets", "ibs_derived"} | self.used
        for f in sorted(os.listdir(self.root)):
            if f.endswith(".csv") and f[:-4] not in known:
                raise DataError(f"{os.path.join(self.root, f)}: not used by any set in sets.csv")


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


def event_key(e):
    return tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in sorted(e.items()))


class Pool:
    """NUL-separated strings in one C array, each stored once; offsets are 16-bit."""

    def __init__(self, what):
        self.what, self.data, self.at = what, [], {}

    def add(self, s):
        c_str(s)    # plain ASCII only
        if s not in self.at:
            self.at[s] = sum(len(x) + 1 for x in self.data)
            self.data.append(s)
            if self.at[s] > 0xFFFF:
                raise DataError(f"{self.what} string pool passed 64 KiB: offsets are 16-bit")
        return self.at[s]

    def emit(self, name):
        out = [f"const char {name}[] ="]
        for s in self.data:
            out.append("\t" + c_str(s)[:-1] + "\\0\"")
        out[-1] += ";"
        return out if self.data else [f"const char {name}[] = \"\";"]


def pack(lists):
    """Index lists that equal, or are a prefix of, another list share its storage.
    lists: {key: [rec index]} -> (flat index array, {key: first})"""
    flat, first = [], {}
    placed = []     # (start, list)
    for key in sorted(lists, key=lambda k: (-len(lists[k]), k)):
        lst = lists[key]
        for start, other in placed:
            if other[:len(lst)] == lst:
                first[key] = start
                break
        else:
            first[key] = len(flat)
            placed.append((len(flat), lst))
            flat.extend(lst)
    return flat, first


def emit(vocab):
    """Compact tables without pointers: every pointer in the image costs a 24-byte relocation,
    so the tables hold 16-bit string offsets and events.c builds the structs of events.h on
    demand.  Sources and descriptions are only compiled into the host program."""
    names, text = Pool("name"), Pool("text")
    recs, rec_at, lists = [], {}, {}
    for key, vendor, name, events in vocab.sets:
        idx = []
        for e in events:
            k = event_key(e)
            if k not in rec_at:
                rec_at[k] = len(recs)
                recs.append(e)
            idx.append(rec_at[k])
        lists[key] = idx
    flat, first = pack(lists)
    if len(recs) > 0xFFFF or len(flat) > 0xFFFF:
        raise DataError("more than 65535 events: indices are 16-bit")

    o = ["/* Generated by tools/gen_events.py from the CSV files in events/ - do not edit. */",
         '#include "events/events_table.h"', ""]
    rec_lines = []
    for e in recs:
        flags = " | ".join(f for f, on in (("EVF_INV", e["inv"]), ("EVF_EDGE", e["edge"]), ("EVF_ANY", e["any"]),
                                           ("EVF_PRECISE", e["precise"]), ("EVF_FIXED_ONLY", e["fixed_only"]))
                           if on) or "0"
        roles = " | ".join(ROLES[r] for r in e["roles"]) or "0"
        rec_lines.append(f"\t{{ {names.add(e['name'])}, {text.add(e['source'])}, {text.add(e['description'])}, "
                         f"{e['event']:#x}, {e['counters']:#x}, {roles}, {e['umask']:#x}, {e['cmask']}, "
                         f"{flags}, {e['fixed']} }},\t/* {e['name']} */")
    set_lines = []
    for key, vendor, name, events in vocab.sets:
        set_lines.append(f"\t{{ {names.add(key)}, {names.add(name)}, {first[key]}, {len(events)}, "
                         f"{int(vendor == 'amd')} }},")
    ibs_lines = []
    for e in vocab.ibs:
        ibs_lines.append(f"\t{{ {e['code']:#06x}, {names.add(e['name'])}, {names.add(e['abbrev'])}, "
                         f"{text.add(e['description'])} }},")

    o += names.emit("events_strs")
    o.append("#ifdef PMUBOOT_HOSTED")
    o += text.emit("events_text")
    o.append("#endif")
    o.append("")
    o.append("const struct ev_rec events_recs[] = {")
    o += rec_lines
    o.append("};")
    o.append("")
    o.append("/* Each set's events as indices into events_recs; sets whose events are a prefix of")
    o.append(" * another set's share its run. */")
    o.append("const uint16_t events_idx[] = {")
    for i in range(0, len(flat), 16):
        o.append("\t" + ", ".join(str(x) for x in flat[i:i + 16]) + ",")
    o.append("};")
    o.append("")
    o.append("const struct ev_set_rec events_set_recs[] = {")
    o += set_lines
    o.append("};")
    o.append("const size_t events_set_recs_n = ARRAY_SIZE(events_set_recs);")
    o.append("")
    o.append("const struct ev_ibs_rec events_ibs_recs[] = {")
    o += ibs_lines
    o.append("};")
    o.append("const size_t events_ibs_recs_n = ARRAY_SIZE(events_ibs_recs);")
    o.append("")
    total = sum(len(ev) for _, _, _, ev in vocab.sets)
    biggest = max(len(ev) for _, _, _, ev in vocab.sets)
    o.append(f"_Static_assert(ARRAY_SIZE(events_set_recs) <= EV_MAX_SETS, \"raise EV_MAX_SETS\");")
    o.append(f"_Static_assert(ARRAY_SIZE(events_ibs_recs) <= EV_MAX_IBS, \"raise EV_MAX_IBS\");")
    o.append(f"_Static_assert({biggest} <= EV_POOL_IMAGE, \"the largest set ({biggest}) must fit the image pool\");")
    o.append(f"_Static_assert({total} <= EV_POOL_HOSTED, \"every set ({total} events) must fit the host pool\");")
    return "\n".join(o) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="C file to write")
    ap.add_argument("--dir", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                    "events"), help="folder with the CSV files")
    a = ap.parse_args()
    vocab = Vocabulary(a.dir)
    try:
        vocab.load()
        text = emit(vocab)
    except DataError as e:
        print(f"gen_events: {e}", file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    tmp = a.out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
