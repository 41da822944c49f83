#!/usr/bin/env python3
"""tools/gen_metrics.py - the top-down metric tables (events/metrics/): import them, compile them into C.

    tools/gen_metrics.py --import [--shared ../shared] [--dir events]      vendor files -> events/metrics/KEY.csv
    tools/gen_metrics.py --out build/gen/metrics_table.c [--dir events]     events/metrics/ -> C tables
    tools/gen_metrics.py --list KEY [--dir events]                          one table as the compiler sees it (JSON)

The same conventions as tools/gen_events.py: the vendors' data is imported once into committed CSV files
(so the build needs no ../shared), the build compiles those, everything is checked, and the output depends
only on the input files, byte for byte.

events/metrics/tables.csv (hand-written) lists one table per event set (events/sets.csv key) whose vendor
publishes top-down formulas, with the source string the records carry and where the data comes from:
  perfmon CODE/metrics/FILE.json            Intel perfmon metric file: Category TMA, Level <= 2 (the tree's
                                            levels 1 and 2 and the Info_*/Bottleneck_* metrics it puts at 1)
  perfmon-ecore E-core_TMA_Metrics.csv COL  the E-core spreadsheet's column COL (GRT, CMT, ARL-SKT, LNL-SKT):
                                            the tree's levels 1 and 2 and the Info rows, other rows inlined
  hand                                      events/metrics/KEY.csv is written by hand from the source named
--import writes events/metrics/KEY.csv for the first two kinds (name, level, parent, unit, formula) and
checks that each table's source string still matches the file's header (TMA version).

The formula language of KEY.csv is a subset of Python's expressions, as the vendors write them: numbers,
+ - * /, min(a, b), max(a, b), `X if C else Y` (lowest precedence, right-associative, lazy), the
comparisons > < >= <=; an input is {NAME}: an event as the vendor spells it, modifiers included
(LD_BLOCKS.STORE_FORWARD, ICACHE_16B.IFDATA_STALL:c1:e1, PERF_METRICS.RETIRING, X:retire_latency), or
{const:NAME}, a constant the run supplies (HYPERTHREADING_ON, SYSTEM_TSC_FREQ = TSC ticks of the measured
interval, DURATIONTIMEINMILLISECONDS, THREADS_PER_CORE) or one it does not (system sizes).  A formula #NA
means the vendor gives none.

--out resolves every input against its table's event set (the catalogue tools/gen_events.py builds): a
metric that names an event the set does not have is left out, by name, with the reason (a comment in the
generated file, and a host-only list `pmuboot-host metrics` prints).  Every formula of every table is then
hash-consed into one DAG of nodes (identical subexpressions, within and across cores, stored once), and
pmu/metrics/metrics_table.h describes the packed form.  The tables are laid out in their C layouts and
stored as one compressed blob (tools/lzpack.py) that pmu/metrics/metrics.c inflates at first use; the
generated file lists the literals, inputs and metrics readable in a comment.
"""
import argparse
import csv
import io
import json
import os
import re
import struct
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_events  # noqa: E402
import lzpack  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE_COLUMNS = ["key", "source", "data", "width"]
WIDTH_MAX = 15                                # the widest pipeline a table may name (issue slots per cycle)
METRIC_COLUMNS = ["name", "level", "parent", "unit", "formula"]
NAME_RE = re.compile(r"^[A-Za-z0-9_%]+$")
NAME_MAX = 95
KEY_RE = re.compile(r"^[a-z0-9_]+$")
UNITS = ["", "percent", "per instruction"]
NA = "#NA"

# Constants (perfmon Constants[].Name): what the run supplies for each (pmu/metrics/metrics_table.h MT_CONST_*).
CONSTANTS = {
    "HYPERTHREADING_ON": "SMT",              # 1 when the core's sibling thread is enabled
    "THREADS_PER_CORE": "THREADS",           # threads per core
    "SYSTEM_TSC_FREQ": "TSC",                # despite the name: TSC ticks of the measured interval
    "DURATIONTIMEINMILLISECONDS": "DURATION_MS",
}
CONST_SYSTEM = "SYSTEM"                      # a system size the run does not supply (sockets, CPUs)
# Event modifiers (perfmon suffixes): counted by pmuboot, or not.
MOD_PROGRAMMED = re.compile(r"^(c\d+|e\d|i\d|u0x[0-9a-fA-F]+|ocr_msr_val=0x[0-9a-fA-F]+|SUP|USER|sup|user|perf_metrics)$")
MOD_NOT_COUNTED = {"percore": "both threads' slots (TOPDOWN.SLOTS:percore) are not counted by pmuboot",
                   "retire_latency": None}
MOD_EQ = re.compile(r"^eq\d$")
# PERF_METRICS fields in byte order (SDM Vol. 3B "Performance Metrics"; Linux INTEL_TD_METRIC_*).
PERF_METRICS_FIELDS = ["RETIRING", "BAD_SPECULATION", "FRONTEND_BOUND", "BACKEND_BOUND", "HEAVY_OPERATIONS",
                       "BRANCH_MISPREDICTS", "FETCH_LATENCY", "MEMORY_BOUND"]
TOPDOWN_SLOTS = "TOPDOWN.SLOTS"
TOPDOWN_SLOTS_FIXED = 3
# The E-core spreadsheet (../shared/vendor-events/intel/E-core_TMA_Metrics.csv).
ECORE_COLUMNS = ("ARL-SKT", "LNL-SKT", "CMT", "GRT")
ECORE_CONSTANTS = {"DurationTimeInMilliSeconds": "DURATIONTIMEINMILLISECONDS", "TSC": "SYSTEM_TSC_FREQ"}

