#!/usr/bin/env python3
"""tools/cpuid_fixture.py - reduce a real CPUID dump to a pmuboot test fixture.

The InstLatx64 dumps in ../shared/cpuid-dumps/ (AIDA64/EVEREST text, layout
variants A-G of that folder's README) may not be copied into the repository.
The tests need only the register values that identification (cpu),
the PMU description (pmu/caps) and the IBS code (pmu/ibs, run/ibs_stage)
read - LEAVES below.  This tool answers each of those questions exactly as
pmuboot's dump reader (cpu/cpuid_dump_host.c) answers them from the
full dump, for every CPU block, and writes the answers in pmuboot's compact
fixture format (docs/cpuid-dumps.md):

    # pmuboot cpuid fixture 1
    # source: FILE
    # processor: VENDOR family 0xF model 0xM stepping S, "BRAND", N CPU blocks
    # leaves: ...
    CPU 0: core Intel Core                 (only where the dump's allcpu: line names a core type)
    CPU 0: 00000000.00: EAX EBX ECX EDX    (one line per leaf.subleaf the dump answers)

Nothing else of the dump is kept: no annotations, no cache or MSR sections,
no board data.  tests/host/test_cpuid_fixtures.py re-derives every fixture in
tests/fixtures/cpuid-real/ with this tool and checks that pmuboot-host asks
nothing of a fixture that it would answer differently from the full dump.

usage: tools/cpuid_fixture.py DUMP...            (fixtures to stdout, one after another)
       tools/cpuid_fixture.py -o DIR DUMP...     (each to DIR/<same file name>)
"""
import argparse
import os
import re
import sys

MAGIC = "# pmuboot cpuid fixture 1"

# (leaf, subleaf) pairs pmuboot reads through hw_cpuid from a CPU or a dump, and who reads them.
LEAVES = [
    (0x00000000, 0),     # cpu/cpu.c: maximum leaf, vendor string
    (0x00000001, 0),     # cpu.c, pmu/caps/pmu_caps.c: signature, CPUID.1:ECX[31] hypervisor
    (0x00000006, 0),     # pmu_caps.c: thermal and power (APERF/MPERF)
    (0x00000007, 0),     # cpu.c: CPUID.07H:EDX[15] hybrid; features that date a core (cpu/uarch_features.csv)
    (0x00000007, 1),     # pmu_caps.c: CPUID.(07H,01H):EAX[8] architectural PerfMon extension (leaf 23H); cpu.c: AVX10
    (0x0000000A, 0),     # cpu.c, pmu_caps.c: architectural PMU
    (0x00000015, 0),     # pmu/count/pmu_model_host.c: TSC/crystal ratio and crystal (the reference clocks)
    (0x00000016, 0),     # pmu_model_host.c: base and bus frequency
    (0x0000000B, 0),     # cpu/topo.c: x2APIC ID and the SMT level of the extended topology
    (0x0000000B, 1),     # topo.c: the core level
    (0x0000001A, 0),     # cpu.c: hybrid core type and native model
    (0x00000023, 0),     # pmu_caps.c: architectural PerfMon extended leaf
    (0x00000023, 1),     # pmu_caps.c: its counter bitmaps
    (0x40000000, 0),     # cpu.c: hypervisor vendor (only when CPUID.1:ECX[31] is set)
    (0x80000000, 0),     # cpu.c: maximum extended leaf
    (0x80000001, 0),     # pmu_caps.c, pmu/ibs: AMD PerfCtrExtCore, IBS feature bits
    (0x80000002, 0),     # cpu.c: brand string, 16 bytes per leaf
    (0x80000003, 0),
    (0x80000004, 0),
    (0x8000001B, 0),     # pmu_caps.c: AMD IBS capability flags
    (0x80000022, 0),     # pmu_caps.c: AMD PerfMonV2 counter counts
    (0x00000002, 0),     # cpu/cache.c: Intel cache and TLB descriptors
    *[(0x00000004, s) for s in range(8)],    # cache.c: deterministic cache parameters (CACHE_MAX_SUBLEAVES)
    *[(0x00000018, s) for s in range(16)],   # cache.c: address translation parameters (CACHE_MAX_TLB_SUBLEAVES)
    (0x80000005, 0),     # cache.c: AMD L1 caches and TLBs
    (0x80000006, 0),     # cache.c: AMD L2/L3 caches and L2 TLBs
    (0x80000019, 0),     # cache.c: AMD 1 GiB TLBs
    *[(0x8000001D, s) for s in range(8)],    # cache.c: AMD cache topology (CACHE_MAX_SUBLEAVES)
]

