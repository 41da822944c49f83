/* run/config: the user-kernel options (kernel.NAME=HEX, kernels=, kernel_unroll=). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/config.h"

static bool apply(struct config *c, const char *w, struct config_error *e)
{
	return config_apply_word(c, "t", w, strlen(w), e);
}

static void hex_kernels_kept_in_order_and_replaced_by_name(void **state)
{
	(void)state;
	static struct config c;
	struct config_error e;
	char buf[600];

	config_defaults(&c);
	assert_int_equal(c.n_hex_kernels, 0);
	assert_true(config_value_text(&c, "kernel.NAME", buf, sizeof(buf)));
	assert_string_equal(buf, "");
	assert_true(apply(&c, "kernel.add=4801c8", &e));
	assert_true(apply(&c, "kernel.div=48f7f1", &e));
	assert_true(apply(&c, "kernel.add=4801C8", &e));
	assert_int_equal(c.n_hex_kernels, 2);
	assert_string_equal(c.hex_kernels[0].name, "add");
	assert_string_equal(c.hex_kernels[0].hex, "4801C8");
	assert_true(config_value_text(&c, "kernel.NAME", buf, sizeof(buf)));
	assert_string_equal(buf, "add=4801C8,div=48f7f1");
}

/*
 * Each kernel.NAME key's text is its own body and reads back through that
 * key; the family's row lists them all (the begin record's options).
 */
static void hex_kernel_values_read_back(void **state)
{
	(void)state;
	static struct config c, d;
	struct config_error e;
	char buf[600], word[700];

	config_defaults(&c);
	assert_true(apply(&c, "kernel.add=4801c8", &e));
	assert_true(apply(&c, "kernel.div=48F7F1", &e));
	assert_true(config_value_text(&c, "kernel.add", buf, sizeof(buf)));
	assert_string_equal(buf, "4801c8");
	assert_true(config_value_text(&c, "kernel.div", buf, sizeof(buf)));
	assert_string_equal(buf, "48F7F1");
	assert_true(config_value_text(&c, "kernel.none", buf, sizeof(buf)));
	assert_string_equal(buf, "");

	config_defaults(&d);
	const char *names[] = { "add", "div" };
	for (size_t i = 0; i < 2; i++) {
		char key[40];
		snprintf(key, sizeof(key), "kernel.%s", names[i]);
		assert_true(config_value_text(&c, key, buf, sizeof(buf)));
		snprintf(word, sizeof(word), "%s=%s", key, buf);
		assert_true(apply(&d, word, &e));
	}
	char a[600], b[600];
	assert_true(config_value_text(&c, "kernel.NAME", a, sizeof(a)));
	assert_true(config_value_text(&d, "kernel.NAME", b, sizeof(b)));
	assert_string_equal(a, "add=4801c8,div=48F7F1");
	assert_string_equal(a, b);
}

static void hex_kernels_refused_with_reason(void **state)
{
	(void)state;
	static struct config c;
	struct config_error e;

	config_defaults(&c);
	assert_false(apply(&c, "kernel.=90", &e));
	assert_false(apply(&c, "kernel.Add=90", &e));
	assert_string_equal(e.key, "kernel.Add");
	assert_non_null(strstr(e.message, "kernel name"));
	assert_false(apply(&c, "kernel.a=9", &e));
	assert_non_null(strstr(e.message, "whole number"));
	assert_false(apply(&c, "kernel.a=zz", &e));
	assert_non_null(strstr(e.message, "not a hex digit"));
	assert_true(apply(&c, "kernel.a=90", &e));
	assert_true(apply(&c, "kernel.b=90", &e));
	assert_true(apply(&c, "kernel.c=90", &e));
	assert_true(apply(&c, "kernel.d=90", &e));
	assert_false(apply(&c, "kernel.e=90", &e));
	assert_non_null(strstr(e.message, "at most 4"));
	assert_int_equal(c.n_hex_kernels, 4);
	char big[CONFIG_STR_MAX + 16];
	snprintf(big, sizeof(big), "kernel.a=%0*d", CONFIG_STR_MAX, 0);
	assert_false(apply(&c, big, &e));
	assert_non_null(strstr(e.message, "kernel file"));
}

static void directory_and_unroll(void **state)
{
	(void)state;
	static struct config c;
	struct config_error e;

	config_defaults(&c);
	assert_string_equal(c.kernels, "");
	assert_int_equal(c.kernel_unroll, 0);
	assert_true(apply(&c, "kernels=/tmp/k", &e));
	assert_string_equal(c.kernels, "/tmp/k");
	assert_true(apply(&c, "kernel_unroll=32", &e));
	assert_int_equal(c.kernel_unroll, 32);
	assert_false(apply(&c, "kernel_unroll=257", &e));
	assert_int_equal(c.kernel_unroll, 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hex_kernels_kept_in_order_and_replaced_by_name),
		cmocka_unit_test(hex_kernel_values_read_back),
		cmocka_unit_test(hex_kernels_refused_with_reason),
		cmocka_unit_test(directory_and_unroll),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