# Node ops (pmu/metrics/metrics_table.h enum mt_op; the generated file asserts each).
OPS = ["ADD", "SUB", "MUL", "DIV", "MIN", "MAX", "GT", "LT", "GE", "LE", "IF", "ELSE"]
BINARY = {"+": "ADD", "-": "SUB", "*": "MUL", "/": "DIV", "min": "MIN", "max": "MAX", ">": "GT", "<": "LT",
          ">=": "GE", "<=": "LE"}
NODE_REF_BITS = 14                            # a reference: kind (2 bits) and index
MANT_BITS = 64
STR_MAX = 65535


class DataError(Exception):
    pass


# ---- the formula language ----

TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)|(?P<input>\{[^{}]*\})|"
                   r"(?P<word>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>>\s*=|<\s*=|[-+*/(),<>]))")


def tokenize(text, where):
    out, pos, text = [], 0, text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise DataError(f"{where}: cannot read the formula at '{text[pos:pos + 24]}'")
        pos = m.end()
        if m.group("num"):
            out.append(("num", m.group("num")))
        elif m.group("input"):
            out.append(("input", m.group("input")[1:-1].strip()))
        elif m.group("word"):
            out.append(("word", m.group("word")))
        else:
            out.append(("op", re.sub(r"\s", "", m.group("op"))))
    return out


class Parser:
    """Python's grammar for the subset: test := comp ['if' comp 'else' test]; comp := arith (cmp arith)*;
    arith := term (('+'|'-') term)*; term := atom (('*'|'/') atom)*; atom := num | input | (test) |
    min(test, test) | max(test, test) | word (an alias, for the import)."""

    def __init__(self, tokens, where):
        self.t, self.i, self.where = tokens, 0, where

    def peek(self, k=0):
        return self.t[self.i + k] if self.i + k < len(self.t) else ("end", None)

    def take(self, kind, value=None):
        t = self.peek()
        if t[0] != kind or (value is not None and t[1] != value):
            want = value or kind
            raise DataError(f"{self.where}: expected '{want}' at token {self.i + 1}, found '{t[1] or 'the end'}'")
        self.i += 1
        return t

    def parse(self):
        x = self.test()
        if self.peek()[0] != "end":
            raise DataError(f"{self.where}: unexpected '{self.peek()[1]}' at token {self.i + 1}")
        return x

    def test(self):
        x = self.comp()
        if self.peek() == ("word", "if"):
            self.i += 1
            c = self.comp()
            self.take("word", "else")
            return ("if", c, x, self.test())
        return x

    def comp(self):
        x = self.arith()
        if self.peek()[0] == "op" and self.peek()[1] in (">", "<", ">=", "<="):
            op = self.take("op")[1]
            x = (op, x, self.arith())
            if self.peek()[0] == "op" and self.peek()[1] in (">", "<", ">=", "<="):
                raise DataError(f"{self.where}: chained comparisons (Python's a < b < c) are not supported")
        return x

    def arith(self):
        x = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take("op")[1]
            x = (op, x, self.term())
        return x

    def term(self):
        x = self.atom()
        while self.peek() in (("op", "*"), ("op", "/")):
            op = self.take("op")[1]
            x = (op, x, self.atom())
        return x

    def atom(self):
        t = self.peek()
        if t == ("op", "("):
            self.i += 1
            x = self.test()
            self.take("op", ")")
            return x
        if t[0] == "num":
            self.i += 1
            return ("num", t[1])
        if t[0] == "input":
            self.i += 1
            return ("input", t[1])
        if t[0] == "word" and t[1] in ("min", "max") and self.peek(1) == ("op", "("):
            self.i += 2
            a = self.test()
            self.take("op", ",")
            b = self.test()
            self.take("op", ")")
            return (t[1], a, b)
        if t[0] == "word" and t[1] not in ("if", "else"):
            self.i += 1
            return ("word", t[1])
        raise DataError(f"{self.where}: unexpected '{t[1] or 'the end'}' at token {self.i + 1}")


def parse(text, where):
    return Parser(tokenize(text, where), where).parse()


def unparse(x):
    """The committed form of an AST, fully parenthesised where precedence needs it."""
    prec = {"if": 0, ">": 1, "<": 1, ">=": 1, "<=": 1, "+": 2, "-": 2, "*": 3, "/": 3}

    def go(x, ctx):
        k = x[0]
        if k == "num":
            return x[1]
        if k == "input":
            return "{" + x[1] + "}"
        if k == "word":
            return x[1]
        if k in ("min", "max"):
            return f"{k}( {go(x[1], 0)} , {go(x[2], 0)} )"
        if k == "if":
            s = f"{go(x[2], 1)} if {go(x[1], 1)} else {go(x[3], 0)}"
        else:
            p = prec[k]
            # Left-associative: the right operand of the same precedence needs parentheses; a comparison
            # inside a comparison always does (Python would chain them).
            s = f"{go(x[1], p + 1 if p == 1 else p)} {k} {go(x[2], p + 1)}"
        return f"( {s} )" if prec[k] < ctx else s

    return go(x, 0)


def inputs_of(x, acc):
    if x[0] == "input":
        acc.append(x[1])
    for c in x[1:]:
        if isinstance(c, tuple):
            inputs_of(c, acc)
    return acc


