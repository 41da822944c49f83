"""The instruction table (issue 31): a run's `instr` records read, checked and compared.

One `instr` record per instruction form (docs/results-format.md, "instr"): its `asm` name, the latency
of each input->output operand pair, the reciprocal throughput, the uops and ports, and `why` when it was
not measured.  Every figure is a median in cycles with the spread and `unstable` of a `bench` figure.

A record that does not hold (no `asm`, `latency` not a list, `cycles` not a number, a `bound` that is
none of exact/upper/lower ...) is not used and becomes a problem naming its run, its line and what is
wrong; the other records are used.  Nothing here raises on a record's content.

Two runs' figures are told apart beyond their noise by one rule (differ()), used by `pmucap compare`
and the collector's SKU page:

- latency: |B - A| > max(LATENCY_ABS cycles, LATENCY_REL x the smaller of |A|, |B|), and
- throughput: |B - A| > max(THROUGHPUT_ABS cycles, THROUGHPUT_REL x the smaller), and in both cases
- |B - A| > the spread of A and > the spread of B (a figure's spread: q3 - q1; without quartiles
  max - min; without either 0).
The tolerances are the issue's accuracy and repeatability tolerances.  Taking the smaller figure makes
the rule symmetric (A against B lists what B against A lists).  A figure that is `unstable` on either
side is reported as unstable, never as a difference; two figures whose `bound` differs (exact against
upper) are reported as such, not as a difference; a figure measured in one run only says so.
"""
import argparse
import math
import re

from .capture import _is_int, type_name
from .capture import _short as short_json

RECORD_TYPE = "instr"
BOUNDS = ("exact", "upper", "lower")
LATENCY_ABS, LATENCY_REL = 0.15, 0.07
THROUGHPUT_ABS, THROUGHPUT_REL = 0.05, 0.15
# A figure's spread, as a `bench` figure names its fields (docs/results-format.md, "bench").
SPREAD_NUMBERS = ("min", "q1", "q3", "max", "mad")
SPREAD_INTS = ("n", "outliers")
# Operand kinds of a canonical asm name that are registers (instr/catalogue.h's kinds).
REGISTER_KINDS = frozenset(("r8", "r16", "r32", "r64", "mm", "xmm", "ymm", "zmm", "k", "cl"))
# Implicit operands are named by their register (rax, xmm0, k0, st0...); `flags` and `opN.addr` are not.
IMPLICIT_REGISTER_RE = re.compile(r"(r[a-z0-9]+|e[a-z]{2}|[a-d][lhx]|[sd]il?|[bs]pl?|[xyz]?mm\d+|k[0-7]|st\d?)")
EXPLICIT_RE = re.compile(r"op([1-9]\d?)")
KIND_RE = re.compile(r"[a-z]+\d*")
# Where a figure's status words come from: one run's figure against another's.
DIFFERS, UNSTABLE, BOUND, ONE_RUN, SAME = "differs", "unstable", "bound", "one run", "same"


class Bad(Exception):
    """What is wrong with a record: str() names the field."""


def _short(v, limit=24):
    return short_json(v, limit)


def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _wrong(path, v, expected):
    return Bad(f"field {path} is {type_name(v)} {_short(v)}, expected {expected}")


def _opt(obj, key, check, expected, path):
    v = obj.get(key)
    if v is not None and not check(v):
        raise _wrong(path, v, expected)
    return v


def _text(obj, key, path):
    return _opt(obj, key, lambda v: isinstance(v, str), "a string", path)


class Figure:
    """One figure: a latency pair's or the throughput's cycles, with its spread and stability."""
    __slots__ = ("what", "src", "dst", "via", "how", "cycles", "bound", "spread", "unstable", "why", "chain",
                 "chain_rate")

    def __init__(self, what):
        self.what = what
        self.src = self.dst = self.via = self.how = self.cycles = self.unstable = self.why = self.chain = None
        self.chain_rate = None  # a latency the renamer resolved: cycles 0, the chain's rate (results-format.md)
        self.bound = "exact"
        self.spread = {}

    @property
    def noise(self):
        """The spread differ() holds a change against: q3 - q1, else max - min, else 0."""
        s = self.spread
        if s.get("q1") is not None and s.get("q3") is not None:
            return abs(s["q3"] - s["q1"])
        if s.get("min") is not None and s.get("max") is not None:
            return abs(s["max"] - s["min"])
        return 0.0

    def text(self):
        """The figure as the table shows it: `1.00`, `<=3.00` (an upper bound), `>=9.00`, `~` when unstable,
        `0.00r` when the renamer resolved the chain (chain_rate)."""
        if self.cycles is None:
            return "-"
        mark = {"upper": "<=", "lower": ">="}.get(self.bound, "")
        return f"{mark}{self.cycles:.2f}" + ("r" if self.chain_rate is not None else "") + \
            ("~" if self.unstable else "")


