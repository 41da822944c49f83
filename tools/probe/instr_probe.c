/*
 * tools/probe/instr_probe.c - an independent instruction probe: latency and reciprocal throughput of a
 * fixed set of common forms, for `make bench-instr` (tools/instr-probe.py) to hold pmuboot-host instr's
 * figures against.  It shares no code and no method with pmuboot's instruction table: its kernels are
 * written by hand here (gas, Intel syntax) rather than built from XED's catalogue, it runs no N/2N
 * differential and no per-sample calibration, and it knows nothing of connectors, idioms or passes.
 *
 *   instr_probe CPU [REPS]
 *
 * Pinned to CPU, each form's latency kernel is a chain of the instruction on one register (its output
 * its next input, the pair printed beside it) and its throughput kernel 48 instances on 8 to 12
 * registers that nothing else writes, each a run of ITERS loop trips.  The kernel runs once unmeasured,
 * then REPS times (31 unless given), each run after a run of a dependent add chain (one cycle an add on
 * every x86 core since the P6), timed with the TSC.  A figure is the kernel's fastest run over the add
 * chain's fastest (cycles()).  Prints one line a form the CPU has:
 *
 *   asm<TAB>pair<TAB>latency<TAB>throughput
 *
 * and on stderr the forms skipped for a missing extension.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#define ITERS 4096 /* loop trips a run */
#define LAT_N 32   /* chained instances a trip */
#define TP_N 48	   /* independent instances a trip */
#define ADDS 64	   /* adds a trip of the reference chain */
#define REPS_DEFAULT 31
#define REPS_MAX 1001

/* Registers the kernels use; the loop counter gets one of the rest. */
#define CLOBBERS \
	"rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "xmm0", "xmm1", "xmm2", "xmm3", \
		"xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", \
		"cc", "memory"

/*
 * The values the kernels start from: general registers 1, 3 and 5 (rcx a shift count of 3), and every
 * vector lane 1.0 (float lanes in ymm/xmm 0-15, double lanes 1.0 where a form is on doubles: VEC_D).
 * No chain below leaves normal numbers (additions double, 1.0 is a fixed point of the rest).
 * General registers are written by MOV r32, imm32 (or MOV r64, imm64), never by the sign-extending
 * MOV r64, imm32: on the development host's Sapphire-Rapids-class core a count register written so (or
 * by INC, or ADD of an immediate) made a SHLX chain read 1.2 to 3 cycles instead of 1, and RORX's
 * throughput 1.0 instead of 0.5, for as long as the register held that value.
 */
#define GPR_INIT "mov eax, 1\n mov ecx, 3\n mov edx, 5\n"
#define VEC_F "mov eax, 0x3f800000\n vmovd xmm0, eax\n vpbroadcastd ymm0, xmm0\n"
#define VEC_D "mov rax, 0x3ff0000000000000\n vmovq xmm0, rax\n vpbroadcastq ymm0, xmm0\n"
#define ZMM_F "mov eax, 0x3f800000\n vmovd xmm0, eax\n vpbroadcastd zmm0, xmm0\n"
#define SSE_D "mov rax, 0x3ff0000000000000\n movq xmm0, rax\n"
#define SSE_F "mov eax, 0x3f800000\n movd xmm0, eax\n pshufd xmm0, xmm0, 0\n"
/* Every other vector register a copy of register 0 (ymm: the upper lanes too; zmm: see ZCOPY). */
#define YCOPY ".irp r, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n vmovdqa ymm\\r, ymm0\n .endr\n"
#define ZCOPY ".irp r, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n vmovdqa64 zmm\\r, zmm0\n .endr\n"
#define XCOPY ".irp r, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n movdqa xmm\\r, xmm0\n .endr\n"
#define GCOPY ".irp r, r8,r9,r10,r11,r12,r13,r14,r15\n mov \\r, rax\n .endr\n"

/* Throughput bodies: each instance writes its own register, the sources are registers none writes. */
#define TP_GPR(ins) ".rept 6\n .irp r, r8,r9,r10,r11,r12,r13,r14,r15\n " ins "\n .endr\n .endr\n"
#define TP_VEC(ins) ".rept 4\n .irp r, 1,2,3,4,5,6,7,8,9,10,11,12\n " ins "\n .endr\n .endr\n"

/* Memory the load forms read, at rsi in every kernel: a qword holding its own address (main sets it). */
static uint64_t cell[8] __attribute__((aligned(64)));

