/* lib/unlz.c - see unlz.h.  Every length read from the stream is checked against what is left of
 * the input and the output before a byte moves. */
#include "lib/unlz.h"
#include "lib/crc32.h"

struct reader {
	const uint8_t *p, *end;
};

static bool read_varint(struct reader *r, size_t *v, enum unlz_status *st)
{
	*v = 0;
	for (unsigned k = 0; k < UNLZ_VARINT_MAX_BYTES; k++) {
		if (r->p == r->end) {
			*st = UNLZ_TRUNCATED;
			return false;
		}
		uint8_t b = *r->p++;
		*v |= (size_t)(b & 0x7Fu) << (7 * k);
		if (!(b & 0x80u))
			return true;
	}
	*st = UNLZ_BAD_VARINT;
	return false;
}

static enum unlz_status inflate(struct reader *r, uint8_t *out, size_t out_n)
{
	size_t w = 0, last = 0, n;
	enum unlz_status st = UNLZ_OK;

	for (;;) {
		if (r->p == r->end)
			return UNLZ_TRUNCATED;	/* every stream ends with a command of literals */
		uint8_t t = *r->p++;
		n = t >> UNLZ_TOKEN_LIT_SHIFT;
		if (n == UNLZ_TOKEN_LIT_MAX) {
			size_t more;
			if (!read_varint(r, &more, &st))
				return st;
			n += more;
		}
		if (n > (size_t)(r->end - r->p))
			return UNLZ_TRUNCATED;
		if (n > out_n - w)
			return UNLZ_OVERRUN;
		if (n)
			memcpy(out + w, r->p, n);
		r->p += n;
		w += n;
		if (r->p == r->end) {
			if (t & (UNLZ_TOKEN_REP | UNLZ_TOKEN_LEN_MAX))
				return UNLZ_BAD_END;
			return w == out_n ? UNLZ_OK : UNLZ_SHORT;
		}

		size_t len = (t & UNLZ_TOKEN_LEN_MAX) + (size_t)UNLZ_MIN_MATCH, off;
		if ((t & UNLZ_TOKEN_LEN_MAX) == UNLZ_TOKEN_LEN_MAX) {
			size_t more;
			if (!read_varint(r, &more, &st))
				return st;
			len += more;
		}
		if (t & UNLZ_TOKEN_REP) {
			off = last;
		} else {
			if (!read_varint(r, &off, &st))
				return st;
			off++;
		}
		if (!off || off > w)
			return UNLZ_BAD_OFFSET;
		if (len > out_n - w)
			return UNLZ_OVERRUN;
		/* Byte by byte: a match may overlap what it writes (offset 1 repeats one byte). */
		for (const uint8_t *from = out + w - off; len; len--)
			out[w++] = *from++;
		last = off;
	}
}

enum unlz_status unlz(const uint8_t *stream, size_t in_n, uint8_t *out, size_t out_n, size_t *at)
{
	struct reader r = { stream, stream + in_n };
	enum unlz_status st = stream || !in_n ? inflate(&r, out, out_n) : UNLZ_TRUNCATED;
	if (at)
		*at = (size_t)(r.p - stream);
	return st;
}

/* Table bytes stored by planes (src) back into elements of `stride` bytes (dst); the tail that fills
 * no element is stored as is.  dst and src do not overlap. */
static void unplane(uint8_t *dst, const uint8_t *src, size_t size, unsigned stride)
{
	size_t n = size / stride;
	for (unsigned j = 0; j < stride; j++)
		for (size_t k = 0; k < n; k++)
			dst[k * stride + j] = src[j * n + k];
	memcpy(dst + n * stride, src + n * stride, size - n * stride);
}

/* Running sums of little-endian `stride`-byte elements, in place. */
static void undelta(uint8_t *p, size_t size, unsigned stride)
{
	uint64_t acc = 0;
	for (size_t k = 0; k + stride <= size; k += stride) {
		uint64_t v = 0;
		for (unsigned b = 0; b < stride; b++)
			v |= (uint64_t)p[k + b] << (8 * b);
		acc += v;
		for (unsigned b = 0; b < stride; b++)
			p[k + b] = (uint8_t)(acc >> (8 * b));
	}
}

/*
 * The stream is inflated at buf + largest, then each table is unfiltered down to its place at
 * buf + offset, in directory order.  A table never reaches what is still to be read: it ends at
 * offset + size <= offset + largest, where its own stored bytes begin, and the tables after it are
 * stored further on still.
 */
enum unlz_status unlz_tables(const struct unlz_blob *b, uint8_t *buf, size_t cap)
{
	if (!b || !buf || cap < unlz_tables_room(b))
		return UNLZ_NO_MEMORY;
	uint8_t *stored = buf + b->largest;
	uint64_t end = 0;
	for (uint32_t i = 0; i < b->dir_n; i++) {
		const struct unlz_table *t = &b->dir[i];
		bool delta_ok = t->stride == 2 || t->stride == 4 || t->stride == 8;
		if (t->offset < end || (uint64_t)t->offset + t->size > b->size || t->size > b->largest ||
		    !t->stride || (t->delta && !delta_ok))
			return UNLZ_BAD_DIRECTORY;
		end = (uint64_t)t->offset + t->size;
	}
	enum unlz_status st = unlz(b->stream, b->stream_n, stored, b->size, NULL);
	if (st != UNLZ_OK)
		return st;
	end = 0;
	for (uint32_t i = 0; i < b->dir_n; i++) {
		const struct unlz_table *t = &b->dir[i];
		memset(buf + end, 0, t->offset - end);		/* alignment padding: zero, as stored */
		if (t->stride > 1)
			unplane(buf + t->offset, stored + t->offset, t->size, t->stride);
		else
			memmove(buf + t->offset, stored + t->offset, t->size);
		if (t->delta)
			undelta(buf + t->offset, t->size, t->stride);
		end = (uint64_t)t->offset + t->size;
	}
	memset(buf + end, 0, b->size - end);
	return crc32_update(CRC32_INIT, buf, b->size) == b->crc ? UNLZ_OK : UNLZ_BAD_CRC;
}

/* In enum unlz_status order; one string, not an array of pointers: no relocations in the image. */
static const char status_names[] = "ok\0truncated stream\0a run passes the end of the output\0"
	"a match reaches before the output\0an overlong number\0the stream ends before the output is full\0"
	"the last command announces a match\0no memory for the tables\0a bad table directory\0"
	"CRC mismatch: the tables are damaged\0";

const char *unlz_status_name(enum unlz_status s)
{
	const char *w = status_names;
	for (unsigned i = 0; *w && i < (unsigned)s; i++)
		w += strlen(w) + 1;
	return *w ? w : "unknown status";
}
