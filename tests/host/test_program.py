"""pmuboot-host program: the MSR writes the counter driver makes, against the PMU of a CPUID dump.

The dumps are the committed reductions of the real InstLatx64 dumps (tests/fixtures/cpuid-real/).

Expected values are worked out from the SDM / AMD BKDG layouts, not taken from the program:
  Intel PERFEVTSELx = event | umask<<8 | USR(16) | OS(17) | EN(22); FIXED_CTR_CTRL field n = 0x3 << 4n;
  GLOBAL_CTRL bit n = PMCn, bit 32+n = FIXED_CTRn; AMD PERF_CTL adds event[11:8] << 32.
"""
import os
import re

from testlib import Skip

REAL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "cpuid-real")
WRMSR = re.compile(r"^wrmsr 0x([0-9a-f]+) 0x([0-9a-f]+)$")


def program(ctx, dump, *specs, check=True):
    path = os.path.join(REAL, dump)
    p = ctx.run_host("program", "--cpuid-dump", path, *specs)
    if check:
        assert p.returncode == 0, f"exit {p.returncode}: {p.stderr}"
    return p


def sections(out):
    """[(heading, [(msr, value), ...]), ...] in order, plus the pass lines."""
    secs, passes = [], []
    for line in out.splitlines():
        m = WRMSR.match(line)
        if m:
            assert secs, f"a write before any heading: {line}"
            secs[-1][1].append((int(m.group(1), 16), int(m.group(2), 16)))
        elif line.startswith("# "):
            secs.append((line[2:], []))
        elif line.startswith("passes: ") or line.startswith("pass "):
            passes.append(line)
        else:
            raise AssertionError(f"unexpected line: {line!r}")
    return secs, passes


def writes(secs, heading):
    return [w for h, ws in secs if h == heading for w in ws]


def test_skylake_exact_writes(ctx):
    p = program(ctx, "GenuineIntel00506E3_Skylake_CPUID.txt",
                "event=0x00,umask=0x01", "event=0x03,umask=0x02", "event=0x3c,umask=0x00")
    secs, passes = sections(p.stdout)
    assert writes(secs, "init: check that writes stick") == [(0x186, 0x1), (0x186, 0x0)]
    assert writes(secs, "pass 0: program") == [
        (0x38F, 0x0),           # GLOBAL_CTRL from its reset value (every GP counter on) to off
        (0x186, 0x430203),      # LD_BLOCKS.STORE_FORWARD on PMC0, USR|OS|EN
        (0x187, 0x43003C),      # core cycles on PMC1
        (0x38D, 0x3),           # fixed counter 0 (the 0x00/0x01 pseudo-encoding), USR|OS
    ]
    assert writes(secs, "pass 0: start list (right before the kernel)") == [(0x38F, 0x100000003)]
    assert writes(secs, "pass 0: stop list (right after the kernel)") == [(0x38F, 0x0)]
    # No IA32_PERF_CAPABILITIES in a dump: legacy counter addresses.
    assert writes(secs, "pass 0: zero counters") == [(0xC1, 0), (0xC2, 0), (0x309, 0)]
    restore = writes(secs, "end of run: restore")
    assert restore[-1] == (0x38F, 0xFF), restore     # the global switch goes back last, to its reset value
    assert passes[0] == "passes: 1", passes
    assert passes[1] == "pass 0: event=0x00,umask=0x01 -> fixed0, event=0x03,umask=0x02 -> pmc0, " \
                        "event=0x3c,umask=0x00 -> pmc1", passes


def test_every_write_is_restored(ctx):
    """After the restore, each MSR the run wrote holds the value it had before the run's first write."""
    p = program(ctx, "GenuineIntel00506C9_Goldmont2_CPUID.txt",
                *[f"event=0x{0x10 + i:02x},umask=0x01" for i in range(6)])
    secs, passes = sections(p.stdout)
    assert passes[0] == "passes: 2", passes
    # The modelled PMU starts at power-on state: every register 0 except GLOBAL_CTRL = 0xf (4 GP counters).
    before = {0x38F: 0xF}
    final = {}
    for h, ws in secs:
        for msr, val in ws:
            final[msr] = val
    for msr, val in final.items():
        assert val == before.get(msr, 0), f"MSR {msr:#x} left at {val:#x}"


