; bench/k_ref.asm - reference kernels, printed first so a broken set-up shows.
%include "bench/kernel.inc"

; ref.add_chain: one dependent `add rax, rcx` per iteration.  Every core since
; the P6 runs a register add in 1 cycle, so this reads 1.00 cycles/iteration
; when cycles are right.  TSC ticks are calibrated to core cycles on the same
; kind of chain, platform/calib.asm (the one calibration kernel), so where cycles
; come from that calibration this row checks its stability.
;   body: add rax, rcx
KERNEL bk_add_chain
	xor eax, eax
	mov ecx, 1
	align 64
.top:
%rep BENCH_UNROLL
	add rax, rcx
%endrep
	TRIP_LOOP
KERNEL_END bk_add_chain

; ref.load_chain (also split.load_*): pointer chasing through one quadword
; that holds its own address, so each load's address is the previous load's
; result: cycles/iteration = load-to-use latency.  The addressing mode is a
; bare [rax] (no displacement), so when p is a split address the load itself
; splits, with no base+offset page crossing mixed in.
;   set-up: mov [p], p / mfence
;   body:   mov rax, [rax]
; The mfence matters: without it the first loads find the set-up store still
; in flight, and on Raptor Cove the whole chain then ran at 0.33 cycles per
; load (3 loads/cycle: the loads were given the stored register's value
; without waiting, as memory renaming does), not at the load latency.
KERNEL bk_load_chain
	mov [rsi], rsi
	mfence
	mov rax, rsi
	align 64
.top:
%rep BENCH_UNROLL
	mov rax, [rax]
%endrep
	TRIP_LOOP
KERNEL_END bk_load_chain

; The exported unroll factor, checked by bench/kernels.c against BENCH_UNROLL there.
	section .rodata
	align 4
	global bench_asm_unroll:data hidden
bench_asm_unroll: dd BENCH_UNROLL
