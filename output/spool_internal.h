/*
 * output/spool_internal.h - the spool's sizes, for its tests (tests/unit/test_spool.c):
 * how much one held line takes, so a test can fill the buffer exactly.
 */
#ifndef PMUBOOT_OUTPUT_SPOOL_INTERNAL_H
#define PMUBOOT_OUTPUT_SPOOL_INTERNAL_H

#include <stddef.h>

/* A full suite on one processor writes about 150 KiB; room for a verbose one with raw IBS samples. */
#define SPOOL_BYTES (8u * 1024 * 1024)

/* The bytes a held line of len bytes takes, with its record's nfields (0 for a text line). */
size_t spool_entry_bytes(size_t len, size_t nfields);

#endif
