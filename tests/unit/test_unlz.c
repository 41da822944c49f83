/*
 * lib/unlz.c against streams tools/lzpack.py made at build time ($(B)/gen/unlz_vectors.h): every
 * vector inflates to its input (tools/lzpack.py refuses vectors that leave a form of the format
 * unused); every truncation, wrong output size and damaged byte fails cleanly
 * (no write past the output, which guard bytes check, and no read past the input, which the
 * sanitizer build checks: inputs are copied to buffers of their exact size); hand-made streams
 * with bad offsets, lengths and varints are refused with the status naming why; the blob's filters
 * and CRC; and the real event catalogue inflates in milliseconds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/unlz.h"
#include "events/events_table.h"
#include "unlz_vectors.h"

#define GUARD 64
#define GUARD_BYTE 0xA5
#define CATALOGUE_RUNS 5
#define CATALOGUE_MAX_NS (50u * 1000 * 1000)	/* "milliseconds": far above what it takes */

/* Inflates stream[0..in_n) (copied to a buffer of exactly that size) into out_n bytes followed by
 * guard bytes; fails the test when a guard byte changed.  *out (malloc'd) gets the output. */
static enum unlz_status run(const uint8_t *stream, size_t in_n, size_t out_n, uint8_t **out, size_t *at)
{
	uint8_t *in = malloc(in_n ? in_n : 1);
	uint8_t *buf = malloc(out_n + GUARD);
	assert_non_null(in);
	assert_non_null(buf);
	if (in_n)
		memcpy(in, stream, in_n);
	memset(buf, GUARD_BYTE, out_n + GUARD);
	enum unlz_status st = unlz(in, in_n, buf, out_n, at);
	for (size_t k = 0; k < GUARD; k++)
		if (buf[out_n + k] != GUARD_BYTE)
			fail_msg("a write past the output (%zu bytes) at +%zu", out_n, k);
	free(in);
	if (out)
		*out = buf;
	else
		free(buf);
	return st;
}

static void every_vector_round_trips(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(unlz_vectors); i++) {
		const struct unlz_vector *v = &unlz_vectors[i];
		uint8_t *out;
		size_t at = 0;
		enum unlz_status st = run(v->stream, v->stream_n, v->raw_n, &out, &at);
		if (st != UNLZ_OK)
			fail_msg("%s: %s at byte %zu", v->name, unlz_status_name(st), at);
		assert_int_equal(at, v->stream_n);
		if (v->raw_n)
			assert_memory_equal(out, v->raw, v->raw_n);
		free(out);
	}
}

static void every_truncation_fails(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(unlz_vectors); i++) {
		const struct unlz_vector *v = &unlz_vectors[i];
		/* Every prefix of the small streams; of the large ones a stride of them and the last 64. */
		size_t step = v->stream_n > 4096 ? 97 : 1;
		for (size_t n = 0; n < v->stream_n; n += (n + 64 >= v->stream_n ? 1 : step)) {
			enum unlz_status st = run(v->stream, n, v->raw_n, NULL, NULL);
			if (st == UNLZ_OK)
				fail_msg("%s: the first %zu of %zu bytes inflated", v->name, n, v->stream_n);
		}
	}
}

static void wrong_output_size_fails(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(unlz_vectors); i++) {
		const struct unlz_vector *v = &unlz_vectors[i];
		if (v->raw_n)
			assert_int_equal(run(v->stream, v->stream_n, v->raw_n - 1, NULL, NULL), UNLZ_OVERRUN);
		assert_int_equal(run(v->stream, v->stream_n, v->raw_n + 1, NULL, NULL), UNLZ_SHORT);
	}
}

/* Each byte of each stream changed three ways: never a write past the output or a read past the
 * input, and a stream that still inflates has used all its bytes. */
static void damaged_bytes_fail_cleanly(void **state)
{
	(void)state;
	static const uint8_t flips[] = { 0x01, 0x80, 0xFF };
	for (size_t i = 0; i < ARRAY_SIZE(unlz_vectors); i++) {
		const struct unlz_vector *v = &unlz_vectors[i];
		uint8_t *copy = malloc(v->stream_n ? v->stream_n : 1);
		assert_non_null(copy);
		size_t step = v->stream_n > 4096 ? 89 : 1;
		for (size_t k = 0; k < v->stream_n; k += step)
			for (size_t f = 0; f < ARRAY_SIZE(flips); f++) {
				size_t at = 0;
				memcpy(copy, v->stream, v->stream_n);
				copy[k] ^= flips[f];
				if (run(copy, v->stream_n, v->raw_n, NULL, &at) == UNLZ_OK)
					assert_int_equal(at, v->stream_n);
			}
		free(copy);
	}
}