/*
 * A kernel: init, then n trips of body, then tail (VZEROUPPER after VEX and EVEX code, so that the legacy
 * SSE forms meet clean upper halves; nothing after general-register code, which must run without AVX).
 * Built with -masm=intel; the counter's register is gcc's choice.
 */
#define KERNEL(fn, init, body, tail) \
	static void fn(uint64_t n) \
	{ \
		__asm__ volatile(init "1:\n" body "dec %0\n jnz 1b\n" tail : "+r"(n) : "S"(cell) : CLOBBERS); \
	}

/* One form: its latency kernel (LAT_N chained instances a trip) and throughput kernel (TP_N). */
#define FORM(id, init, tail, lat, tp) \
	KERNEL(lat_##id, init, ".rept 32\n " lat "\n .endr\n", tail) KERNEL(tp_##id, init, tp, tail)
#define GPR ""
#define VEX "vzeroupper\n"
#define SSE ""

enum need {
	NONE,
	SSSE3,
	SSE41,
	SSE42,
	BMI1,
	BMI2,
	LZCNT,
	POPCNT,
	AVX,
	AVX2,
	FMA,
	AVX512F,
	AVX512DQ,
	AVX512BW,
	AVX512VL,
	AVX512DQVL
};

FORM(add, GPR_INIT GCOPY, GPR, "add rax, rax", TP_GPR("add \\r, rcx"))
FORM(imul, GPR_INIT GCOPY, GPR, "imul rax, rax", TP_GPR("imul \\r, rcx"))
FORM(imul_imm, GPR_INIT GCOPY, GPR, "imul rax, rax, 3", TP_GPR("imul \\r, rcx, 3"))
FORM(popcnt, GPR_INIT GCOPY, GPR, "popcnt rax, rax", TP_GPR("popcnt \\r, rcx"))
FORM(lzcnt, GPR_INIT GCOPY, GPR, "lzcnt rax, rax", TP_GPR("lzcnt \\r, rcx"))
FORM(tzcnt, GPR_INIT GCOPY, GPR, "tzcnt rax, rax", TP_GPR("tzcnt \\r, rcx"))
FORM(andn, GPR_INIT GCOPY, GPR, "andn rax, rax, rcx", TP_GPR("andn \\r, rdx, rcx"))
FORM(shlx, GPR_INIT GCOPY, GPR, "shlx rax, rax, rcx", TP_GPR("shlx \\r, rdx, rcx"))
FORM(rorx, GPR_INIT GCOPY, GPR, "rorx rax, rax, 3", TP_GPR("rorx \\r, rcx, 3"))
FORM(pdep, GPR_INIT GCOPY, GPR, "pdep rax, rax, rcx", TP_GPR("pdep \\r, rdx, rcx"))
FORM(pext, GPR_INIT GCOPY, GPR, "pext rax, rax, rcx", TP_GPR("pext \\r, rdx, rcx"))
FORM(crc32, GPR_INIT GCOPY, GPR, "crc32 rax, rax", TP_GPR("crc32 \\r, rcx"))
FORM(bswap, GPR_INIT GCOPY, GPR, "bswap rax", TP_GPR("bswap \\r"))
FORM(load, "mov rax, rsi\n", GPR, "mov rax, [rax]", TP_GPR("mov \\r, [rsi]"))
FORM(rol_imm, GPR_INIT GCOPY, GPR, "rol rax, 3", TP_GPR("rol \\r, 3"))
FORM(movsxd, GPR_INIT GCOPY, GPR, "movsxd rax, eax", TP_GPR("movsxd \\r, ecx"))
FORM(vaddps_x, VEC_F YCOPY, VEX, "vaddps xmm0, xmm0, xmm0", TP_VEC("vaddps xmm\\r, xmm13, xmm14"))
FORM(vaddps_y, VEC_F YCOPY, VEX, "vaddps ymm0, ymm0, ymm0", TP_VEC("vaddps ymm\\r, ymm13, ymm14"))
FORM(vmulps_y, VEC_F YCOPY, VEX, "vmulps ymm0, ymm0, ymm0", TP_VEC("vmulps ymm\\r, ymm13, ymm14"))
FORM(vaddpd_y, VEC_D YCOPY, VEX, "vaddpd ymm0, ymm0, ymm0", TP_VEC("vaddpd ymm\\r, ymm13, ymm14"))
FORM(vfma231_y, VEC_F YCOPY, VEX, "vfmadd231ps ymm0, ymm1, ymm2", TP_VEC("vfmadd231ps ymm\\r, ymm13, ymm14"))
FORM(vdivps_y, VEC_F YCOPY, VEX, "vdivps ymm0, ymm0, ymm1", TP_VEC("vdivps ymm\\r, ymm13, ymm14"))
FORM(vsqrtps_y, VEC_F YCOPY, VEX, "vsqrtps ymm0, ymm0", TP_VEC("vsqrtps ymm\\r, ymm13"))
FORM(vpaddd_y, VEC_F YCOPY, VEX, "vpaddd ymm0, ymm0, ymm0", TP_VEC("vpaddd ymm\\r, ymm13, ymm14"))
FORM(vpmulld_y, VEC_F YCOPY, VEX, "vpmulld ymm0, ymm0, ymm0", TP_VEC("vpmulld ymm\\r, ymm13, ymm14"))
FORM(vpmuludq_y, VEC_F YCOPY, VEX, "vpmuludq ymm0, ymm0, ymm0", TP_VEC("vpmuludq ymm\\r, ymm13, ymm14"))
FORM(vpshufb_y, VEC_F YCOPY, VEX, "vpshufb ymm0, ymm0, ymm1", TP_VEC("vpshufb ymm\\r, ymm13, ymm14"))
FORM(vpermd_y, VEC_F YCOPY, VEX, "vpermd ymm0, ymm1, ymm0", TP_VEC("vpermd ymm\\r, ymm13, ymm14"))
FORM(vpmaddwd_y, VEC_F YCOPY, VEX, "vpmaddwd ymm0, ymm0, ymm0", TP_VEC("vpmaddwd ymm\\r, ymm13, ymm14"))
FORM(vpand_y, VEC_F YCOPY, VEX, "vpand ymm0, ymm0, ymm1", TP_VEC("vpand ymm\\r, ymm13, ymm14"))
FORM(vpmaxsd_y, VEC_F YCOPY, VEX, "vpmaxsd ymm0, ymm0, ymm1", TP_VEC("vpmaxsd ymm\\r, ymm13, ymm14"))
FORM(vpslld_y, VEC_F YCOPY, VEX, "vpslld ymm0, ymm0, 1", TP_VEC("vpslld ymm\\r, ymm13, 1"))
FORM(vcvtdq2ps_y, VEC_F YCOPY, VEX, "vcvtdq2ps ymm0, ymm0", TP_VEC("vcvtdq2ps ymm\\r, ymm13"))
FORM(vpbroadcastd_y, VEC_F YCOPY, VEX, "vpbroadcastd ymm0, xmm0", TP_VEC("vpbroadcastd ymm\\r, xmm13"))
FORM(vpermps_y, VEC_F YCOPY, VEX, "vpermps ymm0, ymm1, ymm0", TP_VEC("vpermps ymm\\r, ymm13, ymm14"))
FORM(pshufb_x, SSE_F XCOPY, SSE, "pshufb xmm0, xmm1", TP_VEC("pshufb xmm\\r, xmm13"))
FORM(pmulld_x, SSE_F XCOPY, SSE, "pmulld xmm0, xmm0", TP_VEC("pmulld xmm\\r, xmm13"))
FORM(addsd, SSE_D XCOPY, SSE, "addsd xmm0, xmm0", TP_VEC("addsd xmm\\r, xmm13"))
FORM(mulsd, SSE_D XCOPY, SSE, "mulsd xmm0, xmm1", TP_VEC("mulsd xmm\\r, xmm13"))
FORM(divsd, SSE_D XCOPY, SSE, "divsd xmm0, xmm1", TP_VEC("divsd xmm\\r, xmm13"))
FORM(sqrtsd, SSE_D XCOPY, SSE, "sqrtsd xmm0, xmm0", TP_VEC("sqrtsd xmm\\r, xmm13"))
FORM(vaddps_z, ZMM_F ZCOPY, VEX, "vaddps zmm0, zmm0, zmm0", TP_VEC("vaddps zmm\\r, zmm13, zmm14"))
FORM(vfma231_z, ZMM_F ZCOPY, VEX, "vfmadd231ps zmm0, zmm1, zmm2", TP_VEC("vfmadd231ps zmm\\r, zmm13, zmm14"))
FORM(vpaddd_z, ZMM_F ZCOPY, VEX, "vpaddd zmm0, zmm0, zmm0", TP_VEC("vpaddd zmm\\r, zmm13, zmm14"))
FORM(vpternlogd_z, ZMM_F ZCOPY, VEX, "vpternlogd zmm0, zmm1, zmm2, 0x96",
     TP_VEC("vpternlogd zmm\\r, zmm13, zmm14, 0x96"))
FORM(vpermd_z, ZMM_F ZCOPY, VEX, "vpermd zmm0, zmm1, zmm0", TP_VEC("vpermd zmm\\r, zmm13, zmm14"))
FORM(vpmullq_z, ZMM_F ZCOPY, VEX, "vpmullq zmm0, zmm0, zmm0", TP_VEC("vpmullq zmm\\r, zmm13, zmm14"))
FORM(vpshufb_z, ZMM_F ZCOPY, VEX, "vpshufb zmm0, zmm0, zmm1", TP_VEC("vpshufb zmm\\r, zmm13, zmm14"))

FORM(vphaddd_x, VEC_F YCOPY, VEX, "vphaddd xmm0, xmm0, xmm0", TP_VEC("vphaddd xmm\\r, xmm13, xmm14"))
FORM(vpmulld_x, VEC_F YCOPY, VEX, "vpmulld xmm0, xmm0, xmm0", TP_VEC("vpmulld xmm\\r, xmm13, xmm14"))
FORM(phaddd_x, SSE_F XCOPY, SSE, "phaddd xmm0, xmm0", TP_VEC("phaddd xmm\\r, xmm13"))
FORM(vpmovdb, ZMM_F ZCOPY, VEX, "vpmovdb xmm0, ymm0", TP_VEC("vpmovdb xmm\\r, ymm13"))
FORM(vpmullq_x, ZMM_F ZCOPY, VEX, "vpmullq xmm0, xmm0, xmm0", TP_VEC("vpmullq xmm\\r, xmm13, xmm14"))
FORM(vrndscalepd_x, VEC_D YCOPY, VEX, "vrndscalepd xmm0, xmm0, 0", TP_VEC("vrndscalepd xmm\\r, xmm13, 0"))
FORM(vpsraw_z, ZMM_F ZCOPY, VEX, "vpsraw zmm0, zmm0, xmm1", TP_VEC("vpsraw zmm\\r, zmm13, xmm14"))

/* The reference: a chain of dependent adds, one cycle each. */
KERNEL(add_chain, "mov eax, 1\n", ".rept 64\n add rax, rax\n .endr\n", GPR)

struct form {
	const char *asm_name; /* pmuboot's canonical name (docs/instr.md "The catalogue") */
	const char *pair;     /* the pair the latency kernel chains, as pmuboot's records name it */
	enum need need;
	void (*lat)(uint64_t), (*tp)(uint64_t);
};

#define F(id, name, pair, need) \
	{ \
		name, pair, need, lat_##id, tp_##id \
	}
static const struct form forms[] = {
	F(add, "ADD r64, r64", "op1->op1", NONE),
	F(imul, "IMUL r64, r64", "op1->op1", NONE),
	F(imul_imm, "IMUL r64, r64, imm32", "op2->op1", NONE),
	F(popcnt, "POPCNT r64, r64", "op2->op1", POPCNT),
	F(lzcnt, "LZCNT r64, r64", "op2->op1", LZCNT),
	F(tzcnt, "TZCNT r64, r64", "op2->op1", BMI1),
	F(andn, "ANDN r64, r64, r64", "op2->op1", BMI1),
	F(shlx, "SHLX r64, r64, r64", "op2->op1", BMI2),
	F(rorx, "RORX r64, r64, imm8", "op2->op1", BMI2),
	F(pdep, "PDEP r64, r64, r64", "op2->op1", BMI2),
	F(pext, "PEXT r64, r64, r64", "op2->op1", BMI2),
	F(crc32, "CRC32 r64, r64", "op1->op1", SSE42),
	F(bswap, "BSWAP r64", "op1->op1", NONE),
	F(load, "MOV r64, m64", "op2.addr->op1", NONE), /* a pointer chase; the throughput one address */
	F(rol_imm, "ROL r64, imm8", "op1->op1", NONE),
	F(movsxd, "MOVSXD r64, r32", "op2->op1", NONE),
	F(vaddps_x, "VADDPS xmm, xmm, xmm", "op2->op1", AVX),
	F(vaddps_y, "VADDPS ymm, ymm, ymm", "op2->op1", AVX),
	F(vmulps_y, "VMULPS ymm, ymm, ymm", "op2->op1", AVX),
	F(vaddpd_y, "VADDPD ymm, ymm, ymm", "op2->op1", AVX),
	F(vfma231_y, "VFMADD231PS ymm, ymm, ymm", "op1->op1", FMA),
	F(vdivps_y, "VDIVPS ymm, ymm, ymm", "op2->op1", AVX),
	F(vsqrtps_y, "VSQRTPS ymm, ymm", "op2->op1", AVX),
	F(vpaddd_y, "VPADDD ymm, ymm, ymm", "op2->op1", AVX2),
	F(vpmulld_y, "VPMULLD ymm, ymm, ymm", "op2->op1", AVX2),
	F(vpmuludq_y, "VPMULUDQ ymm, ymm, ymm", "op2->op1", AVX2),
	F(vpshufb_y, "VPSHUFB ymm, ymm, ymm", "op2->op1", AVX2),
	F(vpermd_y, "VPERMD ymm, ymm, ymm", "op3->op1", AVX2),
	F(vpmaddwd_y, "VPMADDWD ymm, ymm, ymm", "op2->op1", AVX2),
	F(vpand_y, "VPAND ymm, ymm, ymm", "op2->op1", AVX2),
	F(vpmaxsd_y, "VPMAXSD ymm, ymm, ymm", "op2->op1", AVX2),
	F(vpslld_y, "VPSLLD ymm, ymm, imm8", "op2->op1", AVX2),
	F(vcvtdq2ps_y, "VCVTDQ2PS ymm, ymm", "op2->op1", AVX),
	F(vpbroadcastd_y, "VPBROADCASTD ymm, xmm", "op2->op1", AVX2),
	F(vpermps_y, "VPERMPS ymm, ymm, ymm", "op3->op1", AVX2),
	F(vphaddd_x, "VPHADDD xmm, xmm, xmm", "op2->op1", AVX),
	F(vpmulld_x, "VPMULLD xmm, xmm, xmm", "op2->op1", AVX),
	F(pshufb_x, "PSHUFB xmm, xmm", "op1->op1", SSSE3),
	F(phaddd_x, "PHADDD xmm, xmm", "op1->op1", SSSE3),
	F(pmulld_x, "PMULLD xmm, xmm", "op1->op1", SSE41),
	F(addsd, "ADDSD xmm, xmm", "op1->op1", NONE),
	F(mulsd, "MULSD xmm, xmm", "op1->op1", NONE),
	F(divsd, "DIVSD xmm, xmm", "op1->op1", NONE),
	F(sqrtsd, "SQRTSD xmm, xmm", "op2->op1", NONE),
	F(vaddps_z, "VADDPS zmm, zmm, zmm", "op2->op1", AVX512F),
	F(vfma231_z, "VFMADD231PS zmm, zmm, zmm", "op1->op1", AVX512F),
	F(vpaddd_z, "VPADDD zmm, zmm, zmm", "op2->op1", AVX512F),
	F(vpternlogd_z, "VPTERNLOGD zmm, zmm, zmm, imm8", "op1->op1", AVX512F),
	F(vpermd_z, "VPERMD zmm, zmm, zmm", "op3->op1", AVX512F),
	F(vpmullq_z, "VPMULLQ zmm, zmm, zmm", "op2->op1", AVX512DQ),
	F(vpshufb_z, "VPSHUFB zmm, zmm, zmm", "op2->op1", AVX512BW),
	F(vpsraw_z, "VPSRAW zmm, zmm, xmm", "op2->op1", AVX512BW),
	F(vpmovdb, "VPMOVDB xmm, ymm", "op2->op1", AVX512VL),
	F(vrndscalepd_x, "VRNDSCALEPD xmm, xmm, imm8", "op2->op1", AVX512VL),
	F(vpmullq_x, "VPMULLQ xmm, xmm, xmm", "op2->op1", AVX512DQVL),
};

static const char *const need_names[] = { "",	      "SSSE3",	  "SSE4.1",   "SSE4.2",
					  "BMI1",     "BMI2",	  "LZCNT",    "POPCNT",
					  "AVX",      "AVX2",	  "FMA",      "AVX512F",
					  "AVX512DQ", "AVX512BW", "AVX512VL", "AVX512DQ and AVX512VL" };

/* CPUID bits (Intel SDM Vol. 2A, CPUID; AMD APM Vol. 3, E.3) and XCR0's state (SDM Vol. 1, 13.3). */
#define XCR0_AVX 0x6u	  /* SSE and AVX state */
#define XCR0_AVX512 0xe6u /* and opmask, ZMM_Hi256, Hi16_ZMM */
static bool has(enum need n)
{
	unsigned a, b, c, d, b7 = 0, c7, d7, c81 = 0, a81, b81, d81;
	__cpuid(1, a, b, c, d);
	if (__get_cpuid_max(0, NULL) >= 7)
		__cpuid_count(7, 0, a, b7, c7, d7);
	if (__get_cpuid_max(0x80000000, NULL) >= 0x80000001)
		__cpuid(0x80000001, a81, b81, c81, d81);
	bool osxsave = c & (1u << 27);
	unsigned xcr0 = 0, xhi;
	if (osxsave)
		__asm__ volatile("xgetbv" : "=a"(xcr0), "=d"(xhi) : "c"(0));
	bool avx = osxsave && (c & (1u << 28)) && (xcr0 & XCR0_AVX) == XCR0_AVX;
	bool avx512 = avx && (xcr0 & XCR0_AVX512) == XCR0_AVX512 && (b7 & (1u << 16));
	switch (n) {
	case NONE: return true; /* x86-64's baseline: SSE2 */
	case SSSE3: return c & (1u << 9);
	case SSE41: return c & (1u << 19);
	case BMI1: return b7 & (1u << 3);
	case BMI2: return b7 & (1u << 8);
	case LZCNT: return c81 & (1u << 5);
	case POPCNT: return c & (1u << 23);
	case SSE42: return c & (1u << 20);
	case AVX: return avx;
	case AVX2: return avx && (b7 & (1u << 5));
	case FMA: return avx && (c & (1u << 12));
	case AVX512F: return avx512;
	case AVX512DQ: return avx512 && (b7 & (1u << 17));
	case AVX512BW: return avx512 && (b7 & (1u << 30));
	case AVX512VL: return avx512 && (b7 & (1u << 31));
	case AVX512DQVL: return avx512 && (b7 & (1u << 17)) && (b7 & (1u << 31));
	}
	return false;
}

static uint64_t timed(void (*fn)(uint64_t))
{
	_mm_lfence();
	uint64_t t0 = __rdtsc();
	_mm_lfence();
	fn(ITERS);
	_mm_lfence();
	uint64_t t1 = __rdtsc();
	_mm_lfence();
	return t1 - t0;
}

/*
 * The kernel's cycles an instance: its fastest run over the fastest run of the add chain, both taken from
 * reps samples that alternate them.  Another thread on the core only ever slows a run (it takes ports the
 * chain needs: this host's SMT sibling made SHLX's chain read anywhere from 1 to 3 cycles), and a clock
 * that moves within the samples moves both, so each fastest run is the core's own.
 */
static double cycles(void (*fn)(uint64_t), unsigned per_trip, unsigned reps)
{
	uint64_t add = UINT64_MAX, kernel = UINT64_MAX;
	fn(ITERS); /* unmeasured: caches, predictors, and a clock the kernel moves */
	for (unsigned i = 0; i < reps; i++) {
		uint64_t a = timed(add_chain), k = timed(fn);
		add = a < add ? a : add;
		kernel = k < kernel ? k : kernel;
	}
	return (double)kernel / add * ADDS / per_trip;
}

/* A whole decimal number in [lo, hi], or -1. */
static long number(const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);
	return end != s && !*end && v >= lo && v <= hi ? v : -1;
}

int main(int argc, char **argv)
{
	long cpu = argc >= 2 ? number(argv[1], 0, CPU_SETSIZE - 1) : -1;
	long reps = argc >= 3 ? number(argv[2], 1, REPS_MAX) : REPS_DEFAULT;
	if (argc < 2 || argc > 3 || cpu < 0 || reps < 0) {
		fprintf(stderr, "usage: instr_probe CPU [REPS]  (CPU 0 to %d, REPS 1 to %d)\n", CPU_SETSIZE - 1,
			REPS_MAX);
		return 2;
	}
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		perror("instr_probe: sched_setaffinity");
		return 1;
	}
	cell[0] = (uint64_t)(uintptr_t)cell;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const struct form *f = &forms[i];
		if (!has(f->need)) {
			fprintf(stderr, "instr_probe: %s skipped: no %s\n", f->asm_name, need_names[f->need]);
			continue;
		}
		double lat = cycles(f->lat, LAT_N, (unsigned)reps), tp = cycles(f->tp, TP_N, (unsigned)reps);
		printf("%s\t%s\t%.3f\t%.3f\n", f->asm_name, f->pair, lat, tp);
		fflush(stdout);
	}
	return 0;
}
