// SPDX-License-Identifier: MIT
/* Unit tests of the Ruby layout tables (engine/name/rblayout.h): 3.0 to
 * 3.3 found, each within what the kernel's walker reads
 * (rblayout_usable()), the range rblayout_versions() names exactly the
 * versions found; 2.x, 3.4 and later not found (such a process gets one
 * line and no Ruby keys, trace_rbframes checks that line). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "rblayout.h"

static void test_known(void **state)
{
	(void)state;
	for (int minor = 0; minor <= 3; minor++) {
		const struct rblayout *l = rblayout_find(3, minor);

		assert_non_null(l);
		assert_int_equal(l->major, 3);
		assert_int_equal(l->minor, minor);
		assert_true(rblayout_usable(l));
	}
}

static void test_unknown(void **state)
{
	static const int versions[][2] = { { 1, 9 },  { 2, 6 },	 { 2, 7 },
					   { 3, 4 },  { 3, 5 },	 { 4, 0 },
					   { 3, -1 }, { -1, -1 } };

	(void)state;
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		assert_null(rblayout_find(versions[i][0], versions[i][1]));
}

static void test_versions(void **state)
{
	int major, minor, last_major, last_minor;

	(void)state;
	assert_int_equal(sscanf(rblayout_versions(), "%d.%d-%d.%d", &major,
				&minor, &last_major, &last_minor),
			 4);
	assert_int_equal(major, last_major);
	assert_null(rblayout_find(major, minor - 1));
	for (int m = minor; m <= last_minor; m++)
		assert_non_null(rblayout_find(major, m));
	assert_null(rblayout_find(major, last_minor + 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_versions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
