"""QEMU: identification of the processor and its PMU under several -cpu models.

QEMU's TCG emulates no performance counters: CPUID.0AH is all zero, and the
AMD counter MSRs read 0 whatever is written.  So every `pmu` record here must
say plainly that there is no PMU, and why, and the run must still end cleanly.
Expected family/model values are QEMU's own CPU model definitions (QEMU 7.2
target/i386/cpu.c), read back through query-cpu-model-expansion.
"""
from testlib import describe, matrix
import qemurun

R_INTEL_TCG = "CPUID.0AH reports version 0: no architectural PMU (QEMU TCG exposes none)"
# AMD counters have no CPUID "version 0": the first counter is checked (a value written to it must
# read back).  Where the image has no MSR access the check cannot run, and the hypervisor's identity
# (QEMU TCG, documented to emulate no counters) decides.
R_AMD_TCG = ("no working PMU: the counters CPUID implies do not keep a value written to them; "
             "QEMU TCG emulates none")
R_AMD_TCG_UNCHECKED = "no working PMU: QEMU TCG emulates no performance counters"

# What each boot of the group `identify` (tests/qemu/matrix.cfg: its -cpu model, benchmarks off) must
# identify: boot -> (vendor, family, model, uarch_key, event_set, fallback, no-PMU reason)
EXPECT = {
    "id-conroe": ("intel", 0x6, 0x0F, "merom", "core", False, R_INTEL_TCG),
    "id-penryn": ("intel", 0x6, 0x17, "penryn", "core", False, R_INTEL_TCG),
    "id-nehalem": ("intel", 0x6, 0x1A, "nehalem", "nehalem", False, R_INTEL_TCG),
    "id-skylake": ("intel", 0x6, 0x5E, "skylake", "skylake", False, R_INTEL_TCG),
    # QEMU's Icelake-Server model reports model 0x86 (134), which Intel's numbering (SDM Vol. 4
    # Table 2-1) gives to Snow Ridge/Jacobsville, a Tremont part: identification follows CPUID,
    # not QEMU's model name.
    "id-icelake-server": ("intel", 0x6, 0x86, "tremont", "tremont", False, R_INTEL_TCG),
    "id-denverton": ("intel", 0x6, 0x5F, "goldmont", "goldmont", False, R_INTEL_TCG),
    "id-opteron-g3": ("amd", 0x10, 0x02, "k10", "fam10h", False, R_AMD_TCG),
    "id-epyc": ("amd", 0x17, 0x01, "zen", "zen1", False, R_AMD_TCG),
    "id-epyc-milan": ("amd", 0x19, 0x01, "zen3", "zen3", False, R_AMD_TCG),
    # Families QEMU has no model of, through -cpu max with explicit identification properties.
    "id-max-graniterapids": ("intel", 0x6, 0xAD, "graniterapids", "graniterapids", False, R_INTEL_TCG),
    "id-max-zen4": ("amd", 0x19, 0x61, "zen4", "zen4", False, R_AMD_TCG),
    "id-max-zen5": ("amd", 0x1A, 0x44, "zen5", "zen5", False, R_AMD_TCG),
}


def identifies(ctx, row):
    assert row.name in EXPECT, f"{row.name} (tests/qemu/matrix.cfg) is in group identify: what must it identify?"
    vendor, family, model, ukey, eset, fallback, reason = EXPECT[row.name]
    res = ctx.boot(row.name)
    assert res.status == qemurun.OK, describe(res)
    rec = res.first("cpu")
    assert rec is not None, describe(res)
    assert rec["vendor"] == vendor, rec
    assert int(rec["family"], 16) == family and int(rec["model"], 16) == model, rec
    assert rec["uarch_key"] == ukey and rec["event_set"] == eset, rec
    assert rec["fallback"] is fallback and rec["fallback_reason"] is None, rec
    assert rec["hypervisor"] is True and rec["hypervisor_vendor"] == "TCGTCGTCGTCG", rec
    assert rec["hypervisor_name"] == "QEMU TCG" and rec["source"] == "cpuid", rec
    # A revision, or null with the reason: never both, never neither.
    assert (rec["microcode"] is None) != (rec["microcode_reason"] is None), rec
    pmu = res.first("pmu")
    assert pmu is not None, describe(res)
    assert pmu["kind"] == "none" and pmu["present"] is False, pmu
    if vendor == "amd" and pmu["probed"]:
        # The counter was checked, found not to hold a value, and left as found.
        assert pmu["absent_reason"] == reason and "read back 0x0" in pmu["note"], pmu
    elif vendor == "amd":
        assert pmu["absent_reason"] == R_AMD_TCG_UNCHECKED and "not checked" in pmu["note"], pmu
        reason = R_AMD_TCG_UNCHECKED
    else:
        assert pmu["absent_reason"] == reason, pmu
    if vendor == "amd":
        assert pmu["gp"]["width"] == 48, pmu
    else:
        assert pmu["version"] == 0 and pmu["arch_events"] is None, pmu
        assert pmu["ibs"]["present"] is False and pmu["ibs"]["absent_reason"] == "IBS is an AMD feature", pmu
    # The human text says it too, and the run went on to a clean end.
    assert "pmu: no PMU: " + reason in res.log, describe(res)
    assert res.run.end["status"] == "ok", res.run.end
    types = [r["type"] for _, r in res.run.records]
    assert types.index("cpu") < types.index("pmu"), types


CASES = matrix.cases("identify", identifies, "identifies")


def test_every_expectation_has_its_boot(ctx):
    booted = {r.name for r in matrix.group("identify")}
    assert set(EXPECT) == booted, set(EXPECT) ^ booted


def test_amd_ibs_absent_reason_under_qemu(ctx):
    res = ctx.boot("id-epyc")
    ibs = res.first("pmu")["ibs"]
    # EPYC is Family 17h model 01h: the reason mentions the firmware that may hide IBS on Zen.
    assert ibs["present"] is False and ibs["absent_reason"].startswith("CPUID 8000_0001h:ECX[10] (IBS) is clear"), ibs
    assert "Family 17h models 00h-2Fh" in ibs["absent_reason"], ibs


def test_qemu_tcg_cpu_doubted(ctx):
    """QEMU's TCG CPU under -cpu max (the default boot, `make run`'s) gives K8's family 0Fh with AVX2, which
    no K8 has: named by its signature still, the model number doubted by the feature, generic events."""
    res = ctx.boot("default")
    assert res.status == qemurun.OK, describe(res)
    rec = res.first("cpu")
    assert (rec["vendor"], int(rec["family"], 16), rec["uarch_key"]) == ("amd", 0xF, "k8"), rec
    assert "avx2" in rec["vector"], rec
    assert rec["uarch_doubt"].startswith("CPUID enumerates AVX2 (leaf 0x7 subleaf 0 EBX[5]), which no K8"), rec
    assert "an emulator's CPUID, a model number with no such core behind it" in rec["uarch_doubt"], rec
    assert rec["uarch_doubt_feature"] == "AVX2", rec
    assert (rec["event_set"], rec["event_set_basis"]) == ("amd_legacy", "generic"), rec
    assert "cpu: DOUBT: " + rec["uarch_doubt"] + "; event set amd_legacy" in res.log, describe(res)
    assert res.run.end["status"] == "ok", res.run.end
