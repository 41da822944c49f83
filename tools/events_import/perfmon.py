"""Intel perfmon core event files (vendor-events/intel/<CODE>/events/*_core.json) -> event rows.

Every field of every event is either carried into the row, checked and dropped for a stated
reason (prose; sampling-only data), or refused: a field this importer does not know stops the
import with the file and the event, so a new perfmon field is looked at, not silently lost.
"""
import json

from .rows import Row, ImportError_

# MSRs perfmon names in MSRIndex (SDM Vol.4): the two offcore response registers, the PEBS
# load-latency threshold and the PEBS front-end event selector.
MSR_OFFCORE_RSP_0 = 0x1A6
MSR_OFFCORE_RSP_1 = 0x1A7
KNOWN_MSRS = {MSR_OFFCORE_RSP_0, MSR_OFFCORE_RSP_1, 0x3F6, 0x3F7, 0x3E0, 0x3E1, 0x3E2, 0x3E3}

CARRIED = {"EventName", "EventCode", "UMask", "UMaskExt", "CounterMask", "Invert", "EdgeDetect", "AnyThread",
           "Counter", "CounterHTOff", "PEBS", "Precise", "MSRIndex", "MSRValue", "TakenAlone", "Errata",
           "Deprecated", "Offcore", "Equal"}
# Known and deliberately not carried: the vendor's prose, and facts about sampling (PEBS record
# contents, sample-after values, PDIST/PEBS counter lists) that only a sampling driver needs.
DROPPED = {"BriefDescription", "PublicDescription", "SampleAfterValue", "CollectPEBSRecord", "PEBScounters",
           "PDISTCounter", "PDIR_COUNTER", "Data_LA", "L1_Hit_Indication", "ELLC", "PRECISE_STORE",
           "Speculative", "CounterType", "Offmodule", "ProgrammingRestriction"}


def num(v, what, where, limit):
    try:
        x = int(str(v).strip(), 0) if str(v).strip().lower().startswith("0x") else int(str(v).strip())
    except ValueError:
        raise ImportError_(f"{where}: {what} {v!r} is not a number")
    if not 0 <= x <= limit:
        raise ImportError_(f"{where}: {what} {v!r} out of range")
    return x


def num_list(v, what, where, limit):
    return [num(x, what, where, limit) for x in str(v).split(",")]


def flag(e, key, where):
    v = str(e.get(key, "0")).strip()
    if v not in ("0", "1"):
        raise ImportError_(f"{where}: {key} {v!r} is neither 0 nor 1")
    return v == "1"


def counters(text, where):
    """'0,1,2,3' -> (mask, None); 'Fixed counter N' -> (0, N)."""
    text = str(text).strip()
    if text.lower().startswith("fixed counter"):
        return 0, num(text[len("fixed counter"):], "fixed counter", where, 15)
    mask = 0
    for c in num_list(text, "counter", where, 31):
        mask |= 1 << c
    return mask, None


# perfmon's ProgrammingRestriction for an event whose unit masks each pair with one of the extra
# MSRs it lists (Nova Lake's MEM_LOAD_L2_MISS_RETIRED.*: four unit masks, MSRs 3E0H-3E3H).
PAIRED_UMASK_MSR = "MSRIndex-UMask"


def paired_forms(e, umasks, msrs):
    """True for an event that comes in one form per (unit mask, extra MSR) pair."""
    return str(e.get("ProgrammingRestriction", "")).strip() == PAIRED_UMASK_MSR and len(umasks) == len(msrs)


