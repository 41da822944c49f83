"""Top-down analysis (issue 23): a run's `metrics` records, read, checked and shaped for table and plot.

pmuboot writes one `metrics` record per measured bench variant (controls included), after that
variant's bench record: the vendor's top-down metrics by their own names and units (Intel TMA tree
nodes and AMD pipeline utilisation in percent of slots; Info_*/Bottleneck_* in their own units).
Which metrics form the tree comes from the record itself ("levels", "parents"); only where a record
lacks one of them (or it is not an object) is it taken from KNOWN_TREE, the names the vendor files use.

What is shown per variant is its Breakdown: the level-1 classes (those that stack to 100 % of the
slots) and the dominant level-2 node.  A record that cannot be trusted is a problem named by where
it is (run, line), never a crash and never a figure: a record with no bench record to belong to,
a value that is not a number or null, a level 1 that does not sum to 100 +- SUM_TOLERANCE.  A
level-1 class that is null (with the record's reason) leaves the variant without a breakdown, but
that is the run saying "not measurable", not a problem.

No matplotlib here: cmd_table and cmd_plot draw what this module computes.
"""
from . import capture
from .capture import INT, Record, get

# --- the metrics record as pmucap reads it ---
# The record format is a draft of issue 23's C side: a renamed field is a change to this table only.
RECORD_TYPE = "metrics"
F = {
    "kernel": "kernel", "variant": "variant", "arena": "arena",   # which bench variant it belongs to
    "cpu": "cpu",               # the processor: N, or {"n": N, ...} as every record measured elsewhere carries
    "source": "source",         # the formulas' origin ("intel-perfmon skylake_metrics.json TMA 4.8")
    "values": "values",         # {metric: number or null}
    "levels": "levels",         # {metric: 1 or 2}
    "parents": "parents",       # {level-2 metric: its level-1 parent}
    "null_why": "null_why",     # {metric: why it is null}
}
# The top-level fields a command keeps of a metrics record (capture.Capture's fields=).
FIELDS = tuple(F.values())

# Level 1 must sum to 100 % of the slots within this many percentage points.  PERF_METRICS gives
# each class in 1/255ths (about 0.4 % each), and the vendor formulas clamp classes at 0 or take
# INT_MISC.UOP_DROPPING off Frontend_Bound (reference/topdown.md 2.6), so a few tenths to a couple
# of points either way are the method's; beyond this the figures are not one measurement.
SUM_TOLERANCE = 5.0
PERCENT = 100.0
# How a problem that leaves a variant without a breakdown ends.
NOT_SHOWN = ": no breakdown shown"

# Metrics the vendors put at level 1 that are not part of the tree: Intel's Info_* and Bottleneck_*
# (perfmon *_metrics.json give them Level 1 and no parent), in their own units.
NOT_TREE_PREFIXES = ("info_", "bottleneck_")

# The level-1 classes by canonical (lower-case) name: the short name the table uses, in stacking
# order.  smt_contention is AMD's fifth class (slots given to the sibling thread; Zen 4 and Zen 5).
CLASSES = {
    "frontend_bound": "FE",
    "bad_speculation": "BS",
    "backend_bound": "BE",
    "retiring": "RE",
    "smt_contention": "SMT",
}

