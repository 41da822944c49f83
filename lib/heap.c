/* lib/heap.c - see heap.h. */
#include "lib/heap.h"

static uint8_t *heap_base;
static size_t heap_cap, heap_off;

void heap_init(void *base, size_t size)
{
	heap_base = base;
	heap_cap = base ? size : 0;
	heap_off = 0;
}

void *heap_alloc(size_t size, size_t align)
{
	if (!heap_base) {
#ifdef PMUBOOT_HOSTED
		/* aligned_alloc wants a size that is a multiple of the alignment. */
		size_t a = align < sizeof(void *) ? sizeof(void *) : align;
		void *p = aligned_alloc(a, (size + a - 1) & ~(a - 1));
		if (p)
			memset(p, 0, size);
		return p;
#else
		return NULL;
#endif
	}
	uintptr_t start = ((uintptr_t)heap_base + heap_off + align - 1) & ~(uintptr_t)(align - 1);
	size_t off = (size_t)(start - (uintptr_t)heap_base);
	if (off > heap_cap || size > heap_cap - off)
		return NULL;
	heap_off = off + size;
	memset((void *)start, 0, size);
	return (void *)start;
}

size_t heap_used(void) { return heap_off; }
size_t heap_size(void) { return heap_cap; }
