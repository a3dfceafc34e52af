// SPDX-License-Identifier: MIT
/* Unit tests of PHP's layout tables (engine/name/phplayout.h) and of the
 * phpline key (engine/bpf/phpshared.h): a table for 8.0 to 8.4, found by
 * version and by module API, 8.2 and 8.4 marked checked against headers;
 * none for 7.x, 8.5 and later (phpframe.c then says so in one line and
 * reads nothing of theirs); a line key keeps its line and its function's
 * fold, stays below bit 63, and tells apart two functions at one address. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <linux/types.h>

#include "phplayout.h"
#include "phpshared.h"

static void test_supported(void **state)
{
	static const struct {
		int minor;
		uint32_t api, filename;
	} want[] = { { 0, 20200930, 144 },
		     { 1, 20210902, 144 },
		     { 2, 20220829, 152 },
		     { 3, 20230831, 144 },
		     { 4, 20240924, 168 } };

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct phplayout *l = phplayout_find(8, want[i].minor);
		int major = 0, minor = -1;

		assert_non_null(l);
		assert_int_equal(l->minor, want[i].minor);
		assert_int_equal(l->api, want[i].api);
		assert_ptr_equal(phplayout_find_api(want[i].api), l);
		assert_int_equal(
			phplayout_api_version(want[i].api, &major, &minor), 0);
		assert_int_equal(major, 8);
		assert_int_equal(minor, want[i].minor);
		assert_int_equal(l->fn_filename, want[i].filename);
		assert_int_equal(l->fn_line_start, want[i].filename + 8);
		assert_int_equal(l->eg_current_execute_data, 488);
		assert_int_equal(l->op_lineno, 24);
		assert_int_equal(phplayout_checked(l),
				 want[i].minor == 2 || want[i].minor == 4);
	}
}

static void test_unsupported(void **state)
{
	int major = 0, minor = 0;

	(void)state;
	assert_null(phplayout_find(7, 4));
	assert_null(phplayout_find(7, 0));
	assert_null(phplayout_find(8, 5));
	assert_null(phplayout_find(9, 0));
	assert_null(phplayout_find_api(20190902)); /* 7.4 */
	assert_null(phplayout_find_api(20250925)); /* 8.5 */
	assert_null(phplayout_find_api(0));
	/* 8.5 is named in the one line that says it is not read */
	assert_int_equal(phplayout_api_version(20250925, &major, &minor), 0);
	assert_int_equal(major * 10 + minor, 85);
	assert_int_equal(phplayout_api_version(20990101, &major, &minor), -1);
}

static void test_line_key(void **state)
{
	const uint64_t fn = 0x7f12345678d8ULL; /* 8-byte aligned */
	const uint64_t a = fn | 0x1234ULL << 48, b = fn | 0x4321ULL << 48;
	const uint64_t high = 0x7ff8ULL << 32 | 0xfffffff8ULL | 0xffffULL << 48;

	(void)state;
	assert_int_equal(PT_PHPLINE(a, 12) & PT_PHPLINE_MAX, 12);
	assert_true(PT_PHPLINE(a, 12) >> PT_PHPLINE_BITS == PT_PHPLINE_FN(a));
	assert_true(PT_PHPLINE_FN(a) != PT_PHPLINE_FN(b));
	assert_true(PT_PHPLINE(a, 12) != PT_PHPLINE(a, 13));
	assert_int_equal(PT_PHPLINE(a, 1u << 24) & PT_PHPLINE_MAX,
			 PT_PHPLINE_MAX);
	assert_true(PT_PHPLINE(high, PT_PHPLINE_MAX) < 1ULL << 63);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_supported),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_line_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
