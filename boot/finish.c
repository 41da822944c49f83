/* boot/finish.c - the end of a run: countdown, QEMU exit status, then on_finish. */
#include "boot/boot.h"
#include "boot/screen.h"
#include "platform/metal/io.h"
#include "lib/out.h"
#include "lib/record.h"
#include "cpu/cpu.h"

/*
 * QEMU's isa-debug-exit device (hw/misc/debugexit.c): a write of v to its
 * port makes QEMU exit with status (v << 1) | 1.  The runner passes
 * -device isa-debug-exit,iobase=0xf4,iosize=0x04.
 */
#define QEMU_DEBUG_EXIT_PORT 0xf4
#define QEMU_EXIT_CLEAN 0	/* QEMU exits 1 */
#define QEMU_EXIT_ERRORS 1	/* QEMU exits 3 */

#define COUNTDOWN_BARE_METAL_S 5
#define US_PER_S 1000000u
#define KEY_POLL_US 50000u

static const char *const action_names[] = { "auto", "shutdown", "reboot", "halt", "return" };

/*
 * Input devices behind ConIn.  The console splitter always exists, so
 * ConIn alone says nothing; the devices it merges (a keyboard, a serial
 * terminal) are the handles with a device path.  No device, no one to
 * press a key: the countdown would only delay a rig.
 */
static unsigned input_devices(void)
{
	static EFI_GUID text_in_guid = SIMPLE_TEXT_INPUT_PROTOCOL;
	static EFI_GUID dp_guid = DEVICE_PATH_PROTOCOL;
	EFI_HANDLE *handles = NULL;
	UINTN count = 0;
	unsigned n = 0;

	if (!fw_has_console_input())
		return 0;
	if (fw_st->BootServices->LocateHandleBuffer(ByProtocol, &text_in_guid, NULL, &count, &handles) != EFI_SUCCESS)
		return 1;	/* cannot tell: assume someone may be there */
	for (UINTN i = 0; i < count; i++) {
		void *dp = NULL;
		if (fw_st->BootServices->HandleProtocol(handles[i], &dp_guid, &dp) == EFI_SUCCESS && dp)
			n++;
	}
	fw_st->BootServices->FreePool(handles);
	return n;
}

/* Waits up to `seconds`; true if a key interrupted it. */
static bool countdown(unsigned seconds, const char *action)
{
	for (unsigned s = seconds; s > 0; s--) {
		out_text("%s in %u s; press any key to stay", action, s);
		for (unsigned t = 0; t < US_PER_S / KEY_POLL_US; t++) {
			if (fw_key_pressed())
				return true;
			fw_stall_us(KEY_POLL_US);
		}
	}
	return false;
}

void boot_finish(const struct config *cfg, const struct cpu_info *ci)
{
	bool hypervisor = ci->exec != EXEC_BARE_METAL;
	enum on_finish action = cfg->on_finish;
	if (action == FINISH_AUTO)
		action = hypervisor ? FINISH_SHUTDOWN : FINISH_HALT;
	int wait = cfg->countdown >= 0 ? cfg->countdown : (hypervisor ? 0 : COUNTDOWN_BARE_METAL_S);

	out_text("pmuboot: run finished (%s); on_finish=%s", rec_stream_errors() ? "with errors" : "clean",
		 action_names[action]);
	bool counting = wait > 0 && action != FINISH_HALT && input_devices() > 0;
	char next[128];
	if (action == FINISH_HALT)
		snprintf(next, sizeof(next), "halt: this screen stays; it is safe to power off (on_finish=halt)");
	else if (counting)
		snprintf(next, sizeof(next), "%s in %d s; press any key to stay on this screen (on_finish=%s)",
			 action_names[action], wait, action_names[action]);
	else
		snprintf(next, sizeof(next), "%s now (on_finish=%s)", action_names[action], action_names[action]);
	screen_summary(next);
	if (counting) {
		while (fw_key_pressed())
			;	/* drop keys typed during the run */
		if (countdown((unsigned)wait, action_names[action])) {
			out_text("stopped; press any key to %s", action_names[action]);
			while (!fw_key_pressed())
				fw_stall_us(KEY_POLL_US);
		}
	}

	switch (action) {
	case FINISH_RETURN:
		return;
	case FINISH_REBOOT:
		fw_st->RuntimeServices->ResetSystem(EfiResetCold, EFI_SUCCESS, 0, NULL);
		break;
	case FINISH_SHUTDOWN:
	case FINISH_AUTO:
		if (cfg->qemu_exit == TRI_ON || (cfg->qemu_exit == TRI_AUTO && ci->hv_qemu))
			outl(QEMU_DEBUG_EXIT_PORT, rec_stream_errors() ? QEMU_EXIT_ERRORS : QEMU_EXIT_CLEAN);
		fw_st->RuntimeServices->ResetSystem(EfiResetShutdown, EFI_SUCCESS, 0, NULL);
		break;
	case FINISH_HALT:
		break;
	}
	out_text("pmuboot: halted; it is safe to power off");
	for (;;)
		__asm__ volatile("cli; hlt");
}
