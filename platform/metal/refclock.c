/* platform/metal/refclock.c - see refclock.h. */
#include "platform/metal/refclock.h"
#include "platform/arena.h"
#include "platform/metal/io.h"
#include "platform/firmware.h"
#include "lib/libc.h"

/* FADT fields (ACPI 6.5 §5.2.9, Table 5.9): byte offsets. */
#define FADT_PM_TMR_BLK 76		/* 4 bytes: I/O port */
#define FADT_PM_TMR_LEN 91		/* 1 byte: 4 when the timer exists */
#define FADT_FLAGS 112			/* 4 bytes */
#define FADT_X_PM_TMR_BLK 208		/* 12-byte Generic Address Structure */
#define FADT_FLAG_TMR_VAL_EXT (1u << 8)	/* 32-bit counter, else 24-bit */
#define FADT_FLAG_HW_REDUCED (1u << 20)	/* no fixed hardware: no PM timer */
#define GAS_SPACE_MEMORY 0		/* ACPI 6.5 §5.2.3.2 */
#define GAS_SPACE_IO 1
#define ACPI_HDR_LENGTH 4		/* the length field of every table header */
#define PM_TIMER_HZ 3579545u		/* ACPI 6.5 §4.8.3.3 */
#define PM_TIMER_TOLERANCE_PPM 100	/* ACPI gives no tolerance; a typical crystal, stated as an assumption */

/* HPET (IA-PC HPET Specification 1.0a §2.3, Table 3; ACPI HPET table: base address GAS at offset 40). */
#define HPET_TABLE_BASE_GAS 40
#define HPET_GCAP_ID 0x000
#define HPET_GEN_CONF 0x010
#define HPET_MAIN_COUNTER 0x0F0
#define HPET_CAP_COUNT_SIZE_64 (1ull << 13)
#define HPET_CONF_ENABLE 1u
#define HPET_FS_PER_S 1000000000000000ull
#define HPET_MAX_PERIOD_FS 100000000u	/* the spec caps the period at 100 ns */
#define HPET_TOLERANCE_PPM 500		/* HPET 1.0a §2.2: +-0.05% over 1 ms or more */

struct gas {
	uint8_t space, bit_width, bit_offset, access_size;
	uint64_t address;
} __attribute__((packed));

static uint32_t get32(const uint8_t *p, size_t off)
{
	uint32_t v;
	memcpy(&v, p + off, sizeof(v));
	return v;
}

static uint64_t pm_read_io(void *ctx) { return inl((uint16_t)(uintptr_t)ctx); }
static uint64_t pm_read_mem(void *ctx) { return mmio_read32((uint64_t)(uintptr_t)ctx); }

bool refclock_pm_timer(struct ref_clock *c, char *why, size_t why_cap)
{
	const uint8_t *fadt = fw_acpi_table("FACP");
	memset(c, 0, sizeof(*c));
	if (!fadt) {
		snprintf(why, why_cap, "no ACPI FADT");
		return false;
	}
	uint32_t len = get32(fadt, ACPI_HDR_LENGTH);
	if (len < FADT_FLAGS + 4) {
		snprintf(why, why_cap, "FADT too short (%u bytes)", len);
		return false;
	}
	uint32_t flags = get32(fadt, FADT_FLAGS);
	if (flags & FADT_FLAG_HW_REDUCED) {
		snprintf(why, why_cap, "hardware-reduced ACPI: no PM timer");
		return false;
	}
	c->name = "acpi_pm_timer";
	c->hz = PM_TIMER_HZ;
	c->mask = (flags & FADT_FLAG_TMR_VAL_EXT) ? 0xFFFFFFFFull : 0xFFFFFFull;
	c->tolerance_ppm = PM_TIMER_TOLERANCE_PPM;
	struct gas x;
	if (len >= FADT_X_PM_TMR_BLK + sizeof(x)) {
		memcpy(&x, fadt + FADT_X_PM_TMR_BLK, sizeof(x));
		if (x.address && x.space == GAS_SPACE_IO && x.address <= 0xFFFF) {
			c->read = pm_read_io;
			c->ctx = (void *)(uintptr_t)x.address;
			return true;
		}
		if (x.address && x.space == GAS_SPACE_MEMORY && arena_page_size_at((const void *)(uintptr_t)x.address)) {
			c->read = pm_read_mem;
			c->ctx = (void *)(uintptr_t)x.address;
			return true;
		}
	}
	uint32_t port = get32(fadt, FADT_PM_TMR_BLK);
	if (!port || port > 0xFFFF || fadt[FADT_PM_TMR_LEN] != 4) {
		snprintf(why, why_cap, "the FADT names no PM timer (PM_TMR_BLK 0x%x, length %u)", port,
			 fadt[FADT_PM_TMR_LEN]);
		return false;
	}
	c->read = pm_read_io;
	c->ctx = (void *)(uintptr_t)port;
	return true;
}

static uint64_t hpet_read64(void *ctx)
{
	uint64_t base = (uint64_t)(uintptr_t)ctx;
	/* Two 32-bit reads, high half checked for a carry between them. */
	uint32_t hi, lo, hi2;
	do {
		hi = mmio_read32(base + HPET_MAIN_COUNTER + 4);
		lo = mmio_read32(base + HPET_MAIN_COUNTER);
		hi2 = mmio_read32(base + HPET_MAIN_COUNTER + 4);
	} while (hi != hi2);
	return ((uint64_t)hi << 32) | lo;
}

static uint64_t hpet_read32(void *ctx) { return mmio_read32((uint64_t)(uintptr_t)ctx + HPET_MAIN_COUNTER); }

bool refclock_hpet(struct ref_clock *c, char *why, size_t why_cap)
{
	const uint8_t *t = fw_acpi_table("HPET");
	struct gas g;
	memset(c, 0, sizeof(*c));
	if (!t || get32(t, ACPI_HDR_LENGTH) < HPET_TABLE_BASE_GAS + sizeof(g)) {
		snprintf(why, why_cap, "no ACPI HPET table");
		return false;
	}
	memcpy(&g, t + HPET_TABLE_BASE_GAS, sizeof(g));
	if (g.space != GAS_SPACE_MEMORY || !g.address) {
		snprintf(why, why_cap, "HPET table gives no memory address");
		return false;
	}
	if (!arena_page_size_at((const void *)(uintptr_t)g.address)) {
		snprintf(why, why_cap, "HPET at 0x%llx is not mapped", (unsigned long long)g.address);
		return false;
	}
	uint32_t cap_lo = mmio_read32(g.address + HPET_GCAP_ID);
	uint32_t period = mmio_read32(g.address + HPET_GCAP_ID + 4);
	if (!period || period > HPET_MAX_PERIOD_FS) {
		snprintf(why, why_cap, "HPET period %u fs is invalid", period);
		return false;
	}
	if (!(mmio_read32(g.address + HPET_GEN_CONF) & HPET_CONF_ENABLE)) {
		snprintf(why, why_cap, "HPET is halted (GEN_CONF.ENABLE_CNF 0); not started by pmuboot");
		return false;
	}
	c->name = "hpet";
	c->hz = (HPET_FS_PER_S + period / 2) / period;
	c->tolerance_ppm = HPET_TOLERANCE_PPM;
	c->ctx = (void *)(uintptr_t)g.address;
	if (cap_lo & HPET_CAP_COUNT_SIZE_64) {
		c->read = hpet_read64;
		c->mask = UINT64_MAX;
	} else {
		c->read = hpet_read32;
		c->mask = 0xFFFFFFFFull;
	}
	return true;
}