# The fallback tree, {metric: (level, parent)}, used only for a record without "levels" or "parents".
# Intel P-cores: every perfmon <CODE>/metrics/*_metrics.json (HSW..LNL, SPR, GNR), Category TMA;
# Intel E-cores: SRF/GRR sierraforest/grandridge_metrics.json and E-core_TMA_Metrics.csv;
# AMD: Linux tools/perf/pmu-events/arch/x86/amdzen4/pipeline.json and amdzen5/pipeline.json
# (PipelineL1/PipelineL2, transcribed from the PPRs).
KNOWN_TREE = {
    # Intel, P-cores and E-cores
    "Frontend_Bound": (1, None), "Bad_Speculation": (1, None), "Backend_Bound": (1, None), "Retiring": (1, None),
    "Fetch_Latency": (2, "Frontend_Bound"), "Fetch_Bandwidth": (2, "Frontend_Bound"),
    "IFetch_Latency": (2, "Frontend_Bound"), "IFetch_Bandwidth": (2, "Frontend_Bound"),
    "Branch_Mispredicts": (2, "Bad_Speculation"), "Machine_Clears": (2, "Bad_Speculation"),
    "Memory_Bound": (2, "Backend_Bound"), "Core_Bound": (2, "Backend_Bound"), "Resource_Bound": (2, "Backend_Bound"),
    "Light_Operations": (2, "Retiring"), "Heavy_Operations": (2, "Retiring"),
    # AMD Zen 4 and Zen 5 level 1
    "frontend_bound": (1, None), "bad_speculation": (1, None), "backend_bound": (1, None),
    "smt_contention": (1, None), "retiring": (1, None),
    # Zen 4 level 2
    "frontend_bound_latency": (2, "frontend_bound"), "frontend_bound_bandwidth": (2, "frontend_bound"),
    "bad_speculation_mispredicts": (2, "bad_speculation"),
    "bad_speculation_pipeline_restarts": (2, "bad_speculation"),
    "backend_bound_memory": (2, "backend_bound"), "backend_bound_cpu": (2, "backend_bound"),
    "retiring_fastpath": (2, "retiring"), "retiring_microcode": (2, "retiring"),
    # Zen 5 level 2
    "frontend_bound_by_latency": (2, "frontend_bound"), "frontend_bound_by_bandwidth": (2, "frontend_bound"),
    "bad_speculation_from_mispredicts": (2, "bad_speculation"),
    "bad_speculation_from_pipeline_restarts": (2, "bad_speculation"),
    "backend_bound_by_memory": (2, "backend_bound"), "backend_bound_by_cpu": (2, "backend_bound"),
    "retiring_from_fastpath": (2, "retiring"), "retiring_from_microcode": (2, "retiring"),
}


def abbrev(name):
    """FE, BS, BE, RE, SMT for the known classes; the initials of another name's words."""
    return CLASSES.get(name.lower()) or "".join(w[:1] for w in name.split("_") if w).upper() or name


def stack_order(name):
    keys = list(CLASSES)
    return keys.index(name.lower()) if name.lower() in CLASSES else len(keys)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# --- one record ---

class Metrics:
    """One metrics record read: where it belongs, its numbers, its nulls and its tree."""

    def __init__(self, rec):
        self.rec = rec
        self.kernel = self.variant = self.arena = self.cpu = self.source = None
        self.values = {}      # metric: float
        self.nulls = {}       # metric: why it is null
        self.bad = {}         # metric: the problem with its value (neither a number nor null)
        self.unusable = None  # why nothing in it can be used (its problem), or None
        self.level = {}       # metric: level
        self.parent = {}      # level-2 metric: parent
        self.fallback = False  # the tree came from KNOWN_TREE

    def name(self):
        return f"{self.kernel}.{self.variant}" + (f"@{self.arena}" if self.arena else "")

    def where(self):
        w = self.rec.where() if isinstance(self.rec, Record) else f"{RECORD_TYPE} record"
        return f"{w} {self.name()}" if self.kernel is not None else w


def _string_map(rec, field, check, what, problems, where):
    """rec[field] as {metric: value} keeping only the values check() accepts; None when absent."""
    m = rec.get(F[field])
    if m is None:
        return None
    if not isinstance(m, dict):
        problems.append(f"{where}: field {F[field]} is {capture.type_name(m)}, expected an object")
        return None
    out = {}
    for k, v in m.items():
        if check(v):
            out[k] = v
        else:
            problems.append(f"{where}: {F[field]}.{k} is {capture.type_name(v)} {capture._short(v, 24)}, "
                            f"expected {what}")
    return out


