#!/usr/bin/env python3
"""tools/gen_oracle.py - what each event counts, classified from the vendors' own descriptions.

The PMU model (pmu/count/pmu_model.h) must be an oracle for the audit, not a mirror of it: what it
counts for an event has to come from somewhere the audit's tables (pmu/audit/audit_events.c) do not.
This reads the vendors' event descriptions (../shared/vendor-events: Intel perfmon JSON, libpfm4's
Intel-legacy and AMD tables), the same files events/sets.csv names for each event set, and
classifies every plain event (no counter mask, invert or edge) whose description says it counts one
of the quantities the model models: instructions, branches (all, taken, conditional and their
taken/not-taken parts), SSE instructions, unhalted core clocks, unhalted reference clocks and their
rate (the TSC, the core crystal clock, 100 MHz, 133 MHz, the bus clock), top-down slots and their
shares, SMIs; and whether it counts for this thread or any thread of the core.  The encoding (event,
unit mask, extended unit mask, AnyThread, fixed counter) is the key; the event's name is only
carried for people.

    tools/gen_oracle.py [--vendor-events ../shared/vendor-events] [--csv pmu/count/oracle.csv]
                        [--c pmu/count/pmu_oracle_host.c] [--check]
    tools/gen_oracle.py --c-from-csv pmu/count/oracle.csv --c pmu/count/pmu_oracle_host.c

Both outputs are committed (a user's clone has no ../shared); --check compares instead of writing
and exits 1 on a difference (tests/host/test_oracle.py).

Bad rows are refused by name: a description that says two different things, two rows with one
encoding that say different things, a fixed counter whose event is not what the SDM puts on that
counter, a reference clock whose description states no rate, a description that is a placeholder
("TBD", the event's own name).  The rows known to be so are listed in KNOWN below, each with what is
wrong and, where a public document says what it counts, that answer and the document; a KNOWN entry
that no longer matches a bad row is itself an error, so the list cannot go stale.
"""
import argparse
import csv
import io
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from tools.events_import import libpfm, perfmon  # noqa: E402
from tools.events_import.cparse import Reader  # noqa: E402
from tools.events_import.__main__ import read_sets  # noqa: E402
from tools.events_import.rows import ImportError_  # noqa: E402


class OracleError(Exception):
    pass


# What an event counts (the C enum pmu_oracle_counts, pmu/count/pmu_oracle.h, in this order).
COUNTS = ["instructions", "branches", "taken_branches", "cond_branches", "cond_taken", "cond_taken_bwd",
          "cond_taken_fwd", "cond_not_taken", "sse", "mmx_fp_all", "core_clocks", "ref_tsc", "ref_crystal",
          "ref_100mhz", "ref_133mhz", "bus_clocks", "slots", "td_retiring", "td_bad_spec", "td_fe_bound",
          "td_be_bound", "td_heavy", "td_br_mispredict", "td_fetch_latency", "td_memory_bound", "smi"]
# For whom: this logical processor; any thread of the physical core; this one while the other is halted.
SCOPES = ["thread", "core", "alone"]

