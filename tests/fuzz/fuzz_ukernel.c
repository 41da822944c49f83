/*
 * tests/fuzz/fuzz_ukernel.c - fuzz target for the kernel file reader (bench/ukernel.c).
 *
 * ukernel_fuzz_one is a libFuzzer-style entry: any bytes in, never a crash,
 * and whatever the reader accepts must encode back to exactly the same
 * bytes (the format has one spelling per kernel), and a refusal must say why.
 * LLVMFuzzerTestOneInput calls it: linked with -fsanitize=fuzzer that is a
 * fuzzer; linked with tests/fuzz/replay.c it replays a corpus and
 * deterministic mutations of it (tests/host/test_ukernel_fuzz.py does both).
 *   clang -fsanitize=fuzzer,address -DPMUBOOT_HOSTED -I. tests/fuzz/fuzz_ukernel.c \
 *         bench/ukernel.c bench/ukernel_encode_host.c lib/crc32.c -o ukernel_fuzz && ./ukernel_fuzz tests/fuzz/corpus/ukernel
 */
#include "bench/ukernel.h"

int ukernel_fuzz_one(const uint8_t *data, size_t size);

int ukernel_fuzz_one(const uint8_t *data, size_t size)
{
	static struct ukernel k;
	static uint8_t again[UK_FILE_MAX];
	char why[256];

	why[0] = 0;
	if (!ukernel_parse(data, size, &k, why, sizeof(why))) {
		if (!why[0])
			__builtin_trap();	/* a refusal without a reason */
		return 0;
	}
	size_t n = ukernel_encode(&k, again, sizeof(again), why, sizeof(why));
	if (n != size || memcmp(again, data, size) != 0)
		__builtin_trap();	/* accepted, but not what it re-encodes to */
	/* The hex reader sees the body as the config option would give it. */
	static char hex[2 * UK_BODY_MAX + 1];
	static struct ukernel h;
	ukernel_hex(k.body, k.body_len, hex, sizeof(hex));
	if (!ukernel_from_hex(k.name, strlen(k.name), hex, strlen(hex), &h, why, sizeof(why)) ||
	    h.body_len != k.body_len || memcmp(h.body, k.body, k.body_len) != 0) {
		/* Refused only when the default unroll times the body is too long. */
		if (ukernel_unroll(&h) * (uint32_t)k.body_len <= UK_UNROLLED_MAX)
			__builtin_trap();
	}
	return 0;
}

/* The libFuzzer entry (also what tests/fuzz/replay.c calls). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return ukernel_fuzz_one(data, size); }