def _spread(obj, path):
    """A figure's spread: its `spread` object, or the same fields beside `cycles` (as a bench figure has them)."""
    src = obj.get("spread")
    where = f"{path}.spread"
    if src is None:
        src, where = obj, path
    elif not isinstance(src, dict):
        raise _wrong(where, src, "an object")
    out = {}
    for k in SPREAD_NUMBERS:
        v = _opt(src, k, _is_num, "a number", f"{where}.{k}")
        if v is not None:
            out[k] = float(v)
    for k in SPREAD_INTS:
        v = _opt(src, k, _is_int, "an integer", f"{where}.{k}")
        if v is not None:
            out[k] = v
    return out


def _figure(obj, what, path):
    f = Figure(what)
    cycles = obj.get("cycles")
    if isinstance(cycles, dict):
        # A bench figure ({median, min, q1, q3, max, n}) where the number is expected: its median, its spread.
        med = _opt(cycles, "median", _is_num, "a number", f"{path}.cycles.median")
        if med is None:
            raise Bad(f"field {path}.cycles has no median")
        obj = dict(obj, cycles=med, spread=obj.get("spread") or {k: v for k, v in cycles.items() if k != "median"})
    f.cycles = _opt(obj, "cycles", _is_num, "a number", f"{path}.cycles")
    if f.cycles is not None:
        f.cycles = float(f.cycles)
    bound = _text(obj, "bound", f"{path}.bound")
    if bound is not None:
        if bound not in BOUNDS:
            raise Bad(f"field {path}.bound is {_short(bound)}, expected one of {', '.join(BOUNDS)}")
        f.bound = bound
    unstable = obj.get("unstable")
    if unstable is not None and not isinstance(unstable, (str, bool)):
        raise _wrong(f"{path}.unstable", unstable, "a string (why) or null")
    f.unstable = ("unstable" if unstable is True else unstable) or None
    f.why = _text(obj, "why", f"{path}.why")
    f.spread = _spread(obj, path)
    return f


class Form:
    """One instr record, checked."""
    __slots__ = ("cpu", "asm", "iform", "extension", "isa_set", "latency", "throughput", "uops", "ports",
                 "why", "emulated", "line", "run", "fault", "idiom", "values", "kinds", "key", "label", "uops_why",
                 "ports_why")

    def largest_register_pair(self):
        """The latency pair marked in the table: the largest figure between two registers, or None."""
        best = None
        for f in self.latency:
            if f.cycles is not None and self.is_register(f.src) and self.is_register(f.dst):
                if best is None or f.cycles > best.cycles:
                    best = f
        return best

    def is_register(self, name):
        m = EXPLICIT_RE.fullmatch(name or "")
        if m:
            n = int(m.group(1))
            return n <= len(self.kinds) and self.kinds[n - 1] in REGISTER_KINDS
        return bool(IMPLICIT_REGISTER_RE.fullmatch(name or ""))

    def figures(self):
        """(what, Figure) for every figure: each latency pair (`latency op2->op1`), then the throughput."""
        out = [(f.what, f) for f in self.latency]
        if self.throughput is not None:
            out.append(("throughput", self.throughput))
        return out

    def uops_text(self):
        u = self.uops
        if isinstance(u, dict):
            return " ".join(f"{k} {v:g}" if _is_num(v) else f"{k} -" for k, v in u.items()) or "-"
        return "-" if u is None else f"{u:g}"

    def ports_text(self):
        p = self.ports
        if isinstance(p, dict):
            return " ".join(f"{k}:{v:g}" if _is_num(v) else f"{k}:-" for k, v in p.items()) or "-"
        return "-" if p is None else p


