/*
 * platform/metal/vec_metal.c - platform/hw.h's hw_vector_state in the image: XCR0 read
 * live (XGETBV, where CPUID.01H:ECX.OSXSAVE says CR4.OSXSAVE is set), and
 * what platform/vec.c found and did on this processor.
 */
#include "platform/hw.h"
#include "platform/hw_regs.h"
#include "platform/vec.h"

void hw_vector_state(struct hw_vector_state *out)
{
	const struct vec_state *s = vec_current();
	struct cpuid_regs l1;
	uint64_t v = 0;

	hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &l1);
	out->known = (l1.ecx & CPUID1_ECX_OSXSAVE) && hw_xgetbv0(&v) == HW_OK;
	out->xcr0 = out->known ? v : 0;
	out->xcr0_found = s && s->xcr0_read ? s->xcr0_found : out->xcr0;
	if (!s)
		out->who = "the firmware (the runtime is not up)";
	else if (s->why)
		out->who = s->why;
	else if (s->wrote_xcr0 || s->set_osxsave)
		out->who = "pmuboot: enabled for the run, put back at exit";
	else
		out->who = "the firmware (already as pmuboot wants it)";
}