def read_record(rec):
    """(Metrics or None, [problem]): one metrics record checked.  None when it names no variant; a
    record that names one but cannot be used otherwise has `unusable` set (its problem)."""
    m, problems = Metrics(rec), []
    kernel, variant = rec.get(F["kernel"]), rec.get(F["variant"])
    if not isinstance(kernel, str) or not isinstance(variant, str):
        return None, [f"{m.where()}: no kernel and variant (strings) to say which bench variant it belongs to"]
    m.kernel, m.variant = kernel, variant
    arena = rec.get(F["arena"])
    m.arena = arena if isinstance(arena, str) else None
    where = m.where()
    cpu = rec.get(F["cpu"])
    if isinstance(cpu, dict):
        cpu = cpu.get("n")
    if cpu is not None and not capture._is_int(cpu):
        return None, [f"{where}: field {F['cpu']} is {capture.type_name(cpu)} {capture._short(cpu, 24)}, "
                      "expected a processor number"]
    m.cpu = cpu
    src = rec.get(F["source"])
    m.source = src if isinstance(src, str) else None
    values = rec.get(F["values"])
    if not isinstance(values, dict):
        m.unusable = f"{where}: field {F['values']} is {capture.type_name(values)}, expected an object"
        return m, [m.unusable]
    why = _string_map(rec, "null_why", lambda v: isinstance(v, str), "a string", problems, where) or {}
    for k, v in values.items():
        if v is None:
            m.nulls[k] = why.get(k) or "no reason given"
        elif _is_number(v):
            m.values[k] = float(v)
        else:
            m.bad[k] = (f"{where}: value {k} is {capture.type_name(v)} {capture._short(v, 24)}, "
                        "expected a number or null")
            problems.append(m.bad[k])
    levels = _string_map(rec, "levels", capture._is_int, "an integer level", problems, where)
    parents = _string_map(rec, "parents", lambda v: isinstance(v, str), "a metric name", problems, where)
    # Each of the two absent (or unreadable: a problem above) is taken from the vendors' names.
    m.fallback = levels is None or parents is None
    m.level = levels if levels is not None else {k: lv for k, (lv, _) in KNOWN_TREE.items()}
    m.parent = parents if parents is not None else {k: p for k, (_, p) in KNOWN_TREE.items() if p}
    return m, problems


# --- a variant's breakdown ---

class Breakdown:
    """What is shown for one variant: level 1 in stacking order, each class's level-2 children, the
    dominant level-2 node; or why nothing is shown (why)."""

    def __init__(self, key, metrics):
        self.key, self.metrics = key, metrics
        self.level1 = []      # [(name, value)]
        self.children = {}    # level-1 name: [(name, value)]
        self.dominant = None  # (name, value, parent)
        self.why = None

    def value(self, name):
        return self.metrics.values.get(name)

    def focus(self):
        """The level-1 class to compare with the control: the dominant node's parent, else the largest."""
        if self.dominant:
            return self.dominant[2]
        return max(self.level1, key=lambda nv: nv[1])[0] if self.level1 else None


def _tree_level1(m):
    """The level-1 metrics of the tree: level 1, not Info_/Bottleneck_, and a known class or a parent."""
    parents = set(m.parent.values())
    names = [k for k in list(m.values) + list(m.nulls) + list(m.bad) if m.level.get(k) == 1
             and not k.lower().startswith(NOT_TREE_PREFIXES) and (k.lower() in CLASSES or k in parents)]
    return sorted(names, key=stack_order)


def _num(v):
    """A figure in a message: three decimals, or a short exponent form for an absurd one."""
    return f"{v:.3f}" if abs(v) < 1e6 else f"{v:.3g}"


def _in_range(v):
    return -SUM_TOLERANCE <= v <= PERCENT + SUM_TOLERANCE


