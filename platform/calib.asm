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
; in the image and on the host.

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

section .note.GNU-stack noalloc noexec nowrite progbits
