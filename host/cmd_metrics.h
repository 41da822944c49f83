/*
 * host/cmd_metrics.h - what the files of `pmuboot-host metrics` share: cmd_metrics.c (list,
 * --eval) and cmd_metrics_run.c (--run, the benchmark stage against a model of a dump's PMU).
 */
#ifndef PMUBOOT_HOST_CMD_METRICS_H
#define PMUBOOT_HOST_CMD_METRICS_H

#include "host/host_dump.h"

/* `metrics --cpuid-dump FILE --run key=value...`: argv holds the run's options. */
int cmd_metrics_run(struct host_dump *src, int argc, char **argv);

#endif
