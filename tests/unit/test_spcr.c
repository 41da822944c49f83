/* ACPI SPCR parsing: I/O and MMIO UARTs, baud codes, clocks, and tables that must be refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "fwtables/spcr.h"

#define SPCR_LEN_REV2 80
#define SPCR_LEN_REV4 88

struct spcr_spec {
	uint8_t revision, iface, space, width, access, baud_code;
	uint64_t addr;
	uint32_t clock, precise;
	size_t len;
};

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void fix_checksum(uint8_t *t, size_t len)
{
	uint8_t sum = 0;
	t[9] = 0;
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + t[i]);
	t[9] = (uint8_t)(0 - sum);
}

/* An SPCR table laid out as the specification's field table gives it. */
static void make_spcr(uint8_t *t, const struct spcr_spec *s)
{
	size_t len = s->len ? s->len : (s->revision >= 4 ? SPCR_LEN_REV4 : SPCR_LEN_REV2);
	memset(t, 0, len);
	memcpy(t, "SPCR", 4);
	put32(t + 4, (uint32_t)len);
	t[8] = s->revision;
	memcpy(t + 10, "PMUTST", 6);
	t[36] = s->iface;
	t[40] = s->space;
	t[41] = s->width;
	t[43] = s->access;
	put32(t + 44, (uint32_t)s->addr);
	put32(t + 48, (uint32_t)(s->addr >> 32));
	t[58] = s->baud_code;
	t[60] = 1;	/* one stop bit */
	if (s->revision >= 3)
		put32(t + 76, s->clock);
	if (s->revision >= 4)
		put32(t + 80, s->precise);
	fix_checksum(t, len);
}

static void com2_io_port(void **state)
{
	(void)state;
	uint8_t t[128];
	struct spcr_uart u;
	/* The specification's own example: COM2 as 01 08 00 00 F8020000... */
	make_spcr(t, &(struct spcr_spec){ .revision = 2, .iface = 0, .space = 1, .width = 8, .addr = 0x2f8,
					  .baud_code = 7 });
	assert_true(spcr_parse(t, sizeof(t), &u));
	assert_true(u.usable);
	assert_null(u.problem);
	assert_int_equal(u.access, SPCR_IO);
	assert_int_equal(u.base, 0x2f8);
	assert_int_equal(u.baud, 115200);
	assert_int_equal(u.clock_hz, 0);
	assert_string_equal(spcr_access_name(u.access), "io");
}

static void mmio32_uart_with_dword_access(void **state)
{
	(void)state;
	uint8_t t[128];
	struct spcr_uart u;
	make_spcr(t, &(struct spcr_spec){ .revision = 2, .iface = 0x12, .space = 0, .width = 32, .access = 3,
					  .addr = 0xfedc9000ull, .baud_code = 6 });
	assert_true(spcr_parse(t, SPCR_LEN_REV2, &u));
	assert_true(u.usable);
	assert_int_equal(u.access, SPCR_MMIO32);
	assert_int_equal(u.base, 0xfedc9000ull);
	assert_int_equal(u.baud, 57600);
	assert_string_equal(spcr_access_name(u.access), "mmio32");
}

static void mmio8_from_width_alone_above_4g(void **state)
{
	(void)state;
	uint8_t t[128];
	struct spcr_uart u;
	make_spcr(t, &(struct spcr_spec){ .revision = 1, .iface = 0, .space = 0, .width = 8, .access = 0,
					  .addr = 0x1fe0001000ull, .baud_code = 3 });
	assert_true(spcr_parse(t, sizeof(t), &u));
	assert_true(u.usable);
	assert_int_equal(u.access, SPCR_MMIO8);
	assert_int_equal(u.base, 0x1fe0001000ull);
	assert_int_equal(u.baud, 9600);
}

static void precise_baud_and_clock_revision4(void **state)
{
	(void)state;
	uint8_t t[128];
	struct spcr_uart u;
	/* A 48 MHz UART clock at 115200: the precise field overrides the 9600 code. */
	make_spcr(t, &(struct spcr_spec){ .revision = 4, .iface = 0x12, .space = 0, .width = 32, .access = 3,
					  .addr = 0xfedc9000ull, .baud_code = 3, .clock = 48000000,
					  .precise = 115200 });
	assert_true(spcr_parse(t, sizeof(t), &u));
	assert_true(u.usable);
	assert_int_equal(u.revision, 4);
	assert_int_equal(u.baud, 115200);
	assert_int_equal(u.clock_hz, 48000000);
}

static void baud_zero_means_as_configured(void **state)
{
	(void)state;
	uint8_t t[128];
	struct spcr_uart u;
	make_spcr(t, &(struct spcr_spec){ .revision = 2, .iface = 0, .space = 1, .width = 8, .addr = 0x3f8 });
	assert_true(spcr_parse(t, sizeof(t), &u));
	assert_true(u.usable);
	assert_int_equal(u.baud, 0);
	assert_null(u.problem);
}

static void unknown_baud_code_is_a_caveat(void **state)
{
	(void)state;
	uint8_t t[128];
	struct spcr_uart u;
	make_spcr(t, &(struct spcr_spec){ .revision = 2, .iface = 0, .space = 1, .width = 8, .addr = 0x3f8,
					  .baud_code = 5 });
	assert_true(spcr_parse(t, sizeof(t), &u));
	assert_true(u.usable);
	assert_int_equal(u.baud, 0);
	assert_non_null(u.problem);
	assert_non_null(strstr(u.problem, "baud"));
}

