# tests/fuzz/module.mk - fuzz harnesses for every parser of outside bytes (docs/fuzzing.md).
#
#   make fuzz [FUZZ_SECONDS=30] [FUZZ_TARGETS="config spcr"]
#       one libFuzzer session per harness (clang -fsanitize=fuzzer,address,undefined),
#       FUZZ_SECONDS each, starting from tests/fuzz/corpus/<name>/; new inputs go to
#       $(B)/fuzz/corpus/<name>/, crashes to $(B)/fuzz/crashes/<name>/.
#   make fuzz-replay
#       $(B)/fuzz/replay_<name>: the harness with a plain main() (any compiler) that
#       replays files; make test builds these with ASan+UBSan and runs every corpus.

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
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $< tests/fuzz/replay_main.c $(B)/libfake.a $(B)/libpmuboot.a

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

fuzz:
	@tools/deps.sh --quiet --for fuzz
	@$(MAKE) --no-print-directory fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(B)/fuzz/corpus/$$t $(B)/fuzz/crashes/$$t; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
		$(B)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
			-artifact_prefix=$(B)/fuzz/crashes/$$t/ -print_final_stats=1 \
			$(B)/fuzz/corpus/$$t tests/fuzz/corpus/$$t 2>$(B)/fuzz/$$t.log \
			|| { echo "fuzz: $$t FOUND A PROBLEM: see $(B)/fuzz/$$t.log and $(B)/fuzz/crashes/$$t/"; tail -30 $(B)/fuzz/$$t.log; exit 1; }; \
		grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' $(B)/fuzz/$$t.log | tr '\n' ' '; echo; \
	done