I = re.I
# What the description says the event counts: (class, pattern) over the event's own description
# (perfmon BriefDescription; libpfm4 the unit mask's description, else the event's).  Anchored, so a
# qualified kind ("branch instructions retired that were predicted taken") is not the whole kind.
_END = r"\s*\.?\s*(\((precise|fixed|programmable)[^)]*\))?\s*(\.|\.\.\.)?\s*(\(fixed event\))?\s*(\[this event is alias to [^]]*\])?\s*"
WHAT = [
    ("instructions", rf"^(fixed counter: )?(counts the (total )?number of |the number of |number of |count the number of )?"
                     rf"(instructions?|instruction) (retired|at retirement)({_END}|{_END}(from execution|fixed counter - "
                     rf"architectural event|general counter +- architectural event|\(macro fused instruction count as 2\)"
                     rf"|- using reduced skid pebs feature){_END})$"),
    ("instructions", rf"^retired instructions({_END}| \(includes exceptions, interrupts, resyncs\))$"),
    ("instructions", rf"^instructions retired from execution{_END}$"),
    ("instructions", r"^precise instruction retired (event with a reduced effect of pebs shadow in ip distribution|"
                     r"with pebs precise-distribution)$"),
    ("branches", rf"^(all (\(macro\) )?|retired |counts the (total )?number of |the number of |number of |count )?"
                 rf"branch instructions( retired| at retirement)?({_END}|{_END}for all branch types{_END}|"
                 rf"{_END}(this includes all types of architectural control flow changes.*|specifically, this event "
                 rf"counts the retirement of the last micro-op of a branch instruction{_END}))$"),
    ("taken_branches", rf"^(retired )?taken branch(es)? instructions( retired)?{_END}$"),
    ("taken_branches", rf"^(the )?number of taken branches that were retired{_END}(this includes all types of "
                       rf"architectural control flow changes.*)?$"),
    ("cond_branches", rf"^(counts the number of |number of )?(retired )?conditional branch instructions( retired)?"
                      rf"{_END}$"),
    ("cond_branches", r"^counts the number of (retired )?jcc (\(jump on conditional code\) )?branch instructions "
                      r"retired(,)? includes both taken and not taken branches\.?$"),
    ("cond_branches", r"^counts retired jcc \(jump on conditional code\) branch instructions retired includes both "
                      r"taken and not taken branches\.?$"),
    ("cond_branches", rf"^counts the number of jcc branch instructions retired{_END}$"),
    ("cond_branches", rf"^counts the number of branch instructions retired that were conditional jumps{_END}$"),
    ("cond_taken", rf"^taken conditional branch instructions retired{_END}$"),
    ("cond_taken_bwd", rf"^(counts the number of )?taken backward conditional branch instructions retired{_END}$"),
    ("cond_taken_fwd", rf"^(counts the number of )?taken forward conditional branch instructions retired{_END}$"),
    ("cond_not_taken", rf"^(counts the number of )?not taken (conditional )?branch instructions retired{_END}$"),
    # AMD's retired MMX/FP classes (libpfm4 unit masks): the packed or general SSE class.
    ("sse", r"^(packed sse and sse2 instructions|sse and sse2 instructions|sse instructions \(sse, ?sse2.*\)|"
            r"sse \(sse, sse2, sse3, mni\) instructions|sse, sse2, sse3, mni instructions|"
            r"number of sse instructions.*)$"),
    ("mmx_fp_all", r"^(retired (mmx/fp|sse/mmx/fp) instructions / all sub-events selected|x87, mmx\(tm\), 3dnow!\(tm\), scalar and packed sse and sse2 "
                   r"instructions)$"),
    ("core_clocks", rf"^(fixed counter: )?counts the number of unhalted core clock cycles{_END}$"),
    ("core_clocks", rf"^(core|thread) cycles when (the )?(core|thread) is not (in )?(a )?halt(ed)?( state)?{_END}$"),
    ("core_clocks", rf"^cycles when thread is not halted{_END}$"),
    ("core_clocks", rf"^core cycles when at least one thread on the physical core is not in halt state{_END}$"),
    ("core_clocks", r"^(cpu clocks not halted|unhalted core cycles|number of core cycles not in halted state|"
                    r"count core clock cycles whenever the clock signal on the specific core is running \(not halted\)|"
                    r"number cycles during which the processor is not halted( and not in a thermal trip)?)$"),
    ("ref", rf"^(fixed counter: )?(counts the number of )?(unhalted )?reference (clock )?cycles( when (the )?"
            rf"(core|thread) is not (in )?(a )?halt(ed)?( state)?)?( at tsc frequency)?{_END}(\(fixed counter\)"
            rf"|\(programmable counter\)|measures bus cycles)?{_END}$"),
    ("ref", rf"^reference (base clock \(133 mhz\) )?cycles when (the )?(at least one )?thread( on the physical core)? is "
            rf"(not halted|unhalted)({_END}|{_END}\(counts at 100 mhz rate\){_END})"
            rf"(\(programmable counter\))?{_END}$"),
    ("ref", rf"^core crystal clock cycles when (the thread is unhalted|at least one thread on the physical core is "
            rf"unhalted|this thread is unhalted and the other thread is halted){_END}$"),
    ("ref", rf"^count xclk pulses when this thread is unhalted and the other (thread )?is halted{_END}$"),
    ("ref", r"^(non-halted bus cycles|bus cycles when core is not halted.*|bus cycles when core is active and the "
            r"other is halted)$"),
    ("slots", r"^tma slots available for an unhalted logical processor\. (fixed|general) counter +- architectural "
              r"event$"),
    ("td_be_bound", r"^(tma slots where no uops were being issued due to lack of back-end resources\.?|this event counts "
                    r"a subset of the topdown slots event that were not consumed by the back-end pipeline due to lack "
                    r"of back-end resources.*|counts the number of retirement slots not consumed due to backend "
                    r"stalls.*)$"),
    ("td_bad_spec", r"^(tma slots wasted due to incorrect speculations\.|(fixed counter: )?counts the (total )?number of "
                    r"issue slots (that were )?not consumed by the backend because allocation is stalled due to a "
                    r"mispredicted jump or a machine clear\.?)$"),
    ("td_br_mispredict", r"^tma slots wasted due to incorrect speculation by branch mispredictions\.?$"),
    ("td_retiring", r"^(retirement slots used.*|this event counts a subset of the topdown slots event that are utilized "
                    r"by operations that eventually get retired.*|(fixed counter: )?counts the number of consumed "
                    r"retirement slots\.?)$"),
    ("td_heavy", r"^retired uops except the last uop of each instruction\.?$"),
    ("td_fe_bound", r"^(uops not delivered (by idq|to resource allocation table \(rat\) per thread) when backend of the "
                    r"machine is not stalled ?\.?( \[this event is alias to [^]]*\])?|this event counts a subset of "
                    r"the topdown slots event that when no operation was delivered to the back-end pipeline due to "
                    r"instruction fetch.*|(fixed counter: )?counts the number of retirement slots not consumed due "
                    r"to front end stalls\.?)$"),
    ("td_fetch_latency", r"^cycles when no uops are delivered by the idq for 2 or more cycles when backend of the machine "
                         r"is not stalled.*$"),
    ("smi", r"^(smis received|counts the number system management interrupts \(smi\) received)$"),
]
WHAT = [(c, re.compile(p, I)) for c, p in WHAT]