def test_merom_fixed_counters_cpuid_does_not_list(ctx):
    p = program(ctx, "GenuineIntel00006F6_Merom_CPUID.txt", "event=0x00,umask=0x03")
    secs, _ = sections(p.stdout)
    # CPUID.0AH:EDX is 0 on Merom, yet fixed counter 2 (reference cycles) exists.
    assert (0x38D, 0x300) in writes(secs, "pass 0: program"), secs
    assert writes(secs, "pass 0: start list (right before the kernel)") == [(0x38F, 0x400000000)]


def test_p6_shared_enable(ctx):
    p = program(ctx, "GenuineIntel0000673_P3_Katmai_CPUID.txt", "event=0x79,umask=0", "event=0x03,umask=0")
    secs, _ = sections(p.stdout)
    assert writes(secs, "pass 0: program") == [(0x186, 0x30079), (0x187, 0x30003)]
    # One write to PerfEvtSel0's EN runs both counters.
    assert writes(secs, "pass 0: start list (right before the kernel)") == [(0x186, 0x430079)]
    assert writes(secs, "pass 0: stop list (right after the kernel)") == [(0x186, 0x30079)]


def test_zen4_perfmon_v2_and_12_bit_events(ctx):
    p = program(ctx, "AuthenticAMD0A60F12_K19_Raphael_04_CPUID.txt", "event=0xc0,umask=0", "event=0x4e0,umask=0x07")
    secs, _ = sections(p.stdout)
    assert writes(secs, "pass 0: program") == [
        (0xC0000301, 0x0), (0xC0010200, 0x4300C0), (0xC0010202, 0x4004307E0)]
    assert writes(secs, "pass 0: start list (right before the kernel)") == [(0xC0000301, 0x3)]
    assert writes(secs, "end of run: restore")[-1] == (0xC0000301, 0x3F)


def test_family10h_legacy_per_counter_enable(ctx):
    p = program(ctx, "AuthenticAMD0100F21_K10_Barcelona_CPUID.txt", "event=0xc0,umask=0", "event=0x4e0,umask=0x07")
    secs, _ = sections(p.stdout)
    assert writes(secs, "pass 0: start list (right before the kernel)") == [
        (0xC0010000, 0x4300C0), (0xC0010001, 0x4004307E0)]
    assert writes(secs, "pass 0: zero counters") == [(0xC0010004, 0), (0xC0010005, 0)]


def test_more_events_than_counters(ctx):
    p = program(ctx, "AuthenticAMD0800F11_K17_Zen_CPUID4.txt", *[f"event=0x{0x40 + i:x},umask=0" for i in range(8)])
    _, passes = sections(p.stdout)
    assert passes[0] == "passes: 2", passes
    assert passes[2] == "pass 1: event=0x46,umask=0 -> pmc0, event=0x47,umask=0 -> pmc1", passes


def test_event_names_resolve_through_the_cpu_event_set(ctx):
    p = program(ctx, "GenuineIntel00506E3_Skylake_CPUID.txt", "LD_BLOCKS.STORE_FORWARD", check=False)
    if p.returncode == 2 and "unknown event" in p.stderr:
        raise Skip("the skylake event table has no LD_BLOCKS.STORE_FORWARD yet")
    assert p.returncode == 0, p.stderr
    secs, _ = sections(p.stdout)
    assert (0x186, 0x430203) in writes(secs, "pass 0: program"), secs


def test_errors_name_what_is_wrong(ctx):
    p = program(ctx, "GenuineIntel00506E3_Skylake_CPUID.txt", "evnt=3", check=False)
    assert p.returncode == 2 and "evnt" in p.stderr, (p.returncode, p.stderr)
    p = program(ctx, "GenuineIntel00506E3_Skylake_CPUID.txt", "event=0x1c0", check=False)
    assert p.returncode == 2 and "0x1c0" in p.stderr.lower(), p.stderr
    p = ctx.run_host("program", "--cpuid-dump", os.path.join(REAL, "GenuineIntel00506E3_Skylake_CPUID.txt"))
    assert p.returncode == 2 and "no events given" in p.stderr, p.stderr   # (no dump: this CPU, test_host_cli.py)
    p = ctx.run_host("program", "--cpuid-dump", "/nonexistent/dump.txt", "event=0x3c")
    assert p.returncode == 2 and "/nonexistent/dump.txt" in p.stderr, p.stderr


