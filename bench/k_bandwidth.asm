; bench/k_bandwidth.asm - the memory ladder's bandwidth kernels (kernel `bandwidth`).
;
; p points at a struct bench_bw (bench/kernels.h):
;   [p + 0]  src    the buffer read (read, copy)
;   [p + 8]  dst    the buffer written (write, write_nt, copy)
;   [p + 16] bytes  each buffer's size, a multiple of BW_TRIP
;   [p + 24] off    where the previous run stopped (read and written back)
; One iteration moves BW_ITER bytes per stream (256: four 64-byte lines) at
; src + off / dst + off; after BENCH_UNROLL iterations off advances by
; BW_TRIP and wraps to 0 at `bytes` (branch-free), so the buffers are swept
; in order, again and again, and consecutive runs go on where the last one
; stopped.  Loads and stores are aligned, the widest the core allows (the
; suite picks the width: SSE 16, AVX 32, AVX-512 64 bytes per access), into
; xmm0-xmm3 / ymm0-3 / zmm0-3 only: caller-saved under both the System V
; and the Microsoft ABI, so the firmware's code around the image loses no
; register it keeps.  Non-temporal stores end with sfence; AVX kernels
; with vzeroupper, so no later SSE code pays for dirty upper state.
%include "bench/kernel.inc"

%define BW_ITER 256
%define BW_TRIP (BW_ITER * BENCH_UNROLL)
%define OP_READ 0
%define OP_WRITE 1
%define OP_WRITE_NT 2
%define OP_COPY 3

; LD width, reg, address / ST width, address, reg / NT width, address, reg
%macro LD 3
%if %1 == 16
	movdqa xmm%2, [%3]
%elif %1 == 32
	vmovdqa ymm%2, [%3]
%else
	vmovdqa64 zmm%2, [%3]
%endif
%endmacro

%macro ST 3
%if %1 == 16
	movdqa [%2], xmm%3
%elif %1 == 32
	vmovdqa [%2], ymm%3
%else
	vmovdqa64 [%2], zmm%3
%endif
%endmacro

%macro NT 3
%if %1 == 16
	movntdq [%2], xmm%3
%elif %1 == 32
	vmovntdq [%2], ymm%3
%else
	vmovntdq [%2], zmm%3
%endif
%endmacro

%macro ZERO0 1
%if %1 == 16
	pxor xmm0, xmm0
%elif %1 == 32
	vpxor xmm0, xmm0, xmm0		; zeroes all of ymm0
%else
	vpxord zmm0, zmm0, zmm0
%endif
%endmacro

; BW_KERNEL name, width, op
%macro BW_KERNEL 3
KERNEL %1
	mov r8, [rsi]
	mov r9, [rsi + 8]
	mov r10, [rsi + 16]
	mov r11, [rsi + 24]
%if %3 == OP_WRITE || %3 == OP_WRITE_NT
	ZERO0 %2
%endif
	align 64
.top:
%assign k 0
%rep BENCH_UNROLL
%assign j 0
%rep BW_ITER / %2
%assign r (j % 4)
%if %3 == OP_READ
	LD %2, %[r], r8 + r11 + k * BW_ITER + j * %2
%elif %3 == OP_WRITE
	ST %2, r9 + r11 + k * BW_ITER + j * %2, 0
%elif %3 == OP_WRITE_NT
	NT %2, r9 + r11 + k * BW_ITER + j * %2, 0
%else
	LD %2, %[r], r8 + r11 + k * BW_ITER + j * %2
	ST %2, r9 + r11 + k * BW_ITER + j * %2, %[r]
%endif
%assign j j + 1
%endrep
%assign k k + 1
%endrep
	add r11, BW_TRIP
	xor eax, eax
	cmp r11, r10
	cmovae r11, rax
	dec rdi
	jnz .top
	mov [rsi + 24], r11
%if %3 == OP_WRITE_NT
	sfence
%endif
%if %2 > 16
	vzeroupper
%endif
	ret
KERNEL_END %1
%endmacro

BW_KERNEL bk_bw_read_sse, 16, OP_READ
BW_KERNEL bk_bw_write_sse, 16, OP_WRITE
BW_KERNEL bk_bw_write_nt_sse, 16, OP_WRITE_NT
BW_KERNEL bk_bw_copy_sse, 16, OP_COPY
BW_KERNEL bk_bw_read_avx, 32, OP_READ
BW_KERNEL bk_bw_write_avx, 32, OP_WRITE
BW_KERNEL bk_bw_write_nt_avx, 32, OP_WRITE_NT
BW_KERNEL bk_bw_copy_avx, 32, OP_COPY
BW_KERNEL bk_bw_read_avx512, 64, OP_READ
BW_KERNEL bk_bw_write_avx512, 64, OP_WRITE
BW_KERNEL bk_bw_write_nt_avx512, 64, OP_WRITE_NT
BW_KERNEL bk_bw_copy_avx512, 64, OP_COPY

; The bytes one iteration moves per stream, checked by bench/src_ladder.c against BENCH_BW_ITER.
	section .rodata
	align 4
	global bench_asm_bw_iter:data hidden
bench_asm_bw_iter: dd BW_ITER