# A reference clock's rate, from its description (brief, then the longer one).
RATE = [
    ("ref_crystal", r"crystal clock"),
    ("ref_100mhz", r"100 mhz"),
    ("ref_133mhz", r"133 mhz"),
    ("ref_tsc", r"tsc frequency|time stamp counter \(tsc\)|same incrementing frequency as the time stamp counter|"
                r"as if the core is running at the maximum frequency"),
    ("bus_clocks", r"\bbus cycles\b"),
]
RATE = [(c, re.compile(p, I)) for c, p in RATE]
ANY_CORE = re.compile(r"at least one thread on the physical core|when at least one thread", I)
ALONE = re.compile(r"the other (thread )?is halted|while the other core is halted", I)
# Names of the kinds the model models: a row so named with a placeholder description is refused.
MODELLED_NAME = re.compile(r"CLK|CYCLES_NOT_IN_HALT|TOPDOWN|_SLOTS|BRANCH_INSTRUCTIONS|^BR_INST_RETIRED|SSE_INSTR|"
                           r"^INST_RETIRED\.ANY|^RETIRED_INSTRUCTIONS|SMI")
PLACEHOLDER = re.compile(r"^\s*(tbd)?\s*$", I)
ALIAS = re.compile(r"^this is an alias (for|from) ([A-Z0-9_.]+)$", I)

# What the SDM puts on each fixed counter (Vol. 3B Table 20-2 and the architectural top-down fixed
# counters of leaf 23H: 4 bad speculation, 5 front-end bound, 6 retiring).  Fixed counter 2 counts
# reference cycles at the TSC rate on every core that has it (SDM Vol. 3B 20.2.2, "CPU_CLK_UNHALTED.REF_TSC").
FIXED_COUNTS = ["instructions", "core_clocks", "ref_tsc", "slots", "td_bad_spec", "td_fe_bound", "td_retiring"]