def test_every_dump_programs_cleanly(ctx):
    """Each real dump with a PMU gets a program that ends by restoring the global switch or selects."""
    d = REAL
    n = 0
    for name in sorted(os.listdir(d)):
        if not name.endswith(".txt"):
            continue
        amd = not name.startswith("GenuineIntel")
        spec = "event=0x76,umask=0" if amd else "event=0xc0,umask=0"
        p = ctx.run_host("program", "--cpuid-dump", os.path.join(d, name), spec)
        assert p.returncode == 0, f"{name}: exit {p.returncode}: {p.stderr}"
        secs, passes = sections(p.stdout)
        assert passes[0] == "passes: 1", (name, passes)
        assert writes(secs, "end of run: restore"), f"{name}: nothing restored"
        n += 1
    assert n >= 40, n


def test_docs_example_is_what_the_program_prints(ctx):
    """docs/counters.md shows a real run; it must stay what the program prints."""
    with open(os.path.join(ctx.root, "docs", "counters.md")) as f:
        doc = f.read()
    block = doc.split("```\n$ build/pmuboot-host program", 1)[1].split("```", 1)[0]
    cmd, expected = block.split("\n", 2)[:2], block.split("\n", 2)[2]
    args = (cmd[0] + " " + cmd[1]).replace("\\", " ").split()
    assert args[0] == "--cpuid-dump", args
    dump = os.path.basename(args[1])
    p = program(ctx, dump, *args[2:])
    assert p.stdout == expected, f"docs/counters.md example is stale; the program now prints:\n{p.stdout}"


# ---- issue 22: the placements stay inside the vendors' allowed counters ----

PASS_LINE = re.compile(r"(\S+) -> (pmc(\d+)(?:\+\d+)?|fixed\d+)")


def placements(passes):
    """{spec: counter name} from the 'pass N: spec -> counter, ...' lines."""
    out = {}
    for line in passes[1:]:
        for spec, counter, _ in PASS_LINE.findall(line.split(": ", 1)[1]):
            out[spec] = counter
    return out


def read_back(out):
    """{spec: count} from the '# pass N: read back after ...' lines."""
    counts = {}
    for line in out.splitlines():
        if ": read back after " in line:
            for item in line.split(" events:", 1)[1].split():
                spec, _, n = item.rpartition("=")
                counts[spec] = int(n)
    return counts


def test_raw_specs_keep_their_codes_restrictions(ctx):
    """Defect a: a raw spec with qualifiers no catalogue row has lands only inside the counters the
    vendor allows its code (the free events asked for first take the low counters), and the
    model, which counts nothing on a forbidden counter, reads its events back."""
    cases = [
        ("GenuineIntel00706E5_IceLakeY_CPUID.txt", "event=0x03,umask=0x02,cmask=1", 7, {0, 1, 2, 3}),
        ("GenuineIntel00206A7_SandyBridge_CPUID.txt", "event=0x48,umask=0x01,cmask=2", 7, {2}),
        ("GenuineIntel00806F8_SapphireRapids_05_CPUID.txt", "event=0xd1,umask=0x01,cmask=1", 7, {0, 1, 2, 3}),
        ("AuthenticAMD0600F12_K15_Zambezi8C_CPUID.txt", "event=0x76,cmask=1", 5, {0, 1, 2}),
        ("AuthenticAMD0600F12_K15_Zambezi8C_CPUID.txt", "event=0x00f", 5, {3, 4, 5}),
    ]
    for dump, spec, nfree, allowed in cases:
        amd = dump.startswith("AuthenticAMD")
        # Free events: Intel codes no table of these cores lists; on Family 15h the execution unit.
        free = [f"event=0x{(0xC8 if amd else 0x10) + i:02x},umask=0" for i in range(nfree)]
        p = program(ctx, dump, *free, spec)
        _, passes = sections(p.stdout)
        assert passes[0] == "passes: 1", (dump, passes)
        counter = placements(passes)[spec]
        assert counter.startswith("pmc") and int(counter[3:]) in allowed, (dump, spec, counter)
        assert read_back(p.stdout)[spec] == 1000, (dump, p.stdout)


def test_second_offcore_form_programs_rsp1(ctx):
    """Defect b: the second form's code programs OFFCORE_RSP_1 (0x1A7), never OFFCORE_RSP_0:
    BBH/01H (Westmere-EP to Ice Lake), 2BH/01H (Golden Cove on), B7H/02H (the Atoms)."""
    for dump, code in (("GenuineIntel00206A7_SandyBridge_CPUID.txt", "event=0xbb,umask=0x01"),
                       ("GenuineIntel00906A4_AlderLakeP_00_CPUID.txt", "event=0x2b,umask=0x01"),
                       ("GenuineIntel00506C9_Goldmont2_CPUID.txt", "event=0xb7,umask=0x02")):
        spec = code + ",offcore_rsp=0x10001"
        p = program(ctx, dump, spec)
        secs, _ = sections(p.stdout)
        prog = writes(secs, "pass 0: program")
        assert (0x1A7, 0x10001) in prog and not [w for w in prog if w[0] == 0x1A6], (dump, prog)
        event, umask = (int(x.split("=")[1], 16) for x in code.split(","))
        assert any(msr in range(0x186, 0x18E) and val & 0xFFFF == umask << 8 | event for msr, val in prog), prog
        assert read_back(p.stdout)[spec] == 1000, p.stdout    # the model counts it only with 0x1A7 set


