"""pmuboot-host identify: this machine, every real CPUID dump, the hand-written fixtures, bad input.

The real dumps are the InstLatx64 files of ../shared/cpuid-dumps/, which may
not be copied into the repository: tests/fixtures/cpuid-real/ holds their
register values reduced by tools/cpuid_fixture.py to the leaves pmuboot reads
(same file names), so these tests run on any clone.  README_TABLE
(tests/testlib/cpuid_dumps.py) is that folder's README table (vendor, family, model, stepping of each file);
tests/host/test_cpuid_fixtures.py checks it against the README and re-derives
the fixtures when ../shared is there.  This test adds the microarchitecture
each must be named.
"""
import os
import re
import shutil
import subprocess
import tempfile

import pmucap
from testlib import Skip
from testlib.cpuid_dumps import README_TABLE

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "cpuid")
REAL = os.path.join(os.path.dirname(FIXTURES), "cpuid-real")

# file -> (uarch_key, event_set, pmu kind) of the first CPU block.
DUMPS = {
    "AuthenticAMD0020FB1_K8_Manchester_CPUID.txt": ("k8", "k8", "amd_legacy"),
    "AuthenticAMD0100F21_K10_Barcelona_CPUID.txt": ("k10", "fam10h", "amd_legacy"),
    "AuthenticAMD0100F42_K10_Deneb_CPUID.txt": ("k10", "fam10h", "amd_legacy"),
    "AuthenticAMD0300F10_K12_Llano_CPUID.txt": ("llano", "fam12h", "amd_legacy"),
    "AuthenticAMD0500F10_K14_Bobcat_CPUID.txt": ("bobcat", "fam14h", "amd_legacy"),
    "AuthenticAMD0600F12_K15_Zambezi8C_CPUID.txt": ("bulldozer", "fam15h", "amd_core_ext"),
    "AuthenticAMD0600F20_K15_Vishera_CPUID.txt": ("piledriver", "fam15h", "amd_core_ext"),
    "AuthenticAMD0630F01_K15_Kaveri_CPUID.txt": ("steamroller", "fam15h", "amd_core_ext"),
    "AuthenticAMD0660F51_K15_BristolRidge_CPUID.txt": ("excavator", "fam15h", "amd_core_ext"),
    "AuthenticAMD0700F01_K16_Kabini_CPUID.txt": ("jaguar", "fam16h", "amd_legacy"),
    "AuthenticAMD0800F11_K17_Zen_CPUID4.txt": ("zen", "zen1", "amd_core_ext"),
    "AuthenticAMD0800F82_K17_PinnacleRidge_01_CPUID.txt": ("zen_plus", "zen1", "amd_core_ext"),
    "AuthenticAMD0870F10_K17_Matisse_01_CPUID.txt": ("zen2", "zen2", "amd_core_ext"),
    "AuthenticAMD0A20F12_K19_Vermeer_03_CPUID.txt": ("zen3", "zen3", "amd_core_ext"),
    "AuthenticAMD0A60F12_K19_Raphael_04_CPUID.txt": ("zen4", "zen4", "amd_v2"),
    "AuthenticAMD0B40F40_K20_GraniteRidge_02_CPUID.txt": ("zen5", "zen5", "amd_v2"),
    "GenuineIntel0000617_P6_CPUID.txt": ("pentium_pro", "pentium_pro", "intel_p6"),
    "GenuineIntel0000651_P2_Descuthes_CPUID.txt": ("pentium2", "pentium2", "intel_p6"),
    "GenuineIntel0000673_P3_Katmai_CPUID.txt": ("pentium3", "p6", "intel_p6"),
    "GenuineIntel00006D8_PM_Dothan_CPUID.txt": ("pentium_m", "pentium_m", "intel_p6"),
    "GenuineIntel00006F6_Merom_CPUID.txt": ("merom", "core", "intel_arch"),
    "GenuineIntel0010676_Penryn_CPUID.txt": ("penryn", "core", "intel_arch"),
    "GenuineIntel00106A4_Bloomfield_CPUID.txt": ("nehalem", "nehalem", "intel_arch"),
    "GenuineIntel00106C2_Diamondville_CPUID.txt": ("bonnell", "bonnell", "intel_arch"),
    "GenuineIntel0020652_Clarkdale_CPUID.txt": ("westmere", "westmere", "intel_arch"),
    "GenuineIntel00206A7_SandyBridge_CPUID.txt": ("sandybridge", "sandybridge", "intel_arch"),
    "GenuineIntel0030673_Silvermont3_CPUID.txt": ("silvermont", "silvermont", "intel_arch"),
    "GenuineIntel00306A9_IvyBridge_CPUID.txt": ("ivybridge", "ivybridge", "intel_arch"),
    "GenuineIntel00306C3_Haswell_CPUID.txt": ("haswell", "haswell", "intel_arch"),
    "GenuineIntel00306D4_Broadwell2_CPUID.txt": ("broadwell", "broadwell", "intel_arch"),
    "GenuineIntel00406C3_Braswell_CPUID.txt": ("airmont", "silvermont", "intel_arch"),
    "GenuineIntel0050654_SkylakeXeon_CPUID9.txt": ("skylake_sp", "skylake_server", "intel_arch"),
    "GenuineIntel00506C9_Goldmont2_CPUID.txt": ("goldmont", "goldmont", "intel_arch"),
    "GenuineIntel00506E3_Skylake_CPUID.txt": ("skylake", "skylake", "intel_arch"),
    "GenuineIntel00706A1_GoldmontPlus_CPUID2.txt": ("goldmont_plus", "goldmont_plus", "intel_arch"),
    "GenuineIntel00706E5_IceLakeY_CPUID.txt": ("icelake", "icelake", "intel_arch"),
    "GenuineIntel00806C1_TigerLake_01_CPUID.txt": ("tigerlake", "tigerlake", "intel_arch"),
    "GenuineIntel00806F8_SapphireRapids_05_CPUID.txt": ("sapphirerapids", "sapphirerapids", "intel_arch"),
    "GenuineIntel00906A4_AlderLakeP_00_CPUID.txt": ("goldencove", "goldencove", "intel_arch"),
    "GenuineIntel00906C0_JasperLake_01_CPUID.txt": ("tremont", "elkhartlake", "intel_arch"),
    "GenuineIntel00906E9_KabyLake_01_CPUID.txt": ("kabylake", "skylake", "intel_arch"),
    "GenuineIntel00A06A4_MeteorLake_10_CPUID.txt": ("redwoodcove", "redwoodcove", "intel_arch"),
    "GenuineIntel00B0671_RaptorLake_01_CPUID.txt": ("raptorcove", "goldencove", "intel_arch"),
    "GenuineIntel00B06E0_AlderLakeN_02_CPUID.txt": ("gracemont", "gracemont", "intel_arch"),
    "HygonGenuine0900F02_Hygon_CPUID.txt": ("dhyana", "zen1", "amd_core_ext"),
}

