; bench/measure.asm - one timed, counted run of a kernel.
;
;   void bench_measure(struct bench_call *c);        (bench/harness.h)
;
; Sequence: execute c->start (the counting driver's MSR writes that enable
; the counters for this pass), a serialised TSC read, the cycles MSR when
; c->cycles_msr is set (IA32_APERF: image only, after the harness has read
; it safely once), call the kernel, the cycles MSR again, a serialised TSC
; read, execute c->stop.  The only instructions counted that
; are not the kernel's are the few between the last start write and the
; call, and between the return and the first stop write; they are the same
; in every run, so the harness's differential (N and 2N trips) removes them
; together with the call, the kernel's set-up and the TSC reads.
; On the host the lists are empty (perf enables counting from C).
; The wrmsr here is unguarded: the driver writes only MSRs it has already
; written safely while programming the pass.

; struct bench_call (bench/harness.h)
%define BC_KERNEL	0
%define BC_TRIPS	8
%define BC_P		16
%define BC_Q		24
%define BC_START	32
%define BC_STOP		40
%define BC_TSC_START	48
%define BC_TSC_END	56
%define BC_CYC_MSR	64
%define BC_CYC_START	72
%define BC_CYC_END	80

%include "pmu/count/toggles.inc"

; CYC_INTO reg: reg = the cycles MSR (0 when there is none).  Clobbers rax, rcx, rdx.
%macro CYC_INTO 1
	xor eax, eax
	xor edx, edx
	mov ecx, [rbx + BC_CYC_MSR]
	test ecx, ecx
	jz %%none
	lfence
	rdmsr
	lfence
%%none:
	shl rdx, 32
	or rax, rdx
	mov %1, rax
%endmacro

	section .text
	align 64
	global bench_measure:function hidden
bench_measure:
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov rbx, rdi			; (five pushes: the stack is 16-byte aligned at the kernel call)
	TOGGLES [rbx + BC_START]
	TSC_INTO r12
	CYC_INTO r14
	mov rdi, [rbx + BC_TRIPS]
	mov rsi, [rbx + BC_P]
	mov rdx, [rbx + BC_Q]
	call [rbx + BC_KERNEL]
	CYC_INTO r15
	TSC_INTO r13
	TOGGLES [rbx + BC_STOP]
	mov [rbx + BC_TSC_START], r12
	mov [rbx + BC_TSC_END], r13
	mov [rbx + BC_CYC_START], r14
	mov [rbx + BC_CYC_END], r15
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	ret
	global bench_measure_end:function hidden
bench_measure_end:

section .note.GNU-stack noalloc noexec nowrite progbits