static void refused_tables(void **state)
{
	(void)state;
	uint8_t t[128];
	struct spcr_uart u;

	/* Wrong signature. */
	make_spcr(t, &(struct spcr_spec){ .revision = 2, .space = 1, .width = 8, .addr = 0x3f8, .baud_code = 7 });
	memcpy(t, "SPCX", 4);
	assert_false(spcr_parse(t, sizeof(t), &u));
	assert_false(u.usable);
	assert_non_null(strstr(u.problem, "signature"));

	/* Damaged byte: the checksum catches it. */
	make_spcr(t, &(struct spcr_spec){ .revision = 2, .space = 1, .width = 8, .addr = 0x3f8, .baud_code = 7 });
	t[44] ^= 0x10;
	assert_false(spcr_parse(t, sizeof(t), &u));
	assert_non_null(strstr(u.problem, "checksum"));

	/* Length field larger than the bytes we have. */
	make_spcr(t, &(struct spcr_spec){ .revision = 2, .space = 1, .width = 8, .addr = 0x3f8, .baud_code = 7 });
	assert_false(spcr_parse(t, 60, &u));
	assert_false(spcr_parse(t, SPCR_LEN_REV2 - 1, &u));
	assert_non_null(strstr(u.problem, "length"));

	assert_false(spcr_parse(NULL, 0, &u));
}

static void well_formed_but_not_drivable(void **state)
{
	(void)state;
	uint8_t t[128];
	struct spcr_uart u;

	/* ARM PL011 (DBG2 subtype 3). */
	make_spcr(t, &(struct spcr_spec){ .revision = 2, .iface = 3, .space = 0, .width = 32, .access = 3,
					  .addr = 0x9000000, .baud_code = 7 });
	assert_true(spcr_parse(t, sizeof(t), &u));
	assert_false(u.usable);
	assert_non_null(strstr(u.problem, "16550"));

	/* Console redirection disabled. */
	make_spcr(t, &(struct spcr_spec){ .revision = 2, .space = 1, .width = 8, .addr = 0, .baud_code = 7 });
	assert_true(spcr_parse(t, sizeof(t), &u));
	assert_false(u.usable);
	assert_non_null(strstr(u.problem, "disabled"));

	/* 16-bit MMIO registers. */
	make_spcr(t, &(struct spcr_spec){ .revision = 2, .space = 0, .width = 16, .access = 2, .addr = 0xfe000000,
					  .baud_code = 7 });
	assert_true(spcr_parse(t, sizeof(t), &u));
	assert_false(u.usable);
	assert_non_null(strstr(u.problem, "width"));

	/* I/O port beyond the 16-bit port space. */
	make_spcr(t, &(struct spcr_spec){ .revision = 2, .space = 1, .width = 8, .addr = 0x10000, .baud_code = 7 });
	assert_true(spcr_parse(t, sizeof(t), &u));
	assert_false(u.usable);

	/* PCI configuration space (GAS space 2). */
	make_spcr(t, &(struct spcr_spec){ .revision = 2, .space = 2, .width = 8, .addr = 0x3f8, .baud_code = 7 });
	assert_true(spcr_parse(t, sizeof(t), &u));
	assert_false(u.usable);

	/* A clock too slow for the rate. */
	make_spcr(t, &(struct spcr_spec){ .revision = 3, .space = 1, .width = 8, .addr = 0x3f8, .baud_code = 7,
					  .clock = 1000000 });
	assert_true(spcr_parse(t, sizeof(t), &u));
	assert_false(u.usable);
	assert_non_null(strstr(u.problem, "clock"));
}

static void driver_baud_for_other_clocks(void **state)
{
	(void)state;
	bool exact;
	/* The standard clock: handed through. */
	assert_int_equal(spcr_driver_baud(0, 57600, &exact), 57600);
	assert_true(exact);
	assert_int_equal(spcr_driver_baud(1843200, 115200, &exact), 115200);
	assert_true(exact);
	assert_int_equal(spcr_driver_baud(0, 230400, &exact), 0);
	/* 48 MHz at 115200: divisor round(48e6 / 1843200) = 26; 115200 / 4430 gives 26 back. */
	uint32_t b = spcr_driver_baud(48000000, 115200, &exact);
	assert_int_equal(b, 115200 / 26);
	assert_int_equal(115200 / b, 26);
	assert_true(exact);
	/* 24 MHz at 1.5 Mbaud: divisor 1, which the driver programs from 115200. */
	assert_int_equal(spcr_driver_baud(24000000, 1500000, &exact), 115200);
	assert_true(exact);
	assert_int_equal(spcr_driver_baud(48000000, 0, &exact), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(com2_io_port),
		cmocka_unit_test(mmio32_uart_with_dword_access),
		cmocka_unit_test(mmio8_from_width_alone_above_4g),
		cmocka_unit_test(precise_baud_and_clock_revision4),
		cmocka_unit_test(baud_zero_means_as_configured),
		cmocka_unit_test(unknown_baud_code_is_a_caveat),
		cmocka_unit_test(refused_tables),
		cmocka_unit_test(well_formed_but_not_drivable),
		cmocka_unit_test(driver_baud_for_other_clocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
