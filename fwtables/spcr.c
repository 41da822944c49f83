/* fwtables/spcr.c - see spcr.h. */
#include "fwtables/spcr.h"

/* SPCR table layout (byte offsets; Microsoft SPCR specification, revision 4). */
#define SPCR_OFF_REVISION 8
#define SPCR_OFF_INTERFACE_TYPE 36
#define SPCR_OFF_BASE_ADDRESS 40	/* a 12-byte Generic Address Structure */
#define SPCR_OFF_BAUD_RATE 58
#define SPCR_OFF_UART_CLOCK 76		/* revision 3 and later */
#define SPCR_OFF_PRECISE_BAUD 80	/* revision 4 and later */
#define SPCR_MIN_LENGTH 80		/* revisions 1 and 2 end after PCI segment + reserved */
#define SPCR_REV_UART_CLOCK 3
#define SPCR_REV_PRECISE_BAUD 4

/* Generic Address Structure fields (ACPI 6.5 §5.2.3.2, table 5.1). */
#define GAS_OFF_SPACE_ID 0
#define GAS_OFF_BIT_WIDTH 1
#define GAS_OFF_ACCESS_SIZE 3
#define GAS_OFF_ADDRESS 4
#define GAS_SPACE_MEMORY 0
#define GAS_SPACE_IO 1
#define GAS_ACCESS_UNDEFINED 0
#define GAS_ACCESS_BYTE 1
#define GAS_ACCESS_DWORD 3

#define IO_PORT_MAX 0xffff
#define STANDARD_CLOCK_HZ 1843200u	/* the PC 16550's 1.8432 MHz crystal */
#define DRIVER_CLOCK_DIV16 115200u	/* platform/metal/serial.c: divisor = 115200 / baud */
#define BAUD_TOLERANCE_PCT 3		/* async serial framing tolerates roughly +-3% */

/* DBG2 serial subtypes (DBG2 specification, table 3) that are a 16550 register set. */
static const struct {
	uint8_t type;
	const char *name;
} uart_16550_types[] = {
	{ 0x00, "16550" },			/* full 16550 (revision 1: the same value) */
	{ 0x01, "16550 subset" },		/* revision 1: 16450 that accepts FCR writes */
	{ 0x12, "16550 with GAS" },		/* 16550-compatible, parameters from the GAS */
};

