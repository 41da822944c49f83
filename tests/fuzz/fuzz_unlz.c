/*
 * Fuzz target: lib/unlz.c, the decoder of the image's compressed tables (a damaged image hands it
 * any bytes).  The first two bytes are the output size (little-endian), the rest the stream.  The
 * stream is decoded into exactly that many bytes followed by guard bytes, and as a blob of two
 * filtered tables (planes of 8, rising 16-bit offsets).  Promises: nothing written past the output
 * (the guard) or read past the input (ASan: the stream is copied to a buffer of its exact size);
 * a decoded stream used all its bytes; a status always has a name.
 */
#include "tests/fuzz/fuzz.h"
#include "lib/unlz.h"

#define GUARD 32
#define GUARD_BYTE 0x5A

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t out_n = (size_t)data[0] | (size_t)data[1] << 8, in_n = size - 2, at = 0;
	uint8_t *in = malloc(in_n ? in_n : 1), *out = malloc(out_n + GUARD);
	FUZZ_CHECK(in && out);
	if (in_n)
		memcpy(in, data + 2, in_n);
	memset(out, GUARD_BYTE, out_n + GUARD);
	enum unlz_status st = unlz(in, in_n, out, out_n, &at);
	for (size_t k = 0; k < GUARD; k++)
		FUZZ_CHECK(out[out_n + k] == GUARD_BYTE);
	FUZZ_CHECK(at <= in_n);
	FUZZ_CHECK(st != UNLZ_OK || at == in_n);
	FUZZ_CHECK(unlz_status_name(st)[0] != 0);

	/* The same bytes as a blob: two tables filling out_n (rounded to 8), each filter undone. */
	uint32_t half = (uint32_t)(out_n / 16 * 8);
	const struct unlz_table dir[] = { { 0, half, 8, 0 }, { half, (uint32_t)out_n - half, 2, 1 } };
	const struct unlz_blob b = { in, (uint32_t)in_n, dir, 2, (uint32_t)out_n,
				     (uint32_t)(out_n - half > half ? out_n - half : half), 0 };
	size_t room = unlz_tables_room(&b);
	uint8_t *buf = malloc(room + GUARD);
	FUZZ_CHECK(buf != NULL);
	memset(buf, GUARD_BYTE, room + GUARD);
	st = unlz_tables(&b, buf, room);
	for (size_t k = 0; k < GUARD; k++)
		FUZZ_CHECK(buf[room + k] == GUARD_BYTE);
	FUZZ_CHECK(unlz_status_name(st)[0] != 0);
	free(buf);
	free(in);
	free(out);
	return 0;
}
