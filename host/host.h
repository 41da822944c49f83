/*
 * host/host.h - pmuboot-host's commands.
 *
 * pmuboot-host runs the image's portable code on Linux.  Each command is
 * one function in its own file, listed in main.c's table.  Commands print
 * the same records as the image (stdout), and errors to stderr; they
 * return the process exit status.
 */
#ifndef PMUBOOT_HOST_HOST_H
#define PMUBOOT_HOST_HOST_H

#include "lib/libc.h"

/* Send records and text to stdout. */
void host_output_stdout(void);
/* Open a record stream with a begin record for the host program. */
void host_stream_begin(const char *command);

int cmd_audit(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_ibs_report(int argc, char **argv);
int cmd_identify(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_options(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_program(int argc, char **argv);

#endif
