"""pmuboot-host identify --cpuid-dump on the synthetic fixtures of issue 22 (tests/fixtures/cpuid/,
README "The synthetic fixtures"): CPUs seen in dumps outside the repository, each named in the `cpu`
record with its event set and on what basis that set applies, never a generic fallback; the pre-PMU
parts named with no set and a `pmu` record that says why; Arrow Lake-H's three core types in the
`topology` record."""
import os

import pmucap

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "cpuid")

# file -> (uarch_key, event_set, event_set_basis, words of event_set_note or None, pmu kind)
FOUND = {
    "intel_knights_landing.txt": ("knl", "knl", "vendor", None, "intel_arch"),
    "intel_knights_mill.txt": ("knm", "knl", "vendor", None, "intel_arch"),
    "intel_cannon_lake.txt": ("cannonlake", "skylake", "related_core", "Palm Cove", "intel_arch"),
    "intel_bartlett_lake_pcores_only.txt": ("raptorcove", "goldencove", "related_core", "Raptor Cove", "intel_arch"),
    "intel_tolapai_ep80579.txt": ("pentium_m", "pentium_m", "related_core", "Tolapai", "intel_p6"),
    "amd_family16h_model26h.txt": ("fam16h", "fam16h", "vendor", None, "amd_legacy"),
    "amd_family17h_model50h.txt": ("zen", "zen1", "related_core", "Zen 1", "amd_core_ext"),
    "hygon_family18h_model10h.txt": ("hygon", "zen1", "related_core", "Hygon", "amd_core_ext"),
    "intel_p5_pentium_mmx.txt": ("p5", None, None, "CESR", "none"),
    "amd_k6_2.txt": ("k6", None, None, "no performance counters", "none"),
}


def identify(ctx, name, *args):
    p = ctx.run_host("identify", "--cpuid-dump", os.path.join(FIXTURES, name), *args)
    assert p.returncode == 0, (name, p.returncode, p.stderr)
    runs, _ = pmucap.parse(p.stdout)
    assert len(runs) == 1 and runs[0].complete, p.stdout[-800:]
    return [r for _, r in runs[0].records], p.stdout


def test_named_with_their_event_sets(ctx):
    for name, (key, eset, basis, note, pmu_kind) in FOUND.items():
        recs, out = identify(ctx, name)
        cpu = next(r for r in recs if r["type"] == "cpu")
        pmu = next(r for r in recs if r["type"] == "pmu")
        got = (cpu["uarch_key"], cpu["event_set"], cpu["event_set_basis"], cpu["fallback"], cpu["fallback_kind"],
               cpu["fallback_reason"])
        assert got == (key, eset, basis, False, None, None), (name, got)
        assert pmu["kind"] == pmu_kind, (name, pmu["kind"])
        assert "FALLBACK" not in out and "unknown" not in cpu["uarch"], (name, out)
        if note:
            assert note in cpu["event_set_note"], (name, cpu["event_set_note"])
            line = f"cpu: event set {eset} is a related core's: " if eset else "cpu: no event set: "
            assert line + cpu["event_set_note"] in out, (name, out)
        else:
            assert cpu["event_set_note"] is None, (name, cpu)
        if pmu_kind == "none":
            # A named core without counters pmuboot drives: the pmu record says absent, for that reason.
            assert pmu["present"] is False and pmu["absent_reason"] == cpu["event_set_note"], (name, pmu)


def test_arrow_lake_h_low_power_e_core_is_crestmont(ctx):
    recs, out = identify(ctx, "intel_arrowlake_h_three_core_types.txt")
    topo = next(r for r in recs if r["type"] == "topology")
    types = [(t["core_type"], t["uarch_key"], t["event_set"], t["fallback"], t["count"]) for t in topo["core_types"]]
    assert types == [("core", "lioncove", "lioncove", False, 1), ("atom", "skymont", "skymont", False, 1),
                     ("atom", "crestmont", "crestmont_arl", False, 1)], types
    assert topo["summary"] == "1 P-core, 1 E-core (skymont), 1 E-core (crestmont)", topo["summary"]
    assert "topology: 1 x E-core: Crestmont (Arrow Lake-H low-power E-core), event set crestmont_arl" in out, out
    # Each block on its own: the cpu record's native model ID is what chose the core.
    for block, native, key, eset in ((1, "0x3", "skymont", "skymont"), (2, "0x2", "crestmont", "crestmont_arl")):
        recs, _ = identify(ctx, "intel_arrowlake_h_three_core_types.txt", "--cpu", str(block))
        cpu = next(r for r in recs if r["type"] == "cpu")
        assert (cpu["core_type"], cpu["native_model"], cpu["uarch_key"], cpu["event_set"], cpu["fallback"]) == \
            ("atom", native, key, eset, False), cpu


def test_fallback_says_which(ctx):
    """Where no vendor data covers the core the record says which fallback was taken, and why."""
    for name, kind, eset, basis in (("intel_future_family13.txt", "generic", "intel_arch", "generic"),
                                    ("amd_future_model.txt", "generic", "amd_legacy", "generic")):
        recs, out = identify(ctx, name, "--cpu", "0" if "intel" in name else "1")
        cpu = next(r for r in recs if r["type"] == "cpu")
        assert (cpu["fallback"], cpu["fallback_kind"], cpu["event_set"], cpu["event_set_basis"]) == \
            (True, kind, eset, basis), cpu
        assert f"cpu: FALLBACK ({kind}), not an exact identification: {cpu['fallback_reason']}" in out, out