# ---- reading and writing the CSV files ----

def read_rows(path, columns):
    try:
        return gen_events.read_csv(path, columns)
    except gen_events.DataError as e:
        raise DataError(str(e)) from None


def read_tables(mdir):
    path = os.path.join(mdir, "tables.csv")
    tables, seen = [], set()
    for n, r in read_rows(path, TABLE_COLUMNS):
        where = f"{path}:{n}"
        if not KEY_RE.match(r["key"]) or r["key"] in seen:
            raise DataError(f"{where}: key '{r['key']}' must be a new lower-case events/sets.csv key")
        seen.add(r["key"])
        kind = r["data"].split()[0] if r["data"] else ""
        if kind not in ("perfmon", "perfmon-ecore", "hand") or not r["source"]:
            raise DataError(f"{where}: data must be 'perfmon FILE', 'perfmon-ecore FILE COLUMN' or 'hand', "
                            f"and the source must be given")
        if not r["width"].isdigit() or not 1 <= int(r["width"]) <= WIDTH_MAX:
            raise DataError(f"{where}: width '{r['width']}' must be the issue slots per cycle, 1..{WIDTH_MAX}")
        tables.append(dict(r, where=where, kind=kind))
    return tables


def write_metrics_csv(path, header, rows):
    out = io.StringIO()
    for h in header:
        out.write(f"# {h}\n")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(METRIC_COLUMNS)
    for r in rows:
        w.writerow([r["name"], str(r["level"]), r["parent"], r["unit"], r["formula"]])
    return out.getvalue()


# ---- import: perfmon metric files ----

def substitute(x, amap, where):
    """Aliases -> {EVENT} / {const:NAME} / numbers (a constant whose name is a number is that number)."""
    if x[0] == "word":
        if x[1] not in amap:
            raise DataError(f"{where}: alias '{x[1]}' is neither an event nor a constant of the metric")
        kind, name = amap[x[1]]
        if kind == "const":
            if re.match(r"^\d+(\.\d+)?$", name):
                return ("num", name)
            return ("input", "const:" + name)
        return ("input", name)
    return (x[0],) + tuple(substitute(c, amap, where) if isinstance(c, tuple) else c for c in x[1:])


def import_perfmon(shared, table):
    rel = table["data"].split()[1]
    path = os.path.join(shared, "vendor-events", "intel", rel)
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    hdr = doc.get("Header", {})
    fname = os.path.basename(rel)
    want = f"intel-perfmon {fname} TMA {hdr.get('TmaVersion', '')}"
    if table["source"] != want:
        raise DataError(f"{table['where']}: source '{table['source']}' does not match the file's header: '{want}'")
    rows = []
    for m in doc["Metrics"]:
        if m.get("Category") != "TMA" or int(m.get("Level", 99)) > 2:
            continue
        where = f"{rel}: {m['MetricName']}"
        amap = {e["Alias"]: ("event", e["Name"]) for e in m.get("Events", [])}
        amap.update({c["Alias"]: ("const", c["Name"]) for c in m.get("Constants", [])})
        formula = NA if NA in m["Formula"] else unparse(substitute(parse(m["Formula"], where), amap, where))
        rows.append({"name": m["MetricName"], "level": int(m["Level"]), "parent": m.get("ParentCategory", ""),
                     "unit": m.get("UnitOfMeasure", ""), "formula": formula})
    header = [f"events/metrics/{table['key']}.csv - imported by tools/gen_metrics.py --import from Intel perfmon "
              f"{rel} (TMA {hdr.get('TmaVersion', '')}, version {hdr.get('Version', '')}, published "
              f"{hdr.get('DatePublished', '')}): Category TMA, Level <= 2.",
              "Do not edit: re-run `python3 tools/gen_metrics.py --import`.  Columns: events/metrics/README.md."]
    return header, rows


# ---- import: the E-core spreadsheet ----

ECORE_WORD = re.compile(r"#?[A-Za-z_%][A-Za-z0-9_.%]*(?::[A-Za-z0-9=]+)*")


def ecore_rows(shared):
    path = os.path.join(shared, "vendor-events", "intel", "E-core_TMA_Metrics.csv")
    with open(path, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.reader(f))
    version = rows[0][2] if rows and len(rows[0]) > 2 and rows[0][0] == "TMA" else ""
    head = next((i for i, r in enumerate(rows) if r and r[0] == "Key"), None)
    if head is None or not version:
        raise DataError(f"{path}: no 'TMA,Version,N' line or no 'Key,...' header")
    return path, version, rows[head], rows[head + 1:]


def ecore_formula_ast(cell, col, defs, where, depth=0):
    """A cell's formula with the other rows' names inlined and events/constants as inputs."""
    if depth > 8:
        raise DataError(f"{where}: rows refer to each other in a circle")
    text = cell.strip()
    if text == NA or not text:
        return None
    # Rewrite the spreadsheet's words into the committed language before parsing.
    out, pos = [], 0
    for m in ECORE_WORD.finditer(text):
        out.append(text[pos:m.start()])
        w = m.group(0)
        if w in ("if", "else", "min", "max"):
            out.append(w)
        elif w in ECORE_CONSTANTS:
            out.append("{const:" + ECORE_CONSTANTS[w] + "}")
        elif w in defs:
            sub = ecore_formula_ast(defs[w], col, defs, f"{where} -> {w}", depth + 1)
            if sub is None:
                return None
            out.append("( " + unparse(sub) + " )")
        elif "." in w and not w.startswith("#"):
            out.append("{" + w + "}")
        else:
            raise DataError(f"{where}: '{w}' is neither a row of the column, an event nor a known constant")
        pos = m.end()
    out.append(text[pos:])
    return parse("".join(out), where)


