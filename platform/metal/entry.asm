; platform/metal/entry.asm - exception entry stubs and the guarded call.
;
; Every stub is 16 bytes long and stub n sits at kx_stubs + 16*n, so
; platform/metal/idt.c can point gate n at it without a table of addresses (the image
; is position-independent; nothing here needs a relocation).  A stub pushes a
; zero where the CPU pushes no error code, then the vector, and enters
; kx_common, which saves the general registers as a struct kx_frame
; (platform/trap.h) and calls kx_trap.  kx_trap may rewrite the frame (a
; fixed-up fault resumes elsewhere; a fatal one resumes in kx_guard_resume);
; the registers are then reloaded from the frame and IRETQ returns.
;
; No SSE state is saved: the image is compiled with -mgeneral-regs-only.
; In 64-bit mode the CPU aligns RSP to 16 before pushing the interrupt frame
; (Intel SDM Vol. 3A §6.14.2), so after the 7 + 15 quadwords pushed here RSP
; is 16-byte aligned at the call, as the SysV ABI wants.

default rel
bits 64

section .text

extern kx_trap

; Vectors whose exceptions push an error code (Intel SDM Vol. 3A §6.15,
; Table 6-1; AMD APM Vol. 2 §8.2): #DF 8, #TS 10, #NP 11, #SS 12, #GP 13,
; #PF 14, #AC 17, #CP 21, #VC 29, #SX 30.
%macro STUB 1
	align 16
%if %1 = 8 || (%1 >= 10 && %1 <= 14) || %1 = 17 || %1 = 21 || %1 = 29 || %1 = 30
%else
	push 0
%endif
	push %1
	jmp kx_common
%endmacro

	align 16
global kx_stubs
kx_stubs:
%assign v 0
%rep 32
	STUB v
%assign v v + 1
%endrep
	align 16
global kx_stubs_end
kx_stubs_end:

kx_common:
	push r15
	push r14
	push r13
	push r12
	push r11
	push r10
	push r9
	push r8
	push rbp
	push rdi
	push rsi
	push rdx
	push rcx
	push rbx
	push rax
	mov rdi, rsp
	cld
	call kx_trap wrt ..plt
	pop rax
	pop rbx
	pop rcx
	pop rdx
	pop rsi
	pop rdi
	pop rbp
	pop r8
	pop r9
	pop r10
	pop r11
	pop r12
	pop r13
	pop r14
	pop r15
	add rsp, 16		; vector and error code
	iretq

; int kx_guarded_call(void (*fn)(void *), void *arg, struct kx_guard *g)
;
; Calls fn(arg) and returns 0.  When a fatal exception happens inside fn,
; kx_trap resumes at g->resume (kx_guard_resume) with RSP = g->rsp, which
; unwinds to this frame and returns 1: a longjmp through IRETQ, so the
; exception context (and NMI blocking) is left properly.  g->rsp, g->rflags
; and g->resume are written here (struct kx_guard in platform/trap.h: rsp at
; 0, rflags at 8, resume at 16), so trap.c names no symbol of this file.
global kx_guarded_call
kx_guarded_call:
	push rbp
	mov rbp, rsp
	push rbx
	push r12
	push r13
	push r14
	push r15
	sub rsp, 8		; keep the call below 16-byte aligned
	mov [rdx], rsp
	pushfq
	pop rax
	mov [rdx + 8], rax
	lea rax, [kx_guard_resume]
	mov [rdx + 16], rax
	mov rax, rdi
	mov rdi, rsi
	call rax
	xor eax, eax
kx_guard_out:
	add rsp, 8
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

kx_guard_resume:
	mov eax, 1
	jmp kx_guard_out

; The NMI gate of a processor parked in HLT (platform/metal/ap.c): the NMI is only
; its wake-up call, so it returns at once, touching no memory the other
; processors use.
global kx_nmi_return
kx_nmi_return:
	iretq

; void kx_call_on_stack(void (*fn)(void *), void *arg, void *top)
;
; fn(arg) on the stack that ends at top, then back on the caller's.  An
; application processor's firmware stack is small (EDK2 gives 32 KiB by
; default) and has no guard page we know of; a measuring pass runs on a
; stack the boot CPU allocated for it (platform/metal/ap.c).
global kx_call_on_stack
kx_call_on_stack:
	push rbp
	mov rbp, rsp
	mov rsp, rdx
	and rsp, -16		; SysV: 16-byte aligned at the call
	mov rax, rdi
	mov rdi, rsi
	call rax
	mov rsp, rbp
	pop rbp
	ret

section .note.GNU-stack noalloc noexec nowrite progbits