# Blocks of hybrid dumps on an E-core (the file's own "allcpu:" line says "Intel Atom").
ECORE_BLOCKS = [
    ("GenuineIntel00906A4_AlderLakeP_00_CPUID.txt", 4, "gracemont", "gracemont"),
    ("GenuineIntel00B0671_RaptorLake_01_CPUID.txt", 16, "gracemont", "gracemont"),
    ("GenuineIntel00A06A4_MeteorLake_10_CPUID.txt", 2, "crestmont", "crestmont"),
    ("GenuineIntel00A06A4_MeteorLake_10_CPUID.txt", 21, "crestmont", "crestmont"),  # "Intel Atom LP"
]


def records(text):
    """The one run in pmuboot-host's output, checked complete (count and CRC)."""
    runs, _ = pmucap.parse(text)
    assert len(runs) == 1 and runs[0].complete, (runs and runs[0].problems, text[-800:])
    return runs[0]


def identify(ctx, *args):
    p = ctx.run_host("identify", *args)
    assert p.returncode == 0, f"identify {' '.join(args)} exited {p.returncode}: {p.stderr}"
    run = records(p.stdout)
    types = [r["type"] for _, r in run.records if r["type"] != "topology"]   # test_identify_types.py
    assert types == ["begin", "cpu", "cache", "pmu"] and run.end["status"] == "ok", (types, run.end)
    recs = {r["type"]: r for _, r in run.records}
    return recs["cpu"], recs["pmu"], p.stdout


