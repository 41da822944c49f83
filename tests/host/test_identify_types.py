"""pmuboot-host identify --cpuid-dump on dumps with several CPU blocks: every core type found,
P-core-only SKUs of hybrid models named exactly, and dumps that repeat a line: read when the values
are the same, refused when they differ.

The real processors are the committed fixtures in tests/fixtures/cpuid-real/ (register values
reduced from the dumps in ../shared/cpuid-dumps by tools/cpuid_fixture.py); the repeated-line
cases are built from a hand-written AIDA64-format fixture in tests/fixtures/cpuid/.
"""
import os
import re
import tempfile

import pmucap

ADL = "GenuineIntel00906A4_AlderLakeP_00_CPUID.txt"
MTL = "GenuineIntel00A06A4_MeteorLake_10_CPUID.txt"
KAVERI = "AuthenticAMD0630F01_K15_Kaveri_CPUID.txt"


def real(ctx, name):
    return os.path.join(ctx.root, "tests", "fixtures", "cpuid-real", name)


def run_identify(ctx, *args):
    p = ctx.run_host("identify", *args)
    assert p.returncode == 0, (args, p.returncode, p.stderr)
    runs, _ = pmucap.parse(p.stdout)
    assert len(runs) == 1 and runs[0].complete, p.stdout[-800:]
    return runs[0], p.stdout


def topology(ctx, name):
    run, out = run_identify(ctx, "--cpuid-dump", real(ctx, name))
    topo = [r for _, r in run.records if r["type"] == "topology"]
    assert len(topo) == 1, [r["type"] for _, r in run.records]
    return topo[0], out


def test_alder_lake_p_both_core_types(ctx):
    t, out = topology(ctx, ADL)
    types = {c["core_type"]: c for c in t["core_types"]}
    assert sorted(types) == ["atom", "core"], t["core_types"]
    assert (types["core"]["uarch_key"], types["core"]["event_set"], types["core"]["count"]) == ("goldencove", "goldencove", 4)
    assert (types["atom"]["uarch_key"], types["atom"]["event_set"], types["atom"]["count"]) == ("gracemont", "gracemont", 8)
    assert not types["core"]["fallback"] and not types["atom"]["fallback"], t["core_types"]
    assert t["count"] == 12 and len(t["cpus"]) == 12 and t["cpus"][0]["bsp"] is True, t
    assert len({c["apic_id"] for c in t["cpus"]}) == 12, t["cpus"]
    # The i3-1220P is 2 P-cores with Hyper-Threading and 8 E-cores.
    assert t["summary"] == "2 P-cores x 2 threads, 8 E-cores", t["summary"]
    assert "event set gracemont" in out and "event set goldencove" in out, out


def test_meteor_lake_both_core_types(ctx):
    t, _ = topology(ctx, MTL)
    got = sorted((c["core_type"], c["uarch_key"], c["event_set"], c["count"]) for c in t["core_types"])
    assert got == [("atom", "crestmont", "crestmont", 10), ("core", "redwoodcove", "redwoodcove", 12)], got
    assert t["summary"] == "6 P-cores x 2 threads, 10 E-cores", t["summary"]


def test_non_hybrid_dump_one_type(ctx):
    t, _ = topology(ctx, KAVERI)
    assert [c["uarch_key"] for c in t["core_types"]] == ["steamroller"], t["core_types"]
    assert t["core_types"][0]["count"] == 4, t
    # IBS as CPUID says on each block: Fn8000_001B EAX of the dump itself.
    with open(real(ctx, KAVERI), encoding="utf-8") as f:
        eax = next(l.split()[3] for l in f if l.startswith("CPU 0: 8000001B.00:"))
    assert t["core_types"][0]["ibs"] is True and int(t["core_types"][0]["ibs_flags"], 16) == int(eax, 16), t


def test_one_block_asked_for_no_topology(ctx):
    run, _ = run_identify(ctx, "--cpuid-dump", real(ctx, ADL), "--cpu", "4")
    assert [r["type"] for _, r in run.records] == ["begin", "cpu", "cache", "pmu"], run.records


