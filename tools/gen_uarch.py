#!/usr/bin/env python3
"""tools/gen_uarch.py - compile the microarchitecture table (cpu/uarch.csv) into C.

    tools/gen_uarch.py --out build/gen/uarch_table.c [--root .]

cpu/uarch.csv holds one line per vendor + family + model range (+ stepping range, + hybrid
core type and native model ID): the core's key and name, its event set, on what basis that set
applies, the note saying why (cpu/uarch_notes.csv) and what identification tells pmu/caps
about its PMU.  The event-set keys are events/sets.csv's, read here through gen_events' reader:
that file is the one list of keys, and the generated table holds them in its order (their
index is the set's id), with each vendor's family-level fallback (its set without vendor data).
cpu/uarch_features.csv lists CPUID features that date a core, each with the keys of the cores
that enumerate it (cpu/uarch.h uarch_doubt).

Everything is checked at build time, and a bad line stops the build naming the file, the line
and what is wrong: unknown words, numbers out of range, a set no line may use, a basis without
its note, two lines claiming one CPU, a set of events/ no CPU can reach.  The output holds no
pointers (strings are 16-bit offsets into one pool), so the image carries no relocations for it,
and depends only on the input files, byte for byte.
"""
import argparse
import os
import re
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
from gen_events import DataError, SET_COLUMNS, c_str, read_csv, write_generated  # noqa: E402

UARCH_COLUMNS = ["vendor", "family", "model", "stepping", "core_type", "native_model", "key", "name", "event_set",
                 "basis", "note", "pmu", "parts"]
NOTE_COLUMNS = ["note", "text"]
FEATURE_COLUMNS = ["feature", "vendor", "leaf", "subleaf", "reg", "bit", "keys", "source"]
# A feature line's vendor -> the C name; its register -> its index in struct cpu_leaf7's r[] (cpu/cpu.h enum cpu_reg).
FEATURE_VENDORS = {"intel": "VENDOR_INTEL", "amd": "VENDOR_AMD"}
REGS = {"eax": 0, "ebx": 1, "ecx": 2, "edx": 3}
FEATURE_KEYS_MAX = 8        # uarch_data.h UARCH_FEATURE_KEYS
LEAF_MAX = 0xFFFFFFFF
LEAF7 = 0x7                 # the one leaf a feature line may name (cpu/cpu.h struct cpu_leaf7)
LEAF7_SUBLEAVES = 2         # cpu.h CPU_LEAF7_SUBLEAVES
FEATURE_RE = re.compile(r"^[A-Z0-9][A-Z0-9_-]*$")

# Column words -> the C names they compile to (cpu/cpu.h, cpu/uarch.h).
VENDORS = {"intel": "VENDOR_INTEL", "amd": "VENDOR_AMD", "hygon": "VENDOR_HYGON"}
# Whose event sets a vendor's CPUs may name: Hygon's cores are AMD's Zen under licence.
SET_VENDOR = {"intel": "intel", "amd": "amd", "hygon": "amd"}
CORE_TYPES = {"": "CORE_TYPE_ANY", "atom": "CORE_TYPE_ATOM", "core": "CORE_TYPE_CORE"}
BASES = {"vendor": "BASIS_VENDOR", "related_core": "BASIS_RELATED", "none": "BASIS_NONE"}
PMU = {"cpuid": "UARCH_PMU_CPUID", "core2": "UARCH_PMU_CORE2", "p6": "UARCH_PMU_P6",
       "unsupported": "UARCH_PMU_UNSUPPORTED", "none": "UARCH_PMU_NONE"}
# PMU kinds that only an Intel part has (the P6 counters, Core 2's fixed counters).
INTEL_ONLY_PMU = ("core2", "p6")
KEY_RE = re.compile(r"^[a-z0-9_]+$")
NOTE_RE = re.compile(r"^[a-z0-9_]+$")
NO_EVENT_SET = 0xFF         # uarch.h UARCH_NO_EVENT_SET: an index no set has
NATIVE_ANY = 0xFFFFFFFF     # uarch.h UARCH_NATIVE_ANY
NATIVE_MAX = 0xFFFFFF       # CPUID.1AH:EAX[23:0]
FAMILY_MAX = 0xFF + 0xF     # display family: base 0FH plus an 8-bit extended family
MODEL_MAX = 0xFF
STEPPING_MAX = 0xF


def root_dir():
    return os.path.dirname(TOOLS)


def read_sets(root):
    """events/sets.csv as [(key, vendor, has vendor data)], in file order: the one list of event-set
    keys.  Its own checks (key spelling, duplicates, vendor) are the event generator's."""
    path = os.path.join(root, "events", "sets.csv")
    return [(r["key"], r["vendor"], bool(r["data"])) for _, r in read_csv(path, SET_COLUMNS)]


