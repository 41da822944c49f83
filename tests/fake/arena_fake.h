/*
 * tests/fake/arena_fake.h - platform/arena.h for unit tests.
 *
 * arena_get hands out ARENA_SIZE bytes aligned to 2 MiB from the C heap and
 * says they are mapped with the page size asked for (its `how` is "fake"),
 * unless the test refused that size; arena_page_size_at answers for the
 * arenas handed out and `outside_page` elsewhere; arena_release_all frees
 * them and is counted.  arena_get_large refuses unless the test gave a cap
 * (fake_arena_large); then it hands out the size asked for, up to the cap.
 */
#ifndef PMUBOOT_TESTS_FAKE_ARENA_FAKE_H
#define PMUBOOT_TESTS_FAKE_ARENA_FAKE_H

#include "platform/arena.h"

#define FAKE_ARENA_MAX 4

/* Every size available again, nothing handed out, counters zero; outside_page answers for other memory. */
void fake_arena_reset(uint32_t outside_page);
/* arena_get(page_size) fails from now on with `why`. */
void fake_arena_refuse(uint32_t page_size, const char *why);
/* arena_get_large hands out up to cap bytes from now on (0, the default after reset: it refuses). */
void fake_arena_large(uint64_t cap);
/* Arenas handed out and not yet released; times arena_release_all ran. */
unsigned fake_arena_live(void);
unsigned fake_arena_releases(void);

#endif
