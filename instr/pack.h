/*
 * instr/pack.h - the kernel pack: pre-assembled instruction-form kernels in one data file (issue 31;
 * docs/instr.md "In the image").
 *
 * The image has no room for the catalogue nor for the kernel builder (instr/kernel.h), and no assembler:
 * `pmuboot-host instr pack` builds every form's plan, assembles it and writes the bytes here; `make usb`,
 * `make iso` and `make netboot` put the file on the medium (\pmuboot\instr.pck) and the image measures
 * from it (bench/src_instr.c).  Every form not excluded is in the pack, whatever CPU built it: the image
 * chooses by its own CPUID (the bits and the XCR0 state each form needs are in the pack).
 *
 * Format version 3 (all integers little-endian; a string is a u16 length then that many bytes, the last
 * of them a NUL and no other; length 0 is an absent string):
 *   header (28 bytes)
 *     0   4  magic "PMUI"
 *     4   1  format version (INSTR_PACK_VERSION)
 *     5   1  reserved, 0
 *     6   2  inits: the entries of the init table
 *     8   4  forms
 *     12  4  measurements (all forms')
 *     16  4  total length of the file
 *     20  4  CRC-32 (lib/crc32.h) of every byte of the file but these four
 *     24  4  the init table's offset: the forms lie between the header and it, the table runs to the end
 *   the init table: per entry a u16 length and the bytes (the builder's inits are a handful, shared by
 *   thousands of kernels: kept once, the pack is 16 MiB instead of 36)
 *   and each form
 *     u32 the form's length in bytes, this field included
 *     u8 idiom (enum ikm_idiom), u8 CPUID bits, u8 measurements, u8 reserved 0
 *     u16 attrs (IFA_*), u16 reserved 0, u64 the XCR0 bits its state needs (instr_form_xcr0)
 *     strings asm, iform, extension, isa_set (required), values, chain, skipped, why (optional)
 *     per CPUID bit: u32 leaf, u32 subleaf, u8 register (0 EAX .. 3 EDX), u8 bit, u8 width, u8 least (the
 *       field of `width` bits from `bit` reads at least `least`: instr/catalogue.h; version 1 had no such
 *       field, so it could not tell AVX10.2 from AVX10.1)
 *     per measurement: u8 kind (enum ikm_kind), u8 bound (enum ikm_bound), u8 least (connecting
 *       instructions counted at one cycle each, 0..IKM_LEAST_MAX, only with an upper bound; version 2 had no
 *       such field, so its figures kept the whole round trip), u16 per_iter, u16 unroll,
 *       i8 sub[2] (a measurement of this form, or -1), u64 fill, strings from, to, name (required),
 *       via, note, why (why: not assembled, then it has no bytes), u16 init (its entry in the init table),
 *       u16 body length, the body bytes
 * Anything else (a short or long file, a bad CRC, a count that does not add up, a field out of range) is
 * refused with what is wrong and at which byte offset; the reader never reads past the buffer.
 */
#ifndef PMUBOOT_INSTR_PACK_H
#define PMUBOOT_INSTR_PACK_H

#include "instr/kernel.h"
#include "instr/select.h"

#define INSTR_PACK_MAGIC "PMUI"
#define INSTR_PACK_MAGIC_LEN 4
#define INSTR_PACK_VERSION 3
#define INSTR_PACK_HEADER 28
#define INSTR_PACK_CRC_AT 20
#define INSTR_PACK_CRC_END 24 /* the CRC covers every byte but [CRC_AT, CRC_END) */
#define INSTR_PACK_INITS_MAX 256 /* init table entries (the builder makes about 20) */
#define INSTR_PACK_CPUID_MAX 8	  /* CPUID bits per form (the catalogue's largest set has 4) */
#define INSTR_PACK_TEXT_MAX 1024  /* a string's bytes at most, its NUL included */
#define INSTR_PACK_CODE_MAX 1024  /* init or body bytes at most: bench/ukernel.h UK_INIT_MAX, UK_BODY_MAX */
#define INSTR_PACK_UNROLL_MAX 256 /* bench/ukernel.h UK_UNROLL_MAX */