def parse_hex(text, what, where, limit):
    if not re.match(r"^0x[0-9a-fA-F]+$", text):
        raise DataError(f"{where}: {what} '{text}' must be a hex number (0x..)")
    v = int(text, 16)
    if v > limit:
        raise DataError(f"{where}: {what} {text} is out of range 0..{limit:#x}")
    return v


def parse_range(text, what, where, limit):
    lo, dash, hi = text.partition("-")
    a = parse_hex(lo, what, where, limit)
    b = parse_hex(hi, what, where, limit) if dash else a
    if b < a:
        raise DataError(f"{where}: {what} range '{text}' runs backwards")
    return a, b


def word(text, allowed, what, where):
    if text not in allowed:
        raise DataError(f"{where}: {what} '{text}' must be one of {', '.join(repr(w) for w in allowed)}")
    return text


def read_notes(path):
    notes = {}
    for n, r in read_csv(path, NOTE_COLUMNS):
        where = f"{path}:{n}"
        if not NOTE_RE.match(r["note"]):
            raise DataError(f"{where}: note '{r['note']}' must be lower-case letters, digits and _")
        if r["note"] in notes:
            raise DataError(f"{where}: note '{r['note']}' listed twice")
        if not r["text"]:
            raise DataError(f"{where}: note '{r['note']}' has no text")
        c_str(r["text"])
        notes[r["note"]] = r["text"]
    return notes


def read_rows(path, sets, notes):
    """The checked lines of cpu/uarch.csv, each a dict of parsed values and its 'where'."""
    set_vendor = {k: v for k, v, _ in sets}
    rows = []
    for n, r in read_csv(path, UARCH_COLUMNS):
        where = f"{path}:{n}"
        row = {"where": where, "vendor": word(r["vendor"], VENDORS, "vendor", where)}
        row["family"] = parse_hex(r["family"], "family", where, FAMILY_MAX)
        row["model"] = parse_range(r["model"], "model", where, MODEL_MAX)
        row["stepping"] = parse_range(r["stepping"], "stepping", where, STEPPING_MAX) if r["stepping"] \
            else (0, STEPPING_MAX)
        row["core_type"] = word(r["core_type"], CORE_TYPES, "core_type", where)
        row["native"] = parse_hex(r["native_model"], "native_model", where, NATIVE_MAX) if r["native_model"] \
            else NATIVE_ANY
        if row["native"] != NATIVE_ANY and not row["core_type"]:
            raise DataError(f"{where}: a native_model means something only beside a core_type (CPUID leaf 1AH)")
        if not KEY_RE.match(r["key"]):
            raise DataError(f"{where}: key '{r['key']}' must be lower-case letters, digits and _")
        if not r["name"]:
            raise DataError(f"{where}: the core needs a name")
        c_str(r["name"])
        row["key"], row["name"] = r["key"], r["name"]
        es = r["event_set"]
        if es and es not in set_vendor:
            raise DataError(f"{where}: event set '{es}' is not a key of events/sets.csv")
        if es and set_vendor[es] != SET_VENDOR[row["vendor"]]:
            raise DataError(f"{where}: event set '{es}' is {set_vendor[es]}'s; a {row['vendor']} CPU cannot use it")
        row["event_set"] = es
        basis = row["basis"] = word(r["basis"], BASES, "basis", where)
        if (basis == "none") != (not es):
            raise DataError(f"{where}: basis 'none' goes with an empty event_set, and only with one")
        note = r["note"]
        if basis == "vendor" and note:
            raise DataError(f"{where}: basis 'vendor' needs no note (the vendor data says it)")
        if basis != "vendor" and not note:
            raise DataError(f"{where}: basis '{basis}' needs a note saying why")
        if note and note not in notes:
            raise DataError(f"{where}: note '{note}' is not in {os.path.basename(path)[:-4]}_notes.csv")
        row["note"] = note
        row["pmu"] = word(r["pmu"], PMU, "pmu", where)
        if row["pmu"] in INTEL_ONLY_PMU and row["vendor"] != "intel":
            raise DataError(f"{where}: pmu '{row['pmu']}' is an Intel PMU")
        rows.append(row)
    check_overlaps(rows)
    return rows