def breakdown(key, m):
    """(Breakdown, [problem]) of one checked record."""
    bd, problems = Breakdown(key, m), []
    if m.unusable:
        bd.why = m.unusable
        return bd, problems
    names = _tree_level1(m)
    if not names:
        bd.why = f"{m.where()}: no level-1 top-down metric in it"
        return bd, problems
    nulls = [n for n in names if n in m.nulls]
    bad = [m.bad[n] for n in names if n in m.bad]
    if bad:
        bd.why = bad[0]   # the problem itself: one note, not two
        return bd, problems
    if nulls:
        bd.why = f"{m.where()}: " + "; ".join(f"{n} is null ({m.nulls[n]})" for n in nulls)
        return bd, problems
    level1 = [(n, m.values[n]) for n in names]
    total = sum(v for _, v in level1)
    odd = [f"{n} is {_num(v)}%, outside 0..{PERCENT:.0f} +- {SUM_TOLERANCE:g}" for n, v in level1 if not _in_range(v)]
    if abs(total - PERCENT) > SUM_TOLERANCE and not odd:
        terms = " + ".join(f"{n} {_num(v)}" for n, v in level1)
        hint = " (fractions, not percent?)" if abs(total - 1.0) <= SUM_TOLERANCE / PERCENT else ""
        odd.append(f"level 1 ({terms}) sums to {_num(total)}%{hint}, not {PERCENT:.0f} +- {SUM_TOLERANCE:g}")
    if odd:
        problems.append(f"{m.where()}: {'; '.join(odd)}{NOT_SHOWN}")
        bd.why = problems[-1]
        return bd, problems
    bd.level1 = level1
    for child, v in m.values.items():
        parent = m.parent.get(child)
        if parent not in names or m.level.get(child) != 2:
            continue
        if not _in_range(v):   # a share of the slots, like its parent: anything else is no figure
            problems.append(f"{m.where()}: {child} is {_num(v)}%, outside 0..{PERCENT:.0f} +- {SUM_TOLERANCE:g}: "
                            "not shown")
            continue
        bd.children.setdefault(parent, []).append((child, v))
    cands = [(c, v, p) for p, kids in bd.children.items() for c, v in kids]
    if cands:
        bd.dominant = max(cands, key=lambda cvp: cvp[1])
    return bd, problems


# --- a run's records ---

class TopDown:
    """A run's top-down: {bench key: Breakdown}, the problems, the sources named."""

    def __init__(self):
        self.by_key = {}
        self.problems = []
        self.sources = []
        self.records = 0
        self.fallback = 0    # records whose tree (or part of it) came from KNOWN_TREE

    @property
    def any(self):
        return self.records > 0


def _bench_identity(rec):
    return (get(rec, "kernel", capture.STR), get(rec, "variant", capture.STR))


def read(run):
    """The TopDown of a run: each metrics record checked and matched with its bench record.

    A metrics record belongs to the bench record of the same kernel, variant and processor (and
    arena, when it names one) that precedes it most closely (pmuboot writes it right after), else
    the first such one after it.  Keys are the bench table's (capture.bench_table)."""
    td = TopDown()
    multi = capture.per_cpu(run)
    index = {}   # (kernel, variant): [(line, processor, arena, key)], in capture order
    recs = capture.run_records(run)
    for rec in recs:
        if rec.get("type") == "bench":
            index.setdefault(_bench_identity(rec), []).append(
                (rec.line, get(rec, ("cpu", "n"), INT), get(rec, "arena", capture.STR),
                 capture.variant_key(rec, multi)))
    first_line = {}
    for rec in recs:
        if rec.get("type") != RECORD_TYPE:
            continue
        td.records += 1
        m, problems = read_record(rec)
        td.problems += problems
        if m is None:
            continue
        cands = [c for c in index.get((m.kernel, m.variant), [])
                 if (m.cpu is None or c[1] is None or c[1] == m.cpu) and (m.arena is None or c[2] == m.arena)]
        if not cands:
            cpu = f" on processor {m.cpu}" if m.cpu is not None else ""
            td.problems.append(f"{m.where()}: no bench record for {m.name()}{cpu} in this run")
            continue
        before = [c for c in cands if c[0] < rec.line]
        key = (before[-1] if before else cands[0])[3]
        if key in td.by_key:
            td.problems.append(f"{m.where()}: a second metrics record for {key} (the one on line "
                               f"{first_line[key]} is used)")
            continue
        first_line[key] = rec.line
        if m.source and m.source not in td.sources:
            td.sources.append(m.source)
        td.fallback += m.fallback
        bd, problems = breakdown(key, m)
        td.problems += problems
        td.by_key[key] = bd
    return td


