# pmuboot - top-level build.
#
#   make            the UEFI image build/pmuboot.efi (+ build/pmuboot.debug)
#   make host       build/pmuboot-host, the same code on Linux
#   make run        set up, build, boot in QEMU/OVMF, show the results
#   make test       the tests (check's and the QEMU boots); ends with "N passed, M failed"
#   make check      the unit tests and the fast host tests, in about a minute
#   make test-slow  what make test leaves out: sanitizers, other compilers, reproducible builds,
#                   fuzzing, media (tests/tiers.cfg; docs/testing.md)
#   make fuzz       libFuzzer sessions over every parser of outside bytes (docs/fuzzing.md)
#   make bench      the host benchmark table for this machine
#   make size       the image's size by part (docs/architecture.md "Sizes")
#   make usb / iso  bootable media; make netboot: a TFTP/HTTP boot root
#   make clean
#
# Sources are found by directory.  A folder may add generated sources or
# rules in its own module.mk (included below), so most changes need no edit
# here.  Which build a file goes into is a property of its folder: portable
# code (lib/, platform/ itself, cpu/, events/, pmu/, bench/, run/, net/,
# fwtables/ and output/) is compiled twice, freestanding for the image and
# hosted for pmuboot-host and the unit tests; platform/metal/ and boot/ are
# the image's alone; linux/ (the seam on Linux) and host/ are pmuboot-host's
# alone.

B := build
# V=1 shows the full commands.
Q := $(if $(V),,@)
export SOURCE_DATE_EPOCH := 0

CC := gcc
NASM := nasm
LD := ld
OBJCOPY := objcopy
PYTHON := python3

EFI_INC := /usr/include/efi
EFI_LIB := /usr/lib
EFI_CRT0 := $(EFI_LIB)/crt0-efi-x86_64.o

WARN := -Wall -Wextra -Werror -Wno-unused-parameter
# Relative paths in debug info and __FILE__, for byte-identical rebuilds.
REPRO := -ffile-prefix-map=$(CURDIR)/= -fdebug-prefix-map=$(CURDIR)/=

IMAGE_CFLAGS := -std=gnu11 -Os -g $(WARN) $(REPRO) -ffreestanding -fpic -fshort-wchar \
	-fno-stack-protector -fno-strict-aliasing -fno-omit-frame-pointer \
	-mno-red-zone -mgeneral-regs-only -DGNU_EFI_USE_MS_ABI -DPMUBOOT_IMAGE \
	-I$(EFI_INC) -I$(EFI_INC)/x86_64 -I$(B)/gen -I.
HOST_CFLAGS := -std=gnu11 -O2 -g $(WARN) $(REPRO) -DPMUBOOT_HOSTED -I$(B)/gen -I. -fno-strict-aliasing
NASMFLAGS := -f elf64 -g -I./
IMAGE_NASMFLAGS := $(NASMFLAGS) -DPMUBOOT_IMAGE
HOST_NASMFLAGS := $(NASMFLAGS) -DPMUBOOT_HOSTED

# Filled in by module.mk files.
GEN_C :=
GEN_DEPS :=
# Generated C for pmuboot-host and the unit tests only (instr/module.mk: the instruction catalogue, far
# larger than the image's room).
HOST_GEN_C :=
-include $(sort $(wildcard */module.mk))

