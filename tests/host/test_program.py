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