def test_meteor_lake_p_core_fixed_counter_3(ctx):
    """Defect d: CPUID.(23H,1):EBX gives the Meteor Lake P-core fixed counter 3 (CPUID.0AH, common
    to both core types, lists 0-2), where TOPDOWN.SLOTS counts; the E-core has none."""
    dump = "GenuineIntel00A06A4_MeteorLake_10_CPUID.txt"
    p = program(ctx, dump, "TOPDOWN.SLOTS")
    secs, passes = sections(p.stdout)
    assert "4 fixed" in p.stdout.splitlines()[1], p.stdout
    assert (0x38D, 0x3000) in writes(secs, "pass 0: program"), secs
    assert writes(secs, "pass 0: start list (right before the kernel)") == [(0x38F, 0x800000000)]
    assert writes(secs, "pass 0: zero counters") == [(0x30C, 0)]
    assert passes[1] == "pass 0: TOPDOWN.SLOTS -> fixed3", passes
    assert read_back(p.stdout)["TOPDOWN.SLOTS"] == 1000
    p = ctx.run_host("program", "--cpuid-dump", os.path.join(REAL, dump), "--cpu", "2", "event=0x00,umask=0x04")
    assert p.returncode == 1 and "fixed counter 3, which this PMU does not have" in p.stderr, (p.returncode, p.stderr)


def test_taken_alone_event_has_its_pass(ctx):
    """Defect f: Sandy Bridge's INST_RETIRED.PREC_DIST (TakenAlone) shares its pass with no other
    general-counter event; a fixed-counter event may count beside it."""
    p = program(ctx, "GenuineIntel00206A7_SandyBridge_CPUID.txt",
                "INST_RETIRED.PREC_DIST", "event=0x00,umask=0x01", "event=0x10,umask=0x01", "event=0x11,umask=0x01")
    _, passes = sections(p.stdout)
    assert passes[0] == "passes: 2", passes
    alone = next(l for l in passes[1:] if "INST_RETIRED.PREC_DIST" in l)
    assert "pmc" not in alone.replace("INST_RETIRED.PREC_DIST -> pmc1", ""), alone


def test_amd_large_increment_event_on_a_merged_pair(ctx):
    """Defect g: Zen 3's retired FLOPs and ALLOC_MAB_COUNT (05FH) go on an even counter with the
    Merge event (0xFFF | EN) on the odd one, written first; Zen 5's 05FH needs no pair."""
    p = program(ctx, "AuthenticAMD0A20F12_K19_Vermeer_03_CPUID.txt", "RETIRED_SSE_AVX_FLOPS.ANY", "event=0x5f")
    secs, passes = sections(p.stdout)
    assert passes[1] == "pass 0: RETIRED_SSE_AVX_FLOPS.ANY -> pmc0+1, event=0x5f -> pmc2+3", passes
    assert writes(secs, "pass 0: start list (right before the kernel)") == [
        (0xC0010202, 0xF004000FF), (0xC0010200, 0x430F03), (0xC0010206, 0xF004000FF), (0xC0010204, 0x43005F)]
    assert read_back(p.stdout) == {"RETIRED_SSE_AVX_FLOPS.ANY": 1000, "event=0x5f": 1000}
    p = program(ctx, "AuthenticAMD0B40F40_K20_GraniteRidge_02_CPUID.txt", "event=0x5f")
    _, passes = sections(p.stdout)
    assert passes[1] == "pass 0: event=0x5f -> pmc0", passes


def test_any_thread_refused_before_anything_is_printed(ctx):
    """Defect h: AnyThread on a PMU that deprecates it (CPUID.0AH:EDX[15], Ice Lake) is refused
    with the reason alone: no pass plan, no writes."""
    p = program(ctx, "GenuineIntel00706E5_IceLakeY_CPUID.txt", "event=0x3c,umask=0,any", check=False)
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert p.stdout == "", p.stdout
    assert "AnyThread" in p.stderr and "CPUID.0AH:EDX[15]" in p.stderr, p.stderr