/* The "Configured Baud Rate" codes (SPCR specification, offset 58). */
static const struct {
	uint8_t code;
	uint32_t baud;
} baud_codes[] = {
	{ 3, 9600 }, { 4, 19200 }, { 6, 57600 }, { 7, 115200 },
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

const char *spcr_access_name(enum spcr_access a)
{
	static const char *const names[] = { "io", "mmio", "mmio32" };
	return (unsigned)a < ARRAY_SIZE(names) ? names[a] : "?";
}

bool spcr_parse(const void *table, size_t len, struct spcr_uart *out)
{
	const uint8_t *t = table;

	memset(out, 0, sizeof(*out));
	if (!t || len < 4 || memcmp(t, "SPCR", 4) != 0) {
		out->problem = "not an SPCR table (wrong signature)";
		return false;
	}
	if (len < SPCR_MIN_LENGTH) {
		out->problem = "SPCR table length is below the 80 bytes every revision has";
		return false;
	}
	uint32_t hdr_len = le32(t + 4);
	if (hdr_len < SPCR_MIN_LENGTH || hdr_len > len) {
		out->problem = "SPCR length field is out of range";
		return false;
	}
	len = hdr_len;
	uint8_t sum = 0;
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + t[i]);
	if (sum != 0) {
		out->problem = "SPCR checksum is wrong (bytes do not sum to zero)";
		return false;
	}

	out->revision = t[SPCR_OFF_REVISION];
	out->interface_type = t[SPCR_OFF_INTERFACE_TYPE];
	const uint8_t *gas = t + SPCR_OFF_BASE_ADDRESS;
	out->reg_bit_width = gas[GAS_OFF_BIT_WIDTH];
	out->access_size = gas[GAS_OFF_ACCESS_SIZE];
	out->base = le64(gas + GAS_OFF_ADDRESS);

	uint8_t code = t[SPCR_OFF_BAUD_RATE];
	for (size_t i = 0; i < ARRAY_SIZE(baud_codes); i++)
		if (baud_codes[i].code == code)
			out->baud = baud_codes[i].baud;
	if (out->revision >= SPCR_REV_UART_CLOCK)
		out->clock_hz = le32(t + SPCR_OFF_UART_CLOCK);
	/* A non-zero precise baud rate overrides the code (SPCR 1.09 and later). */
	if (out->revision >= SPCR_REV_PRECISE_BAUD && len >= SPCR_OFF_PRECISE_BAUD + 4 &&
	    le32(t + SPCR_OFF_PRECISE_BAUD))
		out->baud = le32(t + SPCR_OFF_PRECISE_BAUD);
	if (code != 0 && out->baud == 0)
		out->problem = "unknown SPCR baud rate code; 115200 assumed";

	bool is_16550 = false;
	for (size_t i = 0; i < ARRAY_SIZE(uart_16550_types); i++)
		if (uart_16550_types[i].type == out->interface_type)
			is_16550 = true;
	if (!is_16550) {
		out->problem = "the UART is not 16550-compatible (SPCR interface type)";
		return true;
	}
	if (out->base == 0) {
		out->problem = "SPCR says console redirection is disabled (base address 0)";
		return true;
	}
	switch (gas[GAS_OFF_SPACE_ID]) {
	case GAS_SPACE_IO:
		if (out->base > IO_PORT_MAX) {
			out->problem = "SPCR I/O port address is above 0xffff";
			return true;
		}
		out->access = SPCR_IO;
		break;
	case GAS_SPACE_MEMORY:
		/* The access size, when given, is the register width the UART decodes. */
		if (out->access_size == GAS_ACCESS_DWORD ||
		    (out->access_size == GAS_ACCESS_UNDEFINED && out->reg_bit_width == 32)) {
			out->access = SPCR_MMIO32;
		} else if (out->access_size == GAS_ACCESS_BYTE ||
			   (out->access_size == GAS_ACCESS_UNDEFINED && out->reg_bit_width == 8)) {
			out->access = SPCR_MMIO8;
		} else {
			out->problem = "SPCR MMIO register width is neither 8 nor 32 bits";
			return true;
		}
		break;
	default:
		out->problem = "SPCR base address is in neither memory nor I/O space";
		return true;
	}
	uint32_t want = out->baud ? out->baud : DRIVER_CLOCK_DIV16;
	bool exact;
	if (spcr_driver_baud(out->clock_hz, want, &exact) == 0) {
		out->problem = "the UART clock is too slow for the baud rate SPCR gives";
		return true;
	}
	out->usable = true;
	return true;
}

uint32_t spcr_driver_baud(uint32_t clock_hz, uint32_t baud, bool *exact)
{
	*exact = true;
	if (baud == 0)
		return 0;
	if (clock_hz == 0 || clock_hz == STANDARD_CLOCK_HZ) {
		if (baud > DRIVER_CLOCK_DIV16)
			return 0;
		*exact = DRIVER_CLOCK_DIV16 % baud == 0;
		return baud;
	}
	/* The divisor this UART needs, rounded to nearest: clock / (16 * baud). */
	uint64_t div = ((uint64_t)clock_hz + 8ull * baud) / (16ull * baud);
	if (div == 0 || div > 0xffff)
		return 0;
	/* A receiver tolerates a few percent of rate error; beyond that no divisor fits. */
	uint64_t actual = clock_hz / (16ull * div);
	uint64_t err = actual > baud ? actual - baud : baud - actual;
	if (err * 100 > (uint64_t)baud * BAUD_TOLERANCE_PCT)
		return 0;
	uint32_t b = (uint32_t)(DRIVER_CLOCK_DIV16 / div);
	if (b == 0)
		return 0;
	*exact = DRIVER_CLOCK_DIV16 / b == div;
	return b;
}