def control_key(key, bench):
    """The bench key of bench's control (same kernel, arena and processor), or None."""
    ctl = get(bench, "control", capture.STR)
    if not ctl:
        return None
    head, sep, _ = key.partition(":")
    prefix = head + sep if sep and head.isdigit() else ""
    return prefix + capture.variant_key(bench, variant=ctl)


# --- shown as text ---

def pct(v):
    """A percentage as the table writes it: whole numbers (never "-0")."""
    return f"{round(v) + 0:d}"


def _note(notes, text):
    if text not in notes:
        notes.append(text)
    return notes.index(text) + 1


def cell(td, key, bench, notes):
    """The table's top-down cell of one variant: "FE 12 BS 1 BE 70 RE 17, Memory_Bound 60%
    (control BE 30, Memory_Bound 5%)"; "no breakdown[N]" with note N saying why; "-" without a record."""
    bd = td.by_key.get(key)
    if bd is None:
        return "-"
    if bd.why:
        return f"no breakdown[{_note(notes, bd.why)}]"
    text = " ".join(f"{abbrev(n)} {pct(v)}" for n, v in bd.level1)
    if bd.dominant:
        text += f", {bd.dominant[0]} {pct(bd.dominant[1])}%"
    ctl = td.by_key.get(control_key(key, bench)) if bench is not None else None
    if ctl is not None:
        focus = bd.focus()
        if ctl.why:
            text += f" (control: no breakdown[{_note(notes, ctl.why)}])"
        else:
            shown = [f"{abbrev(focus)} {pct(ctl.value(focus))}"] if ctl.value(focus) is not None else []
            if bd.dominant and ctl.value(bd.dominant[0]) is not None:
                shown.append(f"{bd.dominant[0]} {pct(ctl.value(bd.dominant[0]))}%")
            if shown:
                text += f" (control {', '.join(shown)})"
    return text


def summary(td):
    """One line: where the run's top-down figures come from, and how the tree was known."""
    line = "top-down: " + ("; ".join(td.sources) or "no source named")
    if td.fallback:
        line += (f" ({td.fallback} record(s) without levels or parents: their tree is pmucap's table of the "
                 "vendors' names)")
    return line


def add_notes(td, notes):
    """Every problem not yet among the table's notes, added (a record no row shows, a bad Info value)."""
    for p in td.problems:
        _note(notes, p)


# --- compared ---

def compare_rows(key, td_a, td_b):
    """pmucap compare's rows for one variant: each level-1 class both runs have a breakdown for, as a
    figure without spread (min = max = the value), never flagged (there is no spread to judge by)."""
    a, b = td_a.by_key.get(key), td_b.by_key.get(key)
    if a is None or b is None or a.why or b.why:
        return []
    rows, in_b = [], dict(b.level1)
    for name, va in a.level1:
        vb = in_b.get(name)
        if vb is None:
            continue
        rows.append({"variant": key, "metric": f"top-down {name} %", "only_in": None,
                     "a": {"median": va, "min": va, "max": va}, "b": {"median": vb, "min": vb, "max": vb},
                     "delta": vb - va, "ratio": vb / va if va else None, "flag": ""})
    return rows


# --- shown as bars ---

def segments(bd):
    """What a bar of this breakdown is made of: [(level, name, parent, left, width, value)].

    Level 1: the classes side by side from 0, each as wide as its value (a negative one, within
    SUM_TOLERANCE of 0, is drawn 0 wide: its value is still given).  Level 2: each class's children
    side by side from the class's left edge, kept within the class (a child the class cannot hold,
    where the vendor's complements are clamped, is cut at the class's edge; its value is given)."""
    out, left = [], 0.0
    for name, v in bd.level1:
        w = max(v, 0.0)
        out.append((1, name, None, left, w, v))
        x, end = left, left + w
        for child, cv in bd.children.get(name, []):
            cw = max(0.0, min(cv, end - x))
            out.append((2, child, name, x, cw, cv))
            x += cw
        left += w
    return out