# The architectural events (SDM Vol. 3B Table 20-1): the same encoding counts the same on every core
# with an architectural PMU where CPUID.0AH:EBX does not mark it absent, whether or not the core's own
# file lists it (Nehalem's lists INST_RETIRED.ANY_P as C0H/01H only).  "UnHalted Reference Cycles"
# (3CH/01H) is left out: the SDM calls its rate implementation-specific, so only the core's own
# description can say it.  Added to a set only where its own rows do not classify the encoding; a
# disagreement is refused like any other.
ARCH = [(0x3C, 0x00, "core_clocks", "UnHalted Core Cycles"), (0xC0, 0x00, "instructions", "Instructions Retired"),
        (0xC4, 0x00, "branches", "Branch Instructions Retired"), (0xA4, 0x01, "slots", "Topdown Slots"),
        (0x73, 0x00, "td_bad_spec", "Topdown Bad Speculation"), (0x9C, 0x01, "td_fe_bound", "Topdown Frontend Bound"),
        (0xC2, 0x02, "td_retiring", "Topdown Retiring"), (0xA4, 0x02, "td_be_bound", "Topdown Backend Bound")]
# Intel sets whose cores have no architectural PMU (P6 family: no CPUID leaf 0AH).
NO_ARCH_PMU = {"pentium_pro", "pentium2", "p6", "pentium_m"}

# What every set's descriptions must give on a general counter (the model cannot count the known-answer
# loop without them): a set without one is refused by name.
NEEDED = ["instructions", "core_clocks", "branches"]

# Rows known to be bad, by (set, name): (what is wrong, counts or None to leave it out, the public
# document that says what it counts).  The generator errors if an entry stops matching a bad row.
RATE_UNSTATED = ("a reference clock on a general counter whose description states no rate (the SDM calls 3CH/01H's "
                 "rate implementation-specific)")
KNOWN = [
    # (sets, or "*" for any set where the row is bad; name; what is wrong; counts or None to leave it out; source)
    (("zen1",), "CYCLES_NOT_IN_HALT", "libpfm4's description is 'TBD'", "core_clocks",
     "AMD PPR 54945 (Fam17h M01h) PMCx076 'Cycles not in Halt'"),
    (("zen1",), "RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS", "libpfm4's description is 'TBD'", "cond_branches",
     "AMD PPR 54945 (Fam17h M01h) PMCx0D1 'Retired Conditional Branch Instructions'"),
    (("zen1",), "RETIRED_MMX_FP_INSTRUCTIONS.SSE_INSTR", "libpfm4's unit-mask description is 'TBD'", "sse",
     "AMD PPR 54945 (Fam17h M01h) PMCx0CB UnitMask bit 2 'SSE instructions'"),
    (("zen1",), "RETIRED_INDIRECT_BRANCH_INSTRUCTIONS_MISPREDICTED", "libpfm4's description is 'TBD'", None, ""),
    (("zen1",), "RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS_MISPREDICTED", "libpfm4's description is 'TBD'", None, ""),
    (("jaketown",), "CPU_CLK_UNHALTED.THREAD_ANY",
     "perfmon puts this AnyThread core-clock event on fixed counter 2 (encoding 00H/03H); the SDM puts core clocks "
     "on fixed counter 1 and reference cycles on 2", None, ""),
    (("goldmont", "goldmont_plus", "knl"), "CPU_CLK_UNHALTED.REF", RATE_UNSTATED, None, ""),
    ("*", "CPU_CLK_THREAD_UNHALTED.ONE_THREAD_ACTIVE", "'XClk pulses' of a rate the description does not state", None,
     ""),
    ("*", "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", "'XClk pulses' of a rate the description does not state", None, ""),
    ("*", "CPU_CLK_UNHALTED.PAUSE", "perfmon's description is the event's name", None, ""),
    ("*", "TOPDOWN.MEMORY_BOUND_SLOTS", "perfmon's description is the event's name", "td_memory_bound",
     "SDM Vol. 3B 'Performance Metrics' (PERF_METRICS byte 7, Memory Bound) and perfmon's metric files, whose "
     "Memory_Bound metric takes its slots from this event"),
]


def known_entry(key, name):
    for sets, n, why, counts, doc in KNOWN:
        if n == name and (sets == "*" or key in sets):
            return (sets, n), why, counts
    return None


def _libpfm_descs(path, table, amd):
    """Event name (and NAME.UMASK) -> (description, longer description) of a libpfm4 table."""
    arrays = Reader(path, libpfm.consts(amd)).arrays()
    out = {}
    for ev in arrays[table][1]:
        desc = (ev.get("desc") or "").strip()
        out[ev["name"]] = (desc, desc, ev.get("equiv"))
        if "umasks" in ev:
            for u in arrays[ev["umasks"][1]][1]:
                udesc = (u.get("udesc") or "").strip()
                if re.match(r"all sub-events selected$", udesc, I):
                    udesc = f"{desc} / {udesc}"   # "all" of what: the event's own description says
                # A unit mask's class is its own description's: the event's says what the masks choose from.
                out[f"{ev['name']}.{u['uname']}"] = (udesc, udesc, None)
    return out