static void check_stream(const uint8_t *s, size_t n, size_t out_n, enum unlz_status want)
{
	enum unlz_status st = run(s, n, out_n, NULL, NULL);
	if (st != want)
		fail_msg("got '%s', expected '%s'", unlz_status_name(st), unlz_status_name(want));
}

/* Streams written by hand, each wrong in one way. */
static void bad_streams_say_why(void **state)
{
	(void)state;
	/* "ab", then a match of 3 at offset 3: before the output's start. */
	static const uint8_t far_back[] = { 2 << 5, 'a', 'b', 2, 0x00 };
	/* "ab", then a match of 3 at offset 2 (fine), then a final command: 5 bytes. */
	static const uint8_t good[] = { 2 << 5, 'a', 'b', 1, 0x00 };
	/* A match repeating the previous offset before there was one. */
	static const uint8_t rep_first[] = { 1 << 5 | UNLZ_TOKEN_REP, 'a', 0x00 };
	/* A match whose length varint says 2^21 more. */
	static const uint8_t too_long[] = { 1 << 5 | UNLZ_TOKEN_LEN_MAX, 'a', 0x80, 0x80, 0x01, 0x00, 0x00 };
	/* A literal count varint of five bytes. */
	static const uint8_t overlong[] = { 7 << 5, 0x80, 0x80, 0x80, 0x80, 0x00 };
	/* The last command announcing a match it does not have. */
	static const uint8_t bad_end[] = { 1 << 5 | 2, 'a' };
	/* A literal run longer than the stream. */
	static const uint8_t short_lits[] = { 5 << 5, 'a', 'b' };
	/* An offset varint cut off. */
	static const uint8_t cut_offset[] = { 2 << 5, 'a', 'b', 0x80 };

	check_stream(good, sizeof(good), 5, UNLZ_OK);
	check_stream(far_back, sizeof(far_back), 5, UNLZ_BAD_OFFSET);
	check_stream(rep_first, sizeof(rep_first), 4, UNLZ_BAD_OFFSET);
	check_stream(too_long, sizeof(too_long), 1000, UNLZ_OVERRUN);
	check_stream(overlong, sizeof(overlong), 1000, UNLZ_BAD_VARINT);
	check_stream(bad_end, sizeof(bad_end), 1, UNLZ_BAD_END);
	check_stream(short_lits, sizeof(short_lits), 5, UNLZ_TRUNCATED);
	check_stream(cut_offset, sizeof(cut_offset), 5, UNLZ_TRUNCATED);
	check_stream(NULL, 0, 0, UNLZ_TRUNCATED);
	assert_string_equal(unlz_status_name(UNLZ_BAD_CRC), "CRC mismatch: the tables are damaged");
	assert_string_equal(unlz_status_name((enum unlz_status)99), "unknown status");
}

static uint8_t *blob_buffer(const struct unlz_blob *b)
{
	uint8_t *buf = malloc(unlz_tables_room(b));
	assert_non_null(buf);
	return buf;
}

static void blob_inflates_to_its_tables(void **state)
{
	(void)state;
	uint8_t *buf = blob_buffer(&vblob);
	assert_int_equal(vblob.size, sizeof(vblob_layout));
	assert_int_equal(unlz_tables(&vblob, buf, unlz_tables_room(&vblob)), UNLZ_OK);
	assert_memory_equal(buf, vblob_layout, sizeof(vblob_layout));
	/* Every filter is there to be undone. */
	bool planes = false, delta = false;
	for (uint32_t i = 0; i < vblob.dir_n; i++) {
		planes |= vblob.dir[i].stride > 1 && vblob.dir[i].size % vblob.dir[i].stride;
		delta |= vblob.dir[i].delta;
	}
	assert_true(planes && delta);
	assert_int_equal(unlz_tables(&vblob, buf, unlz_tables_room(&vblob) - 1), UNLZ_NO_MEMORY);
	free(buf);
}

/* Any changed byte of the stream: an error from the decoder or the CRC, never wrong tables (a byte of
 * alignment padding may change unseen: the padding is zeroed, so the tables are still right). */