def import_ecore(shared, table):
    _, fname, col = table["data"].split()
    path, version, header, body = ecore_rows(shared)
    if col not in ECORE_COLUMNS or col not in header:
        raise DataError(f"{table['where']}: column '{col}' is not one of {', '.join(ECORE_COLUMNS)}")
    want = f"intel-perfmon {fname} {col} TMA {version}"
    if table["source"] != want:
        raise DataError(f"{table['where']}: source '{table['source']}' does not match the file: '{want}'")
    ci, lv = header.index(col), [header.index(f"Level{k}") for k in (1, 2, 3)]
    defs = {}
    for r in body:
        if len(r) <= ci:
            continue
        for k in lv:
            if r[k].strip():
                defs[r[k].strip()] = r[ci]
    out, parent = [], ""
    info = False
    for r in body:
        if len(r) <= ci or not r[0].strip():
            continue
        key = r[0].strip()
        if key == "." and r[1].strip() == "metrics":
            info = True
            continue
        if key in (".", "Aux"):
            continue
        where = f"E-core_TMA_Metrics.csv {col}: {key} {'/'.join(x for x in r[1:4] if x)}"
        if not info:
            level = next((i + 1 for i, k in enumerate(lv) if r[k].strip()), 0)
            if level == 0 or level > 2:
                continue
            name = r[lv[level - 1]].strip()
            if level == 1:
                parent = name
            ast = ecore_formula_ast(r[ci], col, defs, where)
            formula = NA if ast is None else unparse(("*", ("num", "100"), ast))
            out.append({"name": name, "level": level, "parent": parent if level == 2 else "", "unit": "percent",
                        "formula": formula})
        else:
            if not key.startswith("Info."):
                raise DataError(f"{where}: an Info row's key should start 'Info.'")
            name = "Info_" + key[len("Info."):] + "_" + r[1].strip()
            ast = ecore_formula_ast(r[ci], col, defs, where)
            out.append({"name": name, "level": 1, "parent": "", "unit": "",
                        "formula": NA if ast is None else unparse(ast)})
    header_lines = [f"events/metrics/{table['key']}.csv - imported by tools/gen_metrics.py --import from Intel perfmon "
                    f"{fname} (TMA {version}), column {col}: the tree's levels 1 and 2 (the spreadsheet's fractions "
                    f"as percent) and the Info rows (Info_<group>_<name>), other rows' names inlined.",
                    "Do not edit: re-run `python3 tools/gen_metrics.py --import`.  Columns: events/metrics/README.md."]
    return header_lines, out


def do_import(shared, mdir, out_dir=None):
    """Import every perfmon table; returns {path: text}.  Written to out_dir (default mdir)."""
    texts = {}
    for t in read_tables(mdir):
        if t["kind"] == "hand":
            continue
        header, rows = (import_perfmon if t["kind"] == "perfmon" else import_ecore)(shared, t)
        texts[os.path.join(out_dir or mdir, t["key"] + ".csv")] = write_metrics_csv(None, header, rows)
    for path, text in texts.items():
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    return texts


# ---- compile ----

def decimal_to_num(text):
    """A decimal literal as the C number type (pmu/metrics/num.h): (mantissa, exponent), value = m * 2^e,
    m with bit 63 set (or 0), rounded to nearest, ties to even."""
    v = Fraction(text)
    if v < 0:
        raise DataError(f"negative literal {text}")
    if v == 0:
        return 0, 0
    e = v.numerator.bit_length() - v.denominator.bit_length()
    while Fraction(2) ** e > v:
        e -= 1
    while Fraction(2) ** (e + 1) <= v:
        e += 1
    e -= MANT_BITS - 1
    scaled = v / (Fraction(2) ** e)
    m = scaled.numerator // scaled.denominator
    rem = scaled - m
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and m & 1):
        m += 1
    if m >> MANT_BITS:
        m >>= 1
        e += 1
    return m, e


class Input:
    """One input as the run and the evaluator see it: {NAME} (an event or, with const:, a constant), or
    {NAME|SPEC}, an input keyed NAME (perf's name for an AMD event) that counts the catalogue event SPEC."""

    def __init__(self, text, where):
        self.name, _, spec = text.partition("|")
        self.name, spec = self.name.strip(), (spec or self.name).strip()
        self.spec, self.problem, self.mods = spec, None, []
        if self.name.startswith("const:"):
            self.const = self.name[len("const:"):]
            self.kind, self.arg, self.base = "CONST", CONSTANTS.get(self.const, CONST_SYSTEM), None
            return
        self.const = None
        base, *mods = spec.split(":")
        self.base, self.mods = base, mods
        self.kind, self.arg = "EVENT", "0"
        if base.startswith("PERF_METRICS."):
            field = base[len("PERF_METRICS."):]
            if field not in PERF_METRICS_FIELDS or mods:
                raise DataError(f"{where}: '{text}' is not a PERF_METRICS field")
            self.kind, self.arg = "TD", f"{PERF_METRICS_FIELDS.index(field)}"
            return
        if "retire_latency" in mods:
            if mods != ["retire_latency"]:
                raise DataError(f"{where}: '{text}': retire_latency with other modifiers")
            self.kind = "RETLAT"
            return
        for m in mods:
            if not (MOD_EQ.match(m) or m in MOD_NOT_COUNTED or MOD_PROGRAMMED.match(m)):
                self.problem = f"{text}: event modifier ':{m}' is not one pmuboot knows"


