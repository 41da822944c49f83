/*
 * instr/kernel_forms_host.c - the kernel builder's test forms; see kernel_forms.h.  Operands, their
 * access and the flags as XED's datafiles give them for these iforms (xed/datafiles/xed-isa.txt and the
 * AVX/AVX-512 files; ../shared/vendor-isa/xed), written by hand.
 */
#include "instr/kernel_forms.h"

#define R IA_READ
#define W IA_WRITE
#define RW (IA_READ | IA_WRITE)
/* Arithmetic flags (SDM Vol. 1, 3.4.3.1): what ADD, ADC, SUB, XOR, IMUL, SHL, DIV write. */
#define IFL_ARITH (IFL_CF | IFL_PF | IFL_AF | IFL_ZF | IFL_SF | IFL_OF)

static const struct instr_operand GG_RW_R[] = { { IK_R64, RW, 0, 0, 64, NULL }, { IK_R64, R, 0, 0, 64, NULL } };
static const struct instr_operand GG_W_R[] = { { IK_R64, W, 0, 0, 64, NULL }, { IK_R64, R, 0, 0, 64, NULL } };
static const struct instr_operand G_CL[] = { { IK_R64, RW, 0, 0, 64, NULL }, { IK_CL, R, 0, 0, 8, NULL } };
static const struct instr_operand DIV64[] = { { IK_R64, R, 0, 0, 64, NULL },
					      { IK_FIXED, RW, 1, 0, 64, "rax" },
					      { IK_FIXED, RW, 1, 0, 64, "rdx" } };
static const struct instr_operand DIV_M64[] = { { IK_MEM, R, 0, 0, 64, NULL },
						{ IK_FIXED, RW, 1, 0, 64, "rax" },
						{ IK_FIXED, RW, 1, 0, 64, "rdx" } };
static const struct instr_operand MUL_M64[] = { { IK_MEM, R, 0, 0, 64, NULL },
						{ IK_FIXED, RW, 1, 0, 64, "rax" },
						{ IK_FIXED, W, 1, 0, 64, "rdx" } };
static const struct instr_operand IDIV8[] = { { IK_R8, R, 0, 0, 8, NULL }, { IK_FIXED, RW, 1, 0, 16, "ax" } };
static const struct instr_operand MUL64[] = { { IK_R64, R, 0, 0, 64, NULL },
					      { IK_FIXED, RW, 1, 0, 64, "rax" },
					      { IK_FIXED, W, 1, 0, 64, "rdx" } };
static const struct instr_operand G_M[] = { { IK_R64, RW, 0, 0, 64, NULL }, { IK_MEM, R, 0, 0, 64, NULL } };
static const struct instr_operand M_G[] = { { IK_MEM, RW, 0, 0, 64, NULL }, { IK_R64, R, 0, 0, 64, NULL } };
static const struct instr_operand M_G_STORE[] = { { IK_MEM, W, 0, 0, 64, NULL }, { IK_R64, R, 0, 0, 64, NULL } };
static const struct instr_operand LEA[] = { { IK_R64, W, 0, 0, 64, NULL }, { IK_MEM, 0, 0, 0, 0, NULL } };
static const struct instr_operand X_G[] = { { IK_XMM, W, 0, 0, 128, NULL }, { IK_R64, R, 0, 0, 64, NULL } };
static const struct instr_operand G_X[] = { { IK_R64, W, 0, 0, 64, NULL }, { IK_XMM, R, 0, 0, 64, NULL } };
static const struct instr_operand XXX[] = { { IK_XMM, W, 0, 0, 128, NULL },
					    { IK_XMM, R, 0, 0, 128, NULL },
					    { IK_XMM, R, 0, 0, 128, NULL } };
static const struct instr_operand YYY[] = { { IK_YMM, W, 0, 0, 256, NULL },
					    { IK_YMM, R, 0, 0, 256, NULL },
					    { IK_YMM, R, 0, 0, 256, NULL } };
