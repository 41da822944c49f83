/*
 * platform/nmi.h - NMI dispatch.
 *
 * The NMI handler calls every registered callback (NMIs from several
 * sources coalesce, so each callback checks its own source and says
 * whether it found work).  An NMI that no callback claims is counted as
 * unclaimed and otherwise ignored: a spurious NMI is survived, never fatal.
 * The measurement window counts unclaimed NMIs as pollution; NMIs claimed
 * by a registered source (IBS, PMU overflow) are part of the measurement.
 * Portable: the unit tests drive nmi_dispatch directly.
 */
#ifndef PMUBOOT_PLATFORM_NMI_H
#define PMUBOOT_PLATFORM_NMI_H

#include <stdbool.h>
#include <stdint.h>

#define NMI_MAX_HANDLERS 8

/* Called in NMI context: no output, no firmware, no locks. */
typedef bool (*nmi_handler_fn)(void *ctx);

/* False when the table is full or the pair is already registered. */
bool nmi_register(nmi_handler_fn fn, void *ctx);
void nmi_unregister(nmi_handler_fn fn, void *ctx);
void nmi_unregister_all(void);

/* Called by the exception entry for vector 2. */
void nmi_dispatch(void);

struct nmi_counts {
	uint32_t total;		/* NMIs taken */
	uint32_t claimed;	/* at least one callback found its source */
	uint32_t unclaimed;	/* nobody's: spurious, or a foreign source */
};
void nmi_get_counts(struct nmi_counts *c);
uint32_t nmi_unclaimed(void);

#endif