def resolve(inp, names, slots_fixed):
    """None when the set has the input's event; else why not."""
    if inp.kind == "CONST":
        return None
    if inp.kind == "TD":
        return None if slots_fixed else "PERF_METRICS (TOPDOWN.SLOTS on fixed counter 3) is not in the event set"
    if inp.base.upper() not in names:
        return f"{inp.base} is not an event of the set"
    if inp.problem:
        return inp.problem
    if "perf_metrics" in inp.mods and not slots_fixed:
        return f"{inp.name}: no TOPDOWN.SLOTS on fixed counter 3"
    return None


REF_NODE, REF_INPUT, REF_NUMBER = 0, 1, 2     # a reference's kind (metrics_table.h MT_REF_*)
REF_INDEX_BITS = 12                           # its index; the kind sits above it


class Dag:
    """Formulas as one DAG: internal nodes hash-consed, leaves (inputs, literals) referenced directly."""

    def __init__(self):
        self.nodes, self.index = [], {}
        self.numbers, self.num_index = [], {}
        self.inputs, self.input_index = [], {}

    def add(self, key):
        if key not in self.index:
            self.index[key] = len(self.nodes)
            self.nodes.append(key)
        return (REF_NODE, self.index[key])

    def num(self, text):
        m, e = decimal_to_num(text)
        if (m, e) not in self.num_index:
            self.num_index[(m, e)] = len(self.numbers)
            self.numbers.append((m, e, text))
        return (REF_NUMBER, self.num_index[(m, e)])

    def input(self, inp):
        key = (inp.name, inp.spec)
        if key not in self.input_index:
            self.input_index[key] = len(self.inputs)
            self.inputs.append(inp)
        return (REF_INPUT, self.input_index[key])

    def build(self, x, where):
        k = x[0]
        if k == "num":
            return self.num(x[1])
        if k == "input":
            return self.input(Input(x[1], where))
        if k == "if":
            c, a, b = (self.build(y, where) for y in x[1:])
            return self.add(("IF", c, self.add(("ELSE", a, b))))
        if k in BINARY:
            return self.add((BINARY[k], self.build(x[1], where), self.build(x[2], where)))
        raise DataError(f"{where}: '{k}' in a compiled formula")

    def depth(self, ref, memo):
        if ref[0] != REF_NODE:
            return 1
        if ref not in memo:
            op, a, b = self.nodes[ref[1]]
            memo[ref] = 1 + max(self.depth(a, memo), self.depth(b, memo))
        return memo[ref]

    def inputs_of(self, ref, acc):
        if ref[0] == REF_INPUT:
            acc.add(self.inputs[ref[1]].name)
        elif ref[0] == REF_NODE:
            _op, a, b = self.nodes[ref[1]]
            self.inputs_of(a, acc)
            self.inputs_of(b, acc)
        return acc

    @staticmethod
    def code(ref):
        return ref[0] << REF_INDEX_BITS | ref[1]


def load_vocab(edir):
    vocab = gen_events.Vocabulary(edir)
    try:
        vocab.load()
    except gen_events.DataError as e:
        raise DataError(str(e)) from None
    return {key: events for key, _v, _n, events, _m in vocab.sets}


def read_table_metrics(mdir, t, set_events):
    """A table's metrics, parsed and resolved: (kept [(row, ast)], left_out [(name, reason)])."""
    path = os.path.join(mdir, t["key"] + ".csv")
    names = {e["name"].upper() for e in set_events}
    slots_fixed = any(e["name"] == TOPDOWN_SLOTS and e["fixed"] == TOPDOWN_SLOTS_FIXED for e in set_events)
    kept, left, seen = [], [], set()
    level1, asts = set(), {}
    for n, r in read_rows(path, METRIC_COLUMNS):
        where = f"{path}:{n}"
        if not NAME_RE.match(r["name"]) or len(r["name"]) > NAME_MAX or r["name"] in seen:
            raise DataError(f"{where}: metric name '{r['name']}' must be 1..{NAME_MAX} of A-Z a-z 0-9 _ %, once")
        seen.add(r["name"])
        if r["level"] not in ("1", "2"):
            raise DataError(f"{where}: level must be 1 or 2")
        if r["unit"] not in UNITS:
            raise DataError(f"{where}: unit '{r['unit']}' is not one of {UNITS}")
        if r["level"] == "1" and r["parent"]:
            raise DataError(f"{where}: a level 1 metric has no parent")
        if r["level"] == "2" and r["parent"] not in level1:
            raise DataError(f"{where}: parent '{r['parent']}' is not a level 1 metric above it")
        if r["level"] == "1":
            level1.add(r["name"])
        if r["formula"] == NA:
            left.append((r["name"], "the vendor gives no formula for this core (#NA)"))
            continue
        try:
            ast = inline_metrics(parse(r["formula"], where), asts, where)
        except LeftOut as e:
            left.append((r["name"], str(e)))
            continue
        why = []
        for text in inputs_of(ast, []):
            inp = Input(text, where)
            w = resolve(inp, names, slots_fixed)
            if w and w not in why:
                why.append(w)
        if why:
            left.append((r["name"], "; ".join(why)))
            continue
        kept.append((dict(r, where=where), ast))
        asts[r["name"]] = ast
    return kept, left


