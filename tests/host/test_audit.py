"""pmuboot-host audit: the audit stage against the PMU model of every real CPUID dump, with and without faults.

The dumps are the committed reductions of the real InstLatx64 dumps (tests/fixtures/cpuid-real/). The model
counts what the vendors' descriptions say each event counts (pmu/count/pmu_oracle.h), not what the audit
believes, so a clean model must give no `fail` on any dump and any core type of a hybrid one (no false
alarm); each injected fault must fail the check that catches it, naming the counter, with exit status 1
(issue 30's acceptance).
"""
import json
import os
import re

REAL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "cpuid-real")
CHECKS = ["instructions", "branches", "counters-agree", "fixed", "full-width", "overflow", "topdown", "clock"]
INTEL = "GenuineIntel00506E3_Skylake_CPUID.txt"
INTEL_METRICS = "GenuineIntel00706E5_IceLakeY_CPUID.txt"
AMD = "AuthenticAMD0A60F12_K19_Raphael_04_CPUID.txt"
AMD_LEGACY = "AuthenticAMD0020FB1_K8_Manchester_CPUID.txt"
# IA32_PERF_CAPABILITIES as Ice Lake reports it in part: FW_WRITE (13) and PERF_METRICS (15).
ICL_PERF_CAPS = "0xa000"


def records(out):
    recs = []
    for line in out.splitlines():
        if line.startswith("@pmuboot "):
            recs.append(json.loads(line[len("@pmuboot "):]))
    return recs


def audit(ctx, dump, *args, want=None):
    p = ctx.run_host("audit", "--cpuid-dump", os.path.join(REAL, dump), *args)
    if want is not None:
        assert p.returncode == want, f"{dump} {args}: exit {p.returncode}, wanted {want}\n{p.stdout}{p.stderr}"
    recs = records(p.stdout)
    checks = {r["check"]: r for r in recs if r["type"] == "audit"}
    assert list(checks) == CHECKS, f"{dump}: audit records {list(checks)}"
    end = [r for r in recs if r["type"] == "end"]
    assert len(end) == 1, f"{dump}: no end record"
    return p, checks, end[0]


def core_blocks(dump):
    """Block 0 and the first block of every other core type a hybrid dump names ("CPU n: core Intel Atom")."""
    first = {}
    with open(os.path.join(REAL, dump), encoding="ascii") as f:
        for line in f:
            m = re.match(r"CPU (\d+): core (.+)$", line.strip())
            if m:
                first.setdefault(m.group(2), int(m.group(1)))
    return sorted(set(first.values()) | {0})


def every_block():
    dumps = sorted(f for f in os.listdir(REAL) if f.endswith(".txt"))
    assert len(dumps) >= 40
    return [(d, b) for d in dumps for b in core_blocks(d)]


def test_hybrid_dumps_have_their_e_cores_audited(ctx):
    blocks = dict((d, core_blocks(d)) for d, _ in every_block())
    assert blocks["GenuineIntel00906A4_AlderLakeP_00_CPUID.txt"] == [0, 4]
    assert len(blocks["GenuineIntel00A06A4_MeteorLake_10_CPUID.txt"]) == 3   # P-core, E-core, LP E-core


def test_every_dump_clean(ctx):
    """Every dump, every core type: exit 0, nothing fails (a 3CH/01H at the crystal clock is no fault of fixed2)."""
    for d, b in every_block():
        p, checks, end = audit(ctx, d, "--cpu", str(b))
        assert p.returncode == 0, f"{d} block {b}: exit {p.returncode}: " + "; ".join(
            f"{n} {r['why']}" for n, r in checks.items() if r["status"] == "fail")
        for name, r in checks.items():
            assert r["status"] in ("pass", "absent"), f"{d}: {name} {r['status']}: {r['why']}"
            if r["status"] == "absent":
                assert r["why"], f"{d}: {name} absent without a reason"
        # Every PMU counts instructions and branches exactly; the rest depends on the part.
        assert checks["instructions"]["status"] == "pass", d
        assert checks["branches"]["status"] == "pass", d
        assert checks["overflow"]["status"] == "pass", f"{d}: {checks['overflow']['why']}"
        assert end["status"] == "ok", d


# issue 30's acceptance: each of these exits 1 on every dump and block, naming the counter.
ACCEPTANCE_FAULTS = ["stuck:0", "narrow:1", "no-pmi", "frozen-clock", "stray-nmi,no-pmi"]


