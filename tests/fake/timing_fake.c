/* tests/fake/timing_fake.c - see timing_fake.h. */
#include <string.h>

#include "tests/fake/timing_fake.h"

static struct timing_info info;
static unsigned inits, reports, recalibrations;

void fake_timing_set(const struct timing_info *t)
{
	info = *t;
	inits = reports = recalibrations = 0;
}

unsigned fake_timing_inits(void) { return inits; }
unsigned fake_timing_reports(void) { return reports; }
unsigned fake_timing_recalibrations(void) { return recalibrations; }

const struct timing_info *timing_init(enum cpu_exec exec)
{
	(void)exec;
	inits++;
	return &info;
}

const struct timing_info *timing_get(void) { return &info; }

const struct timing_info *timing_recalibrate(void)
{
	recalibrations++;
	return &info;
}

void timing_report(const struct timing_info *t)
{
	(void)t;
	reports++;
}
