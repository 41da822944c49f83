; Store-to-load forwarding that succeeds: an 8-byte store, an 8-byte load of
; the same bytes; the loaded value is the next store's data, so cycles per
; iteration is the store-to-load latency (the control of sf_size_mismatch).
; name: sf_forward
init:
	xor eax, eax
body:
	mov [rsi], rax
	mov rax, [rsi]