def operand_kinds(asm):
    """The kinds of a canonical asm name's explicit operands, in order (`zmm{k}` is a zmm)."""
    _, _, ops = asm.strip().partition(" ")
    out = []
    for tok in ops.split(","):
        m = KIND_RE.match(tok.strip())
        out.append(m.group() if m else "")
    return out if ops.strip() else []


def _cpu(rec):
    v = rec.get("cpu")
    if v is None or _is_int(v):
        return v
    if isinstance(v, dict):
        n = v.get("n")
        if n is None or _is_int(n):
            return n
        raise _wrong("cpu.n", n, "an integer")
    raise _wrong("cpu", v, "an integer or an object")


def _numbers_or_text(rec, key, text_ok):
    v = rec.get(key)
    if v is None or _is_num(v) or (text_ok and isinstance(v, str)):
        return v
    if isinstance(v, dict):
        for k, x in v.items():
            if x is not None and not _is_num(x):
                raise _wrong(f"{key}.{k}", x, "a number")
        return v
    raise _wrong(key, v, "a number, an object of numbers" + (", a string" if text_ok else "") + " or null")


def _named(rec, key, name):
    """A field that is a string, or an object whose `name` field (a string) names it: that string, or None."""
    v = rec.get(key)
    if isinstance(v, dict):
        return _text(v, name, f"{key}.{name}")
    return _text(rec, key, key)


def check(rec):
    """The Form of an instr record, or raise Bad naming the field that is wrong."""
    f = Form()
    asm = rec.get("asm")
    if asm is None:
        raise Bad("no asm (the form's name)")
    if not isinstance(asm, str) or not asm.strip():
        raise _wrong("asm", asm, "a form's name (a non-empty string)")
    f.asm = asm
    f.kinds = operand_kinds(asm)
    f.cpu = _cpu(rec)
    for k in ("iform", "extension", "isa_set", "why", "uops_why", "ports_why"):
        setattr(f, k, _text(rec, k, k))
    # pmuboot writes fault and idiom as objects ({name, vector...}, {kind, latency...}) and values as a
    # sentence; a word or an object of operand values is read too.
    f.fault = _named(rec, "fault", "name")
    f.idiom = _named(rec, "idiom", "kind")
    f.emulated = bool(_opt(rec, "emulated", lambda v: isinstance(v, bool), "true or false", "emulated"))
    f.values = _opt(rec, "values", lambda v: isinstance(v, (dict, str)), "an object or a string", "values")
    lat = rec.get("latency")
    if lat is not None and not isinstance(lat, list):
        raise _wrong("latency", lat, "a list of operand pairs (or null)")
    f.latency = []
    for i, e in enumerate(lat or []):
        path = f"latency[{i}]"
        if not isinstance(e, dict):
            raise _wrong(path, e, "an object")
        src, dst = e.get("from"), e.get("to")
        for k, v in (("from", src), ("to", dst)):
            if not isinstance(v, str) or not v:
                raise _wrong(f"{path}.{k}", v, "an operand name (op1, flags, rax, op2.addr...)")
        fig = _figure(e, f"latency {src}->{dst}", path)
        fig.src, fig.dst = src, dst
        fig.via = _text(e, "via", f"{path}.via")
        rate = _opt(e, "chain_rate", _is_num, "a number (cycles per instruction) or null", f"{path}.chain_rate")
        fig.chain_rate = None if rate is None else float(rate)
        f.latency.append(fig)
    tp = rec.get("throughput")
    if tp is not None and not isinstance(tp, dict):
        raise _wrong("throughput", tp, "an object (or null)")
    f.throughput = None
    if tp is not None:
        f.throughput = _figure(tp, "throughput", "throughput")
        f.throughput.how = _text(tp, "how", "throughput.how")
        f.throughput.chain = _text(tp, "chain", "throughput.chain")
    f.uops = _numbers_or_text(rec, "uops", False)
    f.ports = _numbers_or_text(rec, "ports", True)
    return f


class Table:
    """A run's instruction table: its forms (capture order) and the records that could not be used."""

    def __init__(self, forms, problems):
        self.forms = forms
        self.problems = problems

    @property
    def any(self):
        return bool(self.forms or self.problems)

    def by_key(self):
        return {f.key: f for f in self.forms}


def match_pattern(text):
    """An argparse type: --match's regular expression (Python's re), compiled; a bad one is refused naming what
    is wrong and where."""
    try:
        return re.compile(text)
    except re.error as e:
        raise argparse.ArgumentTypeError(f"{text!r} is not a regular expression: {e}") from None


