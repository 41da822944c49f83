# tests/fuzz/module.mk - fuzz harnesses for every parser of outside bytes (docs/fuzzing.md).
#
#   make fuzz [FUZZ_SECONDS=30] [FUZZ_TARGETS="config spcr"]
#       one libFuzzer session per harness (clang -fsanitize=fuzzer,address,undefined),
#       FUZZ_SECONDS each, starting from tests/fuzz/corpus/<name>/; new inputs go to
#       $(B)/fuzz/corpus/<name>/, crashes to $(B)/fuzz/crashes/<name>/.  Every harness runs
#       to its budget and is reported (tests/fuzz/sessions.py); a finding never stops the others.
#   make fuzz-replay
#       $(B)/fuzz/replay_<name>: the harness with a plain main() (any compiler) that
#       replays files; make test-slow builds these with ASan+UBSan and runs every corpus.

FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_SECONDS ?= 20
FUZZ_CC ?= clang
FUZZ_FLAGS := -std=gnu11 -g -O1 -DPMUBOOT_HOSTED -I$(B)/gen -I. -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all
# Recursive (=): this file is read before the Makefile lists the sources.
FUZZ_LIB_SRC = $(PORTABLE_C) $(HOSTED_C) $(FAKE_C)

.PHONY: fuzz fuzz-replay fuzz-build
fuzz-replay: $(patsubst %,$(B)/fuzz/replay_%,$(FUZZ_NAMES))

$(B)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c tests/fuzz/fuzz.h $(B)/libpmuboot.a $(B)/libfake.a
	@mkdir -p $(@D)
	@$(if $(Q),echo '  FUZZ   $@')
	@# libfake.a again after the library: fakes only library code calls (platform/hw.h's OS word) are found too.
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $< tests/fuzz/replay_main.c $(B)/libfake.a $(B)/libpmuboot.a $(B)/libfake.a

# libFuzzer binaries: the library is compiled again with clang's fuzzer coverage.
FUZZ_OBJS = $(patsubst %.c,$(B)/fuzz/obj/%.o,$(FUZZ_LIB_SRC)) $(patsubst %,$(B)/fuzz/obj/%.o,$(GEN_C)) \
	$(patsubst %.asm,$(B)/host/%.o,$(PORTABLE_ASM))
$(B)/fuzz/obj/%.o: %.c $(B)/gen/version.h $(GEN_DEPS)
	@mkdir -p $(@D)
	@$(if $(Q),echo '  CC     $< (fuzz)')
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(B)/fuzz/obj/$(B)/%.c.o: $(B)/%.c $(B)/gen/version.h
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
# Second expansion: the object list is known only once the whole Makefile is read.
.SECONDEXPANSION:
$(B)/fuzz/libfuzzlib.a: $$(FUZZ_OBJS)
	@rm -f $@
	$(Q)ar rcsD $@ $^
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(B)/fuzz/libfuzzlib.a
	@$(if $(Q),echo '  FUZZ   $@ (libFuzzer)')
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(B)/fuzz/libfuzzlib.a

fuzz-build: $(patsubst %,$(B)/fuzz/fuzz_%,$(FUZZ_TARGETS))

# Every harness runs for its budget and is reported, whatever the others do (tests/fuzz/sessions.py);
# one that fails to build is reported as such. The exit status is non-zero when any failed.
fuzz:
	@tools/deps.sh --quiet --for fuzz
	@$(MAKE) --no-print-directory -k fuzz-build || echo "fuzz: some harnesses did not build (reported below)"
	@python3 tests/fuzz/sessions.py --build $(B) --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)
