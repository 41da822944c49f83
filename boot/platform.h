/*
 * boot/platform.h - the `platform` record: which machine and firmware a run
 * was taken on (firmware vendor and revision, UEFI revision, SMBIOS system
 * and BIOS identity with the system's serial number and UUID, the network
 * interface it was loaded from, memory size, CPU count, Secure Boot state),
 * so a lab, and a collector receiving runs from many machines, can tell
 * them apart.  Whatever the firmware cannot tell is null in the record,
 * never a failure.
 */
#ifndef PMUBOOT_BOOT_PLATFORM_H
#define PMUBOOT_BOOT_PLATFORM_H

#include "fwtables/smbios.h"

/* Emit the platform record and a one-line summary. */
void platform_report(void);
/* The SMBIOS system UUID as text (fwtables/smbios.h); false when the machine has none.  Reads the tables once. */
bool platform_uuid(char out[SMBIOS_UUID_TEXT]);

#endif