class LeftOut(Exception):
    pass


def inline_metrics(x, asts, where):
    """{metric:NAME}: the formula of NAME, a metric above it in the same table."""
    if x[0] == "input" and x[1].startswith("metric:"):
        name = x[1][len("metric:"):].strip()
        if name not in asts:
            raise LeftOut(f"it uses metric {name}, which is not above it or was left out")
        return asts[name]
    return (x[0],) + tuple(inline_metrics(c, asts, where) if isinstance(c, tuple) else c for c in x[1:])


class Strings:
    """Names, token-coded: each string a run of token codes ended by 0 (metrics_table.h, "Names")."""
    TOKEN = re.compile(r"[^._:|,= ]+[._:|,= ]?|[._:|,= ]")
    ONE_BYTE = 0xDF          # codes 1..ONE_BYTE are tokens 0..ONE_BYTE-1; a byte above starts a two-byte code
    TWO_BYTE_LEAD = 0xE0

    def __init__(self):
        self.order, self.at = [""], {"": 0}

    def add(self, s):
        if s not in self.at:
            self.at[s] = len(self.order)
            self.order.append(s)
        return self.at[s]

    def pack(self):
        """Token texts (NUL-separated) with their offsets, the code stream, and each string's offset in it."""
        counts = {}
        for s in self.order:
            for t in self.TOKEN.findall(s):
                counts[t] = counts.get(t, 0) + 1
        tokens = sorted(counts, key=lambda t: (-counts[t], t))
        rank = {t: i for i, t in enumerate(tokens)}
        text, tok_off = bytearray(), []
        for t in tokens:
            tok_off.append(len(text))
            text += t.encode("ascii") + b"\0"
        codes, str_off = bytearray(), []
        for s in self.order:
            str_off.append(len(codes))
            for t in self.TOKEN.findall(s):
                r = rank[t]
                if r < self.ONE_BYTE:
                    codes.append(r + 1)
                else:
                    r -= self.ONE_BYTE
                    if r >> 13:
                        raise DataError("too many name tokens for two-byte codes")
                    codes += bytes([self.TWO_BYTE_LEAD | r >> 8, r & 0xFF])
            codes.append(0)
        if len(text) > STR_MAX or len(codes) > STR_MAX:
            raise DataError("the name pools outgrew 64 KiB: widen the offsets")
        return text, tok_off, codes, str_off


def compile_all(root):
    mdir, edir = os.path.join(root, "metrics"), root
    tables = read_tables(mdir)
    sets = load_vocab(edir)
    dag, strs = Dag(), Strings()
    metrics, metric_index, out_tables = [], {}, []
    units = {u: i for i, u in enumerate(UNITS)}
    for t in tables:
        if t["key"] not in sets:
            raise DataError(f"{t['where']}: '{t['key']}' is not an event set (events/sets.csv)")
        path = os.path.join(mdir, t["key"] + ".csv")
        if not os.path.exists(path):
            raise DataError(f"{path}: missing; run `python3 tools/gen_metrics.py --import` (needs ../shared)")
        kept, left = read_table_metrics(mdir, t, sets[t["key"]])
        if not kept:
            raise DataError(f"{t['where']}: no metric of the table resolves against the event set")
        ids = []
        for r, ast in kept:
            root_node = dag.build(ast, r["where"])
            rec = (strs.add(r["name"]), root_node, int(r["level"]), strs.add(r["parent"]), units[r["unit"]])
            if rec not in metric_index:
                metric_index[rec] = len(metrics)
                metrics.append(rec)
            ids.append(metric_index[rec])
        out_tables.append({"key": t["key"], "source": t["source"], "width": int(t["width"]), "ids": ids, "left": left,
                           "names": [r["name"] for r, _ in kept]})
    for inp in dag.inputs:
        inp.str = strs.add(inp.const if inp.kind == "CONST" else inp.name)
        inp.spec_str = inp.str if inp.kind == "CONST" else strs.add(inp.spec)
    for t in out_tables:
        t["key_str"], t["source_str"] = strs.add(t["key"]), strs.add(t["source"])
    for what, n in (("nodes", len(dag.nodes)), ("inputs", len(dag.inputs)), ("literals", len(dag.numbers))):
        if n >= 1 << REF_INDEX_BITS:
            raise DataError(f"{n} {what}: more than a {REF_INDEX_BITS}-bit reference index holds")
    memo = {}
    depth = max(dag.depth(m[1], memo) for m in metrics)
    return {"tables": out_tables, "dag": dag, "strs": strs, "metrics": metrics, "depth": depth}


