; bench/k_split.asm - line and page splits.
;
; Loads use the pointer chase of bench/k_ref.asm (bk_load_chain) with p at
; the split address; stores use the kernel below.  p is always the exact
; address of the access ([rsi], no displacement).
%include "bench/kernel.inc"

; split.store_*: independent 8-byte stores to p (throughput form); a store
; whose address splits a line or page costs store-port/commit bandwidth.
;   body: mov [rsi], rcx
KERNEL bk_store_tput
	xor ecx, ecx
	align 64
.top:
%rep BENCH_UNROLL
	mov [rsi], rcx
%endrep
	TRIP_LOOP
KERNEL_END bk_store_tput

