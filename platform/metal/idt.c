/* platform/metal/idt.c - see idt.h. */
#include "platform/metal/idt.h"
#include "platform/metal/kx.h"
#include "platform/trap.h"
#include "platform/firmware.h"
#include "lib/libc.h"

/* 64-bit IDT gate descriptor (Intel SDM Vol. 3A §6.14.1, Figure 6-8). */
struct idt_gate {
	uint16_t off_lo;
	uint16_t selector;
	uint8_t ist;		/* bits 2:0 */
	uint8_t type_attr;	/* P, DPL, type */
	uint16_t off_mid;
	uint32_t off_hi;
	uint32_t reserved;
} __attribute__((packed));

#define idtr idt_reg

#define IDT_ENTRIES 256
#define GATE_INTERRUPT_PRESENT 0x8E	/* P=1, DPL=0, type 1110b: 64-bit interrupt gate (IF cleared on entry) */
#define GATE_IST_MASK 7

_Static_assert(sizeof(struct idt_gate) == 16, "IDT gates are 16 bytes");

/* From the firmware's allocator. */
static struct idt_gate *idt;
/* The copy application processors load (idt_load_here), and the one parked processors load (idt_load_park). */
static struct idt_gate *idt_ap, *idt_park;
#define IDT_BYTES (IDT_ENTRIES * sizeof(struct idt_gate))
static struct idtr fw_idtr;
static struct idt_info info;

static void sidt(struct idtr *r) { __asm__ volatile("sidt %0" : "=m"(*r)); }
static void lidt(const struct idtr *r) { __asm__ volatile("lidt %0" : : "m"(*r) : "memory"); }

static void set_gate(struct idt_gate *g, uint64_t handler, uint16_t cs, uint8_t ist)
{
	g->off_lo = (uint16_t)handler;
	g->selector = cs;
	g->ist = ist & GATE_IST_MASK;
	g->type_attr = GATE_INTERRUPT_PRESENT;
	g->off_mid = (uint16_t)(handler >> 16);
	g->off_hi = (uint32_t)(handler >> 32);
	g->reserved = 0;
}

void idt_install(void)
{
	struct idtr ours;
	uint64_t stubs = (uint64_t)(uintptr_t)kx_stubs;

	if (info.installed)
		return;
	if (!idt)
		idt = fw_alloc_pages(IDT_BYTES, IDT_BYTES);
	if (!idt)
		return;	/* the firmware's handlers stay; hw_rdmsr and friends then report no access */
	if (!idt_ap)
		idt_ap = fw_alloc_pages(IDT_BYTES, IDT_BYTES);	/* NULL: no measuring on other processors */
	if (!idt_park)
		idt_park = fw_alloc_pages(IDT_BYTES, IDT_BYTES);	/* NULL: no parking in HLT */
	sidt(&fw_idtr);
	info.fw_base = fw_idtr.base;
	info.fw_limit = fw_idtr.limit;
	info.cs = kx_read_cs();

	size_t fw_bytes = (size_t)fw_idtr.limit + 1;
	if (fw_bytes > IDT_BYTES)
		fw_bytes = IDT_BYTES;
	memset(idt, 0, IDT_BYTES);
	memcpy(idt, (const void *)(uintptr_t)fw_idtr.base, fw_bytes);

	const struct idt_gate *fw = (const struct idt_gate *)(uintptr_t)fw_idtr.base;
	/* #DF keeps the firmware's IST stack, if any: a #DF from a stack overflow needs a good stack. */
	info.df_ist = fw_bytes >= (VEC_DF + 1) * sizeof(struct idt_gate) ? fw[VEC_DF].ist & GATE_IST_MASK : 0;
	for (unsigned v = 0; v < VEC_EXCEPTIONS; v++) {
		if (v == VEC_VC)
			continue;
		/* NMI runs on the current stack (IST 0), so a nested NMI cannot overwrite a live frame. */
		set_gate(&idt[v], stubs + (uint64_t)v * KX_STUB_SIZE, info.cs, v == VEC_DF ? info.df_ist : 0);
	}
	size_t limit = fw_bytes > VEC_EXCEPTIONS * sizeof(struct idt_gate) ? fw_bytes
									  : VEC_EXCEPTIONS * sizeof(struct idt_gate);
	ours.limit = (uint16_t)(limit - 1);
	ours.base = (uint64_t)(uintptr_t)idt;
	if (idt_park) {
		memset(idt_park, 0, IDT_BYTES);
		memcpy(idt_park, (const void *)(uintptr_t)fw_idtr.base, fw_bytes);
		set_gate(&idt_park[VEC_NMI], (uint64_t)(uintptr_t)kx_nmi_return, info.cs, 0);
	}
	info.base = ours.base;
	info.limit = ours.limit;
	lidt(&ours);
	info.installed = true;
	hw_metal_fixups_live(true);
}

void idt_restore(void)
{
	if (!info.installed)
		return;
	/* First: from here on a faulting MSR read would reach the firmware's handler. */
	hw_metal_fixups_live(false);
	lidt(&fw_idtr);
	info.installed = false;
}

const struct idt_info *idt_get(void) { return &info; }

bool idt_load_here(struct idt_reg *saved)
{
	struct idtr ap;

	if (!info.installed || !idt_ap)
		return false;
	uint16_t cs = kx_read_cs();
	memcpy(idt_ap, idt, (size_t)info.limit + 1);
	for (unsigned v = 0; v < VEC_EXCEPTIONS; v++) {
		if (v == VEC_VC)
			continue;
		set_gate(&idt_ap[v], (uint64_t)(uintptr_t)kx_stubs + (uint64_t)v * KX_STUB_SIZE, cs, 0);
	}
	sidt(saved);
	ap.limit = info.limit;
	ap.base = (uint64_t)(uintptr_t)idt_ap;
	lidt(&ap);
	return true;
}

void idt_unload_here(const struct idt_reg *saved) { lidt(saved); }

bool idt_load_park(struct idt_reg *saved)
{
	struct idtr park;

	if (!info.installed || !idt_park || kx_read_cs() != info.cs)
		return false;
	sidt(saved);
	park.limit = info.limit;
	park.base = (uint64_t)(uintptr_t)idt_park;
	lidt(&park);
	return true;
}