def test_acceptance_faults_fail_on_every_dump(ctx):
    bad = []
    for d, b in every_block():
        for fault in ACCEPTANCE_FAULTS:
            p, checks, end = audit(ctx, d, "--cpu", str(b), "--inject", fault)
            failed = {n: r for n, r in checks.items() if r["status"] == "fail"}
            named = [r["counter"] for r in failed.values() if r["counter"]]
            if p.returncode != 1 or not named:
                bad.append(f"{d}:{b} {fault}: exit {p.returncode}, failed {sorted(failed)}")
                continue
            if fault == "stuck:0" and checks["instructions"]["counter"] != "pmc0":
                bad.append(f"{d}:{b} {fault}: instructions names {checks['instructions']['counter']}")
            if fault == "narrow:1" and "pmc1" not in named:
                bad.append(f"{d}:{b} {fault}: pmc1 not named ({named})")
            if fault == "frozen-clock":
                passed = [n for n in ("clock", "fixed", "counters-agree") if checks[n]["status"] == "pass"]
                if passed:
                    bad.append(f"{d}:{b} {fault}: {', '.join(passed)} passed with the core clock frozen")
            if fault == "stray-nmi,no-pmi" and checks["overflow"]["status"] != "fail":
                bad.append(f"{d}:{b} {fault}: overflow {checks['overflow']['status']} on a stray NMI")
    assert not bad, f"{len(bad)} failures:\n" + "\n".join(bad)


def test_topdown_with_perf_metrics(ctx):
    _, checks, _ = audit(ctx, INTEL_METRICS, "--perf-caps", ICL_PERF_CAPS, want=0)
    assert checks["topdown"]["status"] == "pass", checks["topdown"]
    assert checks["topdown"]["expected"] == 255
    # FW_WRITE: the full-width path, not the sign-extension rule.
    assert "IA32_A_PMCx" in checks["full-width"]["measured"]
    # Without PERF_CAPABILITIES a dump cannot say: absent, and why.
    _, checks, _ = audit(ctx, INTEL_METRICS, want=0)
    assert checks["topdown"]["status"] == "absent"
    assert "IA32_PERF_CAPABILITIES" in checks["topdown"]["why"]


def counters_of(text):
    """"pmc0-5,fixed0-2" -> ({0..5}, {0..2})."""
    gp, fixed = set(), set()
    for part in (text or "").split(","):
        kind = "fixed" if part.startswith("fixed") else "pmc" if part.startswith("pmc") else None
        if not kind:
            continue
        lo, _, hi = part[len(kind):].partition("-")
        (fixed if kind == "fixed" else gp).update(range(int(lo), int(hi or lo) + 1))
    return gp, fixed


def smi_source(ctx, recs):
    """Whether the ledger can see an SMI on this CPU: Intel's MSR_SMI_COUNT (the model gives it to
    architectural PMUs from version 3, Nehalem and Silvermont on), or an AMD set's `smi` event."""
    cpu = next(r for r in recs if r["type"] == "cpu")
    pmu = next(r for r in recs if r["type"] == "pmu")
    if cpu["vendor"] == "intel":
        return pmu["kind"] == "intel_arch" and pmu["version"] >= 3
    listing = ctx.run_host("events", "--uarch", cpu["event_set"], check=True).stdout
    return any(line.endswith(",smi") for line in listing.splitlines())


def test_every_fault_on_every_dump(ctx):
    """Each fault a dump's PMU can show, injected into that dump's model: the check that must catch it
    fails (naming the counter), exit 1; SMIs and throttling are reported by the ledger and retaken."""
    dumps = sorted(f for f in os.listdir(REAL) if f.endswith(".txt"))
    shown = {}
    for d in dumps:
        p = ctx.run_host("audit", "--cpuid-dump", os.path.join(REAL, d))
        assert p.returncode == 0, d
        recs = records(p.stdout)
        clean = {r["check"]: r for r in recs if r["type"] == "audit"}
        gp, _ = counters_of(clean["instructions"]["counter"])
        _, fixed = counters_of(clean["fixed"]["counter"] if clean["fixed"]["status"] == "pass" else "")
        faults = [(f"stuck:{max(gp)}", "instructions", f"pmc{max(gp)}")]
        if clean["full-width"]["status"] == "pass":
            faults.append((f"narrow:{max(gp)}", "full-width", f"pmc{max(gp)}"))
        if clean["overflow"]["status"] == "pass":
            faults.append(("no-pmi", "overflow", None))
        if fixed:
            faults.append((f"fixed-off:{max(fixed)}", "fixed", f"fixed{max(fixed)}"))
        if clean["clock"]["status"] == "pass":
            faults.append(("freq-drift:5", "clock", None))
        # The unit-mask proof where the core has one: Intel's conditional branches, AMD's SSE class.
        for check in ("branches", "instructions"):
            m = clean[check]["measured"] or ""
            if m.endswith(" exact") and ";" in m:
                faults.append(("ignore-umask", check, None))
        for fault, check, counter in faults:
            _, checks, end = audit(ctx, d, "--inject", fault, want=1)
            r = checks[check]
            assert r["status"] == "fail", f"{d} {fault}: {check} is {r['status']}: {r['why']}"
            if counter:
                assert r["counter"] == counter, f"{d} {fault}: names {r['counter']}, not {counter}"
            assert end["status"] == "error", f"{d} {fault}"
            shown[fault.split(":")[0]] = shown.get(fault.split(":")[0], 0) + 1
        # SMIs: retaken and reported, nothing failed, where the ledger has a source for them.
        _, checks, _ = audit(ctx, d, "--inject", "smi:2", want=0)
        reported = [r for r in checks.values() if r["disturbance"] and "SMI" in r["disturbance"]]
        if smi_source(ctx, recs):
            assert reported and reported[0]["retaken"] >= 1, f"{d}: SMIs not reported: {list(checks.values())[0]}"
            shown["smi"] = shown.get("smi", 0) + 1
        else:
            assert not reported, d
        # Throttling: the thermal log (Intel) or the clock moving (AMD's ledger has no thermal MSR).
        _, checks, _ = audit(ctx, d, "--inject", "throttle", want=0)
        pmu = next(r for r in recs if r["type"] == "pmu")
        if any(r["disturbance"] for r in checks.values()):
            shown["throttle"] = shown.get("throttle", 0) + 1
        else:
            assert not pmu.get("aperf_mperf"), f"{d}: throttling with APERF/MPERF went unreported"
    # Every fault showed on many dumps of both vendors.
    for fault in ("stuck", "narrow", "no-pmi", "fixed-off", "freq-drift", "ignore-umask", "smi", "throttle"):
        assert shown.get(fault, 0) >= 5, (fault, shown)


