/* events/events.c - STUB until the event tables land (owner: events work). */
#include "events.h"

size_t events_set_count(void) { return 0; }
const struct event_set *events_set_at(size_t i) { (void)i; return NULL; }
const struct event_set *events_set_find(const char *key) { (void)key; return NULL; }
const struct event_def *events_find(const struct event_set *set, const char *name) { (void)set; (void)name; return NULL; }
const struct event_def *events_for_role(const struct event_set *set, uint32_t role) { (void)set; (void)role; return NULL; }
size_t ibs_events_count(void) { return 0; }
const struct ibs_event_def *ibs_event_at(size_t i) { (void)i; return NULL; }
const struct ibs_event_def *ibs_event_find(uint16_t code) { (void)code; return NULL; }

bool event_spec_parse(const struct event_set *set, bool amd, const char *text, size_t len, struct event_spec *out,
		      char *err, size_t err_cap)
{
	(void)set; (void)amd; (void)text; (void)len; (void)out;
	snprintf(err, err_cap, "event specs not implemented yet");
	return false;
}
