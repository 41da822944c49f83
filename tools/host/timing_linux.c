/* tools/host/timing_linux.c - STUB until the runtime's timing lands (owner: runtime work). */
#include "kernel/timing.h"

static struct timing_info info;

const struct timing_info *timing_init(bool hypervisor)
{
	info.emulated = hypervisor;
	return &info;
}

const struct timing_info *timing_get(void) { return &info; }
void timing_report(const struct timing_info *t) { (void)t; }
