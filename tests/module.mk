# tests/module.mk - test builds beyond build/tests: sanitizers, a second compiler, fuzzing.
#
#   make test-builds    what make test-slow needs besides `all unit`: the unit tests and the
#                       fuzz corpus replayers built with ASan+UBSan in $(B)/asan
#   make fuzz           libFuzzer sessions, one per harness (tests/fuzz/module.mk)
#
# tests/host/test_sanitizers.py runs those binaries and compiles the host build with
# clang and with gcc -O2 -Wformat-truncation=2, each as a counted test of the slow tier.

# Extra flags for the hosted build, for the builds below (e.g. sanitizers).
HOST_EXTRA_CFLAGS ?=
HOST_CFLAGS += $(HOST_EXTRA_CFLAGS)

SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_B := $(B)/asan

include tests/fuzz/module.mk

.PHONY: test-builds asan-unit
test-builds: asan-unit

# The sanitizer build is its own tree: a recursive make with another build directory.
asan-unit:
	@$(MAKE) --no-print-directory B=$(SAN_B) HOST_EXTRA_CFLAGS="$(SAN_FLAGS)" unit fuzz-replay
