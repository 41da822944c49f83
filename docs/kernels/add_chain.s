; A dependent chain of register adds: 1 cycle per iteration on every x86 core.
; name: add_chain
init:
	xor eax, eax
	mov ecx, 1
body:
	add rax, rcx
