"""libpfm4 event headers (AMD K7 to Zen 5; Intel P6, Pentium M, Core Duo, Core 2) -> event rows.

Each event gives one row per unit mask (NAME.UMASK, libpfm4's NAME:UMASK) or, without unit
masks, one row NAME.  A unit mask from one group is combined with the default unit masks of the
event's other groups, as libpfm4 itself encodes it.  Descriptions are not read.
"""
from .cparse import Reader, ParseError
from .rows import Row, ImportError_

# libpfm4's Intel encodings put modifiers where PERFEVTSEL has them (SDM Vol.3B Figure 20-6):
# edge bit 18, inv bit 23, cmask bits 31:24; bits 15:8 of .code/.ucode are the unit mask.
PERFEVTSEL_EDGE = 1 << 18
PERFEVTSEL_INV = 1 << 23
PERFEVTSEL_CMASK_SHIFT = 24
# libpfm4's cntmsk: bit n = general counter n, bit 32+n = fixed counter n.
FIXED_CNT_SHIFT = 32

INTEL_FLAGS = ("INTEL_X86_PEBS", "INTEL_X86_FIXED", "INTEL_X86_NCOMBO", "INTEL_X86_DFL")
AMD_FLAGS = ("AMD64_FL_NCOMBO", "AMD64_FL_DFL", "AMD64_FL_OMIT")
# libpfm4's revision flags: the unit mask or event exists only on those steppings.
AMD_REV = {
    "AMD64_FL_K8_REV_D": "K8 rev D+", "AMD64_FL_K8_REV_E": "K8 rev E+", "AMD64_FL_K8_REV_F": "K8 rev F+",
    "AMD64_FL_TILL_K8_REV_C": "K8 up to rev C", "AMD64_FL_TILL_K8_REV_E": "K8 up to rev E",
    "AMD64_FL_FAM10H_REV_C": "Fam10h rev C+", "AMD64_FL_FAM10H_REV_D": "Fam10h rev D+",
    "AMD64_FL_TILL_FAM10H_REV_B": "Fam10h up to rev B", "AMD64_FL_TILL_FAM10H_REV_C": "Fam10h up to rev C",
}
# Attribute masks (.modmsk/.modhw): which modifiers libpfm4 lets a user add; not event facts.
ATTRS = ("INTEL_X86_ATTRS", "INTEL_V3_ATTRS", "INTEL_FIXED2_ATTRS", "INTEL_FIXED3_ATTRS", "_INTEL_X86_ATTR_E",
         "AMD64_BASIC_ATTRS", "AMD64_FAM10H_ATTRS", "AMD64_FAM15H_ATTRS", "AMD64_FAM17H_ATTRS",
         "AMD64_FAM19H_ATTRS", "AMD64_FAM1AH_ATTRS")

EVENT_FIELDS = {"name", "desc", "modmsk", "code", "numasks", "ngrp", "umasks", "flags", "cntmsk", "equiv"}
UMASK_FIELDS = {"uname", "udesc", "ucode", "uflags", "grpid", "uequiv", "modhw"}


def consts(amd):
    c = {n: frozenset([n]) for n in INTEL_FLAGS + AMD_FLAGS + tuple(AMD_REV)}
    c.update({n: frozenset(["attrs"]) for n in ATTRS})
    c["INTEL_X86_MOD_EDGE"] = PERFEVTSEL_EDGE
    c["INTEL_X86_MOD_INV"] = PERFEVTSEL_INV
    c["INTEL_X86_CMASK_BIT"] = PERFEVTSEL_CMASK_SHIFT
    return c


def flagset(v, where):
    if v == 0 or v is None:
        return frozenset()
    if isinstance(v, frozenset):
        return v
    raise ImportError_(f"{where}: flags {v!r} are not libpfm4 flag names")


