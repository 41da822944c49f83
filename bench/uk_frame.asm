; bench/uk_frame.asm - the code the harness puts around a user kernel.
;
; bench/ukernel_code.c copies these templates, position-independent and
; free of relocations, into executable memory around the kernel's bytes:
;   bk_uk_prologue   save the callee-saved registers and the vector state,
;                    zero the registers the body owns (docs/kernels.md)
;   [init] [nops to a 64-byte boundary]
;   top: [body x unroll]  dec rdi / jnz top   (emitted by ukernel_code.c)
;   bk_uk_epilogue   restore and return
; The result is called like every kernel: k(trips, p, q) (bench/kernel.inc).
; FXSAVE64/FXRSTOR64 need a 16-byte aligned 512-byte area: on entry RSP is
; 8 mod 16 (after the call), six pushes make it 8 mod 16 still, and 520
; more bytes make it 0 mod 16.

%define FRAME_BYTES 520

	section .text
	align 16
	global bk_uk_prologue:function hidden
bk_uk_prologue:
	push rbx
	push rbp
	push r12
	push r13
	push r14
	push r15
	sub rsp, FRAME_BYTES
	fxsave64 [rsp]
	xor eax, eax
	xor ebx, ebx
	xor ecx, ecx
	xor ebp, ebp
	xor r8d, r8d
	xor r9d, r9d
	xor r10d, r10d
	xor r11d, r11d
	xor r12d, r12d
	xor r13d, r13d
	xor r14d, r14d
	xor r15d, r15d
	global bk_uk_prologue_end:function hidden
bk_uk_prologue_end:

	global bk_uk_epilogue:function hidden
bk_uk_epilogue:
	; A kernel may leave the direction flag set (STD, an instruction form measured as it is): the
	; System V and UEFI x64 calling conventions want RFLAGS.DF clear on return, and the caller's
	; string instructions (memcpy, memset) run backwards over memory otherwise.
	cld
	fxrstor64 [rsp]
	add rsp, FRAME_BYTES
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbp
	pop rbx
	ret
	global bk_uk_epilogue_end:function hidden
bk_uk_epilogue_end:

section .note.GNU-stack noalloc noexec nowrite progbits
