/*
 * boot/platform.h - the `platform` record: which machine and firmware a run
 * was taken on (firmware vendor and revision, UEFI revision, SMBIOS system
 * and BIOS identity, memory size, CPU count, Secure Boot state), so a lab
 * can compare runs across machines.  Whatever the firmware cannot tell is
 * null in the record, never a failure.
 */
#ifndef PMUBOOT_BOOT_PLATFORM_H
#define PMUBOOT_BOOT_PLATFORM_H

/* Emit the platform record and a one-line summary. */
void platform_report(void);

#endif