def first_block(path):
    """The header and CPU 0's lines of a fixture."""
    with open(path, encoding="utf-8") as f:
        return "".join(l for l in f if l.startswith("#") or l.startswith("CPU 0:"))


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def test_p_core_only_sku_is_exact(ctx):
    """CPUID.07H:EDX[15] clear on a hybrid model (i5-12400): every core is a P-core, exactly."""
    block = first_block(real(ctx, ADL))
    line7 = re.search(r"^CPU 0: 00000007\.00: (\w{8}) (\w{8}) (\w{8}) (\w{8})$", block, re.M)
    edx = int(line7.group(4), 16)
    assert edx & (1 << 15), line7.group(0)           # the real part is hybrid
    cleared = line7.group(0)[:-8] + f"{edx & ~(1 << 15):08X}"
    block = block.replace(line7.group(0), cleared)
    block = re.sub(r"^CPU 0: 0000001A\.00: .*$", "CPU 0: 0000001A.00: 00000000 00000000 00000000 00000000", block,
                   flags=re.M)
    block = re.sub(r"^CPU 0: core .*\n", "", block, flags=re.M)
    with tempfile.TemporaryDirectory() as tmp:
        run, out = run_identify(ctx, "--cpuid-dump", write(tmp, "pcore_only.txt", block))
    cpu = next(r for _, r in run.records if r["type"] == "cpu")
    assert cpu["hybrid"] is False and cpu["core_type"] is None, cpu
    assert (cpu["uarch_key"], cpu["event_set"], cpu["fallback"]) == ("goldencove", "goldencove", False), cpu
    assert "FALLBACK" not in out, out


def test_repeated_lines(ctx):
    """A dump whose tool repeated a line with the same values is read as if it had not; the same
    question answered with other values is refused with both line numbers."""
    path = os.path.join(ctx.root, "tests", "fixtures", "cpuid", "amd_future_model.txt")
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    base, _ = run_identify(ctx, "--cpuid-dump", path)
    # Repeat a tagged leaf 0DH line, as an AIDA64 dump of an A10-7350B does with subleaf 3EH...
    i = next(k for k, l in enumerate(lines) if l.startswith("CPUID 0000000D:") and "[SL 00]" in l)
    tagged = lines[:i + 1] + [lines[i]] + lines[i + 1:]
    # ...and an untagged leaf that ignores ECX.
    j = next(k for k, l in enumerate(lines) if l.startswith("CPUID 80000001:"))
    untagged = lines[:j + 1] + [lines[j]] + lines[j + 1:]
    with tempfile.TemporaryDirectory() as tmp:
        for text in (tagged, untagged):
            p = write(tmp, "repeat.txt", "\n".join(text))
            run, _ = run_identify(ctx, "--cpuid-dump", p)
            got = [{k: v for k, v in r.items() if k != "source"} for _, r in run.records if r["type"] in ("cpu", "pmu")]
            want = [{k: v for k, v in r.items() if k != "source"} for _, r in base.records if r["type"] in ("cpu", "pmu")]
            assert got == want, (got, want)
        # The same questions with one register changed: refused, naming the repeat's line and the first.
        for text, at, words in ((tagged, i, "subleaf 00"), (untagged, j, "it takes no subleaf")):
            bad = list(text)
            bad[at + 1] = re.sub(r"^(CPUID \w{8}: )(\w{8})", lambda m: f"{m.group(1)}{int(m.group(2), 16) ^ 1:08X}",
                                 bad[at + 1])
            assert bad[at + 1] != text[at + 1]
            p = write(tmp, "contradiction.txt", "\n".join(bad))
            r = ctx.run_host("identify", "--cpuid-dump", p)
            assert r.returncode == 1, (r.returncode, r.stdout[-300:])
            assert f"{p}:{at + 2}: " in r.stderr and f"on line {at + 2} was already given on line {at + 1}" in r.stderr \
                and words in r.stderr, r.stderr
            assert "@pmuboot" not in r.stdout, r.stdout