def real(name):
    """A committed reduction of a real dump (tests/fixtures/cpuid-real/)."""
    return os.path.join(REAL, name)


def cpuinfo_first():
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        block = f.read().split("\n\n")[0]
    return dict((k.strip(), v.strip()) for k, v in (l.split(":", 1) for l in block.splitlines() if ":" in l))


def test_this_machine(ctx):
    info = cpuinfo_first()
    cpu, pmu, out = identify(ctx, "--cpu", "0")
    assert cpu["vendor_string"] == info["vendor_id"], (cpu, info["vendor_id"])
    assert int(cpu["family"], 16) == int(info["cpu family"]), (cpu, info["cpu family"])
    assert int(cpu["model"], 16) == int(info["model"]), (cpu, info["model"])
    assert cpu["stepping"] == int(info["stepping"]), (cpu, info["stepping"])
    assert cpu["brand"] == info["model name"], (cpu["brand"], info["model name"])
    assert cpu["hypervisor"] == ("hypervisor" in info["flags"].split()), cpu
    assert cpu["source"] == "cpuid", cpu
    # The microcode revision: MSR 0x8B when readable, else /proc/cpuinfo's line; the same number either way.
    if "microcode" in info:
        assert cpu["microcode"] is not None and int(cpu["microcode"], 16) == int(info["microcode"], 16), cpu
        assert cpu["microcode_reason"] is None, cpu
    # An exact identification names a real event set; a fallback says why; a doubted one (a hypervisor's
    # model number its features contradict) keeps the name and only the vendor's generic events.
    if cpu["fallback"]:
        assert cpu["fallback_reason"], cpu
    elif cpu["uarch_doubt"]:
        assert cpu["uarch"] and cpu["event_set"] in (None, "intel_arch", "amd_legacy"), cpu
        assert f"cpu: DOUBT: {cpu['uarch_doubt']}; event set " in out, out
    else:
        assert cpu["event_set"] and cpu["uarch"] and cpu["fallback_reason"] is None, cpu
    # The PMU is either there with counters, or absent with the reason, in the record and the text.
    if pmu["present"]:
        assert pmu["gp"]["count"] > 0 and pmu["absent_reason"] is None, pmu
    else:
        assert pmu["absent_reason"] and f"pmu: no PMU: {pmu['absent_reason']}" in out, pmu
    assert f"cpu: {cpu['vendor_string']} family {cpu['family']} model {cpu['model']}" in out, out