def only(table, pattern):
    """The Table of table's forms whose asm name pattern (compiled) finds, its problems kept."""
    return Table([f for f in table.forms if pattern.search(f.asm)], table.problems)


def read(run):
    """The Table of a capture.Run's instr records.  A record that does not hold is no form but a problem: its
    run, line and (when it has one) asm name, and what is wrong ("run 1, line 7: instr record "AND r64, r64":
    field latency is an object ..., expected a list of operand pairs (or null)")."""
    forms, problems, seen = [], [], {}
    for _, rec in run.records:
        if rec.get("type") != RECORD_TYPE:
            continue
        where = rec.where() if hasattr(rec, "where") else "instr record"
        try:
            f = check(rec)
        except Bad as e:
            name = rec.get("asm")
            named = f" {_short(name, 60)}" if isinstance(name, str) and name.strip() else ""
            problems.append(f"{where}{named}: {e}")
            continue
        f.line, f.run = getattr(rec, "line", 0), getattr(rec, "run", None)
        f.key = (f.cpu, f.asm, f.iform)
        if f.key in seen:
            problems.append(f"{where} {_short(f.asm, 60)}: the same form ({f.iform or 'no iform'}) was given on "
                            f"line {seen[f.key]}")
            continue
        seen[f.key] = f.line
        forms.append(f)
    cpus = {f.cpu for f in forms}
    multi = len(cpus) > 1
    names = {}
    for f in forms:
        names[(f.cpu, f.asm)] = names.get((f.cpu, f.asm), 0) + 1
    for f in forms:
        if not multi:
            f.key = (None, f.asm, f.iform)
        f.label = (f"{f.cpu}:" if multi and f.cpu is not None else "") + f.asm \
            + (f" ({f.iform})" if names[(f.cpu, f.asm)] > 1 and f.iform else "")
    return Table(forms, problems)


# --- two runs' figures ---

def tolerance(what, a, b):
    """The least change differ() calls a difference between figures a and b (cycles), before their spreads."""
    absolute, rel = (THROUGHPUT_ABS, THROUGHPUT_REL) if what == "throughput" else (LATENCY_ABS, LATENCY_REL)
    return max(absolute, rel * min(abs(a), abs(b)))


def apart_values(what, values):
    """Whether the lowest and the highest of values (cycles, None where not measured) of one figure `what`,
    in several runs or machines, are further apart than the tolerance, their spreads aside; True with fewer
    than two measured (nothing says they agree).  What lists an unstable figure only when it may hide a
    difference."""
    measured = [v for v in values if v is not None]
    if len(measured) < 2:
        return True
    lo, hi = min(measured), max(measured)
    return hi - lo > tolerance(what, lo, hi)


def apart(figs):
    """apart_values of Figures (None for a run without the figure)."""
    figs = [f for f in figs if f is not None]
    return apart_values(figs[0].what if figs else "", [f.cycles for f in figs])


def differ(fa, fb):
    """How figure fb stands against fa: SAME, DIFFERS, UNSTABLE, BOUND or ONE_RUN (the module's rule)."""
    if fa.cycles is None and fb.cycles is None:
        return SAME
    if fa.cycles is None or fb.cycles is None:
        return ONE_RUN
    if fa.unstable or fb.unstable:
        return UNSTABLE
    if fa.bound != fb.bound:
        return BOUND
    d = abs(fb.cycles - fa.cycles)
    if d > tolerance(fa.what, fa.cycles, fb.cycles) and d > fa.noise and d > fb.noise:
        return DIFFERS
    return SAME


def _figure_map(form):
    return {(f.what, f.via if f.src else None): f for _, f in form.figures()}