def _perfmon_descs(path):
    with open(path, encoding="utf-8") as f:
        events = json.load(f)["Events"]
    return {e["EventName"]: ((e.get("BriefDescription") or "").strip(), (e.get("PublicDescription") or "").strip(), None)
            for e in events}


def read_set(key, vendor, data, vdir):
    """The set's rows (tools/events_import's reading of the encodings) and their descriptions."""
    parts = data.split()
    try:
        if parts[0] == "perfmon":
            path = os.path.join(vdir, "intel", parts[1])
            return perfmon.read(path, []), _perfmon_descs(path)
        path = os.path.join(vdir, parts[1])
        amd = vendor == "amd"
        return libpfm.read(path, parts[2], amd, []), _libpfm_descs(path, parts[2], amd)
    except (ImportError_, OSError) as e:
        raise OracleError(f"events/sets.csv set {key}: {e}")


def _rates(brief, public):
    """The rates the brief description states, else those the longer one states."""
    for text in (brief, public):
        found = {c for c, rx in RATE if rx.search(text)}
        if found:
            return found
    return set()


def classify(r, descs, set_rows_by_name):
    """(counts, scope) of one row, or (None, None) when it counts nothing modelled; raises the
    reason (a string) when the row is bad."""
    brief, public, equiv = descs.get(r.name, ("", "", None))
    m = ALIAS.match(brief)
    if m or equiv:
        target = (equiv or m.group(2)).replace(":", ".")
        if target not in set_rows_by_name:
            raise ValueError(f"an alias of {target}, which the table does not have")
        brief, public, _ = descs.get(target, ("", "", None))
    if PLACEHOLDER.match(brief) or brief.upper() == r.name.upper():
        if PLACEHOLDER.match(public) or public.upper() == r.name.upper():
            if MODELLED_NAME.search(r.name):
                raise ValueError(f"its description is a placeholder ({brief!r}) and its name says it may count "
                                 "something modelled")
            return None, None
        brief = public
    found = {c for c, rx in WHAT if rx.match(brief)}
    if not found:
        return None, None
    if len(found) > 1:
        raise ValueError(f"its description says {' and '.join(sorted(found))}: {brief!r}")
    counts = found.pop()
    full = f"{brief} {public}"
    scope = "core" if (r.any or ANY_CORE.search(brief)) else "alone" if ALONE.search(full) else "thread"
    if counts == "ref":
        rates = _rates(brief, public)
        if r.fixed_only and r.fixed == 2 and rates <= {"ref_tsc", "ref_100mhz"}:
            # Fixed counter 2 counts at the TSC's rate (SDM Vol. 3B 20.2.2); Broadwell's text adds that
            # Sandy Bridge clocked it from the 100 MHz base clock, the same TSC rate in other ticks.
            rates = {"ref_tsc"}
        if len(rates) != 1:
            raise ValueError(f"a reference clock whose description states "
                             f"{'no rate' if not rates else 'two rates (' + ', '.join(sorted(rates)) + ')'}: {brief!r}")
        counts = rates.pop()
    if r.fixed_only and (r.fixed >= len(FIXED_COUNTS) or FIXED_COUNTS[r.fixed] != counts):
        raise ValueError(f"on fixed counter {r.fixed} it says {counts}, which the SDM does not put there")
    return counts, scope


