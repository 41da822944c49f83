/*
 * lib/heap.h - run-time memory for large buffers.
 *
 * Large buffers (record builders, sample rings, file buffers) are taken from
 * this heap at run time.  (They moved here when the image carried its .bss in
 * the file; it no longer does, see linker.ld, so a static buffer now costs
 * memory only.)  It is a bump allocator over one region the image gets from
 * the firmware at start-up (heap_init); nothing is freed, a run is one-shot.
 * Hosted builds without heap_init fall back to the C library's calloc.
 */
#ifndef PMUBOOT_LIB_HEAP_H
#define PMUBOOT_LIB_HEAP_H

#include "lib/libc.h"

#define HEAP_IMAGE_SIZE (8u * 1024 * 1024)

void heap_init(void *base, size_t size);
/* Zeroed memory aligned to `align` (a power of two), or NULL when the heap is exhausted. */
void *heap_alloc(size_t size, size_t align);
size_t heap_used(void);
size_t heap_size(void);

#endif