# The tables as pmu/metrics/metrics_table.h declares them, for the bytes stored in the blob: little-endian,
# each field at its natural alignment (the SysV x86-64 ABI), bit fields filling their word from bit 0 in
# declaration order; the generated file asserts every size and order.
TABLE_ALIGN = 8                               # metrics_table.h MT_TABLE_ALIGN (struct mnum holds a uint64_t)
NODE_FIELDS = [("op", 4), ("a", NODE_REF_BITS), ("b", NODE_REF_BITS)]      # struct mt_node, one uint32_t
NUMBER_FMT = "<QiB3x"                         # struct mnum: m, e, neg, padded to its 8-byte alignment
INPUT_FMT = "<HHBB"                           # struct mt_input: name, spec, kind, arg
METRIC_FMT = "<HHH"                           # struct mt_metric: name; root:14 unit:2; parent:15 level2:1
METRIC_ROOT_BITS, METRIC_PARENT_BITS = NODE_REF_BITS, 15
TABLE_FMT = "<HHHH"                           # struct metrics_table: key, source, first, n
INPUT_KINDS = ["EVENT", "TD", "RETLAT", "CONST"]                   # MT_IN_* in order
CONST_ARGS = ["SMT", "THREADS", "TSC", "DURATION_MS", CONST_SYSTEM]  # MT_CONST_* in order
STRUCT_SIZES = {"struct mt_node": 4, "struct mnum": struct.calcsize(NUMBER_FMT),
                "struct mt_input": struct.calcsize(INPUT_FMT), "struct mt_metric": struct.calcsize(METRIC_FMT),
                "struct metrics_table": struct.calcsize(TABLE_FMT)}
FIELD_OFFSETS = {("struct mnum", "e"): 8, ("struct mnum", "neg"): 12, ("struct mt_input", "kind"): 4,
                 ("struct mt_input", "arg"): 5, ("struct metrics_table", "n"): 6}


def pack(fmt, rows):
    return lzpack.pack_rows(fmt, rows, DataError)


def pack_tables(c, text, tok_off, codes, str_off):
    """The tables as bytes, in metrics_table.h's layouts: [(name, C type, bytes, stride, delta)].  Byte
    planes of each struct's size put like fields side by side; rising offsets are stored as differences."""
    dag, code = c["dag"], Dag.code
    nodes = [OPS.index(op) | code(a) << 4 | code(b) << (4 + NODE_REF_BITS) for op, a, b in dag.nodes]
    inputs = [(str_off[i.str], str_off[i.spec_str], INPUT_KINDS.index(i.kind),
               CONST_ARGS.index(i.arg) if i.kind == "CONST" else int(i.arg)) for i in dag.inputs]
    metrics = []
    for name, root, level, parent, unit in c["metrics"]:
        if str_off[parent] >> METRIC_PARENT_BITS:
            raise DataError("name codes past 32 KiB: mt_metric.parent has 15 bits")
        metrics.append((str_off[name], code(root) | unit << METRIC_ROOT_BITS,
                        str_off[parent] | (level - 1) << METRIC_PARENT_BITS))
    lists, tables = [], []
    for t in c["tables"]:
        tables.append((str_off[t["key_str"]], str_off[t["source_str"]], len(lists), len(t["ids"])))
        lists += t["ids"]
    if len(lists) > 0xFFFF:
        raise DataError("the metric lists passed 16-bit offsets")
    return [
        ("mt_nodes", "struct mt_node", pack("<I", [(n,) for n in nodes]), 4, False),
        ("mt_numbers", "struct mnum", pack(NUMBER_FMT, [(m, e, 0) for m, e, _ in dag.numbers]),
         struct.calcsize(NUMBER_FMT), False),
        ("mt_inputs", "struct mt_input", pack(INPUT_FMT, inputs), struct.calcsize(INPUT_FMT), False),
        ("mt_metrics", "struct mt_metric", pack(METRIC_FMT, metrics), struct.calcsize(METRIC_FMT), False),
        ("mt_lists", "uint16_t", pack("<H", [(x,) for x in lists]), 2, False),
        ("mt_tables", "struct metrics_table", pack(TABLE_FMT, tables), struct.calcsize(TABLE_FMT), True),
        ("mt_token_at", "uint16_t", pack("<H", [(x,) for x in tok_off]), 2, True),
        ("mt_token_text", "char", bytes(text), 1, False),
        ("mt_codes", "uint8_t", bytes(codes), 1, False),
    ]


