/* bench/ukernel_code.c - see ukernel_code.h. */
#include "bench/ukernel_code.h"
#include "platform/vec.h"

extern const uint8_t bk_uk_prologue[], bk_uk_prologue_end[], bk_uk_epilogue[], bk_uk_epilogue_end[];

/* The loop head is 64-byte aligned, as in the built-in kernels (bench/kernel.inc), so placement is fixed. */
#define LOOP_ALIGN 64
/* dec rdi (REX.W FF /1) and jnz rel32 (0F 85 cd): Intel SDM Vol. 2A, DEC and Jcc. */
static const uint8_t DEC_RDI[] = { 0x48, 0xff, 0xcf };
static const uint8_t JNZ_REL32[] = { 0x0f, 0x85 };
#define REL32_BYTES 4
/* Multi-byte NOPs (Intel SDM Vol. 2B, NOP: the recommended sequences), longest first. */
static const uint8_t NOPS[][9] = {
	{ 0x90 },
	{ 0x66, 0x90 },
	{ 0x0f, 0x1f, 0x00 },
	{ 0x0f, 0x1f, 0x40, 0x00 },
	{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
	{ 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
	{ 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
};

/*
 * VZEROUPPER (VEX.128.0F.WIG 77, SDM Vol. 2C) before the epilogue where AVX is
 * usable: a body may leave upper YMM/ZMM state dirty, which FXRSTOR does not
 * clean, and SSE code after it (the C library on the host, firmware between
 * windows in the image) would pay for it (Intel optimization manual, "Mixing
 * AVX code with SSE code").  Where AVX is not enabled it would #UD: left out.
 */
static const uint8_t VZEROUPPER[] = { 0xc5, 0xf8, 0x77 };

static size_t prologue_len(void) { return (size_t)(bk_uk_prologue_end - bk_uk_prologue); }
static size_t clean_len(void) { return (vec_extensions() & VEC_AVX) ? sizeof(VZEROUPPER) : 0; }
static size_t epilogue_len(void) { return clean_len() + (size_t)(bk_uk_epilogue_end - bk_uk_epilogue); }

static size_t loop_start(const struct ukernel *k)
{
	size_t head = prologue_len() + k->init_len;
	return (head + LOOP_ALIGN - 1) / LOOP_ALIGN * LOOP_ALIGN;
}

size_t ukernel_code_size(const struct ukernel *k, unsigned unroll)
{
	return loop_start(k) + (size_t)unroll * k->body_len + sizeof(DEC_RDI) + sizeof(JNZ_REL32) + REL32_BYTES +
	       epilogue_len();
}

size_t ukernel_code_write(const struct ukernel *k, unsigned unroll, uint8_t *out, size_t cap, size_t *loop_off,
			  size_t *loop_len)
{
	size_t n = ukernel_code_size(k, unroll), top = loop_start(k), at = 0;

	if (unroll == 0 || n > cap)
		return 0;
	memcpy(out, bk_uk_prologue, prologue_len());
	at = prologue_len();
	memcpy(out + at, k->init, k->init_len);
	at += k->init_len;
	while (at < top) {
		size_t pad = top - at > ARRAY_SIZE(NOPS) ? ARRAY_SIZE(NOPS) : top - at;
		memcpy(out + at, NOPS[pad - 1], pad);
		at += pad;
	}
	for (unsigned i = 0; i < unroll; i++, at += k->body_len)
		memcpy(out + at, k->body, k->body_len);
	if (loop_off)
		*loop_off = top;
	if (loop_len)
		*loop_len = at - top;
	memcpy(out + at, DEC_RDI, sizeof(DEC_RDI));
	at += sizeof(DEC_RDI);
	memcpy(out + at, JNZ_REL32, sizeof(JNZ_REL32));
	at += sizeof(JNZ_REL32);
	int32_t rel = (int32_t)((int64_t)top - (int64_t)(at + REL32_BYTES));
	for (int i = 0; i < REL32_BYTES; i++)
		out[at + (size_t)i] = (uint8_t)((uint32_t)rel >> (8 * i));
	at += REL32_BYTES;
	size_t clean = clean_len();
	memcpy(out + at, VZEROUPPER, clean);
	memcpy(out + at + clean, bk_uk_epilogue, epilogue_len() - clean);
	return at + epilogue_len();
}
