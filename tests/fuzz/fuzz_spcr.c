/* Fuzz target: the ACPI SPCR table (fwtables/spcr.c), as firmware hands it over. */
#include "tests/fuzz/fuzz.h"
#include "fwtables/spcr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spcr_uart u;
	bool exact;

	memset(&u, 0, sizeof(u));
	if (spcr_parse(data, size, &u)) {
		if (u.baud && u.clock_hz)
			(void)spcr_driver_baud(u.clock_hz, u.baud, &exact);
		(void)spcr_access_name(u.access);
	} else {
		FUZZ_CHECK(u.problem != NULL && !u.usable);
	}
	return 0;
}
