/*
 * boot/mp_pass.c - a measuring pass on a chosen processor with the others
 * parked (struct run_mp's measure_on; docs/runtime.md "Other processors"),
 * and the run's view of the processors (boot_mp, boot/boot.h), which joins
 * it to boot/mp.c's protocol calls below.
 *
 * The boot CPU is the only one that calls the firmware.  For a pass on an
 * application processor it parks every other AP (StartupThisAP in
 * non-blocking mode with platform_park), swaps the output for the spool,
 * starts the pass (platform_ap_run) non-blocking too, and waits for it with
 * platform_wait_flag instead of in the firmware's polling loop; then it lets
 * the firmware take the AP back, replays the spool and releases the parked.
 * Where the firmware refuses non-blocking mode (the PI specification
 * allows that after ReadyToBoot) the pass runs in blocking mode and the
 * record says where the boot CPU waited.
 */
#include "boot/mp.h"
#include "output/spool.h"
#include "platform/metal/ap.h"
#include "platform/hw.h"
#include "platform/timing.h"
#include "lib/out.h"
#include "lib/strbuf.h"
#include "run/run.h"

/* How long parked processors get to report in, and the firmware to hand a finished AP back. */
#define PARK_SETTLE_US 200000u
#define COLLECT_US 2000000u
#define POLL_US 1000u
/* The firmware stops a parked AP this long after the pass's own bound: the run never leaves one behind. */
#define PARK_MARGIN_US 60000000ull
#define US_PER_S 1000000u

static struct platform_ap ap;
static struct platform_ap_call call;
static struct platform_park park;
static struct platform_park_slot slot[TOPO_MAX_CPUS];
/* The firmware signals each parked processor's event when it has taken it back. */
static EFI_EVENT parked[TOPO_MAX_CPUS];
static size_t nparked;

static void EFIAPI park_entry(void *s) { platform_park(s); }

/* park= as platform/metal/ap.h's modes. */
static enum park_mode want_of(enum park_sel sel)
{
	static const enum park_mode modes[] = { [PARK_SEL_AUTO] = PARK_NONE, [PARK_SEL_MWAIT] = PARK_MWAIT,
						[PARK_SEL_HLT] = PARK_HLT, [PARK_SEL_PAUSE] = PARK_PAUSE };
	return (size_t)sel < ARRAY_SIZE(modes) ? modes[sel] : PARK_NONE;
}
static void EFIAPI measure_entry(void *c) { platform_ap_run(&ap, c); }

static uint64_t tsc_after(uint64_t us)
{
	uint64_t t = timing_us_to_tsc(us);
	return t ? hw_tsc() + t : UINT64_MAX;	/* unknown: the firmware's own timeout is the bound */
}

/* The firmware signals ev from its periodic AP status check, which runs on this CPU's timer. */
static bool collect(EFI_EVENT ev)
{
	for (uint64_t waited = 0; waited <= COLLECT_US; waited += POLL_US) {
		if (fw_st->BootServices->CheckEvent(ev) == EFI_SUCCESS)
			return true;
		fw_st->BootServices->Stall(POLL_US);
	}
	return false;
}

static size_t park_others(struct mp_services *mp, size_t count, size_t except, const struct run_pass *p,
			  uint64_t timeout_us, char *note, size_t cap, size_t k)
{
	size_t refused = 0;
	unsigned modes[PARK_PAUSE + 1] = { 0 };

	memset(&park, 0, sizeof(park));
	park.exec = p->exec;
	park.want = want_of(p->park);
	park.deadline_tsc = tsc_after(timeout_us + PARK_MARGIN_US);
	nparked = 0;
	for (size_t i = 0; i < count && nparked < TOPO_MAX_CPUS; i++) {
		struct fw_cpu c;
		if (i == except || !fw_cpu_info(i, &c) || c.bsp || !c.enabled)
			continue;
		struct platform_park_slot *s = &slot[nparked];
		memset(s, 0, sizeof(*s));
		s->k = &park;
		s->apic_id = (uint32_t)c.apic_id;
		if (fw_st->BootServices->CreateEvent(0, 0, NULL, NULL, &parked[nparked]) != EFI_SUCCESS) {
			refused++;
			continue;
		}
		EFI_STATUS st = mp->startup_this_ap(mp, park_entry, i, parked[nparked], timeout_us + PARK_MARGIN_US,
						    s, NULL);
		if (st != EFI_SUCCESS) {
			fw_st->BootServices->CloseEvent(parked[nparked]);
			refused++;
			continue;
		}
		nparked++;
	}
	size_t in = 0;
	for (uint64_t w = 0; w < PARK_SETTLE_US; w += POLL_US) {
		in = 0;
		for (size_t i = 0; i < nparked; i++)
			in += slot[i].mode != PARK_NONE;
		if (in == nparked)
			break;
		fw_st->BootServices->Stall(POLL_US);
	}
	for (size_t i = 0; i < nparked; i++)
		modes[slot[i].mode <= PARK_PAUSE ? slot[i].mode : PARK_NONE]++;
	k = str_appendf(note, cap, k, "%u parked with MWAIT, %u with HLT, %u with PAUSE (interrupts off)",
			modes[PARK_MWAIT], modes[PARK_HLT], modes[PARK_PAUSE]);
	if (nparked > in)
		k = str_appendf(note, cap, k, "; %zu did not report parked", nparked - in);
	if (refused)
		k = str_appendf(note, cap, k, "; %zu could not be parked and stayed in the firmware's loop", refused);
	return k;
}