def compare(ta, tb):
    """Two Tables' forms figure by figure: {"rows": [row], "counts": {...}}.

    A row is {"form", "what", "status", "a", "b"} (Figures, None for a side without the figure) for every
    figure that is not SAME; forms in one run only are rows with what None and status "only in A"/"only in B"."""
    a, b = ta.by_key(), tb.by_key()
    rows = []
    counts = {"forms_a": len(a), "forms_b": len(b), "both": 0, "compared": 0, DIFFERS: 0, UNSTABLE: 0, BOUND: 0,
              ONE_RUN: 0, "only in A": 0, "only in B": 0}
    for key in list(a) + [k for k in b if k not in a]:
        fa, fb = a.get(key), b.get(key)
        if fa is None or fb is None:
            side = "only in A" if fb is None else "only in B"
            counts[side] += 1
            rows.append({"form": (fa or fb).label, "what": None, "status": side, "a": None, "b": None})
            continue
        counts["both"] += 1
        ma, mb = _figure_map(fa), _figure_map(fb)
        for k in list(ma) + [k for k in mb if k not in ma]:
            ga, gb = ma.get(k), mb.get(k)
            if ga is None or gb is None:
                status = ONE_RUN if (ga or gb).cycles is not None else SAME
            else:
                status = differ(ga, gb)
                counts["compared"] += ga.cycles is not None and gb.cycles is not None
            if status == SAME:
                continue
            counts[status] += 1
            rows.append({"form": fa.label, "what": k[0], "status": status, "a": ga, "b": gb})
    return {"rows": rows, "counts": counts}


def compare_fleet(tables):
    """The forms whose figures differ across machines ([(machine, Table)]), by differ() between the lowest and
    the highest stable figure of each: [{"form", "what", "cells": {machine: Figure}, "status"}], and counts."""
    figs, labels, order = {}, {}, []
    for machine, t in tables:
        for form in t.forms:
            for what, f in form.figures():
                k = (form.key, what, f.via)
                if k not in figs:
                    figs[k] = {}
                    order.append(k)
                    labels[k] = form.label
                figs[k][machine] = f
    rows, counts = [], {"figures": 0, DIFFERS: 0, UNSTABLE: 0}
    for k in order:
        cells = figs[k]
        measured = [f for f in cells.values() if f.cycles is not None]
        if len(measured) < 2:
            continue
        counts["figures"] += 1
        stable = [f for f in measured if not f.unstable]
        status = SAME
        if len(stable) >= 2:
            lo = min(stable, key=lambda f: f.cycles)
            hi = max(stable, key=lambda f: f.cycles)
            status = differ(lo, hi)
        if status != DIFFERS and len(stable) < len(measured):
            status = UNSTABLE
        if status in (DIFFERS, UNSTABLE):
            counts[status] += 1
            rows.append({"form": labels[k], "what": k[1], "cells": cells, "status": status})
    return {"rows": rows, "counts": counts}


def fig_json(f):
    """A Figure as JSON (compare --format json, the collector's API)."""
    if f is None:
        return None
    out = {"cycles": f.cycles, "bound": f.bound, "spread": f.spread or None, "unstable": f.unstable, "why": f.why}
    if f.src is not None:
        out.update({"from": f.src, "to": f.dst, "via": f.via})
    else:
        out.update({"how": f.how})
    return out


# --- the table as people read it (pmucap table, the collector's run page) ---

def _note(notes, text):
    if text not in notes:
        notes.append(text)
    return f"[{notes.index(text) + 1}]"


def _marks(fig, label, notes, shaky):
    """The notes a figure points to ([N]: its connecting instruction, the implicit operand that chains it, why
    it has no figure); an unstable figure goes on the unstable list."""
    marks = ""
    if fig.via:
        # An exact figure had its connector subtracted; a bound still holds it (the record's via says why).
        marks += _note(notes, f"through {fig.via}" + (", its latency measured apart and subtracted"
                                                       if fig.bound == "exact" else ""))
    if fig.chain:
        marks += _note(notes, f"an implicit operand chains the instances: {fig.chain}")
    if fig.cycles is None and fig.why:
        marks += _note(notes, fig.why)
    if fig.unstable:
        shaky.append((label, fig.what, fig.unstable))
    return marks


def unstable_text(entry):
    """An unstable figure of rows() as the table lists it: "form figure (why)"."""
    label, what, why = entry
    return f"{label} {what} ({why})"


