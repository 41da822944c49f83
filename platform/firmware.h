/*
 * platform/firmware.h - the firmware services the rest of the image may use.
 *
 * boot/ is the only code that calls UEFI.  platform/ and the run sequence get
 * what they need from the firmware through these functions, each of which
 * says plainly when the firmware cannot help.
 */
#ifndef PMUBOOT_PLATFORM_FIRMWARE_H
#define PMUBOOT_PLATFORM_FIRMWARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Busy-wait through the firmware's Stall service (an independent clock for
 * TSC calibration).  On another processor, where boot services must not be
 * called, it spins on the TSC at the rate fw_stall_tsc_hz gave (platform/
 * tells it once the rate is known, so the firmware seam never calls up
 * into platform/ for it).
 */
void fw_stall_us(uint64_t us);
void fw_stall_tsc_hz(uint64_t hz);

/*
 * Physically contiguous, identity-mapped pages from the firmware's page
 * allocator, aligned to `align` bytes (a power of two, >= 4096).  Returns
 * NULL when the firmware cannot satisfy the request.
 */
void *fw_alloc_pages(size_t bytes, size_t align);
void fw_free_pages(void *p, size_t bytes, size_t align);
/*
 * The largest free range the firmware's memory map offers now: the longest
 * run of adjacent EfiConventionalMemory descriptors, in bytes; 0 when the map
 * cannot be read (or on another processor).  The memory ladder's arenas are
 * sized by it (platform/arena.h arena_get_large).
 */
uint64_t fw_largest_free_bytes(void);
/*
 * Pages of type EfiLoaderCode, 4 KiB-aligned: memory the firmware's
 * no-execute policy leaves executable (it marks data types only), for
 * generated code (user kernels, platform/guard.h).  NULL when refused.
 */
void *fw_alloc_code_pages(size_t bytes);

/* An ACPI table by signature (e.g. "SPCR", "HPET", "FACP") through the XSDT/RSDT, or NULL. */
const void *fw_acpi_table(const char sig[4]);

/* Image load address and size, for turning a fault RIP into an offset into the image. */
uint64_t fw_image_base(void);
uint64_t fw_image_size(void);

/*
 * Arm a one-shot firmware timer event `us` from now and poll it (CheckEvent,
 * with Stall in between) for at most `limit_us`.  True when it was
 * signalled: the firmware's timer interrupt is being delivered (a check
 * that platform/'s IDT and measurement windows left the firmware working).
 */
bool fw_timer_event_fires(uint64_t us, uint64_t limit_us);

/* True when a key press is waiting (consumed); false when there is none or no console input. */
bool fw_key_pressed(void);
bool fw_has_console_input(void);

/*
 * The processors, through the UEFI PI MP Services protocol (boot/mp.c).
 * fw_cpu_count is 0, with *why, when the firmware offers no such protocol.
 * Location fields the firmware does not give are FW_CPU_NONE; module, tile
 * and die come only from firmware that implements the extended location
 * (PI 1.7 CPU_V2_EXTENDED_TOPOLOGY).
 */
#define FW_CPU_NONE 0xffffffffu
struct fw_cpu {
	uint64_t apic_id;
	bool bsp, enabled, healthy;
	uint32_t package, die, core, thread;
};
size_t fw_cpu_count(const char **why);
bool fw_cpu_info(size_t n, struct fw_cpu *out);

/*
 * Run fn(arg) on application processor n and wait for it at most
 * timeout_us.  fn runs on the AP with the firmware's IDT and stack and must
 * call no firmware service (they are not MP-safe).  FW_RUN_OK when it
 * returned; FW_RUN_TIMEOUT when the firmware gave up on it (the AP is
 * then stopped by the firmware); FW_RUN_FAILED otherwise, with *why.
 */
#define FW_RUN_OK 0
#define FW_RUN_TIMEOUT 1
#define FW_RUN_FAILED 2
int fw_run_on_cpu(size_t n, void (*fn)(void *arg), void *arg, uint64_t timeout_us, const char **why);

#endif
