/*
 * linux/xmem_linux.c - platform/guard.h's executable memory on Linux, for
 * pmuboot-host and the unit tests alike (the Makefile links it into both):
 * an anonymous mapping, written while PROT_READ|PROT_WRITE and sealed
 * PROT_READ|PROT_EXEC.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "platform/guard.h"

#define PAGE 4096u

void *hw_xmem_alloc(size_t bytes, char *why, size_t why_cap)
{
	size_t n = (bytes + PAGE - 1) / PAGE * PAGE;
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(why, why_cap, "mmap of %zu bytes: %s", n, strerror(errno));
		return NULL;
	}
	return p;
}

bool hw_xmem_seal(void *p, size_t bytes, char *why, size_t why_cap)
{
	size_t n = (bytes + PAGE - 1) / PAGE * PAGE;
	if (mprotect(p, n, PROT_READ | PROT_EXEC) != 0) {
		snprintf(why, why_cap, "mprotect(PROT_EXEC): %s (is W^X enforced for this process?)", strerror(errno));
		return false;
	}
	return true;
}

void hw_xmem_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, (bytes + PAGE - 1) / PAGE * PAGE);
}

bool hw_xmem_prepare(char *why, size_t why_cap)
{
	(void)why;
	(void)why_cap;
	return true;	/* mmap works on every CPU */
}