def read_features(path, rows):
    """The checked lines of cpu/uarch_features.csv: every key a core of the line's vendor."""
    key_vendor = {}
    for r in rows:
        key_vendor.setdefault(r["key"], r["vendor"])
    out, seen = [], set()
    for n, r in read_csv(path, FEATURE_COLUMNS):
        where = f"{path}:{n}"
        if not FEATURE_RE.match(r["feature"]):
            raise DataError(f"{where}: feature '{r['feature']}' must be upper-case letters, digits, _ and -")
        f = {"where": where, "feature": r["feature"],
             "vendor": word(r["vendor"], FEATURE_VENDORS, "vendor", where),
             "leaf": parse_hex(r["leaf"], "leaf", where, LEAF_MAX),
             "subleaf": parse_hex(r["subleaf"], "subleaf", where, LEAF_MAX),
             "reg": word(r["reg"], REGS, "reg", where)}
        # Every CPU of the topology records leaf 07H subleaves 0 and 1 only (cpu/cpu.h struct cpu_leaf7).
        if f["leaf"] != LEAF7 or f["subleaf"] >= LEAF7_SUBLEAVES:
            raise DataError(f"{where}: leaf {r['leaf']} subleaf {r['subleaf']}: only leaf 0x7 subleaves 0 and 1 "
                            f"are read on every CPU (cpu/cpu.h cpu_read_leaf7)")
        if not re.match(r"^[0-9]+$", r["bit"]) or int(r["bit"]) > 31:
            raise DataError(f"{where}: bit '{r['bit']}' must be a number 0..31")
        f["bit"] = int(r["bit"])
        if (f["feature"], f["vendor"]) in seen:
            raise DataError(f"{where}: feature '{f['feature']}' listed twice for {f['vendor']}")
        seen.add((f["feature"], f["vendor"]))
        keys = r["keys"].split()
        if not keys:
            raise DataError(f"{where}: no cores listed: every core of the vendor would be doubted")
        if len(keys) > FEATURE_KEYS_MAX:
            raise DataError(f"{where}: {len(keys)} cores; a line holds {FEATURE_KEYS_MAX}")
        for k in keys:
            if k not in key_vendor:
                raise DataError(f"{where}: core '{k}' is not a key of cpu/uarch.csv")
            if key_vendor[k] != f["vendor"]:
                raise DataError(f"{where}: core '{k}' is {key_vendor[k]}'s, the line is {f['vendor']}'s")
        if len(set(keys)) != len(keys):
            raise DataError(f"{where}: a core listed twice")
        f["keys"] = keys
        if not r["source"]:
            raise DataError(f"{where}: the line needs a source")
        c_str(r["feature"])
        out.append(f)
    return out


def overlap(a, b):
    """Can one CPU match both lines?"""
    def meet(x, y):
        return x[0] <= y[1] and y[0] <= x[1]
    return a["vendor"] == b["vendor"] and a["family"] == b["family"] and meet(a["model"], b["model"]) and \
        meet(a["stepping"], b["stepping"]) and \
        (a["core_type"] == b["core_type"] or not a["core_type"] or not b["core_type"]) and \
        (a["native"] == b["native"] or NATIVE_ANY in (a["native"], b["native"]))


def check_overlaps(rows):
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            if overlap(a, b):
                raise DataError(f"{b['where']}: claims CPUs that {a['where']} claims already "
                                f"(family {b['family']:#x} model {b['model'][0]:#x}-{b['model'][1]:#x})")


def fallbacks(sets, where):
    """Each vendor's family-level fallback: its one set without vendor data (hand-written rows)."""
    out = {}
    for vendor in sorted(set(SET_VENDOR.values())):
        own = [i for i, (k, v, data) in enumerate(sets) if v == vendor and not data]
        if len(own) != 1:
            raise DataError(f"{where}: {vendor} needs exactly one set without vendor data (its fallback); "
                            f"there are {len(own)}")
        out[vendor] = own[0]
    return out


def load(root):
    """(sets, fallback index per set vendor, notes, rows), every cross-reference checked."""
    sets_path = os.path.join(root, "events", "sets.csv")
    sets = read_sets(root)
    if len(sets) >= NO_EVENT_SET:
        raise DataError(f"{sets_path}: {len(sets)} sets; the table's 8-bit set index holds {NO_EVENT_SET - 1}")
    notes_path = os.path.join(root, "cpu", "uarch_notes.csv")
    notes = read_notes(notes_path)
    uarch_path = os.path.join(root, "cpu", "uarch.csv")
    rows = read_rows(uarch_path, sets, notes)
    fb = fallbacks(sets, sets_path)
    named = {r["event_set"] for r in rows} | {sets[i][0] for i in fb.values()}
    for key, _, _ in sets:
        if key not in named:
            raise DataError(f"{sets_path}: event set '{key}' is named by no line of {uarch_path}: no CPU reaches it")
    used = {r["note"] for r in rows}
    for note in notes:
        if note not in used:
            raise DataError(f"{notes_path}: note '{note}' is used by no line of {uarch_path}")
    features = read_features(os.path.join(root, "cpu", "uarch_features.csv"), rows)
    return sets, fb, notes, rows, features


