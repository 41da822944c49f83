/* instr/select.c - a form's CPUID bits and XCR0 state against one CPU; --match and --extension. */
#include "instr/select.h"
#include "lib/x86/cpuid.h"
#include "platform/vec.h"

/* Leaf ranges by their top bits: basic 0..., extended 8000_0000H..., Centaur C000_0000H... */
#define CPUID_RANGE_MASK 0xF0000000u

static void ask(struct instr_cpu *c, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->leaf[i].leaf == leaf && c->leaf[i].subleaf == subleaf) {
			*r = c->leaf[i].r;
			return;
		}
	c->cpuid(c->ctx, leaf, subleaf, r);
	if (c->n < INSTR_CPU_LEAVES) {
		c->leaf[c->n].leaf = leaf;
		c->leaf[c->n].subleaf = subleaf;
		c->leaf[c->n].r = *r;
		c->n++;
	}
}

/*
 * The XCR0 the image sets on a CPU (platform/vec.c vec_xcr0_wanted, which is the image's alone:
 * vec.c also writes CR4 and XCR0, which pmuboot-host cannot link): x87 and SSE, AVX where CPUID
 * has it, AVX-512's three components where AVX-512F is there and XCR0 may hold them all.
 */
static uint64_t image_xcr0(uint64_t supported, uint32_t l1_ecx, uint32_t l7_ebx)
{
	uint64_t x = XCR0_X87 | XCR0_SSE;
	if ((l1_ecx & CPUID1_ECX_AVX) && (supported & XCR0_AVX))
		x |= XCR0_AVX;
	if ((x & XCR0_AVX) && (l7_ebx & CPUID7_EBX_AVX512F) && (supported & XCR0_AVX512) == XCR0_AVX512)
		x |= XCR0_AVX512;
	return x;
}

void instr_cpu_init(struct instr_cpu *c, instr_cpuid_fn cpuid, void *ctx, bool xcr0_known, uint64_t xcr0)
{
	struct cpuid_regs r, l1 = { 0, 0, 0, 0 }, l7 = { 0, 0, 0, 0 }, xs = { 0, 0, 0, 0 };

	memset(c, 0, sizeof(*c));
	c->cpuid = cpuid;
	c->ctx = ctx;
	ask(c, CPUID_LEAF_VENDOR, 0, &r);
	c->max_basic = r.eax;
	ask(c, CPUID_LEAF_EXT_MAX, 0, &r);
	c->max_ext = (r.eax & CPUID_RANGE_MASK) == CPUID_LEAF_EXT_MAX ? r.eax : 0;
	ask(c, CPUID_LEAF_CENTAUR_MAX, 0, &r);
	c->max_centaur = (r.eax & CPUID_RANGE_MASK) == CPUID_LEAF_CENTAUR_MAX ? r.eax : 0;
	if (c->max_basic >= CPUID_LEAF_SIGNATURE)
		ask(c, CPUID_LEAF_SIGNATURE, 0, &l1);
	if (c->max_basic >= CPUID_LEAF_EXT_FEATURES) {
		ask(c, CPUID_LEAF_EXT_FEATURES, 0, &l7);
		c->max_sub7 = l7.eax;	/* 07H.0:EAX: the highest subleaf of leaf 07H [SDM2 CPUID] */
	}
	if (xcr0_known) {
		c->xcr0 = xcr0;
		c->osxsave = l1.ecx & CPUID1_ECX_OSXSAVE;
		c->xcr0_source = "XCR0 as this machine's OS set it";
	} else {
		/* The image sets CR4.OSXSAVE where the CPU has XSAVE, and XCR0 as vec_enable would. */
		if (c->max_basic >= CPUID_LEAF_XSAVE)
			ask(c, CPUID_LEAF_XSAVE, 0, &xs);
		c->osxsave = l1.ecx & CPUID1_ECX_XSAVE;
		uint64_t supported = ((uint64_t)xs.edx << 32) | xs.eax;
		/* A dump without leaf 0DH (XCR0 bit 0 is always supported where the leaf is answered):
		 * the components its features need. */
		if (!(supported & XCR0_X87))
			supported = XCR0_X87 | XCR0_SSE | XCR0_AVX | XCR0_AVX512;
		c->xcr0 = c->osxsave ? image_xcr0(supported, l1.ecx, l7.ebx) : XCR0_X87 | XCR0_SSE;
		c->xcr0_source = "XCR0 as the image would set it on that CPU";
	}
}

