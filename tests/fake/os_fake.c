/* tests/fake/os_fake.c - kernel/hw.h's word from an operating system: the fake CPU runs under none. */
#include "kernel/hw.h"

bool hw_os_microcode(uint32_t *rev, char *source, unsigned long source_cap)
{
	(void)rev;
	(void)source;
	(void)source_cap;
	return false;
}
