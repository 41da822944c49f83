"""QEMU: the vector state (issue 24, docs/runtime.md "Vector state").

Under `-cpu max` (TCG with AVX and AVX2, QEMU 7.2 has no AVX-512) the image
enables AVX state itself: the `cpu` record lists the extensions and the XCR0
it set, the AVX store-forward variants run, the AVX-512 ones are skipped with
the reason, and a user kernel chaining `vaddps ymm0, ymm0, ymm1` runs without
a fault.  Under a CPU without XSAVE nothing is enabled and every vector
variant is skipped with its reason, and the run is clean.  TCG timings mean
nothing: no figure is judged.
"""
from testlib import describe
import qemurun

YMM = ["ymm_forward", "ymm_upper", "xmm_ymm"]
ZMM = ["zmm_forward", "zmm_upper", "ymm_zmm"]
VECTOR = ",".join(f"store_forward.{v}" for v in YMM + ZMM)
# vaddps ymm0, ymm0, ymm1 (VEX.256.0F.WIG 58 /r): the body as hex, no init.
CFG = f"bench={VECTOR},user.vaddps kernel.vaddps=c5fc58c1 reps=3 iterations=64 warmup=0 ibs=off\n"
XCR0_AVX_STATE = 0x6     # SSE | AVX (SDM Vol. 1 §13.1)


def runs_skipped(res):
    return {r["variant"]: r for r in res.records("check") if r.get("what") == "runs"}


def test_cpu_max_enables_avx_and_runs_vector_kernels(ctx):
    res = ctx.boot("vector-max", cpu="max", cfg_text=CFG, timeout=120)
    assert res.status == qemurun.OK, describe(res)
    cpu = res.first("cpu")
    assert cpu["vector"] is not None and "avx" in cpu["vector"] and "avx2" in cpu["vector"], cpu
    xcr0, found = int(cpu["xcr0"], 16), int(cpu["xcr0_found"], 16)
    assert xcr0 & XCR0_AVX_STATE == XCR0_AVX_STATE and xcr0 & 1, cpu
    # The firmware (OVMF) does not enable AVX state; the run did, and says it puts it back.
    assert found & XCR0_AVX_STATE != XCR0_AVX_STATE, cpu
    assert cpu["vector_who"].startswith("pmuboot: enabled for the run"), cpu
    assert not res.records("fault"), res.records("fault")
    benches = {b["variant"]: b for b in res.records("bench")}
    for v in YMM:
        assert v in benches and benches[v]["cycles"]["n"] >= 1, (v, sorted(benches))
    assert benches["xmm_ymm"]["control"] == "ymm_forward", benches["xmm_ymm"]
    skipped = runs_skipped(res)
    avx512 = "avx512f" in cpu["vector"]
    for v in ZMM:
        if avx512:
            assert v in benches and benches[v]["cycles"]["n"] >= 1, v
        else:
            assert v in skipped and skipped[v]["status"] == "skip", (v, skipped)
            assert "needs avx512f" in skipped[v]["reason"], skipped[v]
    user = benches.get("vaddps")
    assert user and user["kernel"] == "user" and user["body_hex"] == "c5fc58c1", sorted(benches)
    assert user["cycles"]["n"] >= 1 and user["interrupts_off"] is True, user


def test_without_xsave_vector_variants_are_skipped_with_the_reason(ctx):
    # qemu64: SSE2/SSE3 only, no XSAVE and no AVX.
    res = ctx.boot("vector-qemu64", cpu="qemu64", cfg_text=f"bench={VECTOR} reps=3 iterations=64 warmup=0 ibs=off\n",
                   timeout=120)
    assert res.status == qemurun.OK, describe(res)
    cpu = res.first("cpu")
    assert cpu["vector"] is None and cpu["xcr0"] is None, cpu
    assert "XSAVE clear" in cpu["vector_who"], cpu
    skipped = runs_skipped(res)
    assert set(skipped) == set(YMM + ZMM), sorted(skipped)
    for v, r in skipped.items():
        assert r["status"] == "skip" and "not usable here" in r["reason"], r
    assert "needs avx," in skipped["ymm_forward"]["reason"] or "needs avx " in skipped["ymm_forward"]["reason"], \
        skipped["ymm_forward"]
    assert not res.records("fault") and not [b for b in res.records("bench") if b["variant"] in skipped]
