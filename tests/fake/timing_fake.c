/* tests/fake/timing_fake.c - see timing_fake.h. */
#include <string.h>

#include "tests/fake/timing_fake.h"

static struct timing_info info;
static unsigned inits, reports;

void fake_timing_set(const struct timing_info *t)
{
	info = *t;
	inits = reports = 0;
}

static unsigned recalibrations;
unsigned fake_timing_inits(void) { return inits; }
unsigned fake_timing_reports(void) { return reports; }

const struct timing_info *timing_init(enum cpu_exec exec)
{
	(void)exec;
	inits++;
	return &info;
}

const struct timing_info *timing_get(void) { return &info; }

/* A pass on another processor calibrates again there: counted, so tests can see it happened per pass. */
const struct timing_info *timing_recalibrate(void)
{
	recalibrations++;
	return &info;
}
unsigned fake_timing_recalibrations(void) { return recalibrations; }

void timing_report(const struct timing_info *t)
{
	(void)t;
	reports++;
}