static const struct instr_operand ZZZ[] = { { IK_ZMM, W, 0, 0, 512, NULL },
					    { IK_ZMM, R, 0, 0, 512, NULL },
					    { IK_ZMM, R, 0, 0, 512, NULL } };
/* Merge masking: the destination is read too (elements the mask leaves keep their value), the mask read. */
static const struct instr_operand ZZZ_K[] = { { IK_ZMM, RW, 0, 0, 512, NULL },
					      { IK_ZMM, R, 0, 0, 512, NULL },
					      { IK_ZMM, R, 0, 0, 512, NULL },
					      { IK_K, R, 1, 0, 64, NULL } };
/* Zero masking: the destination is not read (elements the mask leaves are zeroed). */
static const struct instr_operand ZZZ_KZ[] = { { IK_ZMM, W, 0, 0, 512, NULL },
					       { IK_ZMM, R, 0, 0, 512, NULL },
					       { IK_ZMM, R, 0, 0, 512, NULL },
					       { IK_K, R, 1, 0, 64, NULL } };
static const struct instr_operand YYY_K[] = { { IK_YMM, RW, 0, 0, 256, NULL },
					      { IK_YMM, R, 0, 0, 256, NULL },
					      { IK_YMM, R, 0, 0, 256, NULL },
					      { IK_K, R, 1, 0, 64, NULL } };
/* A compare into a mask under a mask (zeroing: the destination is not read). */
static const struct instr_operand KZZ_K[] = { { IK_K, W, 0, 0, 64, NULL },
					      { IK_ZMM, R, 0, 0, 512, NULL },
					      { IK_ZMM, R, 0, 0, 512, NULL },
					      { IK_K, R, 1, 0, 64, NULL } };
static const struct instr_operand MZ_K[] = { { IK_MEM, W, 0, 0, 512, NULL },
					     { IK_ZMM, R, 0, 0, 512, NULL },
					     { IK_K, R, 1, 0, 64, NULL } };
static const struct instr_operand ZZ_BCST[] = { { IK_ZMM, W, 0, 0, 512, NULL },
						{ IK_ZMM, R, 0, 0, 512, NULL },
						{ IK_MEM, R, 0, 1, 32, NULL } };
static const struct instr_operand XX_RW[] = { { IK_XMM, RW, 0, 0, 128, NULL }, { IK_XMM, R, 0, 0, 128, NULL } };
static const struct instr_operand MM_MM[] = { { IK_MM, RW, 0, 0, 64, NULL }, { IK_MM, R, 0, 0, 64, NULL } };
static const struct instr_operand KKK[] = { { IK_K, W, 0, 0, 16, NULL },
					    { IK_K, R, 0, 0, 16, NULL },
					    { IK_K, R, 0, 0, 16, NULL } };

static const struct instr_operand GG_R_R[] = { { IK_R64, R, 0, 0, 64, NULL }, { IK_R64, R, 0, 0, 64, NULL } };
static const struct instr_operand GG_RW_RW[] = { { IK_R64, RW, 0, 0, 64, NULL }, { IK_R64, RW, 0, 0, 64, NULL } };
/* CMOVcc: XED's rcw destination (written only when the condition holds: read as well). */
static const struct instr_operand GG_RCW_R[] = { { IK_R64, RW | IA_COND, 0, 0, 64, NULL },
						 { IK_R64, R, 0, 0, 64, NULL } };
static const struct instr_operand G8_W[] = { { IK_R8, W, 0, 0, 8, NULL } };
static const struct instr_operand G_RW[] = { { IK_R64, RW, 0, 0, 64, NULL } };
static const struct instr_operand G8_RW[] = { { IK_R8, RW, 0, 0, 8, NULL } };
/* BSF: XED's cw destination (left as it was for a zero source). */
static const struct instr_operand GG_CW_R[] = { { IK_R64, W | IA_COND, 0, 0, 64, NULL },
						{ IK_R64, R, 0, 0, 64, NULL } };
