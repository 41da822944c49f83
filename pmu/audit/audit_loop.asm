; pmu/audit/audit_loop.asm - the known-answer loop and the routine that runs it counted.
;
; One trip of audit_loop retires exactly (pmu/audit/audit.h):
;   4 instructions      jmp, andps, dec, jnz (a macro-fused dec/jnz still retires two
;                       instructions: SDM Vol. 3B, INST_RETIRED counts instructions, not uops)
;   2 branches          the unconditional jmp and the conditional jnz
;   1 conditional branch the jnz (taken on every trip but the last, backward: Lion Cove's
;                       BR_INST_RETIRED.COND_TAKEN_BWD counts it too; the last one, and the
;                       call and ret around the loop, are the same in runs of any length)
;   1 SSE instruction   andps, a packed-single logical: no exception, no assist, whatever xmm0
;                       holds; AMD's "Retired MMX/FP instructions" counts it as SSE (PMCx0CB,
;                       "includes non-numeric instructions")
; and touches no memory, so the difference between two lengths is exact.  xmm0 is caller-saved
; in the System V ABI and the image's C never uses vector registers (-mgeneral-regs-only).
;
;   void audit_measure(struct audit_call *c);     (pmu/audit/audit_run.c)
; executes c->start, a serialised TSC read, c->trips trips of the loop, a TSC read, c->stop.
; The writes are plain WRMSR: ring 0 only (the image); elsewhere the lists are NULL and the
; caller applies them itself.

%include "pmu/count/toggles.inc"

; struct audit_call (pmu/audit/audit_run.c)
%define AC_TRIPS	0
%define AC_START	8
%define AC_STOP		16
%define AC_TSC_START	24
%define AC_TSC_END	32

	section .text
	align 64
	global audit_loop:function hidden
audit_loop:				; rdi = trips (>= 1)
.top:
	jmp .next
.next:
	andps xmm0, xmm0
	dec rdi
	jnz .top
	ret

	align 64
	global audit_measure:function hidden
audit_measure:
	push rbx
	push r12
	push r13
	mov rbx, rdi			; (three pushes: the stack is 16-byte aligned at the call)
	TOGGLES [rbx + AC_START]
	TSC_INTO r12
	mov rdi, [rbx + AC_TRIPS]
	call audit_loop
	TSC_INTO r13
	TOGGLES [rbx + AC_STOP]
	mov [rbx + AC_TSC_START], r12
	mov [rbx + AC_TSC_END], r13
	pop r13
	pop r12
	pop rbx
	ret

section .note.GNU-stack noalloc noexec nowrite progbits
