; platform/calib.asm - the dependent add chain that turns TSC ticks into core cycles.
;
; uint64_t calib_add_chain(uint64_t iterations)   (SysV ABI: iterations in RDI)
;
; Runs iterations x ADDS_PER_ITER (platform/calib.h CALIB_ADDS_PER_ITER) additions, each depending on the previous
; one through RAX, and returns how many were run.  A register-register add
; has a latency of one core cycle on every x86 core of the last two decades,
; so the chain takes one cycle per add whatever the issue width; the loop
; counter is an independent chain that overlaps it.  The addend is a
; register, not an immediate: recent Intel cores (Golden Cove and later)
; fold chains of add-immediate at rename and run several per cycle.  Timed
; with the TSC it gives core cycles per TSC tick (platform/tsc_math.c
; core_per_tsc_milli) and, called as a benchmark kernel (trips in RDI, p and q
; ignored), by the benchmark harness (bench/harness.c bench_calibrate): one
; calibration kernel for both.  Position-independent, no stack, no red zone: safe
; in the image and on the host (calib_add_block below reads, and only reads, the caller's stack).

default rel
bits 64

%define ADDS_PER_ITER 64

section .text

global calib_add_chain
calib_add_chain:
	mov rcx, rdi
	xor eax, eax
	mov edx, 1
	test rcx, rcx
	jz .done
	align 32
.loop:
%rep ADDS_PER_ITER
	add rax, rdx
%endrep
	dec rcx
	jnz .loop
.done:
	imul rax, rdi, ADDS_PER_ITER
	ret

; void calib_add_block(uint64_t iterations)   (SysV ABI: iterations in RDI)
;
; The contention probe beside the chain (bench/harness.c): iterations x ADDS_PER_ITER additions in
; BLOCK_CHAINS independent chains, so the adds run as fast as the core's ports and front end allow (8
; chains: more than any core's integer ALUs), not one a cycle.  Every other add takes its addend from
; memory, the first four qwords at RSP (the return address and the caller's frame, always in L1; only
; read), so each iteration also spends the core's load ports.  Another thread sharing the core (an SMT
; sibling; under a hypervisor another tenant's or the VM's own other vCPU) takes issue slots, ALUs and
; load ports from it and it slows, while the dependent chain above does not: the two together show
; contention the calibration alone cannot.  Measured on the development host with vCPU 0 the sibling:
; a loop of loads there slowed adds alone 46% and this mix 100%; a loop of adds, 50% and 45%.  With
; adds alone, a sibling busy with loads had slowed memory-operand throughputs 20-30% unseen (ORPD xmm,
; m128 0.65 cycles, not 0.51).  The register addend is the loop counter (add-immediate chains fold at
; rename on some cores, see above); the values do not matter.  Touches only caller-saved registers.
%define BLOCK_CHAINS 8

global calib_add_block
calib_add_block:
	mov rcx, rdi
	test rcx, rcx
	jz .done
	align 32
.loop:
%rep ADDS_PER_ITER / BLOCK_CHAINS
	add rax, rcx
	add rdx, [rsp]
	add rsi, rcx
	add rdi, [rsp + 8]
	add r8, rcx
	add r9, [rsp + 16]
	add r10, rcx
	add r11, [rsp + 24]
%endrep
	dec rcx
	jnz .loop
.done:
	ret

section .note.GNU-stack noalloc noexec nowrite progbits