def test_microcode_said_one_way(ctx):
    """identify and run read the microcode the same way, and each names where it read it."""
    cpu, _, out = identify(ctx, "--cpu", "0")
    p = ctx.run_host("run", "bench=none", "audit=off", "cpus=0")
    runs, _ = pmucap.parse(p.stdout)
    assert runs, (p.returncode, p.stderr[-2000:])
    run_cpu = pmucap.first_record(runs[-1], "cpu")
    assert run_cpu is not None, p.stdout[-2000:]
    # Where it was read, without the processor number (run is not pinned to identify's CPU 0).
    def kind(source):
        return source.split(",")[0] if source else source
    for key in ("microcode", "microcode_reason"):
        assert run_cpu.get(key) == cpu.get(key), (key, run_cpu.get(key), cpu.get(key))
    assert kind(run_cpu.get("microcode_source")) == kind(cpu.get("microcode_source")), (run_cpu, cpu)
    if cpu["microcode"] is None:
        assert cpu["microcode_source"] is None and cpu["microcode_reason"], cpu
        return
    assert cpu["microcode_source"] == "MSR 0x8b" or cpu["microcode_source"].startswith("/proc/cpuinfo"), cpu
    for text, rec in ((out, cpu), (p.stdout, run_cpu)):
        line = f"cpu: microcode revision {rec['microcode']} ({rec['microcode_source']})"
        assert line in text, (line, [l for l in text.splitlines() if "microcode" in l])


def check_dump(ctx, name):
    path = real(name)
    vendor, family, model, stepping = README_TABLE[name]
    ukey, eset, kind = DUMPS[name]
    cpu, pmu, out = identify(ctx, "--cpuid-dump", path)
    assert cpu["vendor_string"] == vendor, cpu
    assert (int(cpu["family"], 16), int(cpu["model"], 16), cpu["stepping"]) == (family, model, stepping), cpu
    assert (cpu["uarch_key"], cpu["event_set"], cpu["fallback"]) == (ukey, eset, False), cpu
    assert pmu["kind"] == kind, pmu
    assert cpu["source"].startswith(f"cpuid dump {path}, block 0"), cpu
    # A dump carries no MSRs: the microcode revision is unknown, and says why.
    assert cpu["microcode"] is None and "no MSR access" in cpu["microcode_reason"], cpu
    assert cpu["microcode_source"] is None, cpu
    # Every real part is the core its signature names: no feature of cpu/uarch_features.csv contradicts
    # it (Sapphire Rapids' AMX and AVX512-FP16, Zen 4's and Zen 5's AVX-512 among them).
    assert cpu["uarch_doubt"] is None and cpu["uarch_doubt_feature"] is None and "DOUBT" not in out, cpu
    for _, r in records(out).records:
        if r["type"] == "topology":
            assert all(t["doubt"] is None for t in r["core_types"]), r


def test_a_signature_the_features_contradict_is_doubted(ctx):
    """Sapphire Rapids' dump with Rocket Lake's signature (family 6 model A7H, as the development host's
    KVM guest reports it): named by the signature still, with the doubt in the record and the text."""
    with open(real("GenuineIntel00806F8_SapphireRapids_05_CPUID.txt"), encoding="utf-8") as f:
        text = f.read()
    assert ": 00000001.00: 000806F8 " in text
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "spr_as_rocket_lake.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(": 00000001.00: 000806F8 ", ": 00000001.00: 000A0671 "))
        cpu, _, out = identify(ctx, "--cpuid-dump", path)
    assert cpu["uarch_key"] == "rocketlake" and cpu["fallback"] is False, cpu
    # Every CPU of the topology is judged alike (its own leaf 07H): one core type, doubted, generic events.
    topo = next(r for _, r in records(out).records if r["type"] == "topology")
    types = [(t["uarch_key"], t["event_set"], t["doubt"]) for t in topo["core_types"]]
    assert types == [("rocketlake", "intel_arch", "AMX-TILE")], types
    # Rocket Lake's events are another core's here: the architectural ones only (the dump has leaf 0AH).
    assert (cpu["event_set"], cpu["event_set_basis"]) == ("intel_arch", "generic"), cpu
    assert "the model number is doubted" in cpu["event_set_note"], cpu
    assert cpu["uarch_doubt"].startswith("CPUID enumerates AMX-TILE (leaf 0x7 subleaf 0 EDX[24]), which no "
                                         "Cypress Cove (Rocket Lake) has"), cpu
    assert cpu["uarch_doubt"].endswith("a part this table does not know"), cpu   # the dump has no hypervisor
    assert "cpu: DOUBT: " + cpu["uarch_doubt"] + "; event set intel_arch" in out, out
    assert cpu["uarch_doubt_feature"] == "AMX-TILE", cpu


