/* tests/fake/os_fake.c - platform/hw.h's word from an operating system: the fake CPU runs under none. */
#include "platform/hw.h"

bool hw_os_microcode(uint32_t *rev, char *source, unsigned long source_cap)
{
	(void)rev;
	(void)source;
	(void)source_cap;
	return false;
}