# Rooms (docs/architecture.md).  A file named *_host.c is host-only: it is
# built into pmuboot-host and the unit tests, never into the image.
PORTABLE_ROOMS := platform cpu events instr pmu/* bench run net fwtables output
ALL_PORTABLE_C := $(filter-out lib/libc_min.c,$(wildcard lib/*.c)) $(foreach r,$(PORTABLE_ROOMS),$(wildcard $(r)/*.c))
HOSTED_C := $(filter %_host.c,$(ALL_PORTABLE_C))
PORTABLE_C := $(filter-out %_host.c,$(ALL_PORTABLE_C))
PORTABLE_ASM := $(foreach r,$(PORTABLE_ROOMS),$(wildcard $(r)/*.asm))
IMAGE_ONLY_C := lib/libc_min.c $(wildcard boot/*.c) $(wildcard platform/metal/*.c)
IMAGE_ONLY_ASM := $(wildcard platform/metal/*.asm)
HOST_ONLY_C := $(wildcard linux/*.c) $(wildcard host/*.c)
# The unit tests' executable memory is the host's (platform/guard.h: mmap on Linux either way), and
# they test the host window's parse of /proc/interrupts (linux/irq_count.h), which is pure.
FAKE_C := $(wildcard tests/fake/*.c) linux/xmem_linux.c linux/irq_count.c
UNIT_TESTS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/test_*.c))

IMAGE_OBJS := $(patsubst %.c,$(B)/image/%.o,$(PORTABLE_C) $(IMAGE_ONLY_C)) \
	$(patsubst %,$(B)/image/%.o,$(GEN_C)) \
	$(patsubst %.asm,$(B)/image/%.o,$(PORTABLE_ASM) $(IMAGE_ONLY_ASM))
HOST_LIB_OBJS := $(patsubst %.c,$(B)/host/%.o,$(PORTABLE_C) $(HOSTED_C)) \
	$(patsubst %,$(B)/host/%.o,$(GEN_C) $(HOST_GEN_C)) \
	$(patsubst %.asm,$(B)/host/%.o,$(PORTABLE_ASM))
HOST_ONLY_OBJS := $(patsubst %.c,$(B)/host/%.o,$(HOST_ONLY_C))
FAKE_OBJS := $(patsubst %.c,$(B)/host/%.o,$(FAKE_C))

# The build id is a hash of the sources, so it changes exactly when they do (not the
# generated version.h, which holds the id: hashing it changed the id on every make).
ID_SOURCES := $(sort $(PORTABLE_C) $(HOSTED_C) $(IMAGE_ONLY_C) $(PORTABLE_ASM) $(IMAGE_ONLY_ASM) $(HOST_ONLY_C) \
	$(filter-out $(B)/% %/gen/version.h,$(wildcard */*.h */*/*.h)) $(wildcard events/*.csv cpu/*.csv pmu/*/*.csv) linker.ld VERSION)
BUILD_ID := $(shell cat $(ID_SOURCES) 2>/dev/null | sha256sum | cut -c1-12)
VERSION := $(shell cat VERSION)

# The image's size limits (docs/architecture.md, "Sizes"; `make size` shows the parts).
# IMAGE_MAX: the whole file, 512 KiB (issue 26; the way on is to 384 KiB).  IMAGE_BUDGETS:
# each initialised PE section's file bytes, a little above what it holds, so that growth is
# a decision and not an accident:
#   .text  293 KiB: the code (292.5 KiB: 16 KiB of it the instruction forms, issue 31, and 2.5 KiB more
#          since for their µops and ports, their estimate and quoted option words: lib/regex.c and
#          instr/select.c, which forms a CPU has and `instr=REGEX` chooses, 4.5 KiB; the kernel pack's
#          reader, instr/pack.c, which checks every field of a file from the medium, the measuring of a
#          form's kernels, its record, the stage's source and the pack's reading from the medium or
#          the boot server, 11.5 KiB: the image measures forms from the pack, never builds them); 30 KiB
#          of it the memory ladder: cache geometry, the ring,
#          the latency and bandwidth kernels in SSE/AVX/AVX-512 forms, the sweep stage; 12 KiB the
#          top-down metrics' evaluator and stage; 20 KiB the network: boot, config from the server
#          and the upload, issue 25; about 1 KiB the records' field index, which the screen reads
#          instead of parsing JSON back, and the benchmark stage's plan of sources; 0.8 KiB the
#          screen's row for each instruction form, a line per form on screen as issue 31 asks; 0.7 KiB
#          identification's doubt of a model number its CPU's features contradict, on every CPU of the
#          topology, cpu/uarch_features.csv; 0.1 KiB an instruction latency the renamer resolved, given as 0
#          with the chain's rate; 0.2 KiB what a long instruction table's records cost on a UART, said
#          before it runs; 0.1 KiB and a string a latency pair whose round trip was shorter than its
#          connectors, given no figure with the two numbers rather than a negative one).
#   .data  189.5 KiB (it holds 189 KiB): the event catalogue (61 KiB, every event of every core,
#          stored compressed: 158 KiB inflated into the heap at first use), strings (63 KiB), the
#          top-down metric tables (21 KiB, issue 23, stored compressed the same way: 36 KiB
#          inflated; pmu/metrics/metrics_table.h says how they are packed) and other tables and
#          initialised variables (33 KiB).
#   .rela   24 KiB: relocations, 24 bytes for each pointer stored in data (22.5 KiB: tables of
#          pointers show here; the catalogue holds none).
#   others   4 KiB each (.reloc, .dynamic: a few hundred bytes).
IMAGE_MAX := 524288
IMAGE_BUDGETS := --budget .text=300800 --budget .data=194048 --budget .rela=24576 --other-budget 4096