/* One measurement as the pack holds it: struct ikm's fields with the assembled bytes (pointers into the pack). */
struct instr_pack_meas {
	uint8_t kind, bound, least;
	uint16_t per_iter, unroll;
	int8_t sub[IKM_SUB_MAX];
	uint64_t fill;
	const char *from, *to, *name;
	const char *via, *note, *why; /* NULL when absent; why: the kernel was not assembled */
	const uint8_t *init, *body;
	uint16_t init_len, body_len;
};

/* One form (strings point into the pack, NUL-terminated). */
struct instr_pack_form {
	const char *asm_name, *iform, *extension, *isa_set;
	const char *values, *chain, *skipped, *why; /* NULL when absent */
	uint16_t attrs;
	uint8_t idiom;
	uint64_t xcr0;
	struct instr_cpuid_bit cpuid[INSTR_PACK_CPUID_MAX];
	uint8_t n_cpuid;
	struct instr_pack_meas m[IKM_MAX];
	size_t n;
};

/* An open pack: checked whole by instr_pack_open, then read form by form. */
struct instr_pack {
	const uint8_t *buf;
	size_t len;
	uint32_t forms, measurements;
	size_t at, end; /* the next form's offset; where the forms end (the init table) */
	uint16_t inits;
	uint32_t init_at[INSTR_PACK_INITS_MAX]; /* each init's bytes: its offset (after its length) */
	uint16_t init_len[INSTR_PACK_INITS_MAX];
};

/*
 * Check buf[0..len) as a pack: header, length, CRC and every form.  False, with what is wrong and at
 * which byte offset in why, for anything else.
 */
bool instr_pack_open(struct instr_pack *pk, const uint8_t *buf, size_t len, char *why, size_t cap);

/* The next form of an open pack into f; false after the last. */
bool instr_pack_next(struct instr_pack *pk, struct instr_pack_form *f);

/* Whether a CPU has the form (instr/select.h's rule from the pack's fields: every CPUID bit, its state). */
enum instr_avail instr_pack_form_avail(struct instr_cpu *c, const struct instr_pack_form *f);

/* Whether the form is one the user asked for (instr/select.h's filter on its asm name and extension). */
bool instr_pack_form_matches(const struct instr_pack_form *f, const struct instr_filter *flt);

/*
 * Writing (host-only, instr/pack_write_host.c).  The bytes of one measurement, as the assembler gave
 * them, or why it refused the kernel.
 */
struct instr_pack_code {
	const uint8_t *init, *body;
	size_t init_len, body_len;
	const char *why; /* not NULL: not assembled (no bytes) */
};

struct instr_pack_writer {
	uint8_t *buf;
	size_t len, cap;
	uint32_t forms, measurements;
	size_t inits;
	struct { uint8_t *bytes; size_t len; } init[INSTR_PACK_INITS_MAX]; /* the init table, written at the end */
	char why[160]; /* the first failure */
};

void instr_pack_write_begin(struct instr_pack_writer *w);
/* Append plan p (code[j] the bytes of p->m[j]); false, with w->why, when a field does not fit the format. */
bool instr_pack_write_form(struct instr_pack_writer *w, const struct instr_plan *p, const struct instr_pack_code *code);
/*
 * A plan as the pack would give it back (pmuboot-host measures from this, as the image does from the pack):
 * pointers into p, code and via (room for each measurement's via).
 */
void instr_pack_form_from_plan(const struct instr_plan *p, const struct instr_pack_code *code,
			       struct instr_pack_form *f, char (*via)[IKM_BODY_MAX]);
/* The header and CRC: false with w->why when the pack is too large.  w->buf[0..w->len) is the file. */
bool instr_pack_write_end(struct instr_pack_writer *w);
void instr_pack_write_free(struct instr_pack_writer *w);

#endif