def test_faults_combine(ctx):
    p, checks, _ = audit(ctx, INTEL, "--inject", "stuck:0,fixed-off:2", "--inject", "narrow:5", want=1)
    assert checks["instructions"]["counter"] == "pmc0"
    assert checks["fixed"]["counter"] == "fixed2"
    assert checks["full-width"]["status"] == "fail"


def test_bad_arguments(ctx):
    path = os.path.join(REAL, INTEL)
    cases = [
        (["--inject", "stuck:9"], "8 general counters"),
        (["--inject", "stuck"], "stuck:N"),
        (["--inject", "bogus"], "unknown fault"),
        (["--inject", "no-pmi:3"], "takes no number"),
        (["--inject", "fixed-off:5"], "fixed counter"),
        (["--perf-caps", "zz"], "hex value"),
        (["--cpu"], "wants a value"),
    ]
    for extra, words in cases:
        p = ctx.run_host("audit", "--cpuid-dump", path, *extra)
        assert p.returncode == 2, f"{extra}: exit {p.returncode}"
        assert words in p.stderr, f"{extra}: {p.stderr}"
    p = ctx.run_host("audit", "--inject", "stuck:0")
    assert p.returncode == 2 and "--cpuid-dump" in p.stderr
    p = ctx.run_host("audit", "--cpuid-dump", os.path.join(REAL, "no-such-dump.txt"))
    assert p.returncode == 2


def test_this_machine_without_msr_access(ctx):
    """No /dev/cpu/N/msr here (or no PMU): every check absent with a reason, never pass; exit 0."""
    if os.access("/dev/cpu/0/msr", os.R_OK):
        from testlib import Skip
        raise Skip("this machine has /dev/cpu/0/msr: the audit would really run")
    p = ctx.run_host("audit")
    assert p.returncode == 0, p.stderr
    recs = records(p.stdout)
    checks = [r for r in recs if r["type"] == "audit"]
    assert [r["check"] for r in checks] == CHECKS
    for r in checks:
        assert r["status"] == "absent", r
        assert r["why"], r


def test_pmucap_reads_audit(ctx):
    """A capture with a failed audit: pmucap table names the failure and its counter; junit fails that case."""
    import subprocess
    import sys
    import tempfile
    p = ctx.run_host("audit", "--cpuid-dump", os.path.join(REAL, INTEL), "--inject", "stuck:2")
    assert p.returncode == 1
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write(p.stdout)
        path = f.name
    try:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        t = subprocess.run([sys.executable, os.path.join(root, "tools", "pmucap"), "table", path],
                           capture_output=True, text=True)
        assert t.returncode == 0, t.stderr
        assert "audit: 2 pass, 5 fail, 1 absent" in t.stdout, t.stdout
        assert "audit instructions failed on pmc2: pmc2 counted 0" in t.stdout, t.stdout
        j = subprocess.run([sys.executable, os.path.join(root, "tools", "pmucap"), "junit", path],
                           capture_output=True, text=True)
        assert j.returncode == 0, j.stderr
        assert '<testcase classname="pmuboot.audit" name="instructions"' in j.stdout
        assert '<failure message="pmc2 counted 0' in j.stdout
        assert '<testcase classname="pmuboot.audit" name="topdown" time="0">\n      <skipped' in j.stdout, j.stdout
    finally:
        os.unlink(path)