void mp_release_parked(void)
{
	if (!nparked)
		return;
	size_t left = platform_unpark(&park, slot, nparked, COLLECT_US);
	for (size_t i = 0; i < nparked; i++) {
		/* An event the firmware has not signalled stays open: it still holds it. */
		if (collect(parked[i]))
			fw_st->BootServices->CloseEvent(parked[i]);
	}
	if (left < nparked)
		out_text("cpus: %zu of %zu parked processors did not come out of parking; the firmware stops them "
			 "at its timeout", nparked - left, nparked);
	nparked = 0;
}

/* The pass on an application processor; the others, the boot CPU excepted, are parked. */
static int pass_elsewhere(struct mp_services *mp, size_t count, size_t n, struct run_pass *p, uint64_t timeout_us)
{
	static char why[160];
	EFI_EVENT ev = NULL;
	const char *bsp_how = "";

	if (!platform_ap_prepare(&ap, why, sizeof(why))) {
		p->why = why;
		return FW_RUN_FAILED;
	}
	size_t k = str_appendf(p->neighbours, sizeof(p->neighbours), 0, "others: ");
	k = park_others(mp, count, n, p, timeout_us, p->neighbours, sizeof(p->neighbours), k);
	if (!spool_begin(why, sizeof(why))) {
		mp_release_parked();
		p->why = why;
		return FW_RUN_FAILED;
	}
	memset(&call, 0, sizeof(call));
	call.body = p->body;
	call.cleanup = p->cleanup;
	call.arg = p->arg;
	call.who = p->who;
	bool nonblocking = fw_st->BootServices->CreateEvent(0, 0, NULL, NULL, &ev) == EFI_SUCCESS;
	fw_elsewhere = true;
	EFI_STATUS st = nonblocking ? mp->startup_this_ap(mp, measure_entry, n, ev, timeout_us, &call, NULL)
				    : EFI_UNSUPPORTED;
	if (st == EFI_SUCCESS && nonblocking) {
		if (!platform_wait_flag(&call.done, tsc_after(timeout_us), p->exec, want_of(p->park), &bsp_how))
			bsp_how = "with MWAIT or PAUSE until the bound";
	} else if (st == EFI_UNSUPPORTED) {
		if (nonblocking)
			fw_st->BootServices->CloseEvent(ev);
		nonblocking = false;
		bsp_how = "inside the firmware's StartupThisAP (non-blocking mode refused)";
		st = mp->startup_this_ap(mp, measure_entry, n, NULL, timeout_us, &call, NULL);
	}
	fw_elsewhere = false;

	int rc = FW_RUN_OK;
	if (st != EFI_SUCCESS && st != EFI_TIMEOUT) {
		rc = FW_RUN_FAILED;
		p->why = mp_status_text(st);
	} else if (!__atomic_load_n(&call.done, __ATOMIC_ACQUIRE)) {
		rc = FW_RUN_TIMEOUT;
		snprintf(why, sizeof(why), "did not come back within %llu s; the firmware stopped it, and what the pass "
			 "changed on it may not be restored", (unsigned long long)(timeout_us / US_PER_S));
		p->why = why;
		if (nonblocking && collect(ev))
			fw_st->BootServices->CloseEvent(ev);
		platform_ap_reclaim();
	} else {
		if (!call.ran) {
			rc = FW_RUN_FAILED;
			p->why = call.why;
		}
		p->faulted = call.faulted;
		/* Before the next StartupThisAP the firmware must have marked the AP idle again. */
		if (nonblocking && collect(ev))
			fw_st->BootServices->CloseEvent(ev);
	}
	spool_end();
	mp_release_parked();
	str_appendf(p->neighbours, sizeof(p->neighbours), k, "; boot processor waited %s%s", bsp_how,
		    nonblocking ? " (interrupts on)" : "");
	return rc;
}

static int mp_measure_on(size_t n, struct run_pass *p, uint64_t timeout_us)
{
	const char *why = NULL;
	struct mp_services *mp = mp_services(&why);
	size_t count = mp ? fw_cpu_count(&why) : 0;
	struct fw_cpu me;

	p->neighbours[0] = '\0';
	p->faulted = false;
	p->why = NULL;
	if (!mp || count == 0 || !fw_cpu_info(n, &me)) {
		p->why = why ? why : "the firmware does not know this processor";
		return FW_RUN_FAILED;
	}
	if (!me.bsp)
		return pass_elsewhere(mp, count, n, p, timeout_us);
	/* On this CPU: a fault in body ends the run (platform_run), and boot/efi_main.c releases the parked. */
	size_t k = str_appendf(p->neighbours, sizeof(p->neighbours), 0, "others: ");
	park_others(mp, count, n, p, timeout_us, p->neighbours, sizeof(p->neighbours), k);
	p->body(p->arg);
	mp_release_parked();
	return FW_RUN_OK;
}

/* The run sequence's view of the processors (run/run.h). */
static bool boot_cpu_info(size_t n, struct topo_cpu *c)
{
	struct fw_cpu f;
	if (!fw_cpu_info(n, &f))
		return false;
	c->apic_id = (uint32_t)f.apic_id;
	c->bsp = f.bsp;
	c->enabled = f.enabled;
	c->healthy = f.healthy;
	c->package = f.package;
	c->die = f.die;
	c->core = f.core;
	c->thread = f.thread;
	return true;
}

const struct run_mp boot_mp = {
	.source = "uefi mp services",
	.count = fw_cpu_count,
	.info = boot_cpu_info,
	.run_on = fw_run_on_cpu,
	.measure_on = mp_measure_on,
	.neighbours = "parked by pmuboot for each pass, interrupts off (MWAIT on a flag where MONITOR exists, "
		      "else HLT woken by an NMI, else PAUSE); the boot processor waits with MWAIT or HLT; each pass "
		      "record says what they did",
};
