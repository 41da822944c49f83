/*
 * boot/mp.h - EFI_MP_SERVICES_PROTOCOL as boot/mp.c and boot/mp_pass.c use it.
 *
 * Layout and semantics: UEFI PI specification 1.8, Vol. 2, §13.4
 * "MP Services Protocol" (GetNumberOfProcessors, GetProcessorInfo,
 * StartupThisAP, EFI_PROCESSOR_INFORMATION, StatusFlag bits), and §13.4.2
 * for the extended location requested with CPU_V2_EXTENDED_TOPOLOGY.
 */
#ifndef PMUBOOT_BOOT_MP_H
#define PMUBOOT_BOOT_MP_H

#include "boot/boot.h"

#define MP_SERVICES_PROTOCOL_GUID \
	{ 0x3fdda605, 0xa76e, 0x4f46, { 0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08 } }

#define PROCESSOR_AS_BSP_BIT 0x00000001u		/* StatusFlag bit 0 */
#define PROCESSOR_ENABLED_BIT 0x00000002u	/* StatusFlag bit 1 */
#define PROCESSOR_HEALTH_STATUS_BIT 0x00000004u	/* StatusFlag bit 2 */
#define CPU_V2_EXTENDED_TOPOLOGY (1ull << 24)	/* ProcessorNumber flag: fill ExtendedInformation */

struct cpu_location {
	uint32_t package, core, thread;
};
struct cpu_location2 {
	uint32_t package, module, tile, die, core, thread;
};
struct processor_information {
	uint64_t processor_id;		/* the local APIC ID */
	uint32_t status_flag;
	struct cpu_location location;
	struct cpu_location2 location2;	/* ExtendedInformation, PI 1.7+ */
};

typedef void (EFIAPI *ap_procedure)(void *arg);
struct mp_services {
	EFI_STATUS (EFIAPI *get_number_of_processors)(struct mp_services *self, UINTN *total, UINTN *enabled);
	EFI_STATUS (EFIAPI *get_processor_info)(struct mp_services *self, UINTN n, struct processor_information *info);
	void *startup_all_aps;
	EFI_STATUS (EFIAPI *startup_this_ap)(struct mp_services *self, ap_procedure proc, UINTN n, EFI_EVENT wait,
					     UINTN timeout_us, void *arg, BOOLEAN *finished);
	void *switch_bsp, *enable_disable_ap, *who_am_i;
};

/* Why StartupThisAP failed, for a record (the text lasts until the next call). */
const char *mp_status_text(EFI_STATUS st);
/* The protocol, or NULL with *why. */
struct mp_services *mp_services(const char **why);

/*
 * boot/mp_pass.c, which also defines the run's view of the processors (boot_mp, boot/boot.h):
 * let every processor still parked go (after a fault ended the run on the boot CPU).
 */
void mp_release_parked(void);

#endif