static const struct instr_operand G8_IMM[] = { { IK_R8, RW, 0, 0, 8, NULL }, { IK_IMM8, R, 0, 0, 8, NULL } };
static const struct instr_operand G_IMM32[] = { { IK_R64, RW, 0, 0, 64, NULL }, { IK_IMM32, R, 0, 0, 32, NULL } };
static const struct instr_operand G16_IMM16[] = { { IK_R16, RW, 0, 0, 16, NULL }, { IK_IMM16, R, 0, 0, 16, NULL } };
static const struct instr_operand G16_IMM8[] = { { IK_R16, RW, 0, 0, 16, NULL }, { IK_IMM8, R, 0, 0, 8, NULL } };
static const struct instr_operand G16_ONE[] = { { IK_R16, RW, 0, 0, 16, NULL }, { IK_ONE, R, 0, 0, 8, NULL } };
static const struct instr_operand G_IMM64[] = { { IK_R64, W, 0, 0, 64, NULL }, { IK_IMM64, R, 0, 0, 64, NULL } };
static const struct instr_operand BLENDV[] = { { IK_XMM, RW, 0, 0, 128, NULL },
					       { IK_XMM, R, 0, 0, 128, NULL },
					       { IK_FIXED, R, 1, 0, 128, "xmm0" } };
static const struct instr_operand KZZ[] = { { IK_K, W, 0, 0, 16, NULL },
					    { IK_ZMM, R, 0, 0, 512, NULL },
					    { IK_ZMM, R, 0, 0, 512, NULL } };
static const struct instr_operand XX_R_R[] = { { IK_XMM, R, 0, 0, 128, NULL }, { IK_XMM, R, 0, 0, 128, NULL } };
static const struct instr_operand G32_X[] = { { IK_R32, W, 0, 0, 32, NULL }, { IK_XMM, R, 0, 0, 32, NULL } };
static const struct instr_operand X_M128[] = { { IK_XMM, W, 0, 0, 128, NULL }, { IK_MEM, R, 0, 0, 128, NULL } };
static const struct instr_operand YYY_FMA[] = { { IK_YMM, RW, 0, 0, 256, NULL },
						{ IK_YMM, R, 0, 0, 256, NULL },
						{ IK_YMM, R, 0, 0, 256, NULL } };

#define FORM_U(asm_, mn, iform_, ext, isa, cat, ops_, nexp, fr, fw, fu, at) \
	{ \
		.asm_name = asm_, .mnemonic = mn, .iform = iform_, .extension = ext, .isa_set = isa, .category = cat, \
		.ops = ops_, .n_ops = ARRAY_SIZE(ops_), .n_explicit = nexp, .flags_read = fr, .flags_written = fw, \
		.flags_undefined = fu, .attrs = at \
	}
/* Most forms define every flag they write. */
#define FORM(asm_, mn, iform_, ext, isa, cat, ops_, nexp, fr, fw, at) \
	FORM_U(asm_, mn, iform_, ext, isa, cat, ops_, nexp, fr, fw, 0, at)

