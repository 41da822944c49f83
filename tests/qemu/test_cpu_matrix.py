"""QEMU: every -cpu model with AVX or XSAVE boots and finishes clean (issue 30).

Under -cpu Opteron_G4 and Opteron_G5 the image once hung before its first line: QEMU's TCG takes
CR4.OSXSAVE for reserved where CPUID.(0DH,1):EAX is 0 (XSAVE and AVX but no XSAVEOPT, as on
Bulldozer and Piledriver) and never completes the MOV to CR4 (platform/vec.h vec_osxsave_write_hangs).
So each model that has XSAVE or AVX is booted once, with one AVX kernel variant (and the reference
chains, which always run), and each run must end `ok` with no fault, its `cpu` record must show the
vector state its CPUID allows, and the AVX variant must run exactly where AVX is usable and be
skipped with the reason elsewhere.  The boots are the group `vector` of tests/qemu/matrix.cfg; the
models tests/qemu/test_identify.py boots already (benchmarks off) are not booted again: those boots
are judged on all but the variant, which tests/qemu/test_bench.py runs under Skylake-Client and
EPYC-Milan.

The models and what they have are QEMU 7.2's definitions (target/i386/cpu.c, read back through
query-cpu-model-expansion), as TCG runs them: TCG 7.2 has AVX and AVX2 but no AVX-512, and of
CPUID.(0DH,1):EAX only XSAVEOPT and XGETBV1.  The unversioned name is the model's v1 on q35; a
model's later versions (-v2..) change TSX, IBRS, XSAVES, the model number or MPX, of which TCG keeps
nothing platform/vec.c reads, so each model is booted once.  A model this QEMU does not offer is
skipped, saying so.  Left out, with the reason:
  host    requires KVM or HVF ("CPU model 'host' requires KVM or HVF"); the tests run under TCG;
  max     booted with AVX asserted by tests/qemu/test_vector.py (vector-max) and test_boot.py.
TCG timings mean nothing: no figure is judged.
"""
import subprocess

from testlib import Skip, describe, matrix
import qemurun

# The AVX variant the boots of their own run (tests/qemu/matrix.cfg config avx-variant).
VARIANT = "ymm_forward"

XCR0_X87_SSE, XCR0_AVX, XCR0_AVX512 = 0x3, 0x4, 0xE0     # SDM Vol. 1 §13.1
TCG_OSXSAVE_WHY = "QEMU TCG takes CR4.OSXSAVE for reserved"

AVX2, AVX, XSAVE_ONLY, TCG_NO_OSXSAVE = "avx2", "avx", "xsave", "tcg-no-osxsave"
# -cpu model -> (vendor, what the run may use, the model defines AVX-512F)
VECTOR = {
    "SandyBridge": ("intel", AVX, False),
    "IvyBridge": ("intel", AVX, False),
    "Haswell": ("intel", AVX2, False),
    "Broadwell": ("intel", AVX2, False),
    "Skylake-Client": ("intel", AVX2, False),
    "Skylake-Server": ("intel", AVX2, True),
    "Cascadelake-Server": ("intel", AVX2, True),
    "Cooperlake": ("intel", AVX2, True),
    "Icelake-Server": ("intel", AVX2, True),
    "KnightsMill": ("intel", AVX2, True),
    "Denverton": ("intel", XSAVE_ONLY, False),
    "Snowridge": ("intel", XSAVE_ONLY, False),
    # XSAVE and AVX, CPUID.(0DH,1):EAX = 0: the run must leave CR4.OSXSAVE alone and say why.
    "Opteron_G4": ("amd", TCG_NO_OSXSAVE, False),
    "Opteron_G5": ("amd", TCG_NO_OSXSAVE, False),
    "EPYC": ("amd", AVX2, False),
    "EPYC-Rome": ("amd", AVX2, False),
    "EPYC-Milan": ("amd", AVX2, False),
    "Dhyana": ("hygon", AVX2, False),
}

_offered = None


def offered():
    """The -cpu models this QEMU offers (`-cpu help`), read once."""
    global _offered
    if _offered is None:
        out = subprocess.run(["qemu-system-x86_64", "-cpu", "help"], capture_output=True, text=True).stdout
        _offered = {line.split()[1] for line in out.splitlines() if line.startswith("x86 ")}
    return _offered


def check_vector_state(cpu, has, avx512_defined):
    vector, xcr0 = cpu["vector"], cpu["xcr0"]
    if has == TCG_NO_OSXSAVE:
        assert vector is None and xcr0 is None, cpu
        assert cpu["vector_who"].startswith(TCG_OSXSAVE_WHY), cpu
        return
    assert vector is not None and xcr0 is not None, cpu
    x = int(xcr0, 16)
    assert x & XCR0_X87_SSE == XCR0_X87_SSE, cpu
    # OVMF leaves CR4.OSXSAVE clear: the run set the state up and says it puts it back.
    assert cpu["vector_who"].startswith("pmuboot: enabled for the run"), cpu
    assert ("avx" in vector) == (has in (AVX, AVX2)), cpu
    assert ("avx2" in vector) == (has == AVX2), cpu
    assert bool(x & XCR0_AVX) == (has in (AVX, AVX2)), cpu
    if "avx512f" in vector:     # only where the model has it and TCG emulates it (7.2 does not)
        assert avx512_defined and x & XCR0_AVX512 == XCR0_AVX512, cpu


def finishes_clean(ctx, row):
    model = row.cpu
    assert model in VECTOR, f"{row.name} (tests/qemu/matrix.cfg) boots -cpu {model}: what vector state has it?"
    vendor, has, avx512_defined = VECTOR[model]
    if model not in offered():
        raise Skip(f"this QEMU offers no -cpu {model}")
    res = ctx.boot(row.name)
    assert res.status == qemurun.OK, describe(res)
    assert res.run.end["status"] == "ok", res.run.end
    assert not res.records("fault"), res.records("fault")
    cpu = res.first("cpu")
    assert cpu is not None and cpu["vendor"] == vendor, describe(res)
    check_vector_state(cpu, has, avx512_defined)
    if VARIANT not in (row.config or ""):
        return      # an identification boot (bench=none): judged on all but the variant
    ran = [b for b in res.records("bench") if b["variant"] == VARIANT]
    skipped = [c for c in res.records("check") if c.get("what") == "runs" and c["variant"] == VARIANT]
    if has in (AVX, AVX2):
        assert len(ran) == 1 and ran[0]["cycles"]["n"] >= 1 and not skipped, (ran, skipped)
    else:
        assert not ran and len(skipped) == 1, (ran, skipped)
        assert skipped[0]["status"] == "skip" and "needs avx" in skipped[0]["reason"], skipped[0]
        if has == TCG_NO_OSXSAVE:
            assert TCG_OSXSAVE_WHY in skipped[0]["reason"], skipped[0]


CASES = matrix.cases("vector", finishes_clean, "finishes_clean")


def test_every_model_is_booted_once(ctx):
    booted = [r.cpu for r in matrix.group("vector")]
    assert sorted(booted) == sorted(VECTOR), set(booted) ^ set(VECTOR)