# The register-line grammar of ../shared/cpuid-dumps/README.md ("Register-line grammar").
REGISTER = re.compile(r"^CPUID[ ]+([0-9A-Fa-f]{8})[ \t]*:?[ \t]*([0-9A-Fa-f]{8})[- ]([0-9A-Fa-f]{8})"
                      r"[- ]([0-9A-Fa-f]{8})[- ]([0-9A-Fa-f]{8})(.*)$")
LEAF_START = re.compile(r"^CPUID[ ]+[0-9A-Fa-f]{8}")
SUBLEAF_TAG = re.compile(r"^[ \t]*\[SL ([0-9A-Fa-f]{2})\]")

# How the reader (cpuid_dump_host.c) gives untagged repeats their subleaf: same lists, same rules.
CONTIGUOUS = {0x00000004, 0x0000000B, 0x0000001F, 0x8000001D}     # repeats are subleaves 0, 1, 2...
INDEXED = {0x04, 0x07, 0x0B, 0x0D, 0x0F, 0x10, 0x12, 0x14, 0x17, 0x18, 0x1B, 0x1D, 0x1F, 0x20, 0x23, 0x24,
           0x27, 0x28, 0x8000001D, 0x80000020, 0x80000026}       # a lone untagged line answers subleaf 0 only
LEAF_XSAVE = 0x0000000D                                           # contiguous on Intel only
INTEL = (0x756E6547, 0x49656E69, 0x6C65746E)                      # "GenuineIntel" in EBX, EDX, ECX
NOTE_MAX = 23                                                     # CPUID_DUMP_NOTE_MAX - 1


class DumpError(Exception):
    pass


class Block:
    def __init__(self, note):
        self.note = note
        self.lines = []          # [leaf, tagged subleaf or None, (eax, ebx, ecx, edx)]
        self.answers = {}        # (leaf, subleaf) -> regs
        self.any = {}            # leaf -> regs for every subleaf

    def settle(self):
        """Give each untagged line its subleaf, as close_block() in cpuid_dump_host.c does."""
        v = next((r for leaf, _, r in self.lines if leaf == 0), None)
        intel = v is not None and (v[1], v[3], v[2]) == INTEL
        seen = {}
        for leaf, tag, regs in self.lines:
            if tag is not None:
                self.answers.setdefault((leaf, tag), regs)
                continue
            same = [t for l, t, _ in self.lines if l == leaf]
            idx = seen.get(leaf, 0)
            seen[leaf] = idx + 1
            if any(t is not None for t in same):
                continue                                 # untagged among tagged: index unknown
            if leaf in CONTIGUOUS or (intel and leaf == LEAF_XSAVE):
                self.answers.setdefault((leaf, idx), regs)
            elif len(same) == 1 and leaf not in INDEXED:
                self.any[leaf] = regs
            elif idx == 0:
                self.answers.setdefault((leaf, 0), regs)

    def query(self, leaf, subleaf):
        return self.answers.get((leaf, subleaf), self.any.get(leaf))


def allcpu_note(line):
    """The core type of an "allcpu: ... : Valid, Virtual, Intel Atom" line, or ""."""
    if "," not in line:
        return ""
    note = line.rsplit(",", 1)[1].strip()
    return "" if note == "Virtual" or len(note) > NOTE_MAX else note