bool instr_cpu_bit_fits(const struct instr_cpuid_bit *b)
{
	return b->reg <= 3 && b->bit < 32 && b->width && b->width <= 32 - b->bit;
}

bool instr_cpu_bit(struct instr_cpu *c, const struct instr_cpuid_bit *b)
{
	struct cpuid_regs r;
	uint32_t range = b->leaf & CPUID_RANGE_MASK;
	uint32_t max = range == CPUID_LEAF_EXT_MAX ? c->max_ext
		     : range == CPUID_LEAF_CENTAUR_MAX ? c->max_centaur
		     : range == 0 ? c->max_basic : 0;

	if (b->leaf > max)
		return false;
	if (b->leaf == CPUID_LEAF_EXT_FEATURES && b->subleaf > c->max_sub7)
		return false;
	/* OSXSAVE is CR4's bit, not the CPU's: what the state this selection assumes says. */
	if (b->leaf == CPUID_LEAF_SIGNATURE && b->reg == 2 && (1u << b->bit) == CPUID1_ECX_OSXSAVE)
		return c->osxsave;
	ask(c, b->leaf, b->subleaf, &r);
	uint32_t word = b->reg == 0 ? r.eax : b->reg == 1 ? r.ebx : b->reg == 2 ? r.ecx : r.edx;
	if (!instr_cpu_bit_fits(b))
		return false;
	uint32_t field = (word >> b->bit) & (b->width == 32 ? ~0u : (1u << b->width) - 1);
	return field >= b->least;
}

static bool is_vector(uint8_t kind) { return kind == IK_XMM || kind == IK_YMM || kind == IK_ZMM; }

uint64_t instr_form_xcr0(const struct instr_form *f)
{
	uint64_t need = 0;
	/* Intel names every VEX and EVEX vector instruction with a leading V (SDM Vol. 2 ch. 5). */
	bool v = f->mnemonic[0] == 'v';

	for (size_t i = 0; i < f->n_ops; i++) {
		uint8_t k = f->ops[i].kind;
		if (k == IK_ZMM || k == IK_K)
			need |= XCR0_SSE | XCR0_AVX | XCR0_AVX512;
		else if (k == IK_YMM || (v && is_vector(k)))
			need |= XCR0_SSE | XCR0_AVX;
	}
	if (f->attrs & (IFA_MASK | IFA_ZEROING | IFA_BCAST | IFA_ROUNDING | IFA_SAE) ||
	    !strncmp(f->isa_set, "AVX512", 6))
		need |= XCR0_SSE | XCR0_AVX | XCR0_AVX512;
	return need;
}

enum instr_avail instr_form_avail(struct instr_cpu *c, const struct instr_form *f)
{
	for (size_t i = 0; i < f->n_cpuid; i++)
		if (!instr_cpu_bit(c, &f->cpuid[i]))
			return INSTR_ABSENT;
	uint64_t need = instr_form_xcr0(f);
	if (need && (!c->osxsave || (c->xcr0 & need) != need))
		return INSTR_NO_STATE;
	return INSTR_PRESENT;
}

bool instr_form_matches(const struct instr_form *f, const struct instr_filter *flt)
{
	if (flt->n_ext) {
		size_t i = 0;
		while (i < flt->n_ext && lc_strcasecmp(flt->ext[i], f->extension))
			i++;
		if (i == flt->n_ext)
			return false;
	}
	return !flt->match || regex_search(flt->match, f->asm_name);
}

bool instr_extension_known(const struct instr_form *forms, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!lc_strcasecmp(forms[i].extension, name))
			return true;
	return false;
}
