/*
 * output/spool.h - output held in memory while another processor runs.
 *
 * The screen, the results file and the firmware's serial consoles call boot
 * services, which only the boot CPU may call.  spool_begin swaps them for
 * one sink that appends each line to a buffer, keeping the sinks that need
 * no firmware (our UART: out_sink.any_cpu) live; spool_end puts them back
 * and hands every line, in order, to the sinks that did not see it.  The records' count
 * and CRC were taken when they were written (lib/record.c), so the replay
 * adds nothing to the stream.  Lines that do not fit are counted and said.
 */
#ifndef PMUBOOT_OUTPUT_SPOOL_H
#define PMUBOOT_OUTPUT_SPOOL_H

#include <stdbool.h>
#include <stddef.h>

/* False with why (nothing swapped) when there is no buffer. */
bool spool_begin(char *why, size_t why_cap);
/* Back to the real sinks; returns the number of lines replayed. */
size_t spool_end(void);

#endif
