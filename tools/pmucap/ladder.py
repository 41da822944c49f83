"""The memory ladder of a run, for `table` and `plot --metric latency`.

Reads the `cache` record (the geometry CPUID gave) and the bench records of the
kernels `latency`, `tlb` and `bandwidth` (their `memory` objects;
docs/results-format.md) through capture's public functions, with every field's
type checked, so a damaged record is one clear error.
"""
from . import capture
from .capture import DICT, INT, LIST, NUM, STR, get

KERNELS = ("latency", "tlb", "bandwidth")
KIB = 1024


def is_ladder(rec):
    return get(rec, "kernel", STR) in KERNELS and get(rec, "memory", DICT) is not None


def size_text(b):
    """4096 -> '4 KiB', 2097152 -> '2 MiB', 1536 KiB stays KiB."""
    for unit, name in ((KIB ** 3, "GiB"), (KIB ** 2, "MiB"), (KIB, "KiB")):
        if b >= unit and b % unit == 0:
            return f"{b // unit} {name}"
    if b >= KIB ** 2:
        return f"{b / KIB ** 2:.1f} MiB"
    return f"{b // KIB} KiB" if b % KIB == 0 else f"{b} B"


class Level:
    """A data-side cache level of the cache record."""

    def __init__(self, level, kind, size):
        self.level, self.kind, self.size = level, kind, size

    def label(self):
        return f"L{self.level}{'d' if self.kind == 'data' else ''} {size_text(self.size)}"


def cache_levels(run, cpu=None):
    """[Level] of the run's cache record (the one of processor `cpu` when several), data and unified only."""
    recs = capture.run_records(run, "cache")
    pick = None
    for r in recs:
        n = get(r, ("cpu", "n"), INT)
        if pick is None or (cpu is not None and n == cpu):
            pick = r
    out = []
    if pick is None:
        return out
    for i, lv in enumerate(get(pick, "levels", LIST) or []):
        if not isinstance(lv, dict):
            raise capture.FieldError(f"{pick.where()}: levels[{i}] is {capture.type_name(lv)}, expected an object")
        kind = get(lv, "type", STR)
        level, size = get(lv, "level", INT), get(lv, "size", INT)
        if kind in ("data", "unified") and level and size:
            out.append(Level(level, kind, size))
    return sorted(out, key=lambda x: x.level)


class Point:
    """One ladder variant: its size, cycles and ns figures, page size, and what its memory object adds."""

    def __init__(self, rec):
        self.rec = rec
        self.kernel = get(rec, "kernel", STR)
        self.variant = get(rec, "variant", STR)
        self.size = get(rec, ("memory", "size"), INT)
        if self.size is None:   # the ladder is ordered and drawn by size: a point without one is no point
            raise capture.FieldError(f"{capture._where(rec)}: field memory.size is missing ({self.kernel}.{self.variant})")
        self.page = get(rec, "arena_page", INT)
        self.arena = get(rec, "arena", STR)
        self.cycles = capture.figure(rec, "cycles")
        self.ns = capture.figure(rec, ("memory", "ns"))
        self.unstable = get(rec, "unstable", STR)
        self.emulated = get(rec, "emulated", capture.BOOL) is True
        self.difference = get(rec, ("memory", "versus", "difference"), NUM)
        self.op = get(rec, ("memory", "op"), STR)
        self.level = get(rec, ("memory", "cache_level"), INT)
        self.bpc = get(rec, ("memory", "bytes_per_cycle", "median"), NUM)
        self.gbs = get(rec, ("memory", "gb_per_s", "median"), NUM)
        self.vector = get(rec, ("memory", "vector"), STR)
        self.cpu = get(rec, ("cpu", "n"), INT)


def points(run, kernel):
    """The run's points of one ladder kernel, in the order measured (latency and tlb: by size)."""
    out = [Point(r) for r in capture.run_records(run, "bench") if get(r, "kernel", STR) == kernel and is_ladder(r)]
    return sorted(out, key=lambda p: p.size) if kernel != "bandwidth" else out
