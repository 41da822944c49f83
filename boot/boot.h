/*
 * boot/boot.h - boot/'s internal interface (UEFI types allowed here only).
 */
#ifndef PMUBOOT_BOOT_BOOT_H
#define PMUBOOT_BOOT_BOOT_H

#include <efi.h>
#include "lib/libc.h"
#include "run/config.h"
#include "platform/firmware.h"

struct cpu_info;

extern EFI_SYSTEM_TABLE *fw_st;
extern EFI_HANDLE fw_image;
extern EFI_LOADED_IMAGE *fw_loaded_image;

void fw_init(EFI_HANDLE image, EFI_SYSTEM_TABLE *st);

/* True while another processor runs our code: the services of platform/firmware.h refuse (boot/fw.c). */
extern volatile bool fw_elsewhere;
/* RFLAGS.IF: false on a fault path or inside a measuring window, where the firmware must not be called. */
bool fw_interrupts_on(void);

/* boot/mp.c: the processors as the run sequence sees them (struct run_mp, run/run.h). */
extern const struct run_mp boot_mp;

/*
 * The load options as ASCII.  Returns the length, or -1 when there are none
 * or they are not text (a boot entry's optional data may be binary); *note
 * then says why, for the begin record.
 */
long fw_load_options(char *buf, size_t cap, const char **note);

/*
 * Read a file from the directory the image was loaded from (then the root
 * of the same volume).  Returns the length, -1 when absent, -2 on a read
 * error or a file larger than cap, -3 when the name is a directory.  *where
 * receives the path used.
 */
long fw_read_beside_image(const char *name, char *buf, size_t cap, char *where, size_t where_cap);

/*
 * Bounded waits for the network code: a one-shot firmware timer ms from now
 * (UEFI 2.10 §7.1: CreateEvent, SetTimer, CheckEvent).  NULL when the
 * firmware would not make one; a NULL deadline has always passed.
 */
EFI_EVENT fw_deadline(uint64_t ms);
bool fw_deadline_passed(EFI_EVENT ev);
void fw_deadline_end(EFI_EVENT ev);
/*
 * Milliseconds from a periodic firmware timer, counting while it is
 * started (fw_clock_start .. fw_clock_stop, nested): the network code's
 * clock before the TSC's rate is known.  Its resolution is the period.
 */
void fw_clock_start(void);
uint64_t fw_clock_ms(void);
void fw_clock_stop(void);

/* A firmware string as ASCII ('?' for what is not), cut to fit cap; NULL gives "". */
void fw_ascii(char *dst, size_t cap, const CHAR16 *src);

/* The root directory of the volume the image was loaded from, or NULL (no file system there). */
EFI_FILE_HANDLE fw_open_boot_volume(void);

/* The config from pmuboot.cfg (beside the image, or from the boot server) then the load options; errors go to
 * report(). */
void boot_read_config(struct config *cfg, void (*report)(const struct config_error *e, void *ctx), void *ctx,
		      char *sources, size_t sources_cap);
/* The begin record's config_tried: the names a network boot asked its server for (nothing after a disk boot). */
struct rec;
void boot_config_tried_record(struct rec *r);

/* Finish as cfg->on_finish says.  Returns only for on_finish=return. */
/* Identification (ci->exec, ci->hv_qemu) chooses the defaults: shut down without a countdown under a
 * hypervisor, report through QEMU's isa-debug-exit under QEMU. */
void boot_finish(const struct config *cfg, const struct cpu_info *ci);

#endif
