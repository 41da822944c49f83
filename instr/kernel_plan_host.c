/*
 * instr/kernel_plan_host.c - the pieces of a plan the kernel builders share (instr/kernel_host.c, the
 * general forms; instr/kernel_x87_host.c, the x87 ones); see kernel.h.
 */
#include "instr/kernel.h"
#include "lib/strbuf.h"

#define LAT_UNROLL 64 /* body copies of a latency kernel */

const char *const ikm_gpr_names[4][16] = {
	{ "al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil", "r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b",
	  "r15b" },
	{ "ax", "cx", "dx", "bx", "sp", "bp", "si", "di", "r8w", "r9w", "r10w", "r11w", "r12w", "r13w", "r14w",
	  "r15w" },
	{ "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d",
	  "r15d" },
	{ "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
	  "r15" },
};

int ikm_width_index(unsigned bits) { return bits <= 8 ? 0 : bits <= 16 ? 1 : bits <= 32 ? 2 : 3; }

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

#define TP_INSTANCES 512 /* instances in an unrolled throughput run */

bool ikm_plan_tp_less(struct instr_plan *p, const char *init, uint64_t fill, const char *body, const char *bare,
		      uint16_t per_iter, const char *conn_name, const char *conn_via)
{
	if (p->n + 4 > IKM_MAX || !per_iter)
		return false;
	int conn[2];
	for (int loop = 0; loop < 2; loop++) {
		struct ikm *c = ikm_plan_add(p, IKM_CONNECTOR, conn_name);
		snprintf(c->name, sizeof(c->name), "%s%s", conn_name, loop ? "_loop" : "");
		snprintf(c->init, sizeof(c->init), "%s", init);
		snprintf(c->body, sizeof(c->body), "%s", bare);
		c->fill = fill;
		c->per_iter = per_iter;
		c->unroll = (uint16_t)(loop ? 1 : (TP_INSTANCES + per_iter - 1) / per_iter);
		c->via = conn_via;
		c->note = "the kernel without the form: measured alone, subtracted";
		conn[loop] = (int)(c - p->m);
	}
	struct ikm *u = ikm_plan_add(p, IKM_TP_UNROLLED, "tp_unrolled");
	snprintf(u->init, sizeof(u->init), "%s", init);
	snprintf(u->body, sizeof(u->body), "%s", body);
	u->fill = fill;
	u->per_iter = per_iter;
	u->unroll = p->m[conn[0]].unroll;
	u->sub[0] = (int8_t)conn[0];
	struct ikm *l = ikm_plan_loop(p, u);
	l->sub[0] = (int8_t)conn[1];
	return true;
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