def read(path, left_out=None):
    """The rows of a perfmon core file.  Events it cannot represent but knows why are appended
    to left_out as (name, reason) when a list is given; without one they are refused."""
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            raise ImportError_(f"{path}: not JSON ({e})")
    if not isinstance(data, dict) or set(data) != {"Header", "Events"}:
        raise ImportError_(f"{path}: expected an object with Header and Events")
    events = data["Events"]
    # Files before Sandy Bridge number the fixed counters from 1 (INST_RETIRED.ANY is "Fixed
    # counter 1"); the SDM numbers them from 0.
    base = 0
    for e in events:
        if e.get("EventName") == "INST_RETIRED.ANY" and str(e.get("Counter", "")).lower().startswith("fixed"):
            base = counters(e["Counter"], path)[1]
            if base not in (0, 1):
                raise ImportError_(f"{path}: INST_RETIRED.ANY on fixed counter {base}, expected 0 (or 1 in old files)")
    rows = []
    for e in events:
        name = e.get("EventName")
        where = f"{path}: event {name}"
        if not isinstance(name, str) or not name:
            raise ImportError_(f"{path}: an event without EventName")
        unknown = set(e) - CARRIED - DROPPED
        if unknown:
            raise ImportError_(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        deprecated = flag(e, "Deprecated", where)
        if deprecated and (":" in name or "=" in name):
            # Cascade Lake's deprecated perf-formula aliases (OFFCORE_RESPONSE:request=..:response=..):
            # not event names; their encodings are the OCR/OFFCORE_RESPONSE.* rows.
            continue
        r = Row(name)
        r.deprecated = deprecated
        codes = num_list(e["EventCode"], "EventCode", where, 0xFF)
        umasks = num_list(e["UMask"], "UMask", where, 0xFF)
        msrs = [m for m in num_list(e.get("MSRIndex", "0"), "MSRIndex", where, 0xFFFFFFFF) if m]
        if len(codes) == 1 and len(umasks) > 2 and paired_forms(e, umasks, msrs) and left_out is not None:
            # An event here has one encoding and at most two extra-MSR forms (offcore): these
            # come in one form per unit mask, each with its own extra MSR.
            left_out.append((name, f"{len(umasks)} forms, unit mask {'/'.join(f'{u:#04x}' for u in umasks)} each "
                                   f"with its own extra MSR {'/'.join(f'{m:#x}' for m in msrs)} "
                                   f"(ProgrammingRestriction {PAIRED_UMASK_MSR}); a table event has one encoding"))
            continue
        if len(codes) > 2 or len(umasks) > 2:
            raise ImportError_(f"{where}: more than two event codes or unit masks")
        r.event, r.umask = codes[0], umasks[0]
        if len(codes) == 2 or len(umasks) == 2:
            # Offcore: form 1 pairs with OFFCORE_RSP_0, form 2 with OFFCORE_RSP_1.  With MSRIndex
            # 0x1A6 alone only form 1 is documented (the *.OUTSTANDING events), with 0x1A7 alone
            # only form 2 (Knights Landing's OFFCORE_RESPONSE.STREAMING_STORES.* and others); with
            # none the event is the bare OFFCORE_RESPONSE, whose response value the user must give.
            if msrs == [MSR_OFFCORE_RSP_0, MSR_OFFCORE_RSP_1] or not msrs:
                r.alt = (codes[-1], umasks[-1])
            elif msrs == [MSR_OFFCORE_RSP_1]:
                r.event, r.umask = codes[-1], umasks[-1]
            elif msrs != [MSR_OFFCORE_RSP_0]:
                raise ImportError_(f"{where}: two event forms but MSRIndex {msrs} is not 0x1A6[,0x1A7]")
        for m in msrs:
            if m not in KNOWN_MSRS:
                raise ImportError_(f"{where}: MSRIndex {m:#x} is not an MSR this importer knows")
        r.msr = msrs
        r.msr_value = num(e.get("MSRValue", "0"), "MSRValue", where, (1 << 64) - 1) if msrs else 0
        if not msrs and num(e.get("MSRValue", "0"), "MSRValue", where, (1 << 64) - 1):
            raise ImportError_(f"{where}: MSRValue without MSRIndex")
        if flag(e, "Offcore", where) and not (set(msrs) & {MSR_OFFCORE_RSP_0, MSR_OFFCORE_RSP_1}):
            raise ImportError_(f"{where}: Offcore event without an OFFCORE_RSP MSR")
        r.umask_ext = num(e.get("UMaskExt", "0"), "UMaskExt", where, 0xFF)
        if num(e.get("Equal", "0"), "Equal", where, 1):
            raise ImportError_(f"{where}: Equal=1 (counter-mask equality) is not supported")
        r.cmask = num(e.get("CounterMask", "0"), "CounterMask", where, 0xFF)
        r.inv = flag(e, "Invert", where)
        r.edge = flag(e, "EdgeDetect", where)
        r.any = flag(e, "AnyThread", where)
        r.taken_alone = flag(e, "TakenAlone", where)
        pebs = num(e.get("PEBS", "0"), "PEBS", where, 2)
        r.precise = pebs >= 1 or flag(e, "Precise", where)
        # PEBS=2 marks PEBS-only forms on big cores (INST_RETIRED.PREC_DIST, *_PEBS) but ordinary
        # countable events on Goldmont (LD_BLOCKS.*): carried as the file says, not interpreted.
        r.pebs2 = pebs == 2
        mask, fixed = counters(e.get("Counter", ""), where)
        if fixed is not None:
            r.fixed = fixed - base
            if r.fixed < 0:
                raise ImportError_(f"{where}: fixed counter {fixed} in a file numbering them from 1")
            r.fixed_only = True
            # perfmon's pseudo-encoding of fixed-counter-only events: event 00H, umask = N + 1
            # (older files write 0/0 or 0AH/0 for all three); normalised so names do not collide.
            r.event, r.umask = 0, r.fixed + 1
        r.counters = mask
        if "CounterHTOff" in e:
            hmask, hfixed = counters(e["CounterHTOff"], where)
            if (hfixed is None) != (fixed is None):
                raise ImportError_(f"{where}: Counter and CounterHTOff disagree on fixed vs general")
            if hfixed is None and hmask != mask:
                r.counters_htoff = hmask
        err = str(e.get("Errata", "null")).strip()
        r.errata = "" if err in ("null", "0", "", "None") else ";".join(x.strip() for x in err.split(","))
        rows.append(r)
    link_fixed_aliases(rows, path)
    return rows


def link_fixed_aliases(rows, path):
    """A general-counter event X_P counts what fixed-only event X counts (perfmon's naming; SDM
    Vol.3B 20.2.2, Table 20-2: INST_RETIRED.ANY_P, CPU_CLK_UNHALTED.THREAD_P / CORE_P,
    TOPDOWN.SLOTS_P), so the fixed counter can stand in for it."""
    fixed = {r.name: r.fixed for r in rows if r.fixed_only}
    for r in rows:
        if r.fixed_only or not r.name.endswith("_P"):
            continue
        f = fixed.get(r.name[:-2])
        # Fixed counter 2 counts at the TSC rate; Nehalem's CPU_CLK_UNHALTED.REF_P (3CH/01H)
        # counts bus clocks, so only an explicit REF_TSC_P stands in for it.
        if f == 2 and r.name != "CPU_CLK_UNHALTED.REF_TSC_P":
            continue
        if f is not None and not (r.cmask or r.inv or r.edge or r.any or r.msr):
            r.fixed = f
