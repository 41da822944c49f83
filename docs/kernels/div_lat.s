; Latency of a 64-bit unsigned division: rax = rdx:rax / rcx with rcx = 1,
; so the quotient is the next dividend and the divisions form one chain.
; The xor that clears rdx is a zero idiom with no input, off the chain.
; name: div_lat
init:
	mov rax, 0x123456789
	mov ecx, 1
body:
	xor edx, edx
	div rcx