def rows(table):
    """(rows, notes, unstable) of a Table as the instruction table shows it.

    A row is {"form", "pairs": [{"pair", "figure", "largest", "note"}], "latency" (the pairs in one cell),
    "throughput", "uops", "ports", "why", "emulated"}; notes are numbered texts the cells point to
    ([N]: a pair's connecting instruction or why it has no figure, a throughput's chain or why);
    unstable lists (form, figure, why) for every unstable figure (unstable_text() writes one), and each row's
    "unstable" its own."""
    notes, shaky, out = [], [], []
    for f in table.forms:
        first = len(shaky)
        largest = f.largest_register_pair()
        pairs = []
        for p in f.latency:
            pairs.append({"pair": f"{p.src}->{p.dst}", "figure": p.text(), "largest": p is largest,
                          "note": _marks(p, f.label, notes, shaky)})
        tp = f.throughput
        thr = "-"
        if tp is not None:
            thr = tp.text() + (f" {tp.how}" if tp.how and tp.cycles is not None else "") \
                + _marks(tp, f.label, notes, shaky)
        why = [w for w in (f.why, f"idiom: {f.idiom}" if f.idiom else None,
                           "values: " + (", ".join(f"{k}={v}" for k, v in f.values.items())
                                         if isinstance(f.values, dict) else f.values) if f.values else None,
                           "emulated" if f.emulated else None) if w]
        uops, ports = f.uops_text(), f.ports_text()
        if f.uops is None and f.uops_why:
            uops += _note(notes, f.uops_why)
        if f.ports is None and f.ports_why:
            ports += _note(notes, f.ports_why)
        out.append({"form": f.label, "pairs": pairs,
                    "latency": ", ".join(f"{p['pair']} {p['figure']}{'*' if p['largest'] else ''}{p['note']}"
                                         for p in pairs) or "-",
                    "throughput": thr, "uops": uops, "ports": ports, "why": "; ".join(why),
                    "emulated": f.emulated, "unstable": shaky[first:]})
    return out, notes, shaky


COLUMNS = (("form", "asm", "<"), ("latency", "latency (from->to cycles; * largest register pair)", "<"),
           ("throughput", "throughput", "<"), ("uops", "uops", "<"), ("ports", "ports", "<"), ("why", "why", "<"))


# The share of a column's cells its width fits; a longer cell pushes the rest of its own line right.
COLUMN_FIT = 0.95


def _column_width(cells, title):
    """A column's width: its title's, or what fits COLUMN_FIT of its cells if wider.  Padding every line to the
    longest cell made a full table's lines 836 characters (10.7 MB), for the few forms with a dozen pairs."""
    lengths = sorted(len(c) for c in cells)
    fit = lengths[max(0, math.ceil(len(lengths) * COLUMN_FIT) - 1)] if lengths else 0
    return max(len(title), fit)


def write_table(table, out, chosen=""):
    """The instruction table as text: a heading, one line per form, the notes, the unstable figures and the
    records not used.  chosen: how the forms were chosen, for the heading ("of 15686 matching 'VADDPS'")."""
    rs, notes, shaky = rows(table)
    measured = sum(1 for f in table.forms if any(g.cycles is not None for _, g in f.figures()))
    emulated = bool(table.forms) and all(f.emulated for f in table.forms)
    out.write(f"\ninstruction table: {len(table.forms)} form(s){chosen}, {measured} with a figure, "
              f"{len(table.forms) - measured} without (why says why)"
              + ("; EMULATED: times are not any silicon's" if emulated else "")
              + "; cycles, reciprocal throughput and how it was measured\n")
    if rs:
        if emulated:
            for r in rs:
                r["why"] = "; ".join(w for w in r["why"].split("; ") if w != "emulated")
        widths = {k: _column_width([r[k] for r in rs], title) for k, title, _ in COLUMNS}
        out.write("  ".join(f"{title:{al}{widths[k]}}" for k, title, al in COLUMNS).rstrip() + "\n")
        for r in rs:
            out.write("  ".join(f"{r[k]:{al}{widths[k]}}" for k, _, al in COLUMNS).rstrip() + "\n")
    for i, n in enumerate(notes, 1):
        out.write(f"[{i}] {n}\n")
    if shaky:
        # One a line: a full table has thousands (on one line they made a line of 159,000 characters).
        why = {}
        for _, _, w in shaky:
            why[w] = why.get(w, 0) + 1
        out.write(f"~ unstable: {len(shaky)} figure(s), marked ~ above ("
                  + ", ".join(f"{w} {n}" for w, n in sorted(why.items(), key=lambda kv: -kv[1])) + "):\n")
        for u in shaky:
            out.write(f"~ {unstable_text(u)}\n")
    for p in table.problems:
        out.write(f"not used: {p}\n")
