/* bench/ukernel_code: the generated code around a user kernel runs the body unroll x trips times and returns. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/ukernel_code.h"
#include "bench/kernels.h"
#include "platform/guard.h"

static struct ukernel k;

static void make(const uint8_t *init, size_t ni, const uint8_t *body, size_t nb)
{
	memset(&k, 0, sizeof(k));
	strcpy(k.name, "t");
	if (ni)
		memcpy(k.init, init, ni);
	k.init_len = (uint16_t)ni;
	memcpy(k.body, body, nb);
	k.body_len = (uint16_t)nb;
}

/* Place k with `unroll` copies and call it: trips loop trips, p and q as given. */
static void run(unsigned unroll, uint64_t trips, uint8_t *p, uint8_t *q, size_t *loop_off)
{
	char why[128];
	size_t n = ukernel_code_size(&k, unroll);
	uint8_t *code = hw_xmem_alloc(n, why, sizeof(why));
	assert_non_null(code);
	size_t len, loop_len;
	assert_int_equal(ukernel_code_write(&k, unroll, code, n - 1, &len, &loop_len), 0);	/* too small */
	len = ukernel_code_write(&k, unroll, code, n, loop_off, &loop_len);
	assert_int_equal(len, n);
	assert_int_equal(*loop_off % 64, 0);
	assert_int_equal(loop_len, (size_t)unroll * k.body_len);
	/* The loop ends with dec rdi / jnz back to the head. */
	const uint8_t *j = code + *loop_off + loop_len;
	assert_memory_equal(j, "\x48\xff\xcf\x0f\x85", 5);
	int32_t rel = (int32_t)((uint32_t)j[5] | (uint32_t)j[6] << 8 | (uint32_t)j[7] << 16 | (uint32_t)j[8] << 24);
	assert_int_equal((int64_t)(*loop_off + loop_len + 9) + rel, (int64_t)*loop_off);
	assert_true(hw_xmem_seal(code, n, why, sizeof(why)));
	((bench_kernel_fn)(void *)code)(trips, p, q);
	hw_xmem_free(code, n);
}

static void body_runs_unroll_times_trips(void **state)
{
	(void)state;
	static const uint8_t add_mem[] = { 0x48, 0x83, 0x06, 0x01 };	/* add qword [rsi], 1 */
	uint64_t cell[2] = { 0, 0 };
	size_t off;
	make(NULL, 0, add_mem, sizeof(add_mem));
	run(8, 5, (uint8_t *)&cell[0], NULL, &off);
	assert_int_equal(cell[0], 40);
	run(3, 7, (uint8_t *)&cell[0], NULL, &off);
	assert_int_equal(cell[0], 40 + 21);
}

static void registers_zeroed_and_init_runs_once(void **state)
{
	(void)state;
	/* init: mov [rdx], rbx / add qword [rdx+8], 1 ; body: mov [rsi], r15 (zero) */
	static const uint8_t init[] = { 0x48, 0x89, 0x1a, 0x48, 0x83, 0x42, 0x08, 0x01 };
	static const uint8_t body[] = { 0x4c, 0x89, 0x3e };
	uint64_t q[2] = { 0xdead, 0 }, p = 0x1234;
	size_t off;
	make(init, sizeof(init), body, sizeof(body));
	run(4, 100, (uint8_t *)&p, (uint8_t *)q, &off);
	assert_int_equal(q[0], 0);	/* rbx was 0 at init */
	assert_int_equal(q[1], 1);	/* init ran once */
	assert_int_equal(p, 0);		/* r15 was 0 */
	assert_true(off >= 64);	/* prologue + init pushed the loop to the next line */
}

static void clobbering_callee_saved_registers_is_harmless(void **state)
{
	(void)state;
	/* body: mov rbx, -1 / mov rbp, -1 / mov r12, -1 / mov r15, -1 / pxor xmm6, xmm6 */
	static const uint8_t body[] = { 0x48, 0xc7, 0xc3, 0xff, 0xff, 0xff, 0xff, 0x48, 0xc7, 0xc5, 0xff, 0xff, 0xff,
					0xff, 0x49, 0xc7, 0xc4, 0xff, 0xff, 0xff, 0xff, 0x49, 0xc7, 0xc7, 0xff, 0xff,
					0xff, 0xff, 0x66, 0x0f, 0xef, 0xf6 };
	volatile uint64_t keep = 0x5a5a5a5a5a5a5a5aull;
	size_t off;
	uint64_t scratch = 0;
	make(NULL, 0, body, sizeof(body));
	run(2, 3, (uint8_t *)&scratch, NULL, &off);
	assert_int_equal(keep, 0x5a5a5a5a5a5a5a5aull);	/* our frame and registers survived */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(body_runs_unroll_times_trips),
		cmocka_unit_test(registers_zeroed_and_init_runs_once),
		cmocka_unit_test(clobbering_callee_saved_registers_is_harmless),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