def oracle_rows(vdir, events_dir):
    """Every classified row of every set with vendor data, in sets.csv order; refuses bad rows."""
    out, errors, used_known, read, names = [], [], set(), set(), set()
    for key, vendor, data in read_sets(events_dir):
        rows, descs = read_set(key, vendor, data, vdir)
        read.add(key)
        names.update(r.name for r in rows)
        by_name = {r.name: r for r in rows}
        seen = {}
        for r in rows:
            if r.cmask or r.inv or r.edge or r.msr:
                continue   # not plain: the model counts what a flag or an extra MSR selects nowhere
            known = known_entry(key, r.name)
            try:
                counts, scope = classify(r, descs, by_name)
                if known and known[0][0] != "*":
                    errors.append(f"{key} {r.name}: listed in KNOWN ({known[1]}) but its row is no longer bad")
                    continue
            except ValueError as e:
                if not known:
                    errors.append(f"{key} {r.name}: {e}")
                    continue
                used_known.add(known[0])
                if known[2] is None:
                    continue
                counts, scope = known[2], "core" if r.any else "thread"
            if counts is None:
                continue
            fixed = r.fixed if r.fixed_only else -1
            k = (fixed, r.event, r.umask, r.umask_ext, r.any)
            if k in seen:
                if seen[k][:2] != (counts, scope):
                    errors.append(f"{key} {r.name}: same encoding as {seen[k][2]}, which counts {seen[k][0]} "
                                  f"({seen[k][1]}), but this says {counts} ({scope})")
                continue
            seen[k] = (counts, scope, r.name)
            out.append(dict(set=key, name=r.name, event=r.event, umask=r.umask, umask_ext=r.umask_ext, fixed=fixed,
                            any=int(r.any), counts=counts, scope=scope))
            # A general-counter event perfmon also lists on a fixed counter (INST_RETIRED.ANY_P on
            # fixed 0, Core 2's INSTRUCTIONS_RETIRED): that fixed counter counts the same.
            if not r.fixed_only and r.fixed >= 0 and not r.any:
                fk = (r.fixed, 0, r.fixed + 1, 0, False)
                if r.fixed >= len(FIXED_COUNTS) or FIXED_COUNTS[r.fixed] != counts:
                    if not known:
                        errors.append(f"{key} {r.name}: on fixed counter {r.fixed} it says {counts}, which the SDM "
                                      "does not put there")
                elif fk not in seen:
                    seen[fk] = (counts, scope, r.name)
                    out.append(dict(set=key, name=r.name, event=0, umask=r.fixed + 1, umask_ext=0, fixed=r.fixed,
                                    any=0, counts=counts, scope=scope))
        have = {(r["counts"], r["fixed"]) for r in out if r["set"] == key}
        for need in NEEDED:
            if (need, -1) not in have:
                errors.append(f"{key}: no general-counter event its vendor describes as counting {need}")
        if vendor == "intel" and key not in NO_ARCH_PMU:
            for event, umask, counts, name in ARCH:
                k = (-1, event, umask, 0, False)
                if k in seen and seen[k][:2] != (counts, "thread"):
                    errors.append(f"{key} {seen[k][2]}: its description says {seen[k][0]}, but the SDM's "
                                  f"architectural {name} ({event:02X}H/{umask:02X}H) counts {counts}")
                elif k not in seen:
                    seen[k] = (counts, "thread", f"arch:{name}")
                    out.append(dict(set=key, name=f"arch:{name.replace(' ', '_')}", event=event, umask=umask,
                                    umask_ext=0, fixed=-1, any=0, counts=counts, scope="thread"))
    for sets, name, *_ in KNOWN:
        # Stale: its sets were read (or, for "*", some set has the name) and no row of it was bad.
        applies = name in names if sets == "*" else set(sets) <= read
        if applies and (sets, name) not in used_known:
            errors.append(f"{name} ({'any set' if sets == '*' else ', '.join(sets)}): listed in KNOWN but no such "
                          "bad row is read")
    if errors:
        raise OracleError("refused:\n  " + "\n  ".join(errors))
    return out


HEADER = ["set", "name", "event", "umask", "umask_ext", "fixed", "any", "counts", "scope"]


def to_csv(rows):
    f = io.StringIO()
    f.write("# pmu/count/oracle.csv - what each event counts, classified from the vendors' descriptions by\n"
            "# tools/gen_oracle.py from ../shared/vendor-events (the files events/sets.csv names).  Generated:\n"
            "# do not edit; re-run `tools/gen_oracle.py`.  fixed: the fixed counter (event 00H, unit mask\n"
            "# counter + 1), or -1 for a general-counter encoding; any: the AnyThread bit; counts, scope: the\n"
            "# classes of tools/gen_oracle.py (COUNTS, SCOPES).  Rows the generator refused or corrected are\n"
            "# its KNOWN list.\n")
    w = csv.writer(f, lineterminator="\n")
    w.writerow(HEADER)
    for r in rows:
        w.writerow([r["set"], r["name"], f"0x{r['event']:02x}", f"0x{r['umask']:02x}", f"0x{r['umask_ext']:02x}",
                    r["fixed"], r["any"], r["counts"], r["scope"]])
    return f.getvalue()


