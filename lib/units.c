/* lib/units.c - see units.h. */
#include "lib/units.h"

const char *const units_short[4] = { "", "k", "m", "g" };
const char *const units_long[4] = { " B", " KiB", " MiB", " GiB" };

const char *size_in_units(char *out, size_t cap, uint64_t b, const char *const names[4])
{
	static const uint64_t scale[4] = { 1, KIB, MIB, GIB };
	unsigned u = 3;
	while (u && (!b || b % scale[u]))
		u--;
	snprintf(out, cap, "%llu%s", (unsigned long long)(b / scale[u]), names[u]);
	return out;
}
