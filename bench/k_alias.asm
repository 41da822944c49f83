; bench/k_alias.asm - 4K aliasing.
%include "bench/kernel.inc"

; alias_4k.*: a load chain through p (a quadword holding 0: rax stays 0, but
; every address waits for the previous load) with an 8-byte store to q in
; each iteration.  Both addresses come from the chain, so the store and the
; load issue in the same cycle: the store is in flight, address just known,
; when the load looks for older stores - the case the Intel optimization
; manual describes ("stores ... and shortly after that loads from a
; different location with a 4-KByte offset").  When q = p + 4096 + d and the
; bytes overlap modulo 4096 (d = 0, 4 for these 8-byte accesses), the load
; is first taken to depend on the store and re-issued; with d >= 8 the bytes
; do not overlap, and d = 64 (another line) is the control.
; cycles/iteration = load-to-use latency (base+index) + the aliasing penalty.
; (A store issued long before the load, with its address known early, showed
; no penalty at all on Raptor Cove; hence the shared chain.)
;   set-up: mov qword [p], 0 / mfence (why: see bk_load_chain)
;   body:   mov [rdx+rax], rcx / mov rax, [rsi+rax]
KERNEL bk_alias_chain
	xor eax, eax
	mov [rsi], rax
	mfence
	xor ecx, ecx
	align 64
.top:
%rep BENCH_UNROLL
	mov [rdx+rax], rcx
	mov rax, [rsi+rax]
%endrep
	TRIP_LOOP
KERNEL_END bk_alias_chain
