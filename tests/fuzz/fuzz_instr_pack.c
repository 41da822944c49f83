/*
 * Fuzz target: the kernel pack reader (instr/pack.c), which the image runs on a file from its boot medium.
 *
 * Each input is read twice: as it is (almost every mutation is then refused by the CRC), and with its
 * header's length and CRC made right, so the mutation reaches the forms.  Never a crash, never a
 * refusal without the byte it names, and a pack that is accepted reads back exactly its count of forms,
 * each field inside the buffer.
 */
#include "tests/fuzz/fuzz.h"
#include "instr/pack.h"
#include "lib/crc32.h"

static bool inside(const uint8_t *buf, size_t len, const void *p, size_t n)
{
	const uint8_t *b = p;
	return b >= buf && n <= len && b - buf <= (ptrdiff_t)(len - n);
}

static void check_string(const uint8_t *buf, size_t len, const char *s)
{
	if (s)
		FUZZ_CHECK(inside(buf, len, s, strlen(s) + 1));
}

static void read_pack(const uint8_t *buf, size_t len)
{
	static struct instr_pack pk;
	static struct instr_pack_form f;
	char why[160];

	why[0] = 0;
	if (!instr_pack_open(&pk, buf, len, why, sizeof(why))) {
		FUZZ_CHECK(strstr(why, " at byte ") != NULL);
		return;
	}
	uint32_t forms = 0, meas = 0;
	while (instr_pack_next(&pk, &f)) {
		forms++;
		meas += (uint32_t)f.n;
		FUZZ_CHECK(f.asm_name && f.iform && f.extension && f.isa_set);
		check_string(buf, len, f.asm_name);
		check_string(buf, len, f.why);
		FUZZ_CHECK(f.n <= IKM_MAX && f.n_cpuid <= INSTR_PACK_CPUID_MAX);
		for (size_t j = 0; j < f.n; j++) {
			const struct instr_pack_meas *m = &f.m[j];
			check_string(buf, len, m->name);
			check_string(buf, len, m->note);
			FUZZ_CHECK(m->body_len <= INSTR_PACK_CODE_MAX && m->init_len <= INSTR_PACK_CODE_MAX);
			FUZZ_CHECK(!m->body_len || inside(buf, len, m->body, m->body_len));
			FUZZ_CHECK(!m->init_len || inside(buf, len, m->init, m->init_len));
			FUZZ_CHECK(m->why ? !m->body_len : m->body_len > 0);
			for (size_t s = 0; s < IKM_SUB_MAX; s++)
				FUZZ_CHECK(m->sub[s] == IKM_NO_SUB || (m->sub[s] >= 0 && (size_t)m->sub[s] < f.n));
		}
	}
	FUZZ_CHECK(forms == pk.forms && meas == pk.measurements);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_pack(data, size);
	if (size < INSTR_PACK_HEADER || size > UINT32_MAX)
		return 0;
	uint8_t *copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	for (int i = 0; i < 4; i++)
		copy[16 + i] = (uint8_t)(size >> (8 * i));
	uint32_t crc = crc32_update(CRC32_INIT, copy, INSTR_PACK_CRC_AT);
	crc = crc32_update(crc, copy + INSTR_PACK_CRC_END, size - INSTR_PACK_CRC_END);
	for (int i = 0; i < 4; i++)
		copy[INSTR_PACK_CRC_AT + i] = (uint8_t)(crc >> (8 * i));
	read_pack(copy, size);
	free(copy);
	return 0;
}
