/* platform/nmi.c - see nmi.h. */
#include "platform/nmi.h"

struct slot {
	nmi_handler_fn volatile fn;
	void *volatile ctx;
};

static struct slot slots[NMI_MAX_HANDLERS];
static volatile uint32_t n_total, n_claimed, n_unclaimed;

/* Keeps the compiler from reordering the slot stores an NMI may observe at any point. */
#define BARRIER() __asm__ volatile("" : : : "memory")

bool nmi_register(nmi_handler_fn fn, void *ctx)
{
	struct slot *free_slot = 0;
	for (unsigned i = 0; i < NMI_MAX_HANDLERS; i++) {
		if (slots[i].fn == fn && slots[i].ctx == ctx)
			return false;
		if (!slots[i].fn && !free_slot)
			free_slot = &slots[i];
	}
	if (!free_slot)
		return false;
	/* ctx first: an NMI that sees fn must see its ctx. */
	free_slot->ctx = ctx;
	BARRIER();
	free_slot->fn = fn;
	return true;
}

void nmi_unregister(nmi_handler_fn fn, void *ctx)
{
	for (unsigned i = 0; i < NMI_MAX_HANDLERS; i++) {
		if (slots[i].fn == fn && slots[i].ctx == ctx) {
			slots[i].fn = 0;
			BARRIER();
			slots[i].ctx = 0;
		}
	}
}

void nmi_unregister_all(void)
{
	for (unsigned i = 0; i < NMI_MAX_HANDLERS; i++) {
		slots[i].fn = 0;
		BARRIER();
		slots[i].ctx = 0;
	}
}

void nmi_dispatch(void)
{
	bool claimed = false;

	n_total++;
	/* Every callback runs: two sources may have raised one NMI between them. */
	for (unsigned i = 0; i < NMI_MAX_HANDLERS; i++) {
		nmi_handler_fn fn = slots[i].fn;
		BARRIER();
		if (fn && fn(slots[i].ctx))
			claimed = true;
	}
	if (claimed)
		n_claimed++;
	else
		n_unclaimed++;
}

void nmi_get_counts(struct nmi_counts *c)
{
	c->total = n_total;
	c->claimed = n_claimed;
	c->unclaimed = n_unclaimed;
}

uint32_t nmi_unclaimed(void) { return n_unclaimed; }