def from_csv(text, where):
    lines = [l for l in text.splitlines() if l.strip() and not l.startswith("#")]
    rows = []
    for n, r in enumerate(csv.DictReader(lines), 2):
        if list(r) != HEADER:
            raise OracleError(f"{where}: columns {list(r)}, expected {HEADER}")
        if r["counts"] not in COUNTS or r["scope"] not in SCOPES:
            raise OracleError(f"{where}: row {n} ({r['set']} {r['name']}): counts {r['counts']!r} / scope "
                              f"{r['scope']!r} unknown")
        try:
            row = dict(set=r["set"], name=r["name"], event=int(r["event"], 16), umask=int(r["umask"], 16),
                       umask_ext=int(r["umask_ext"], 16), fixed=int(r["fixed"]), any=int(r["any"]),
                       counts=r["counts"], scope=r["scope"])
        except ValueError as e:
            raise OracleError(f"{where}: row {n} ({r['set']} {r['name']}): {e}")
        if not (0 <= row["event"] <= 0xFFF and 0 <= row["umask"] <= 0xFF and 0 <= row["umask_ext"] <= 0xFF and
                -1 <= row["fixed"] < len(FIXED_COUNTS) and row["any"] in (0, 1)):
            raise OracleError(f"{where}: row {n} ({r['set']} {r['name']}): a field out of range")
        rows.append(row)
    return rows


def to_c(rows):
    sets = []
    for r in rows:
        if r["set"] not in sets:
            sets.append(r["set"])
    out = ["/* pmu/count/pmu_oracle_host.c - generated by tools/gen_oracle.py from pmu/count/oracle.csv: do not edit.",
           " * What each event counts, from the vendors' descriptions; see pmu/count/pmu_oracle.h. */",
           '#include "pmu/count/pmu_oracle.h"', "",
           "const struct pmu_oracle_row pmu_oracle_rows[] = {"]
    for r in rows:
        out.append(f'\t{{ "{r["set"]}", "{r["name"]}", 0x{r["event"]:02x}, 0x{r["umask"]:02x}, 0x{r["umask_ext"]:02x}, '
                   f'{r["fixed"]}, {r["any"]}, PO_{r["counts"].upper()}, PO_SCOPE_{r["scope"].upper()} }},')
    out += ["};", "const size_t pmu_oracle_n_rows = sizeof(pmu_oracle_rows) / sizeof(pmu_oracle_rows[0]);", ""]
    return "\n".join(out)


def write_or_check(path, text, check):
    if check:
        try:
            with open(path, encoding="utf-8") as f:
                old = f.read()
        except OSError:
            old = None
        if old != text:
            print(f"gen_oracle: {path} differs from what the vendor data gives: re-run tools/gen_oracle.py",
                  file=sys.stderr)
            return False
        return True
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vendor-events", default=os.path.join(ROOT, "..", "shared", "vendor-events"))
    ap.add_argument("--events", default=os.path.join(ROOT, "events"))
    ap.add_argument("--csv", default=os.path.join(ROOT, "pmu", "count", "oracle.csv"))
    ap.add_argument("--c", default=os.path.join(ROOT, "pmu", "count", "pmu_oracle_host.c"))
    ap.add_argument("--c-from-csv", metavar="CSV", help="only write the C table from a committed CSV")
    ap.add_argument("--check", action="store_true", help="compare with the files instead of writing them")
    a = ap.parse_args(argv)
    try:
        if a.c_from_csv:
            with open(a.c_from_csv, encoding="utf-8") as f:
                rows = from_csv(f.read(), a.c_from_csv)
            return 0 if write_or_check(a.c, to_c(rows), a.check) else 1
        rows = oracle_rows(a.vendor_events, a.events)
        text = to_csv(rows)
        from_csv(text, "generated CSV")   # what is written must read back
        ok = write_or_check(a.csv, text, a.check)
        ok = write_or_check(a.c, to_c(rows), a.check) and ok
        return 0 if ok else 1
    except (OracleError, OSError) as e:
        print(f"gen_oracle: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