def emit(c):
    dag, strs = c["dag"], c["strs"]
    text, tok_off, codes, str_off = strs.pack()
    o = ["/* Generated by tools/gen_metrics.py from events/metrics/ - do not edit.  pmu/metrics/metrics_table.h */",
         '#include "pmu/metrics/metrics_table.h"', ""]
    for i, op in enumerate(OPS):
        o.append(f"_Static_assert(MT_{op} == {i}, \"enum mt_op: tools/gen_metrics.py OPS\");")
    for i, k in enumerate(INPUT_KINDS):
        o.append(f"_Static_assert(MT_IN_{k} == {i}, \"MT_IN_*: tools/gen_metrics.py INPUT_KINDS\");")
    for i, k in enumerate(CONST_ARGS):
        o.append(f"_Static_assert(MT_CONST_{k} == {i}, \"MT_CONST_*: tools/gen_metrics.py CONST_ARGS\");")
    o.append(f"_Static_assert(MT_REF_BITS == {NODE_REF_BITS} && MT_REF_INDEX_BITS == {REF_INDEX_BITS}, "
             f"\"mt_node: tools/gen_metrics.py\");")
    o.append(f"_Static_assert(MT_REF_NODE == {REF_NODE} && MT_REF_INPUT == {REF_INPUT} && MT_REF_NUMBER == {REF_NUMBER}, "
             f"\"MT_REF_*: tools/gen_metrics.py\");")
    o.append(f"_Static_assert(MT_MAX_DEPTH >= {c['depth']}, \"the deepest formula: raise MT_MAX_DEPTH\");")
    o.append(f"_Static_assert(MT_TOKEN_ONE_BYTE == {Strings.ONE_BYTE} && MT_TOKEN_TWO_BYTE_LEAD == "
             f"{Strings.TWO_BYTE_LEAD}, \"name codes: tools/gen_metrics.py Strings\");")
    o.append(f"_Static_assert(METRIC_NAME_MAX > {max(len(x) for x in strs.order)}, \"the longest name\");")
    o.append(f"_Static_assert(MT_TABLE_ALIGN == {TABLE_ALIGN}, \"tools/gen_metrics.py TABLE_ALIGN\");")
    o += lzpack.layout_asserts(STRUCT_SIZES, FIELD_OFFSETS, "tools/gen_metrics.py")
    o.append("")
    o.append(f"/* {len(dag.nodes)} nodes, {len(dag.inputs)} inputs and {len(dag.numbers)} literals for "
             f"{sum(len(t['ids']) for t in c['tables'])} metrics of {len(c['tables'])} tables ({len(c['metrics'])} "
             f"distinct); formulas at most {c['depth']} deep; names in {len(tok_off)} tokens. */")
    blob, place = lzpack.Blob(), []
    for name, ctype, data, stride, delta in pack_tables(c, text, tok_off, codes, str_off):
        place.append((name, ctype, blob.add(name, data, TABLE_ALIGN, stride, delta)))
    o += blob.emit_c("mt_blob")
    o.append("")
    o += lzpack.place_function("mt_tables_place", place)
    o.append("")
    for name, n in (("mt_node_count", len(dag.nodes)), ("mt_number_count", len(dag.numbers)),
                    ("mt_input_count", len(dag.inputs)), ("mt_table_count", len(c["tables"])),
                    ("mt_token_count", len(tok_off)), ("mt_codes_size", len(codes))):
        o.append(f"const uint16_t {name} = {n};")
    o.append("/* Each table's pipeline width (tables.csv `width`), in mt_tables' order. */")
    o.append(f"const uint8_t mt_table_width[] = {{ {', '.join(str(t['width']) for t in c['tables'])} }};")
    o.append("")
    o.append("/* What the blob holds, for whoever reads this file: the literals, the inputs { name, spec, kind, arg }")
    o.append(" * and each table's metrics (`tools/gen_metrics.py --list KEY` gives a table with its inputs).")
    for m, e, t in dag.numbers:
        o.append(f" *   literal {m:#x} x 2^{e} = {t}")
    for i in dag.inputs:
        o.append(f" *   input {i.name.replace('*/', '* /')}: counts {i.spec.replace('*/', '* /')} ({i.kind} {i.arg})")
    for t in c["tables"]:
        o.append(f" *   table {t['key']} ({t['source']}), {len(t['names'])} metrics:")
        o += [f" *     {', '.join(t['names'][i:i + 5])}" for i in range(0, len(t["names"]), 5)]
    o.append(" */")
    o.append("")
    o.append("/* Left out (the table's event set lacks what they name), host only:")
    for t in c["tables"]:
        for name, why in t["left"]:
            o.append(f" *   {t['key']}: {name}: {why.replace('*/', '* /')}")
    o.append(" */")
    o.append("#ifdef PMUBOOT_HOSTED")
    o.append("const struct mt_left_out mt_left_out[] = {")
    for ti, t in enumerate(c["tables"]):
        for name, why in t["left"]:
            o.append(f"\t{{ {ti}, {gen_events.c_str(name)}, {gen_events.c_str(why)} }},")
    o.append("\t{ 0, NULL, NULL }")
    o.append("};")
    o.append("#endif")
    return "\n".join(o) + "\n"


def listing(c, key):
    """One table as JSON: each metric with its level, parent, unit and inputs; the left-out ones."""
    t = next((t for t in c["tables"] if t["key"] == key), None)
    if t is None:
        raise DataError(f"no table '{key}'")
    dag, order = c["dag"], c["strs"].order
    out = []
    for mid in t["ids"]:
        name, root, level, parent, unit = c["metrics"][mid]
        out.append({"name": order[name], "level": level, "parent": order[parent], "unit": UNITS[unit],
                    "inputs": sorted(dag.inputs_of(root, set()))})
    return {"key": key, "source": t["source"], "metrics": out, "left_out": dict(t["left"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--import", dest="do_import", action="store_true", help="import the vendor files")
    what.add_argument("--out", help="C file to write: the metric tables")
    what.add_argument("--list", metavar="KEY", help="print one compiled table as JSON")
    ap.add_argument("--dir", default=os.path.join(ROOT, "events"), help="the events folder (metrics/ inside)")
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(ROOT), "shared"),
                    help="the shared folder with vendor-events/ (--import)")
    ap.add_argument("--import-to", help="--import: write the tables here instead of events/metrics/")
    a = ap.parse_args()
    try:
        if a.do_import:
            if not os.path.isdir(os.path.join(a.shared, "vendor-events")):
                raise DataError(f"{a.shared}/vendor-events: not found (--shared)")
            do_import(a.shared, os.path.join(a.dir, "metrics"), a.import_to)
            return 0
        c = compile_all(a.dir)
        if a.list:
            print(json.dumps(listing(c, a.list), indent=1, sort_keys=True))
            return 0
        text = emit(c)
    except (DataError, OSError, ValueError, KeyError) as e:
        print(f"gen_metrics: {e}", file=sys.stderr)
        return 1
    gen_events.write_generated(a.out, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
