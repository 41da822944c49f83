/*
 * Fuzz target: SMBIOS (fwtables/smbios.c).  The first byte splits the input
 * into an entry point and a structure table, as boot/platform.c reads them;
 * the strings found are printed the way the platform line prints them.
 */
#include "tests/fuzz/fuzz.h"
#include "fwtables/smbios.h"

#define EP_READ 0x20	/* boot/platform.c reads this much of an entry point */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct capture cap;
	struct smbios_table t;
	struct smbios_info info;
	const char *problem = NULL;
	char a[128], b[128];

	if (size < 1)
		return 0;
	size_t ep_len = data[0] % (EP_READ + 1);
	if (ep_len > size - 1)
		ep_len = size - 1;
	const uint8_t *ep = data + 1, *table = data + 1 + ep_len;
	size_t table_len = size - 1 - ep_len;

	if (!smbios_entry_point(ep, ep_len, &t, &problem))
		FUZZ_CHECK(problem != NULL);
	memset(&info, 0, sizeof(info));
	smbios_parse_table(table, table_len, &info);
	const char *s[] = { info.bios_vendor, info.bios_version, info.bios_date, info.system_manufacturer,
			    info.system_product, info.system_version, info.system_serial };
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		FUZZ_CHECK(memchr(s[i], '\0', SMBIOS_STR_MAX) != NULL);
	/* The UUID is text of one shape (it names a config file on the boot server), or nothing. */
	char uuid[SMBIOS_UUID_TEXT];
	bool have = smbios_uuid_text(&info, t.major, t.minor, uuid);
	FUZZ_CHECK(strlen(uuid) == (have ? SMBIOS_UUID_TEXT - 1 : 0));
	for (size_t i = 0; have && i < SMBIOS_UUID_TEXT - 1; i++)
		FUZZ_CHECK((i == 8 || i == 13 || i == 18 || i == 23) ? uuid[i] == '-' : lc_isxdigit(uuid[i]));
	capture_start(&cap);
	out_text("platform: %s %s; BIOS %s", out_clean(a, sizeof(a), info.system_manufacturer),
		 out_clean(b, sizeof(b), info.system_product), info.bios_vendor);
	FUZZ_CHECK(cap.n <= 1);
	fuzz_check_text_lines(&cap);
	capture_free(&cap);
	return 0;
}
