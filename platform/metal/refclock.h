/*
 * platform/metal/refclock.h - clocks independent of the TSC, for measuring it.
 *
 * The ACPI PM timer (FADT) and the HPET (ACPI HPET table), found through
 * platform/firmware.h's fw_acpi_table.  Image-only.  Each says why it cannot
 * be used when it cannot (absent, hardware-reduced ACPI, HPET halted).
 * A halted HPET is not started: that would change the platform's state.
 */
#ifndef PMUBOOT_PLATFORM_METAL_REFCLOCK_H
#define PMUBOOT_PLATFORM_METAL_REFCLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "platform/tsc_math.h"

bool refclock_pm_timer(struct ref_clock *c, char *why, size_t why_cap);
bool refclock_hpet(struct ref_clock *c, char *why, size_t why_cap);

#endif