static void damaged_blob_is_refused(void **state)
{
	(void)state;
	uint8_t *buf = blob_buffer(&vblob), *copy = malloc(vblob.stream_n);
	unsigned refused = 0;
	assert_non_null(copy);
	for (uint32_t k = 0; k < vblob.stream_n; k++) {
		struct unlz_blob b = vblob;
		memcpy(copy, vblob.stream, vblob.stream_n);
		copy[k] ^= 0x20;
		b.stream = copy;
		if (unlz_tables(&b, buf, unlz_tables_room(&b)) != UNLZ_OK)
			refused++;
		else if (memcmp(buf, vblob_layout, sizeof(vblob_layout)))
			fail_msg("the blob with byte %u changed inflated to wrong tables", k);
	}
	assert_true(refused > vblob.stream_n * 9 / 10);
	struct unlz_blob b = vblob;
	b.crc ^= 1;
	assert_int_equal(unlz_tables(&b, buf, unlz_tables_room(&b)), UNLZ_BAD_CRC);
	free(copy);
	free(buf);
}

static void bad_directory_is_refused(void **state)
{
	(void)state;
	uint8_t *buf = blob_buffer(&vblob);
	struct unlz_table dir[16];
	assert_true(vblob.dir_n >= 2 && vblob.dir_n <= ARRAY_SIZE(dir));
	struct unlz_blob b = vblob;
	b.dir = dir;

	memcpy(dir, vblob.dir, vblob.dir_n * sizeof(*dir));
	dir[vblob.dir_n - 1].size += 8;			/* past the inflated size */
	assert_int_equal(unlz_tables(&b, buf, unlz_tables_room(&b)), UNLZ_BAD_DIRECTORY);
	memcpy(dir, vblob.dir, vblob.dir_n * sizeof(*dir));
	dir[1].offset = dir[0].offset;			/* two tables on one place */
	assert_int_equal(unlz_tables(&b, buf, unlz_tables_room(&b)), UNLZ_BAD_DIRECTORY);
	memcpy(dir, vblob.dir, vblob.dir_n * sizeof(*dir));
	dir[0].stride = 3;				/* differences of 3-byte elements */
	dir[0].delta = 1;
	assert_int_equal(unlz_tables(&b, buf, unlz_tables_room(&b)), UNLZ_BAD_DIRECTORY);
	memcpy(dir, vblob.dir, vblob.dir_n * sizeof(*dir));
	dir[0].stride = 0;
	assert_int_equal(unlz_tables(&b, buf, unlz_tables_room(&b)), UNLZ_BAD_DIRECTORY);
	b = vblob;
	b.largest = 8;					/* a table bigger than the room said */
	assert_int_equal(unlz_tables(&b, buf, unlz_tables_room(&b)), UNLZ_BAD_DIRECTORY);
	free(buf);
}

/* This thread's CPU time: what inflating costs, not how long other tenants of a busy host kept it waiting. */
static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The image's own blob: it inflates, checked by its CRC, in milliseconds (the boot pays it once). */
static void catalogue_inflates_in_milliseconds(void **state)
{
	(void)state;
	uint8_t *buf = blob_buffer(&events_blob);
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < CATALOGUE_RUNS; r++) {
		uint64_t t0 = now_ns();
		assert_int_equal(unlz_tables(&events_blob, buf, unlz_tables_room(&events_blob)), UNLZ_OK);
		uint64_t t = now_ns() - t0;
		best = t < best ? t : best;
	}
	printf("catalogue: %u bytes inflated to %u in %llu us (best of %d; CRC included)\n",
	       (unsigned)events_blob.stream_n, (unsigned)events_blob.size, (unsigned long long)(best / 1000),
	       CATALOGUE_RUNS);
	assert_true(best < CATALOGUE_MAX_NS);
	assert_true(events_blob.stream_n < events_blob.size / 2);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_vector_round_trips),
		cmocka_unit_test(every_truncation_fails),
		cmocka_unit_test(wrong_output_size_fails),
		cmocka_unit_test(damaged_bytes_fail_cleanly),
		cmocka_unit_test(bad_streams_say_why),
		cmocka_unit_test(blob_inflates_to_its_tables),
		cmocka_unit_test(damaged_blob_is_refused),
		cmocka_unit_test(bad_directory_is_refused),
		cmocka_unit_test(catalogue_inflates_in_milliseconds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
