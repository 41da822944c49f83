; bench/k_store_forward.asm - store-to-load forwarding kernels.
;
; Latency forms: the loaded value is the next store's data, so the chain
; rax -> store -> load -> rax is the loop-carried dependency and
; cycles/iteration = the store-to-load latency of that pairing, with nothing
; else on the chain (this is the quantity published as "store forwarding
; latency" and "failed store forwarding latency").
; Throughput forms: the store data is a constant, so nothing chains from one
; iteration to the next and cycles/iteration shows what blocked loads cost in
; throughput.  p is 64-byte aligned in every caller.
%include "bench/kernel.inc"

; store_forward.forward: same address, same size: forwarding succeeds.
;   body: mov [rsi], rax / mov rax, [rsi]
KERNEL bk_sf_forward
	xor eax, eax
	align 64
.top:
%rep BENCH_UNROLL
	mov [rsi], rax
	mov rax, [rsi]
%endrep
	TRIP_LOOP
KERNEL_END bk_sf_forward

; store_forward.size_mismatch: a 4-byte store, then an 8-byte load from the
; same address: the load is wider than the store and cannot forward; it waits
; until the store has written the cache.
;   body: mov [rsi], eax / mov rax, [rsi]
KERNEL bk_sf_size_mismatch
	xor eax, eax
	align 64
.top:
%rep BENCH_UNROLL
	mov [rsi], eax
	mov rax, [rsi]
%endrep
	TRIP_LOOP
KERNEL_END bk_sf_size_mismatch

; store_forward.partial_overlap: an 8-byte store at p, an 8-byte load at
; q = p + 4: the load straddles the end of the stored bytes.
;   body: mov [rsi], rax / mov rax, [rdx]
KERNEL bk_sf_partial_overlap
	xor eax, eax
	align 64
.top:
%rep BENCH_UNROLL
	mov [rsi], rax
	mov rax, [rdx]
%endrep
	TRIP_LOOP
KERNEL_END bk_sf_partial_overlap

; store_forward.two_stores: two 4-byte stores cover the 8 bytes one load
; reads: the load spans two smaller stores and cannot forward from either.
;   body: mov [rsi], eax / mov [rsi+4], eax / mov rax, [rsi]
KERNEL bk_sf_two_stores
	xor eax, eax
	align 64
.top:
%rep BENCH_UNROLL
	mov [rsi], eax
	mov [rsi+4], eax
	mov rax, [rsi]
%endrep
	TRIP_LOOP
KERNEL_END bk_sf_two_stores

; store_forward.forward_tput: as forward, but the stored value is a constant.
;   body: mov [rsi], rcx / mov rax, [rsi]
KERNEL bk_sf_forward_tput
	xor ecx, ecx
	align 64
.top:
%rep BENCH_UNROLL
	mov [rsi], rcx
	mov rax, [rsi]
%endrep
	TRIP_LOOP
KERNEL_END bk_sf_forward_tput

; store_forward.size_mismatch_tput: as size_mismatch, stored value a constant.
;   body: mov [rsi], ecx / mov rax, [rsi]
KERNEL bk_sf_size_mismatch_tput
	xor ecx, ecx
	align 64
.top:
%rep BENCH_UNROLL
	mov [rsi], ecx
	mov rax, [rsi]
%endrep
	TRIP_LOOP
KERNEL_END bk_sf_size_mismatch_tput

; store_forward.sta_unknown: the store's ADDRESS comes out of a 3-imul chain
; (started afresh each iteration from r9 = q, multiplied by r8 = 1), so it is
; unknown for ~9 cycles after the store issues; the load reads p, which the
; store does not touch.  Cores that make loads wait for older stores with
; unknown addresses count LOAD_BLOCK.STA (Core 2); cores with memory
; disambiguation let the load go ahead.  Nothing consumes the load, so the
; timing is the imul throughput and the events tell the story.
;   body: mov rdx, r9 / imul rdx, r8 (x3) / mov [rdx], ecx / mov eax, [rsi]
KERNEL bk_sf_late_addr
	mov r8d, 1
	mov r9, rdx
	xor ecx, ecx
	align 64
.top:
%rep BENCH_UNROLL
	mov rdx, r9
	imul rdx, r8
	imul rdx, r8
	imul rdx, r8
	mov [rdx], ecx
	mov eax, [rsi]
%endrep
	TRIP_LOOP
KERNEL_END bk_sf_late_addr

; store_forward.std_unknown (q = p) and late_control (q = p + 64): the
; store's DATA comes out of the same 3-imul chain while its address q is
; known at once.  With q = p the load needs that data (LOAD_BLOCK.STD,
; LD_BLOCKS.DATA_UNKNOWN); with q elsewhere it needs nothing from the store.
;   body: mov rcx, r9 / imul rcx, r8 (x3) / mov [rdx], ecx / mov eax, [rsi]
KERNEL bk_sf_late_data
	mov r8d, 1
	mov r9d, 0x5a5a5a5a
	align 64
.top:
%rep BENCH_UNROLL
	mov rcx, r9
	imul rcx, r8
	imul rcx, r8
	imul rcx, r8
	mov [rdx], ecx
	mov eax, [rsi]
%endrep
	TRIP_LOOP
KERNEL_END bk_sf_late_data

; ---- Vector store forwarding (AVX, AVX-512) ----
; The same latency chain as above through a vector register: the loaded
; register is the next store's data.  A VEX or EVEX load into xmm0/ymm0
; zeroes the register above it (SDM Vol. 1 §14.1.3), so a narrower load
; still feeds the next wider store and the chain holds.  These run only
; where the run has the state enabled (platform/vec.h; the kernel table's
; `needs`), and end with VZEROUPPER so that no dirty upper state follows
; them into SSE or firmware code (Intel optimization manual, "Mixing AVX
; code with SSE code").

; VSF_START: the scratch line written and drained before the chain starts, so
; every run begins from the same store-buffer state.
%macro VSF_START 0
	vmovdqu [rsi], ymm0
	vmovdqu [rsi + 32], ymm0
	mfence
%endmacro

; VTRIP_LOOP: TRIP_LOOP with VZEROUPPER before the return.
%macro VTRIP_LOOP 0
	dec rdi
	jnz .top
	vzeroupper
	ret
%endmacro

; store_forward.ymm_forward: 32-byte store, 32-byte load of the same bytes.
;   body: vmovdqu [rsi], ymm0 / vmovdqu ymm0, [rsi]
KERNEL bk_sf_ymm_forward
	vpxor xmm0, xmm0, xmm0
	VSF_START
	align 64
.top:
%rep BENCH_UNROLL
	vmovdqu [rsi], ymm0
	vmovdqu ymm0, [rsi]
%endrep
	VTRIP_LOOP
KERNEL_END bk_sf_ymm_forward

; store_forward.ymm_upper: 32-byte store, 16-byte load of its upper half (q = p + 16).
;   body: vmovdqu [rsi], ymm0 / vmovdqu xmm0, [rdx]
KERNEL bk_sf_ymm_upper
	vpxor xmm0, xmm0, xmm0
	VSF_START
	align 64
.top:
%rep BENCH_UNROLL
	vmovdqu [rsi], ymm0
	vmovdqu xmm0, [rdx]
%endrep
	VTRIP_LOOP
KERNEL_END bk_sf_ymm_upper

; store_forward.xmm_ymm: 16-byte store, 32-byte load: the load is wider than
; the store and cannot forward from it.
;   body: vmovdqu [rsi], xmm0 / vmovdqu ymm0, [rsi]
KERNEL bk_sf_xmm_ymm
	vpxor xmm0, xmm0, xmm0
	VSF_START
	align 64
.top:
%rep BENCH_UNROLL
	vmovdqu [rsi], xmm0
	vmovdqu ymm0, [rsi]
%endrep
	VTRIP_LOOP
KERNEL_END bk_sf_xmm_ymm

; store_forward.zmm_forward: 64-byte store, 64-byte load (AVX-512F).
;   body: vmovdqu64 [rsi], zmm0 / vmovdqu64 zmm0, [rsi]
KERNEL bk_sf_zmm_forward
	vpxor xmm0, xmm0, xmm0
	VSF_START
	align 64
.top:
%rep BENCH_UNROLL
	vmovdqu64 [rsi], zmm0
	vmovdqu64 zmm0, [rsi]
%endrep
	VTRIP_LOOP
KERNEL_END bk_sf_zmm_forward

; store_forward.zmm_upper: 64-byte store, 32-byte load of its upper half (q = p + 32).
;   body: vmovdqu64 [rsi], zmm0 / vmovdqu ymm0, [rdx]
KERNEL bk_sf_zmm_upper
	vpxor xmm0, xmm0, xmm0
	VSF_START
	align 64
.top:
%rep BENCH_UNROLL
	vmovdqu64 [rsi], zmm0
	vmovdqu ymm0, [rdx]
%endrep
	VTRIP_LOOP
KERNEL_END bk_sf_zmm_upper

; store_forward.ymm_zmm: 32-byte store, 64-byte load: wider than the store.
;   body: vmovdqu [rsi], ymm0 / vmovdqu64 zmm0, [rsi]
KERNEL bk_sf_ymm_zmm
	vpxor xmm0, xmm0, xmm0
	VSF_START
	align 64
.top:
%rep BENCH_UNROLL
	vmovdqu [rsi], ymm0
	vmovdqu64 zmm0, [rsi]
%endrep
	VTRIP_LOOP
KERNEL_END bk_sf_ymm_zmm
