// SPDX-License-Identifier: MIT
/* Unit tests of the line tables (engine/name/pyline.h): 3.8-3.9's co_lnotab,
 * 3.10's co_linetable of ranges, 3.11+'s location table in each of its
 * entry forms, and tables cut short. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pyline.h"

static void test_lnotab(void **state)
{
	/* first line 10: +1 at 0, +1 at 6, +2 at 10 */
	static const uint8_t tab[] = { 0, 1, 6, 1, 4, 2 };

	(void)state;
	assert_int_equal(pyline_addr2line(8, tab, sizeof(tab), 10, 0), 11);
	assert_int_equal(pyline_addr2line(9, tab, sizeof(tab), 10, 5), 11);
	assert_int_equal(pyline_addr2line(8, tab, sizeof(tab), 10, 6), 12);
	assert_int_equal(pyline_addr2line(8, tab, sizeof(tab), 10, 9), 12);
	assert_int_equal(pyline_addr2line(8, tab, sizeof(tab), 10, 40), 14);
	/* a negative line delta (a loop's back edge) */
	static const uint8_t back[] = { 2, 3, 2, (uint8_t)-2 };
	assert_int_equal(pyline_addr2line(9, back, sizeof(back), 1, 3), 4);
	assert_int_equal(pyline_addr2line(9, back, sizeof(back), 1, 4), 2);
}

static void test_linetable_310(void **state)
{
	/* first line 20: [0,4) line 21, [4,10) no line, [10,12) line 23 */
	static const uint8_t tab[] = { 4, 1, 6, (uint8_t)-128, 2, 2 };

	(void)state;
	assert_int_equal(pyline_addr2line(10, tab, sizeof(tab), 20, 0), 21);
	assert_int_equal(pyline_addr2line(10, tab, sizeof(tab), 20, 3), 21);
	assert_int_equal(pyline_addr2line(10, tab, sizeof(tab), 20, 4), -1);
	assert_int_equal(pyline_addr2line(10, tab, sizeof(tab), 20, 10), 23);
	assert_int_equal(pyline_addr2line(10, tab, sizeof(tab), 20, 12), -1);
}

static void test_loctable(void **state)
{
	/* first line 30:
	 *   2 units, no columns, line +1   (code 13)
	 *   1 unit, one line, +1, 2 bytes  (code 11)
	 *   1 unit, no location            (code 15)
	 *   3 units, long form, line -1    (code 14: line, end, cols)
	 *   1 unit, short form, same line  (code 0, one byte) */
	static const uint8_t tab[] = { 0xe9, 0x02, 0xd8, 0x01, 0x05, 0xf8, 0xf2,
				       0x03, 0x00, 0x01, 0x02, 0x80, 0x07 };

	(void)state;
	for (int minor = 11; minor <= 13; minor++) {
		assert_int_equal(
			pyline_addr2line(minor, tab, sizeof(tab), 30, 0), 31);
		assert_int_equal(
			pyline_addr2line(minor, tab, sizeof(tab), 30, 2), 31);
		assert_int_equal(
			pyline_addr2line(minor, tab, sizeof(tab), 30, 4), 32);
		assert_int_equal(
			pyline_addr2line(minor, tab, sizeof(tab), 30, 6), -1);
		assert_int_equal(
			pyline_addr2line(minor, tab, sizeof(tab), 30, 8), 31);
		assert_int_equal(
			pyline_addr2line(minor, tab, sizeof(tab), 30, 12), 31);
		assert_int_equal(
			pyline_addr2line(minor, tab, sizeof(tab), 30, 14), 31);
		assert_int_equal(
			pyline_addr2line(minor, tab, sizeof(tab), 30, 16), -1);
	}
}

static void test_cut_short(void **state)
{
	static const uint8_t lng[] = { 0xf2, 0x43 }; /* varint unfinished */
	static const uint8_t odd[] = { 0x01 }; /* not an entry */

	(void)state;
	assert_int_equal(pyline_addr2line(12, lng, sizeof(lng), 1, 0), -1);
	assert_int_equal(pyline_addr2line(12, odd, sizeof(odd), 1, 0), -1);
	assert_int_equal(pyline_addr2line(12, NULL, 0, 1, 0), -1);
	assert_int_equal(pyline_addr2line(10, NULL, 0, 1, 0), -1);
	assert_int_equal(pyline_addr2line(8, NULL, 0, 7, 0), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lnotab),
		cmocka_unit_test(test_linetable_310),
		cmocka_unit_test(test_loctable),
		cmocka_unit_test(test_cut_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