def read(path, table, amd, left_out=None):
    """Rows of libpfm4 table `table` (e.g. amd64_fam15h_pe) in path.  Unit masks that PERF_CTL
    cannot hold (wider than 8 bits) are appended to left_out as (name, reason), not guessed at."""
    try:
        arrays = Reader(path, consts(amd)).arrays()
    except ParseError as e:
        raise ImportError_(str(e))
    if table not in arrays:
        raise ImportError_(f"{path}: no table {table}")
    rows = []
    for ev in arrays[table][1]:
        name = ev.get("name")
        where = f"{path}: event {name}"
        if not isinstance(name, str):
            raise ImportError_(f"{path}: an event without a name")
        unknown = set(ev) - EVENT_FIELDS
        if unknown:
            raise ImportError_(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        code = ev.get("code")
        if not isinstance(code, int):
            raise ImportError_(f"{where}: .code {code!r} is not a number")
        eflags = flagset(ev.get("flags"), where)
        if ev.get("modmsk") not in (None, 0) and ev.get("modmsk") != frozenset(["attrs"]):
            raise ImportError_(f"{where}: unknown .modmsk {ev.get('modmsk')!r}")
        umasks = []
        if "umasks" in ev:
            ref = ev["umasks"]
            if not (isinstance(ref, tuple) and ref[0] == "ref" and ref[1] in arrays):
                raise ImportError_(f"{where}: .umasks {ref!r} names no table in the file")
            umasks = arrays[ref[1]][1]
            if ev.get("numasks") != ("count", ref[1]):
                raise ImportError_(f"{where}: .numasks is not the size of {ref[1]}")
        base = make_row(name, code, eflags, ev.get("cntmsk"), amd, where)
        if not umasks:
            rows.append(base)
            continue
        groups = {}
        for u in umasks:
            unknown = set(u) - UMASK_FIELDS
            if unknown:
                raise ImportError_(f"{where}.{u.get('uname')}: unknown field(s) {', '.join(sorted(unknown))}")
            groups.setdefault(u.get("grpid", 0), []).append(u)
        defaults = {g: [u for u in us if "AMD64_FL_DFL" in flagset(u.get("uflags"), where) or
                        "INTEL_X86_DFL" in flagset(u.get("uflags"), where)] for g, us in groups.items()}
        for u in umasks:
            uw = f"{where}.{u.get('uname')}"
            ucode = u.get("ucode")
            if not isinstance(ucode, int) or not isinstance(u.get("uname"), str):
                raise ImportError_(f"{uw}: unit mask needs .uname and a numeric .ucode")
            uflags = flagset(u.get("uflags"), uw)
            if u.get("modhw") not in (None, frozenset(["attrs"])):
                raise ImportError_(f"{uw}: unknown .modhw {u.get('modhw')!r}")
            g = u.get("grpid", 0)
            other = 0
            for og, dfl in defaults.items():
                if og != g and dfl:
                    other |= dfl[0]["ucode"]
            full = ucode | other
            if amd and full > 0xFF:
                if left_out is None:
                    raise ImportError_(f"{uw}: unit mask {full:#x} is wider than PERF_CTL's 8 bits")
                left_out.append((f"{name}.{u['uname']}", f"unit mask {full:#x} is wider than PERF_CTL's 8 bits"))
                continue
            r = make_row(f"{name}.{u['uname']}", code, eflags | uflags, ev.get("cntmsk"), amd, uw, full)
            rows.append(r)
    return rows


def make_row(name, code, flags, cntmsk, amd, where, ucode=0):
    """ucode: the unit mask as libpfm4 writes it (AMD: the unit mask; Intel: PERFEVTSEL bits
    15:8 and modifiers, OR-ed onto .code)."""
    r = Row(name)
    if amd:
        # AMD: .code is the 12-bit event select (APM Vol.2 13.2.1: bits 35:32 and 7:0 of PERF_CTL).
        if code > 0xFFF or ucode > 0xFF:
            raise ImportError_(f"{where}: code {code:#x} / unit mask {ucode:#x} out of range")
        r.event, r.umask = code, ucode
        if cntmsk is not None:
            raise ImportError_(f"{where}: AMD tables carry no .cntmsk; the family rules give counters")
        revs = [AMD_REV[f] for f in sorted(flags) if f in AMD_REV]
        r.errata = "; ".join(revs)
    else:
        code |= ucode
        r.event = code & 0xFF
        r.umask = (code >> 8) & 0xFF
        r.edge = bool(code & PERFEVTSEL_EDGE)
        r.inv = bool(code & PERFEVTSEL_INV)
        r.cmask = (code >> PERFEVTSEL_CMASK_SHIFT) & 0xFF
        rest = code & ~(0xFFFF | PERFEVTSEL_EDGE | PERFEVTSEL_INV | (0xFF << PERFEVTSEL_CMASK_SHIFT))
        if rest:
            raise ImportError_(f"{where}: code {code:#x} sets bits this importer does not know ({rest:#x})")
        r.precise = "INTEL_X86_PEBS" in flags
        if cntmsk is not None:
            if not isinstance(cntmsk, int):
                raise ImportError_(f"{where}: .cntmsk {cntmsk!r} is not a number")
            r.counters = cntmsk & 0xFFFFFFFF
            fixed = cntmsk >> FIXED_CNT_SHIFT
            if fixed:
                if fixed & (fixed - 1):
                    raise ImportError_(f"{where}: .cntmsk {cntmsk:#x} names more than one fixed counter")
                r.fixed = fixed.bit_length() - 1
                r.fixed_only = r.counters == 0
        elif not amd:
            raise ImportError_(f"{where}: no .cntmsk")
    return r