def _dump_case(name):
    return lambda ctx: check_dump(ctx, name)


CASES = [(f"test_dump_{re.sub(r'[^0-9A-Za-z]+', '_', n[:-4])}", _dump_case(n)) for n in sorted(DUMPS)]


def test_every_dump_is_covered(ctx):
    files = sorted(f for f in os.listdir(REAL) if f.endswith(".txt"))
    assert files == sorted(DUMPS), set(files) ^ set(DUMPS)
    assert sorted(README_TABLE) == files


def test_hybrid_e_core_blocks(ctx):
    for name, block, ukey, eset in ECORE_BLOCKS:
        cpu, pmu, out = identify(ctx, "--cpuid-dump", real(name), "--cpu", str(block))
        assert cpu["hybrid"] is True and cpu["core_type"] == "atom", (name, block, cpu)
        assert (cpu["uarch_key"], cpu["event_set"], cpu["fallback"]) == (ukey, eset, False), (name, block, cpu)
        assert "Intel Atom" in cpu["source"] and f"block {block}" in cpu["source"], cpu
        assert "running on an Atom (E-core)" in out, out
    # And block 0 of each is a P-core.
    cpu, _, _ = identify(ctx, "--cpuid-dump", real(ECORE_BLOCKS[0][0]))
    assert cpu["core_type"] == "core" and cpu["uarch_key"] == "goldencove", cpu


def test_fixtures(ctx):
    f = lambda n: os.path.join(FIXTURES, n)
    cpu, pmu, out = identify(ctx, "--cpuid-dump", f("kvm_cascadelake.txt"))
    assert cpu["hypervisor"] is True and cpu["hypervisor_vendor"] == "KVMKVMKVM", cpu
    assert cpu["hypervisor_name"] == "KVM" and cpu["uarch_key"] == "cascadelake", cpu
    assert pmu["kind"] == "intel_arch" and pmu["version"] == 2 and "not checked" in pmu["note"], pmu

    cpu, pmu, out = identify(ctx, "--cpuid-dump", f("intel_future_family13.txt"), "--cpu", "1")
    assert (cpu["family"], cpu["model"], cpu["fallback"], cpu["event_set"]) == ("0x13", "0x1", True, "intel_arch"), cpu
    assert "family 0x13 model 0x1" in cpu["fallback_reason"] and "FALLBACK" in out, cpu

    cpu, pmu, out = identify(ctx, "--cpuid-dump", f("amd_ibs_flags_invalid.txt"))
    assert pmu["ibs"]["present"] is True and pmu["ibs"]["flags_valid"] is False, pmu
    assert pmu["ibs"]["flags"] is None and pmu["ibs"]["features"] == [] and "IBSFFV" in pmu["ibs"]["note"], pmu

    cpu, pmu, out = identify(ctx, "--cpuid-dump", f("amd_future_model.txt"))
    assert cpu["fallback"] is True and cpu["event_set"] == "amd_legacy" and pmu["kind"] == "amd_v2", (cpu, pmu)
    assert "OpDtlbPgSize" in pmu["ibs"]["features"] and "IbsOpData4" not in pmu["ibs"]["features"], pmu

    cpu, pmu, out = identify(ctx, "--cpuid-dump", f("intel_hybrid_ecore_first.txt"))
    assert (cpu["core_type"], cpu["event_set"]) == ("atom", "gracemont"), cpu

    cpu, pmu, out = identify(ctx, "--cpuid-dump", f("unknown_vendor_centaur.txt"))
    assert (cpu["vendor"], cpu["vendor_string"], cpu["event_set"]) == ("unknown", "CentaurHauls", None), cpu
    assert pmu["present"] is False and "unknown vendor" in pmu["absent_reason"], pmu


