/*
 * instr/kernel_plan_host.c - the pieces of a plan the kernel builders share (instr/kernel_host.c, the
 * general forms; instr/kernel_x87_host.c, the x87 ones); see kernel.h.
 */
#include "instr/kernel.h"
#include "lib/strbuf.h"

#define LAT_UNROLL 16 /* body copies of a latency kernel */

struct ikm *ikm_plan_add(struct instr_plan *p, enum ikm_kind kind, const char *name)
{
	if (p->n == IKM_MAX)
		return NULL;
	struct ikm *m = &p->m[p->n++];
	memset(m, 0, sizeof(*m));
	m->kind = (uint8_t)kind;
	m->per_iter = 1;
	m->unroll = LAT_UNROLL;
	m->sub[0] = m->sub[1] = IKM_NO_SUB;
	snprintf(m->name, sizeof(m->name), "%s", name);
	return m;
}

struct ikm *ikm_plan_loop(struct instr_plan *p, const struct ikm *unrolled)
{
	struct ikm *l = ikm_plan_add(p, IKM_TP_LOOP, "tp_loop");
	if (!l)
		return NULL;
	*l = *unrolled;
	l->kind = IKM_TP_LOOP;
	snprintf(l->name, sizeof(l->name), "tp_loop");
	l->unroll = 1;
	l->note = "the harness's dec/jnz runs beside the instances";
	return l;
}

const char *ikm_size_word(unsigned bits)
{
	switch (bits) {
	case 8: return "byte ptr ";
	case 16: return "word ptr ";
	case 32: return "dword ptr ";
	case 64: return "qword ptr ";
	case 80: return "tbyte ptr ";
	case 128: return "xmmword ptr ";
	case 256: return "ymmword ptr ";
	case 512: return "zmmword ptr ";
	default: return "";
	}
}