class Pool:
    """NUL-terminated strings in one array, each stored once, reached by 16-bit offsets."""

    def __init__(self):
        self.data, self.at, self.size = [], {}, 0

    def add(self, s):
        if s not in self.at:
            self.at[s] = self.size
            self.data.append(s)
            self.size += len(s) + 1
            if self.at[s] > 0xFFFF:
                raise DataError("the uarch string pool passed 64 KiB: offsets are 16-bit")
        return self.at[s]


def emit(sets, fb, notes, rows, features):
    pool = Pool()
    set_index = {k: i for i, (k, _, _) in enumerate(sets)}
    note_index = {n: i + 1 for i, n in enumerate(notes)}     # 0: no note
    o = ["/* Generated by tools/gen_uarch.py from cpu/uarch.csv, cpu/uarch_notes.csv, cpu/uarch_features.csv and",
         " * events/sets.csv.  Do not edit. */",
         '#include "cpu/uarch_data.h"', ""]
    set_lines = [f"\t{{ {pool.add(k)}, {'true' if v == 'amd' else 'false'} }},\t/* {k} */" for k, v, _ in sets]
    o.append("const struct uarch_set uarch_sets[] = {")
    o += set_lines
    o.append("};")
    o.append("const size_t uarch_sets_count = ARRAY_SIZE(uarch_sets);")
    o.append("const uint8_t uarch_fallback_sets[] = {")
    o.append("\t[VENDOR_UNKNOWN] = UARCH_NO_EVENT_SET,")
    for vendor, cname in VENDORS.items():
        i = fb[SET_VENDOR[vendor]]
        o.append(f"\t[{cname}] = {i},\t/* {sets[i][0]} */")
    o.append("};")
    o.append("")
    o.append("const uint16_t uarch_notes[] = {")
    o += [f"\t{pool.add(t)},\t/* {n} */" for n, t in notes.items()]
    o.append("};")
    o.append("const size_t uarch_notes_count = ARRAY_SIZE(uarch_notes);")
    o.append("")
    descs, desc_index = [], {}
    for r in rows:
        d = (r["key"], r["name"], r["event_set"], r["basis"], r["note"], r["pmu"])
        if d not in desc_index:
            desc_index[d] = len(descs)
            descs.append(d)
        r["desc"] = desc_index[d]
    if len(descs) > 0xFF:
        raise DataError(f"{len(descs)} distinct cores; the rows' 8-bit descriptor index holds 256")
    o.append("const struct uarch_desc uarch_descs[] = {")
    for key, name, es, basis, note, pmu in descs:
        si = set_index[es] if es else "UARCH_NO_EVENT_SET"
        o.append(f"\t{{ {pool.add(key)}, {pool.add(name)}, {si}, {BASES[basis]}, {note_index.get(note, 0)}, "
                 f"{PMU[pmu]} }},\t/* {key} */")
    o.append("};")
    o.append("")
    o.append("const struct uarch_row uarch_rows[] = {")
    for r in rows:
        native = "UARCH_NATIVE_ANY" if r["native"] == NATIVE_ANY else f"{r['native']:#08x}"
        o.append(f"\t{{ {VENDORS[r['vendor']]}, {CORE_TYPES[r['core_type']]}, {r['family']:#x}, "
                 f"{r['model'][0]:#04x}, {r['model'][1]:#04x}, {r['stepping'][0]:#x}, {r['stepping'][1]:#x}, "
                 f"{r['desc']}, {native} }},\t/* {os.path.basename(r['where'])} */")
    o.append("};")
    o.append("const size_t uarch_rows_count = ARRAY_SIZE(uarch_rows);")
    o.append("")
    o.append("const struct uarch_feature uarch_features[] = {")
    for f in features:
        keys = [str(pool.add(k)) for k in f["keys"]] + ["UARCH_FEATURE_NO_KEY"] * (FEATURE_KEYS_MAX - len(f["keys"]))
        o.append(f"\t{{ {pool.add(f['feature'])}, {FEATURE_VENDORS[f['vendor']]}, {f['subleaf']}, "
                 f"{REGS[f['reg']]}, {f['bit']}, {{ {', '.join(keys)} }} }},\t/* {os.path.basename(f['where'])} */")
    o.append("};")
    o.append("const size_t uarch_features_count = ARRAY_SIZE(uarch_features);")
    o.append("")
    o.append("const char uarch_strings[] =")
    o += ["\t" + c_str(s)[:-1] + '\\0"' for s in pool.data]
    o[-1] += ";"
    return "\n".join(o) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="C file to write")
    ap.add_argument("--root", default=root_dir(), help="the tree holding cpu/ and events/")
    a = ap.parse_args()
    try:
        text = emit(*load(a.root))
    except DataError as e:
        print(f"gen_uarch: {e}", file=sys.stderr)
        return 1
    write_generated(a.out, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