def test_cpuid_r_output(ctx):
    """Debian's `cpuid -r` output: the committed sample of the development machine, and this machine's own."""
    path = os.path.join(FIXTURES, "cpuid_r_amd_epyc_kvm.txt")
    cpu, pmu, out = identify(ctx, "--cpuid-dump", path)
    assert (cpu["vendor_string"], cpu["family"], cpu["model"], cpu["stepping"]) == ("AuthenticAMD", "0x19", "0x11", 1), cpu
    assert (cpu["uarch_key"], cpu["brand"], cpu["hypervisor_vendor"]) == ("zen4", "AMD EPYC", "KVMKVMKVM"), cpu
    assert cpu["source"] == f"cpuid dump {path}, block 0 (unlabelled block 0, line 1)", cpu
    assert pmu["kind"] == "amd_legacy" and pmu["gp"]["count"] == 4, pmu
    if not shutil.which("cpuid"):
        raise Skip("the cpuid program is not installed (apt-get install cpuid): only the committed sample was read")
    raw = subprocess.run(["cpuid", "-r"], capture_output=True, text=True, timeout=60, check=True).stdout
    dump = os.path.join(ctx.build, "tests", "cpuid-r-this-machine.txt")
    os.makedirs(os.path.dirname(dump), exist_ok=True)
    with open(dump, "w", encoding="ascii") as f:
        f.write(raw)
    mine, _, _ = identify(ctx, "--cpu", "0")
    theirs, _, _ = identify(ctx, "--cpuid-dump", dump, "--cpu", "0")
    keys = ("vendor_string", "family", "model", "stepping", "brand", "uarch_key", "event_set", "hypervisor", "hybrid")
    assert [mine[k] for k in keys] == [theirs[k] for k in keys], (mine, theirs)


BAD = [
    ("bad_truncated_line.txt", 5, "EBX is truncated"),
    ("bad_hex.txt", 3, "EAX is not 8 hex digits"),
    ("bad_missing_leaf0.txt", 2, "leaf 00000000 must come first"),
    ("bad_missing_leaf1.txt", 1, "has no leaf 00000001"),
    ("bad_truncated_file.txt", 13, "no register lines after it"),
    ("bad_subleaf_tag.txt", 4, "malformed subleaf tag"),
    ("bad_not_a_dump.txt", 1, "not a CPUID dump"),
]


def test_malformed_dumps_name_the_line(ctx):
    for name, line, words in BAD:
        path = os.path.join(FIXTURES, name)
        p = ctx.run_host("identify", "--cpuid-dump", path)
        assert p.returncode == 1, (name, p.returncode, p.stdout, p.stderr)
        assert f"{path}:{line}: " in p.stderr and words in p.stderr, (name, p.stderr)
        assert "@pmuboot" not in p.stdout, (name, p.stdout)   # no half-identified CPU
    p = ctx.run_host("identify", "--cpuid-dump", os.path.join(FIXTURES, "bad_empty.txt"))
    assert p.returncode == 1 and "empty input" in p.stderr, p.stderr


def test_bad_arguments(ctx):
    p = ctx.run_host("identify", "--cpuid-dump", "/nonexistent/dump.txt")
    assert p.returncode == 1 and "/nonexistent/dump.txt" in p.stderr and "No such file" in p.stderr, p.stderr
    p = ctx.run_host("identify", "--cpuid-dump", os.path.join(FIXTURES, "intel_p6_pentium3.txt"), "--cpu", "1")
    assert p.returncode == 1 and "has 1 CPU blocks" in p.stderr, p.stderr
    p = ctx.run_host("identify", "--cpu", "x")
    assert p.returncode == 2 and "--cpu" in p.stderr, p.stderr
    p = ctx.run_host("identify", "--bogus")
    assert p.returncode == 2 and "--bogus" in p.stderr, p.stderr
