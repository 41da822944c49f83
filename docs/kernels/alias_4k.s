; 4K aliasing: a load chain through [rsi] with a store in each iteration to
; rdx = rsi + 4096, the same offset in the next 4 KiB page.  Both addresses
; wait on the chain, so store and load issue together and the load is first
; taken to depend on the store (the built-in alias_4k.same_offset).
; name: alias_4k
; control: alias_line
init:
	xor eax, eax
	mov [rsi], rax
	mfence
	xor ecx, ecx
	lea rdx, [rsi + 4096]
body:
	mov [rdx + rax], rcx
	mov rax, [rsi + rax]
