/*
 * Fuzz target: DHCPv4 options (net/dhcp.c), as the PXE base code keeps the
 * answer that booted the machine.  Every option found lies inside the
 * packet, and the boot file name is printable and terminated.
 */
#include "tests/fuzz/fuzz.h"
#include "net/dhcp.h"

#define OPTION_CODES 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (unsigned code = 0; code < OPTION_CODES; code++) {
		const uint8_t *v;
		size_t n;
		if (dhcp_option(data, size, (uint8_t)code, &v, &n))
			FUZZ_CHECK(v >= data && v + n <= data + size);
		else
			FUZZ_CHECK(v == NULL && n == 0);
	}
	char f[DHCP_FILE_LEN + 1];
	dhcp_boot_file(data, size, f, sizeof(f));
	size_t len = strnlen(f, sizeof(f));
	FUZZ_CHECK(len < sizeof(f));
	for (size_t i = 0; i < len; i++)
		FUZZ_CHECK(f[i] >= 0x20 && f[i] < 0x7f);
	return 0;
}