const struct instr_form ikm_test_forms[] = {
	FORM("ADD r64, r64", "add", "ADD_GPRv_GPRv_01", "BASE", "I86", "BINARY", GG_RW_R, 2, 0, IFL_ARITH, 0),
	FORM("ADD r64, r64", "add", "ADD_GPRv_GPRv_03", "BASE", "I86", "BINARY", GG_RW_R, 2, 0, IFL_ARITH, 0),
	FORM("ADC r64, r64", "adc", "ADC_GPRv_GPRv_11", "BASE", "I86", "BINARY", GG_RW_R, 2, IFL_CF, IFL_ARITH, 0),
	FORM("IMUL r64, r64", "imul", "IMUL_GPRv_GPRv", "BASE", "I86", "BINARY", GG_RW_R, 2, 0, IFL_ARITH, 0),
	FORM("SHL r64, cl", "shl", "SHL_GPRv_CL_D3r4", "BASE", "I86", "SHIFT", G_CL, 2, 0, IFL_ARITH, 0),
	/* A divide leaves every flag it writes undefined (SDM Vol. 2A DIV, IDIV). */
	FORM_U("DIV r64", "div", "DIV_GPRv", "BASE", "I86", "BINARY", DIV64, 1, 0, IFL_ARITH, IFL_ARITH, 0),
	FORM_U("DIV m64", "div", "DIV_MEMv", "BASE", "I86", "BINARY", DIV_M64, 1, 0, IFL_ARITH, IFL_ARITH, 0),
	FORM_U("IDIV r8", "idiv", "IDIV_GPR8", "BASE", "I86", "BINARY", IDIV8, 1, 0, IFL_ARITH, IFL_ARITH, 0),
	FORM("MUL r64", "mul", "MUL_GPRv", "BASE", "I86", "BINARY", MUL64, 1, 0, IFL_ARITH, 0),
	FORM("MUL m64", "mul", "MUL_MEMv", "BASE", "I86", "BINARY", MUL_M64, 1, 0, IFL_ARITH, 0),
	FORM("XOR r64, r64", "xor", "XOR_GPRv_GPRv_31", "BASE", "I86", "LOGICAL", GG_RW_R, 2, 0, IFL_ARITH, 0),
	FORM("MOV r64, r64", "mov", "MOV_GPRv_GPRv_89", "BASE", "I86", "DATAXFER", GG_W_R, 2, 0, 0, 0),
	FORM("ADD r64, m64", "add", "ADD_GPRv_MEMv", "BASE", "I86", "BINARY", G_M, 2, 0, IFL_ARITH, 0),
	FORM("ADD m64, r64", "add", "ADD_MEMv_GPRv", "BASE", "I86", "BINARY", M_G, 2, 0, IFL_ARITH, 0),
	FORM("MOV m64, r64", "mov", "MOV_MEMv_GPRv", "BASE", "I86", "DATAXFER", M_G_STORE, 2, 0, 0, 0),
	/* A register bit offset into memory (SDM Vol. 2A BTS): its chains must keep the offset in the window. */
	FORM("BTS m64, r64", "bts", "BTS_MEMv_GPRv", "BASE", "I386", "BITBYTE", M_G, 2, 0, IFL_CF, 0),
	FORM("LEA r64, m", "lea", "LEA_GPRv_AGEN", "BASE", "I86", "MISC", LEA, 2, 0, 0, 0),
	FORM("MOVQ xmm, r64", "movq", "MOVQ_XMMdq_GPR64", "SSE2", "SSE2", "DATAXFER", X_G, 2, 0, 0, 0),
	FORM("MOVQ r64, xmm", "movq", "MOVQ_GPR64_XMMq", "SSE2", "SSE2", "DATAXFER", G_X, 2, 0, 0, 0),
	FORM("VADDPS xmm, xmm, xmm", "vaddps", "VADDPS_XMMdq_XMMdq_XMMdq", "AVX", "AVX", "AVX", XXX, 3, 0, 0, 0),
	FORM("VADDPS ymm, ymm, ymm", "vaddps", "VADDPS_YMMqq_YMMqq_YMMqq", "AVX", "AVX", "AVX", YYY, 3, 0, 0, 0),
	FORM("VADDPS zmm, zmm, zmm", "vaddps", "VADDPS_ZMMf32_MASKmskw_ZMMf32_ZMMf32_AVX512", "AVX512EVEX",
	     "AVX512F_512", "AVX512", ZZZ, 3, 0, 0, 0),
	FORM("VADDPS zmm{k}, zmm, zmm", "vaddps", "VADDPS_ZMMf32_MASKmskw_ZMMf32_ZMMf32_AVX512", "AVX512EVEX",
	     "AVX512F_512", "AVX512", ZZZ_K, 3, 0, 0, IFA_MASK),
	FORM("VADDPS ymm{k}, ymm, ymm", "vaddps", "VADDPS_YMMf32_MASKmskw_YMMf32_YMMf32_AVX512", "AVX512EVEX",
	     "AVX512F_256", "AVX512", YYY_K, 3, 0, 0, IFA_MASK),
	/* 64 byte elements: a 64-bit write mask (AVX512BW). */
	FORM("VPADDB zmm{k}, zmm, zmm", "vpaddb", "VPADDB_ZMMu8_MASKmskw_ZMMu8_ZMMu8_AVX512", "AVX512EVEX",
	     "AVX512BW_512", "AVX512", ZZZ_K, 3, 0, 0, IFA_MASK),
	FORM("VPCMPEQD k{k}, zmm, zmm", "vpcmpeqd", "VPCMPEQD_MASKmskw_MASKmskw_ZMMu32_ZMMu32_AVX512", "AVX512EVEX",
	     "AVX512F_512", "AVX512", KZZ_K, 3, 0, 0, IFA_MASK),
	FORM("VMOVUPS m512{k}, zmm", "vmovups", "VMOVUPS_MEMf32_MASKmskw_ZMMf32_AVX512", "AVX512EVEX", "AVX512F_512",
	     "DATAXFER", MZ_K, 2, 0, 0, IFA_MASK),
	FORM("VADDPS zmm, zmm, m32bcst", "vaddps", "VADDPS_ZMMf32_MASKmskw_ZMMf32_MEMf32_AVX512", "AVX512EVEX",
	     "AVX512F_512", "AVX512", ZZ_BCST, 3, 0, 0, IFA_BCAST),
	FORM("PCMPEQD xmm, xmm", "pcmpeqd", "PCMPEQD_XMMdq_XMMdq", "SSE2", "SSE2", "SSE", XX_RW, 2, 0, 0, 0),
	FORM("PADDD mm, mm", "paddd", "PADDD_MMXq_MMXq", "MMX", "PENTIUMMMX", "MMX", MM_MM, 2, 0, 0, 0),
	FORM("KADDW k, k, k", "kaddw", "KADDW_MASKmskw_MASKmskw_MASKmskw_AVX512", "AVX512VEX", "AVX512DQ_KOP", "KMASK",
	     KKK, 3, 0, 0, 0),
	FORM("CMP r64, r64", "cmp", "CMP_GPRv_GPRv_39", "BASE", "I86", "BINARY", GG_R_R, 2, 0, IFL_ARITH, 0),
	FORM("SETB r8", "setb", "SETB_GPR8", "BASE", "I86", "SETCC", G8_W, 1, IFL_CF, 0, 0),
	/* Forms that leave the carry alone (INC, ADOX) or undefined (BSF, SDM Vol. 2A BSF). */
	FORM("INC r64", "inc", "INC_GPRv_FFr0", "BASE", "I86", "BINARY", G_RW, 1, 0, IFL_ARITH & ~IFL_CF, 0),
	FORM("INC r8", "inc", "INC_GPR8", "BASE", "I86", "BINARY", G8_RW, 1, 0, IFL_ARITH & ~IFL_CF, 0),
	FORM_U("BSF r64, r64", "bsf", "BSF_GPRv_GPRv", "BASE", "I386", "BITBYTE", GG_CW_R, 2, 0, IFL_ARITH,
	       IFL_ARITH & ~IFL_ZF, 0),
	FORM("ADOX r64, r64", "adox", "ADOX_GPR64_GPR64", "ADOX_ADCX", "ADOX_ADCX", "ADOX_ADCX", GG_RW_R, 2, IFL_OF,
	     IFL_OF, 0),
	FORM("CMOVB r64, r64", "cmovb", "CMOVB_GPRv_GPRv", "CMOV", "CMOV", "CMOV", GG_RCW_R, 2, IFL_CF, 0, 0),
	FORM("XCHG r64, r64", "xchg", "XCHG_GPRv_GPRv", "BASE", "I86", "DATAXFER", GG_RW_RW, 2, 0, 0, 0),
	FORM("ADD r8, imm8", "add", "ADD_GPR8_IMMb_80r0", "BASE", "I86", "BINARY", G8_IMM, 2, 0, IFL_ARITH, 0),
	FORM("ADD r64, imm32", "add", "ADD_GPRv_IMMz", "BASE", "I86", "BINARY", G_IMM32, 2, 0, IFL_ARITH, 0),
	/* 66H with a 16-bit immediate: a length-changing prefix; with an 8-bit one it is not. */
	FORM("ADD r16, imm16", "add", "ADD_GPRv_IMMz", "BASE", "I86", "BINARY", G16_IMM16, 2, 0, IFL_ARITH, 0),
	FORM("ADD r16, imm8", "add", "ADD_GPRv_IMMb", "BASE", "I86", "BINARY", G16_IMM8, 2, 0, IFL_ARITH, 0),
	FORM("ROR r16, 1", "ror", "ROR_GPRv_ONE", "BASE", "I86", "ROTATE", G16_ONE, 2, 0, IFL_CF | IFL_OF, 0),
	FORM("MOV r64, imm64", "mov", "MOV_GPRv_IMMv", "BASE", "I86", "DATAXFER", G_IMM64, 2, 0, 0, 0),
	FORM("BLENDVPS xmm, xmm", "blendvps", "BLENDVPS_XMMps_XMMps_XMM0", "SSE4", "SSE41", "SSE", BLENDV, 2, 0, 0, 0),
	FORM("VPCMPEQD k, zmm, zmm", "vpcmpeqd", "VPCMPEQD_MASKmskw_MASKmskw_ZMMu32_ZMMu32_AVX512", "AVX512EVEX",
	     "AVX512F_512", "AVX512", KZZ, 3, 0, 0, 0),
	FORM("PTEST xmm, xmm", "ptest", "PTEST_XMMdq_XMMdq", "SSE4", "SSE41", "LOGICAL", XX_R_R, 2, 0, IFL_ARITH, 0),
	FORM("MOVD r32, xmm", "movd", "MOVD_GPR32_XMMd", "SSE2", "SSE2", "DATAXFER", G32_X, 2, 0, 0, 0),
	FORM("VMOVAPS xmm, m128", "vmovaps", "VMOVAPS_XMMdq_MEMdq", "AVX", "AVX", "DATAXFER", X_M128, 2, 0, 0, 0),
	FORM("VFMADD231PS ymm, ymm, ymm", "vfmadd231ps", "VFMADD231PS_YMMqq_YMMqq_YMMqq", "VFMA", "FMA", "VFMA",
	     YYY_FMA, 3, 0, 0, 0),
	FORM("VPXORD zmm, zmm, zmm", "vpxord", "VPXORD_ZMMu32_MASKmskw_ZMMu32_ZMMu32_AVX512", "AVX512EVEX",
	     "AVX512F_512", "LOGICAL", ZZZ, 3, 0, 0, 0),
	FORM("VADDPS zmm{k}{z}, zmm, zmm{rne-sae}", "vaddps", "VADDPS_ZMMf32_MASKmskw_ZMMf32_ZMMf32_AVX512",
	     "AVX512EVEX", "AVX512F_512", "AVX512", ZZZ_KZ, 3, 0, 0, IFA_MASK | IFA_ZEROING | IFA_ROUNDING),
	{ .asm_name = "UD2",
	  .mnemonic = "ud2",
	  .iform = "UD2",
	  .extension = "BASE",
	  .isa_set = "PPRO",
	  .category = "MISC" },
};
const size_t ikm_test_forms_count = ARRAY_SIZE(ikm_test_forms);

const struct instr_form *ikm_test_form(const char *asm_name)
{
	for (size_t i = 0; i < ikm_test_forms_count; i++)
		if (!strcmp(ikm_test_forms[i].asm_name, asm_name))
			return &ikm_test_forms[i];
	return NULL;
}