def read_dump(path):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    blocks, pending = [], ""
    for no, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if line.startswith("------["):
            pending = ""
        elif line.startswith("allcpu:"):
            pending = allcpu_note(line)
        m = REGISTER.match(line)
        if not m:
            if LEAF_START.match(line) and any(c.isdigit() for c in line[6:14]):
                raise DumpError(f"{path}:{no}: not a register line of the README's grammar: {line[:60]!r}")
            continue
        leaf = int(m.group(1), 16)
        regs = tuple(int(m.group(i), 16) for i in range(2, 6))
        tag = SUBLEAF_TAG.match(m.group(6))
        if leaf == 0:
            blocks.append(Block(pending))
            pending = ""
        elif not blocks:
            raise DumpError(f"{path}:{no}: leaf {leaf:08X} before any leaf 00000000 line")
        blocks[-1].lines.append((leaf, int(tag.group(1), 16) if tag else None, regs))
    if not blocks:
        raise DumpError(f"{path}: no CPUID register lines")
    for b in blocks:
        b.settle()
    return blocks


def regs_text(words):
    return b"".join(w.to_bytes(4, "little") for w in words).decode("latin-1")


def processor(blocks):
    b = blocks[0]
    v = b.query(0, 0)
    sig = b.query(1, 0)
    vendor = regs_text((v[1], v[3], v[2])) if v else "?"
    fam = model = step = 0
    if sig:
        eax = sig[0]
        base, fam, model, step = (eax >> 8) & 0xF, (eax >> 8) & 0xF, (eax >> 4) & 0xF, eax & 0xF
        if base == 0xF:
            fam += (eax >> 20) & 0xFF
        if base == 0xF or (base == 0x6 and vendor == "GenuineIntel"):
            model |= ((eax >> 16) & 0xF) << 4
    brand = ""
    ext = b.query(0x80000000, 0)
    if ext and ext[0] >= 0x80000004:
        words = []
        for leaf in (0x80000002, 0x80000003, 0x80000004):
            words += list(b.query(leaf, 0) or (0, 0, 0, 0))
        brand = regs_text(words).split("\0", 1)[0].strip()
        brand = "".join(c if " " <= c < "\x7f" else "?" for c in brand)
    return f'{vendor} family 0x{fam:X} model 0x{model:X} stepping {step}, "{brand}", {len(blocks)} CPU blocks'


def fixture(path):
    blocks = read_dump(path)
    out = [MAGIC,
           f"# source: {os.path.basename(path)} (InstLatx64), reduced by tools/cpuid_fixture.py",
           f"# processor: {processor(blocks)}",
           "# leaves: " + " ".join(f"{l:X}.{s:X}" for l, s in LEAVES)]
    for n, b in enumerate(blocks):
        if b.note:
            out.append(f"CPU {n}: core {b.note}")
        for leaf, sub in LEAVES:
            r = b.query(leaf, sub)
            if r is not None:
                out.append(f"CPU {n}: {leaf:08X}.{sub:02X}: {r[0]:08X} {r[1]:08X} {r[2]:08X} {r[3]:08X}")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description="Reduce InstLatx64 CPUID dumps to pmuboot test fixtures.")
    ap.add_argument("-o", "--out-dir", help="write each fixture to DIR/<the dump's file name>")
    ap.add_argument("dumps", nargs="+", metavar="DUMP")
    a = ap.parse_args(argv)
    try:
        for path in a.dumps:
            text = fixture(path)
            if a.out_dir:
                with open(os.path.join(a.out_dir, os.path.basename(path)), "w", encoding="ascii", newline="\n") as f:
                    f.write(text)
            else:
                sys.stdout.write(text)
    except BrokenPipeError:
        # The reader (say, `| head`) has gone: stop quietly, and keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, DumpError) as e:
        print(f"cpuid_fixture: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
