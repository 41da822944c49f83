; bench/k_latency.asm - the memory ladder's pointer chase (kernels `latency` and `tlb`).
%include "bench/kernel.inc"

; latency.<size>, tlb.<size>: a dependent load chain through the ring that
; bench/ring.c wrote into the arena (every 64-byte line of the region, each
; holding the address of the next), so cycles/iteration = the load-to-use
; latency of wherever the ring lives: L1, L2, L3 or DRAM, with or without a
; TLB miss.  p is not in the ring: it is the cell that holds where the
; previous run stopped, so consecutive runs (the harness's N and 2N runs,
; sample after sample) walk on around the ring instead of starting over:
; a ring larger than a cache is never re-read from its start, which that
; cache would then hold.
;   set-up: mov rax, [p]
;   body:   mov rax, [rax]
;   after:  mov [p], rax
KERNEL bk_chase
	mov rax, [rsi]
	align 64
.top:
%rep BENCH_UNROLL
	mov rax, [rax]
%endrep
	dec rdi
	jnz .top
	mov [rsi], rax
	ret
KERNEL_END bk_chase
