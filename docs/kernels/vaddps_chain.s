; FP-add latency: a chain of 256-bit single-precision adds through ymm0 (AVX).
; ymm1 is zero, so every lane stays 0.0 (no denormals, no overflow) and each
; add waits for the one before it.  Needs AVX enabled: the image enables it
; where the CPU has it (docs/runtime.md, "Vector state"); elsewhere it #UDs.
; name: vaddps_chain
init:
	vxorps xmm0, xmm0, xmm0
	vxorps xmm1, xmm1, xmm1
body:
	vaddps ymm0, ymm0, ymm1
