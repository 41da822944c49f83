/*
 * linux/irq_count.c - the parse of /proc/interrupts, and the chaining of window counts
 * (linux/irq_count.h).
 */
#include <stdlib.h>
#include <string.h>

#include "linux/irq_count.h"

/* The column of CPU `cpu` in the header line ("CPU0 CPU1 ..."), or -1; *body is set past the header. */
static int header_column(const char *text, int cpu, const char **body)
{
	const char *p = text;
	int col = -1;
	for (int k = 0; *p && *p != '\n'; k++) {
		while (*p == ' ')
			p++;
		if (*p == '\n' || !*p)
			break;
		if (!strncmp(p, "CPU", 3) && p[3] >= '0' && p[3] <= '9' && atoi(p + 3) == cpu)
			col = k;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	*body = p;
	return col;
}

bool irq_count_column(const char *text, int cpu, uint64_t *sum)
{
	const char *p;
	int col = header_column(text, cpu, &p);
	*sum = 0;
	if (col < 0)
		return false;
	while ((p = strchr(p, '\n')) != NULL) {
		p++;
		const char *eol = strchr(p, '\n');
		const char *colon = strchr(p, ':');
		if (!colon || (eol && colon > eol))
			continue;
		const char *q = colon + 1;
		for (int c = 0; c <= col; c++) {
			char *end;
			/* Each column is a count and nothing else: a name or a sign ends the row's counts. */
			while (*q == ' ')
				q++;
			if (*q < '0' || *q > '9')
				break;
			unsigned long long v = strtoull(q, &end, 10);
			if (c == col)
				*sum += v;
			q = end;
		}
	}
	return true;
}

void irq_chain_note(struct irq_chain *c, int cpu, uint64_t count, uint64_t now_ns)
{
	c->valid = true;
	c->cpu = cpu;
	c->count = count;
	c->at_ns = now_ns;
}

bool irq_chain_reuse(const struct irq_chain *c, int cpu, uint64_t now_ns, uint64_t *count)
{
	if (!c->valid || c->cpu != cpu || now_ns < c->at_ns || now_ns - c->at_ns > IRQ_CHAIN_MAX_NS)
		return false;
	*count = c->count;
	return true;
}