.PHONY: all image host test check test-slow unit run bench bench-instr clean deps usb iso netboot size FORCE
.DEFAULT_GOAL := all
all: image host

image: $(B)/pmuboot.efi
host: $(B)/pmuboot-host

$(B)/gen/version.h: FORCE
	@mkdir -p $(@D)
	@printf '#define PMUBOOT_VERSION "%s"\n#define PMUBOOT_BUILD_ID "%s"\n' '$(VERSION)' '$(BUILD_ID)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(B)/image/%.o: %.c $(B)/gen/version.h $(GEN_DEPS)
	@mkdir -p $(@D)
	@$(if $(Q),echo '  CC     $<')
	$(Q)$(CC) $(IMAGE_CFLAGS) -MMD -MP -c $< -o $@
$(B)/image/$(B)/%.c.o: $(B)/%.c $(B)/gen/version.h
	@mkdir -p $(@D)
	@$(if $(Q),echo '  CC     $<')
	$(Q)$(CC) $(IMAGE_CFLAGS) -MMD -MP -c $< -o $@
$(B)/image/%.o: %.asm
	@mkdir -p $(@D)
	@$(if $(Q),echo '  NASM   $<')
	$(Q)$(NASM) $(IMAGE_NASMFLAGS) -MD $(@:.o=.d) -o $@ $<

