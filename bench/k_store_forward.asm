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
