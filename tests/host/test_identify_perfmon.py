"""Identification against Intel perfmon's own mapping (../shared/vendor-events/intel/mapfile.csv;
skips without ../shared): every core-event row - family, model, stepping where it gives one, and
for hybrid parts the core type and native model ID of CPUID leaf 1AH - must identify, from a CPUID
dump built for it, as the event set whose vendor data (events/sets.csv) is that row's file, with
no generic fallback."""
import csv
import os
import re
import tempfile

import pmucap

HYBRID = 1 << 15        # CPUID.07H.0:EDX[15] (SDM Vol. 2A)


def sets_by_file(ctx):
    with open(os.path.join(ctx.root, "events", "sets.csv"), encoding="utf-8") as f:
        rows = csv.DictReader(l for l in f if l.strip() and not l.startswith("#"))
        return {r["data"].split()[1]: r["key"] for r in rows if r["data"].startswith("perfmon ")}


def signature(family, model, stepping):
    """CPUID.1:EAX for a display family/model (SDM Vol. 2A, CPUID: extended family past 0FH, extended model)."""
    base, ext = (family, 0) if family < 0xF else (0xF, family - 0xF)
    return ext << 20 | (model >> 4) << 16 | base << 8 | (model & 0xF) << 4 | stepping


def fixture(cases):
    lines = ["# pmuboot cpuid fixture 1", "# built by tests/host/test_identify_perfmon.py"]
    for n, (family, model, stepping, core_type, native) in enumerate(cases):
        regs = {
            (0, 0): (0x23, 0x756E6547, 0x6C65746E, 0x49656E69),
            (1, 0): (signature(family, model, stepping), 0, 0, 0),
            (7, 0): (0, 0, 0, HYBRID if core_type else 0),
            (0xA, 0): (0x07300805, 0, 0x7, 0x8603),
            (0x1A, 0): ((core_type << 24 | native) if core_type else 0, 0, 0, 0),
        }
        for (leaf, sub), r in regs.items():
            lines.append(f"CPU {n}: {leaf:08X}.{sub:02X}: " + " ".join(f"{x:08X}" for x in r))
    return "\n".join(lines) + "\n"


def test_every_perfmon_core_file_row(ctx):
    mapfile = ctx.shared_path("vendor-events", "intel", "mapfile.csv")
    files = sets_by_file(ctx)
    cases, want = [], []
    with open(mapfile, encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["EventType"] not in ("core", "hybridcore"):
                continue
            m = re.match(r"^GenuineIntel-(\d+)-([0-9A-F]+)(?:-\[([0-9A-F]+)\])?$", r["Family-model"])
            assert m, r["Family-model"]
            family, model = int(m.group(1)), int(m.group(2), 16)     # perfmon writes the family in decimal
            steppings = [int(c, 16) for c in m.group(3)] if m.group(3) else [0x0, 0xF]
            core_type = int(r["Core Type"], 16) if r["Core Type"] else 0
            native = int(r["Native Model ID"], 16) if r["Native Model ID"] else 0
            key = files.get(r["Filename"].lstrip("/"))
            assert key, f"{r['Filename']}: no set in events/sets.csv imports it"
            for s in steppings:
                cases.append((family, model, s, core_type, native))
                want.append(key)
    assert len(cases) > 100, len(cases)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "perfmon_rows.txt")
        with open(path, "w", encoding="ascii") as f:
            f.write(fixture(cases))
        wrong = []
        for n, (case, key) in enumerate(zip(cases, want)):
            p = ctx.run_host("identify", "--cpuid-dump", path, "--cpu", str(n))
            assert p.returncode == 0, (case, p.stderr)
            runs, _ = pmucap.parse(p.stdout)
            cpu = next(r for _, r in runs[0].records if r["type"] == "cpu")
            # Exact, or a known model at a stepping the table lacks: never the generic set.
            ok = cpu["event_set"] == key and cpu["event_set_basis"] == "vendor" and \
                cpu["fallback_kind"] in (None, "unlisted_stepping")
            if not ok:
                wrong.append(f"family {case[0]:#x} model {case[1]:#x} stepping {case[2]} core type {case[3]:#x} "
                             f"native {case[4]:#x}: {cpu['uarch_key']}/{cpu['event_set']} ({cpu['event_set_basis']}, "
                             f"{cpu['fallback_kind']}), perfmon says {key}")
        assert not wrong, "\n".join(wrong)
