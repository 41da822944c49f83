; The control of alias_4k: the same load chain with its store to another
; line of the second page (rdx = rsi + 4096 + 64), so nothing aliases.
; name: alias_line
init:
	xor eax, eax
	mov [rsi], rax          ; the chain's quadword holds 0: rax stays 0
	mfence                  ; the set-up store is done before the chain starts
	xor ecx, ecx
	lea rdx, [rsi + 4096 + 64]
body:
	mov [rdx + rax], rcx
	mov rax, [rsi + rax]
