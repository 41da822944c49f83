# kernel/module.mk - the kernel/ files holding pure logic.  They are compiled
# for the host as well (libpmuboot.a), so the unit tests run them against
# fake registers and pmuboot-host shares the timing code; everything else in
# kernel/ is image-only.
KERNEL_PORTABLE += kernel/activity.c kernel/apic.c kernel/fixup.c kernel/nmi.c kernel/paging.c \
	kernel/selftest_common.c kernel/timing_common.c kernel/tsc_math.c kernel/vec.c kernel/window.c
# The add chain that calibrates core cycles against the TSC runs on the host too.
KERNEL_PORTABLE_ASM += kernel/calib.asm
