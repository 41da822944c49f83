/*
 * boot/mp.c - the processors through EFI_MP_SERVICES_PROTOCOL
 * (platform/firmware.h: fw_cpu_count, fw_cpu_info, fw_run_on_cpu; boot/mp.h).
 * The run's view of them (boot_mp) is mp_pass.c's, which builds on these.
 */
#include "boot/mp.h"
#include "net/efi_status.h"

static struct mp_services *mp;
static bool looked;
static const char *mp_why;

struct mp_services *mp_services(const char **why)
{
	static EFI_GUID guid = MP_SERVICES_PROTOCOL_GUID;
	if (!looked) {
		looked = true;
		if (fw_st->BootServices->LocateProtocol(&guid, NULL, (void **)&mp) != EFI_SUCCESS || !mp) {
			mp = NULL;
			mp_why = "the firmware offers no EFI_MP_SERVICES_PROTOCOL";
		}
	}
	if (!mp && why)
		*why = mp_why;
	return mp;
}

size_t fw_cpu_count(const char **why)
{
	UINTN total = 0, enabled = 0;
	if (!mp_services(NULL)) {
		*why = mp_why;
		return 0;
	}
	if (mp->get_number_of_processors(mp, &total, &enabled) != EFI_SUCCESS || total == 0) {
		*why = "EFI_MP_SERVICES_PROTOCOL.GetNumberOfProcessors failed";
		return 0;
	}
	return total;
}

bool fw_cpu_info(size_t n, struct fw_cpu *out)
{
	struct processor_information info;

	if (!mp_services(NULL))
		return false;
	memset(&info, 0, sizeof(info));
	bool ext = mp->get_processor_info(mp, n | CPU_V2_EXTENDED_TOPOLOGY, &info) == EFI_SUCCESS;
	if (!ext) {
		/* Firmware older than PI 1.7 rejects the flag: ask again for the plain location. */
		memset(&info, 0, sizeof(info));
		if (mp->get_processor_info(mp, n, &info) != EFI_SUCCESS)
			return false;
	}
	out->apic_id = info.processor_id;
	out->bsp = info.status_flag & PROCESSOR_AS_BSP_BIT;
	out->enabled = info.status_flag & PROCESSOR_ENABLED_BIT;
	out->healthy = info.status_flag & PROCESSOR_HEALTH_STATUS_BIT;
	out->package = info.location.package;
	out->core = info.location.core;
	out->thread = info.location.thread;
	out->die = ext ? info.location2.die : FW_CPU_NONE;
	return true;
}

/* What StartupThisAP's failures mean (PI 1.8 Vol. 2 §13.4.4); the status's name is efi_status_name's. */
static const struct {
	EFI_STATUS st;
	const char *means;
} startup_failures[] = {
	{ EFI_NOT_READY, "the processor is busy" },
	{ EFI_INVALID_PARAMETER, "not an enabled application processor" },
	{ EFI_NOT_FOUND, "no such processor" },
	{ EFI_DEVICE_ERROR, "called from an AP" },
	{ EFI_UNSUPPORTED, "the firmware refused" },
	{ EFI_TIMEOUT, "the processor did not return before the timeout" },
};

/* The text lasts until the next call (one boot processor asks, one failure at a time). */
const char *mp_status_text(EFI_STATUS st)
{
	static char text[96];
	const char *means = "StartupThisAP failed";
	for (size_t i = 0; i < ARRAY_SIZE(startup_failures); i++)
		if (startup_failures[i].st == st)
			means = startup_failures[i].means;
	snprintf(text, sizeof(text), "%s (StartupThisAP: %s)", means, efi_status_name(st));
	return text;
}

/* StartupThisAP calls an EFIAPI procedure with one argument; ours are plain C. */
struct ap_call {
	void (*fn)(void *arg);
	void *arg;
};

static void EFIAPI ap_trampoline(void *p)
{
	struct ap_call *c = p;
	c->fn(c->arg);
}

int fw_run_on_cpu(size_t n, void (*fn)(void *arg), void *arg, uint64_t timeout_us, const char **why)
{
	static struct ap_call call;

	if (!mp_services(NULL)) {
		*why = mp_why;
		return FW_RUN_FAILED;
	}
	call.fn = fn;
	call.arg = arg;
	/* Blocking mode (no WaitEvent): the firmware returns when the AP does, or at the timeout. */
	EFI_STATUS st = mp->startup_this_ap(mp, ap_trampoline, n, NULL, timeout_us, &call, NULL);
	if (st == EFI_SUCCESS)
		return FW_RUN_OK;
	*why = mp_status_text(st);
	return st == EFI_TIMEOUT ? FW_RUN_TIMEOUT : FW_RUN_FAILED;
}
