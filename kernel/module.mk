# kernel/module.mk - the kernel/ files holding pure logic.  They are compiled
# for the host as well (libpmuboot.a), so the unit tests run them against
# fake registers and pmuboot-host shares the timing code; everything else in
# kernel/ is image-only.
KERNEL_PORTABLE += kernel/activity.c kernel/apic.c kernel/fixup.c kernel/nmi.c kernel/paging.c \
	kernel/selftest_common.c kernel/timing_common.c kernel/tsc_math.c kernel/window.c
# The add chain that calibrates core cycles against the TSC runs on the host too.
KERNEL_PORTABLE_ASM += kernel/calib.asm

# Set-up, reporting and self-test code runs once per boot: compile it for size, so
# the image stays under its 256 KiB cap.  The code around measurements
# (hw_metal.c, platform_metal.c, window.c, nmi.c, entry.asm) keeps -O2.
KERNEL_COLD := activity apic arena_metal fixup idt paging refclock runtime selftest selftest_common \
	timing_common timing_metal trap tsc_math
$(patsubst %,$(B)/image/kernel/%.o,$(KERNEL_COLD)): IMAGE_CFLAGS += -Os
