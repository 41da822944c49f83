/* tools/host/arena_linux.c - STUB until the runtime's paging lands (owner: runtime work). */
#include "kernel/arena.h"
#include "lib/libc.h"

bool arena_get(uint32_t page_size, struct arena *a, char *why, size_t why_cap)
{
	(void)page_size; (void)a;
	snprintf(why, why_cap, "arenas not implemented yet");
	return false;
}

uint32_t arena_page_size_at(const void *addr) { (void)addr; return 0; }
void arena_release_all(void) {}