$(B)/host/%.o: %.c $(B)/gen/version.h $(GEN_DEPS)
	@mkdir -p $(@D)
	@$(if $(Q),echo '  CC     $< (host)')
	$(Q)$(CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@
$(B)/host/$(B)/%.c.o: $(B)/%.c $(B)/gen/version.h
	@mkdir -p $(@D)
	@$(if $(Q),echo '  CC     $< (host)')
	$(Q)$(CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@
$(B)/host/%.o: %.asm
	@mkdir -p $(@D)
	@$(if $(Q),echo '  NASM   $< (host)')
	$(Q)$(NASM) $(HOST_NASMFLAGS) -MD $(@:.o=.d) -o $@ $<

$(B)/pmuboot.so: $(IMAGE_OBJS) linker.ld
	@$(if $(Q),echo '  LD     $@')
	$(Q)$(LD) -nostdlib -znocombreloc -shared -Bsymbolic --no-undefined --build-id=none -T linker.ld \
		-Map=$(B)/pmuboot.map -o $@ $(EFI_CRT0) $(IMAGE_OBJS) -L$(EFI_LIB) -lgnuefi

$(B)/pmuboot.debug: $(B)/pmuboot.so
	$(Q)$(OBJCOPY) --only-keep-debug $< $@

# PE32+ application: subsystem 10 (EFI application).  The PE header's time stamp is
# taken from SOURCE_DATE_EPOCH (exported above as 0); tests/host checks that two
# clean builds give the same bytes.  --strip-all: no COFF symbol table after the
# sections (pmuboot.debug has the symbols), which sbverify/sbsign flag as data
# outside every section ("gaps between PE/COFF sections") and would not sign.
# The .bss objcopy writes (no file bytes) is folded into .data's virtual size
# (tools/pe_image.py, linker.ld), then the file is checked: no run of zeros over
# 4 KiB (zeros belong in .bss), every initialised section within its budget
# (IMAGE_BUDGETS), the whole within IMAGE_MAX.
$(B)/pmuboot.efi: $(B)/pmuboot.so $(B)/pmuboot.debug tools/pe_image.py Makefile
	$(Q)$(OBJCOPY) -j .text -j .sdata -j .data -j .bss -j .dynamic -j .rel -j .rela -j .reloc \
		--strip-all --target efi-app-x86_64 --subsystem=10 $< $@
	$(Q)$(PYTHON) tools/pe_image.py fold-bss $@ || { rm -f $@; exit 1; }
	$(Q)$(PYTHON) tools/pe_image.py check $@ --max-zero-run 4096 $(IMAGE_BUDGETS) || { rm -f $@; exit 1; }
	@size=$$(stat -c %s $@); echo "$@: $$size bytes"; \
	if [ $$size -gt $(IMAGE_MAX) ]; then echo "error: $@ is larger than $(IMAGE_MAX) bytes" >&2; rm -f $@; exit 1; fi

# The image's size by part: code, event catalogue (by table), strings, other data,
# relocations, .bss (tools/image_size.py, from the linker map and the PE headers).
size: $(B)/pmuboot.efi
	@$(PYTHON) tools/image_size.py --build $(B)

$(B)/libpmuboot.a: $(HOST_LIB_OBJS)
	@rm -f $@
	$(Q)ar rcsD $@ $^
$(B)/libfake.a: $(FAKE_OBJS)
	@rm -f $@
	$(Q)ar rcsD $@ $^

$(B)/pmuboot-host: $(HOST_ONLY_OBJS) $(B)/libpmuboot.a
	@$(if $(Q),echo '  LINK   $@')
	$(Q)$(CC) -o $@ $(HOST_ONLY_OBJS) $(B)/libpmuboot.a

# The unit tests' clock is the fake CPU's (tests/fake/measure_fake.h): its bench_measure is linked ahead of
# the libraries, so bench/measure.asm, which reads the real TSC, never is.
FAKE_CLOCK_OBJ := $(B)/host/tests/fake/measure_fake.o

$(B)/tests/%: tests/unit/%.c $(FAKE_CLOCK_OBJ) $(B)/libpmuboot.a $(B)/libfake.a $(B)/gen/version.h $(GEN_DEPS)
	@mkdir -p $(@D)
	@$(if $(Q),echo '  TEST   $@')
	@# libfake.a again after the library: fakes only library code calls (platform/guard.h) are found too.
	$(Q)$(CC) $(HOST_CFLAGS) -MMD -MP -o $@ $< $(FAKE_CLOCK_OBJ) $(B)/libfake.a $(B)/libpmuboot.a $(B)/libfake.a -lcmocka

unit: $(UNIT_TESTS)

deps:
	@tools/deps.sh

# The builds these targets start use every CPU unless the command line chose (`make -j1 test`): make
# test's build from a fresh clone took 82 s on 2 CPUs one job at a time, 40 s at -j2 (the image is
# byte-identical at -j1, -j2, -j3, -j8 and -j16).
BUILD_JOBS = $(if $(findstring j,$(filter-out --%,$(MAKEFLAGS))),,-j$(shell nproc 2>/dev/null || echo 1))

# The two README commands.  Both install what is missing first.
# The compiler's lines go to $(B)/build.log (V=1 shows them); the terminal gets the results table.
run:
	@tools/deps.sh --quiet --for run
	@mkdir -p $(B)
	@echo "build: $(B)/pmuboot.efi$(if $(V),, (compiler output in $(B)/build.log))"
	@$(MAKE) --no-print-directory $(BUILD_JOBS) image $(if $(V),,> $(B)/build.log 2>&1) || \
		{ $(if $(V),,tail -n 40 $(B)/build.log;) echo "build: failed$(if $(V),, (all of it in $(B)/build.log))"; exit 2; }
	@tools/run-qemu --table --efi $(B)/pmuboot.efi --keep $(B)/run $(RUN_ARGS)

# The tests in three tiers (tests/tiers.cfg, tests/qemu/matrix.cfg; docs/testing.md): make test runs
# the first two, CI runs make test, and make test-slow the third.
check:
	@tools/deps.sh --quiet --for test
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all unit
	@PMUBOOT_BUILD=$(B) $(PYTHON) tests/run.py --tier check $(TEST_ARGS)

test:
	@tools/deps.sh --quiet --for test
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all unit
	@PMUBOOT_BUILD=$(B) $(PYTHON) tests/run.py --tier check,test $(TEST_ARGS)

test-slow:
	@tools/deps.sh --quiet --for test
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all unit test-builds
	@PMUBOOT_BUILD=$(B) $(PYTHON) tests/run.py --tier slow $(TEST_ARGS)

bench:
	@tools/deps.sh --quiet --for bench
	@$(MAKE) --no-print-directory $(BUILD_JOBS) host $(B)/chase-probe
	@$(PYTHON) tools/bench-table.py $(B)/pmuboot-host probe=$(B)/chase-probe

# The instruction table beside an independent probe of some fifty forms (docs/benchmarks.md "make bench-instr").
bench-instr:
	@tools/deps.sh --quiet --for bench
	@$(MAKE) --no-print-directory $(BUILD_JOBS) host $(B)/instr-probe
	@$(PYTHON) tools/instr-probe.py $(B)/pmuboot-host $(B)/instr-probe

# Intel syntax for the kernels' inline assembly; no pmuboot code in it.
$(B)/instr-probe: tools/probe/instr_probe.c
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -masm=intel -o $@ $<

# The independent pointer chase `make bench` measures the machine's own drift with (no pmuboot code in it).
$(B)/chase-probe: tools/probe/chase_probe.c tools/probe/forward.c tools/probe/forward.h
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -I. -o $@ tools/probe/chase_probe.c tools/probe/forward.c

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
