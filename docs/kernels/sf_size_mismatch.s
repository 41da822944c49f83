; Store-to-load forwarding that fails: a 4-byte store, then an 8-byte load of
; the same address.  The load is wider than the store and must wait until
; the store has written the cache (the built-in store_forward.size_mismatch).
; name: sf_size_mismatch
; control: sf_forward
init:
	xor eax, eax
body:
	mov [rsi], eax
	mov rax, [rsi]
