/*
 * lib/unlz.h - inflating what tools/lzpack.py compressed: its LZ77 stream, and a blob of tables
 * stored filtered and compressed with a small directory.
 *
 * The stream (tools/lzpack.py has the whole description): commands of a token byte
 *	bits 7:5  literal count 0..6 (7: 7 + a varint)
 *	bit  4    the match reuses the previous offset
 *	bits 3:0  match length - UNLZ_MIN_MATCH, 0..14 (15: 15 + a varint)
 * then [varint] literals [varint] [offset - 1 as a varint]; a varint is 7 bits a byte, low first,
 * bit 7 on all but the last.  The stream ends after its last command's literals.
 *
 * Why our own: the image carries its event catalogue and its top-down metric tables compressed,
 * and needs a decoder of a few hundred bytes that cannot be made to read or write out of bounds
 * by a damaged image; no entropy coder, so decoding 160 KiB takes a millisecond or so.
 */
#ifndef PMUBOOT_LIB_UNLZ_H
#define PMUBOOT_LIB_UNLZ_H

#include "lib/libc.h"

#define UNLZ_MIN_MATCH		3
#define UNLZ_TOKEN_LIT_SHIFT	5
#define UNLZ_TOKEN_LIT_MAX	7u	/* bits 7:5 at this: a varint follows */
#define UNLZ_TOKEN_REP		0x10u
#define UNLZ_TOKEN_LEN_MAX	15u	/* bits 3:0 at this: a varint follows */
#define UNLZ_VARINT_MAX_BYTES	4	/* 28 bits */

enum unlz_status {
	UNLZ_OK,
	UNLZ_TRUNCATED,		/* the stream ends inside a command */
	UNLZ_OVERRUN,		/* a literal run or match passes the end of the output */
	UNLZ_BAD_OFFSET,	/* a match reaches back before the output's start, or repeats no offset */
	UNLZ_BAD_VARINT,	/* a varint longer than UNLZ_VARINT_MAX_BYTES */
	UNLZ_SHORT,		/* the stream ends before the output is full */
	UNLZ_BAD_END,		/* the last command announces a match it does not have */
	UNLZ_NO_MEMORY,		/* unlz_tables: the buffer given is too small */
	UNLZ_BAD_DIRECTORY,	/* unlz_tables: a table outside the inflated size, or a filter it cannot undo */
	UNLZ_BAD_CRC,		/* unlz_tables: the inflated tables are not the ones the generator wrote */
};

/*
 * Inflates stream[0 .. in_n) into exactly out_n bytes at out.  Never reads past the stream nor
 * writes past out + out_n; anything but a stream that makes exactly out_n bytes is an error
 * (UNLZ_OK or the status naming what is wrong; *at, when not NULL, is the stream byte it was at).
 */
enum unlz_status unlz(const uint8_t *stream, size_t in_n, uint8_t *out, size_t out_n, size_t *at);

/* One table of a blob: where it is in the inflated buffer, and its filter (tools/lzpack.py
 * filter_table): stored by byte planes of `stride` bytes, and when `delta`, each stride-byte
 * little-endian element as the difference from the one before. */
struct unlz_table {
	uint32_t offset, size;
	uint8_t stride, delta;
};

/* What a generator emits (tools/lzpack.py Blob.emit_c). */
struct unlz_blob {
	const uint8_t *stream;
	uint32_t stream_n;
	const struct unlz_table *dir;
	uint32_t dir_n;
	uint32_t size;		/* the inflated tables */
	uint32_t largest;	/* the largest table: the room unlz_tables needs beyond size */
	uint32_t crc;		/* CRC-32 (lib/crc32.h) of the inflated tables */
};

/* The buffer unlz_tables needs: the tables, and behind them room to inflate the largest. */
static inline size_t unlz_tables_room(const struct unlz_blob *b)
{
	return (size_t)b->size + b->largest;
}

/*
 * Inflates the blob into buf (cap bytes, at least unlz_tables_room) and undoes each table's
 * filter: the tables are then at buf + dir[i].offset, checked against the CRC.  On an error
 * buf holds nothing usable.
 */
enum unlz_status unlz_tables(const struct unlz_blob *b, uint8_t *buf, size_t cap);

/* A few words for a status ("truncated stream", ...). */
const char *unlz_status_name(enum unlz_status s);

#endif
