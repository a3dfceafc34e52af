// SPDX-License-Identifier: MIT
/* Unit tests of mapsize: the aggregation maps' capacities from a memory
 * budget (worked out by hand from the entry sizes in probetop.h: values
 * of 16 bytes for counts, 560 for histograms and io, 544 for process
 * events, 16 for IO under way, 8 for an unwind row; keys of 40, 104 and
 * 168, 8, 80 and 8), and --aggsize's SIZE. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <linux/types.h>

#include "mapsize.h"
#include "probetop.h"

static void expect(const struct mapsize *p, const uint32_t want[])
{
	for (int m = 0; m < MAPSIZE_NMAPS; m++)
		assert_int_equal(p->entries[m], want[m]);
}

/* 2 CPUs (this machine kind): every map at its full capacity, as the
 * maps were before they had a budget. */
static void test_small_machine(void **state)
{
	const uint32_t want[] = { 65536, 65536, 65536, 16384, 16384,
				  16384, 4096,	4096,  16384, 1048576 };
	struct mapsize p;

	(void)state;
	mapsize_plan(MAPSIZE_DEFAULT, 2, &p);
	expect(&p, want);
	assert_true(p.bytes <= MAPSIZE_DEFAULT);
	assert_int_equal(p.budget, MAPSIZE_DEFAULT);
}

/* 64 CPUs: the table of IO under way (one copy for all CPUs) fits its
 * share, 128 MiB / 22, taking (16384 + 64 spare) * 72 + 16384 * 16 =
 * 1,446,400 bytes; no other map fits, so each gets the rest by weight:
 * 132,771,328 / 21 = 6,322,444 bytes a weight; a count map (2) at
 * 64*16 + key + 88 bytes an entry, a histogram (4) at 64*560 + key + 88,
 * io and process (1 each), unwind rows (1) at 8 bytes a row. */
static void test_big_machine(void **state)
{
	const uint32_t want[] = {
		12644888 / 1152,  12644888 / 1216,  12644888 / 1280,
		25289776 / 35968, 25289776 / 36032, 25289776 / 36096,
		6322444 / 35936,  6322444 / 34984,  16384,
		6322444 / 8,
	};
	struct mapsize p;

	(void)state;
	mapsize_plan(MAPSIZE_DEFAULT, 64, &p);
	expect(&p, want);
	assert_int_equal(p.entries[MAPSIZE_HISTS + PT_KEY_STR2], 700);
	assert_true(p.bytes <= MAPSIZE_DEFAULT);
}

/* 4 CPUs: the table of IO under way fits its share (1,442,080 bytes of
 * 128 MiB / 22); then, shares taken again by 21 weights, ncounts (65536
 * entries of 176 bytes with their buckets, 11.0 of 12.1 MiB) keeps its
 * capacity too; the other eight share what is left, 121,241,312 bytes,
 * by 19 weights: 6,381,121 bytes a weight. */
static void test_water_filling(void **state)
{
	const uint32_t want[] = {
		65536,		 12762242 / 256,  12762242 / 320,
		25524484 / 2368, 25524484 / 2432, 25524484 / 2496,
		6381121 / 2336,	 6381121 / 2344,  16384,
		6381121 / 8,
	};
	struct mapsize p;

	(void)state;
	mapsize_plan(MAPSIZE_DEFAULT, 4, &p);
	expect(&p, want);
	assert_true(p.bytes <= MAPSIZE_DEFAULT);
}

/* Whatever the machine, the maps stay within the budget unless a map had
 * to be raised to MAPSIZE_MIN_ENTRIES; more budget never means fewer
 * keys. */
static void test_bounded(void **state)
{
	static const uint64_t budgets[] = { 1ull << 20, 16ull << 20,
					    MAPSIZE_DEFAULT, 4ull << 30 };

	(void)state;
	for (int b = 0; b < 4; b++) {
		for (int ncpus = 1; ncpus <= 1024; ncpus *= 2) {
			struct mapsize p, more;
			bool raised = false;

			mapsize_plan(budgets[b], ncpus, &p);
			mapsize_plan(budgets[b] * 2, ncpus, &more);
			for (int m = 0; m < MAPSIZE_NMAPS; m++) {
				assert_true(p.entries[m] >=
					    MAPSIZE_MIN_ENTRIES);
				assert_true(more.entries[m] >= p.entries[m]);
				raised |= p.entries[m] == MAPSIZE_MIN_ENTRIES;
			}
			assert_true(raised || p.bytes <= budgets[b]);
		}
	}
}

/* A tiny budget on a huge machine: every per-CPU map at the minimum;
 * the table of IO under way and the unwind rows, one copy each, get
 * their shares' worth: 1 MiB / 22 / (72 + 32) bytes, 1 MiB / 22 / 8. */
static void test_minimum(void **state)
{
	struct mapsize p;

	(void)state;
	mapsize_plan(MAPSIZE_MIN_BUDGET, 4096, &p);
	for (int m = 0; m < MAPSIZE_INFLIGHT; m++)
		assert_int_equal(p.entries[m], MAPSIZE_MIN_ENTRIES);
	assert_int_equal(p.entries[MAPSIZE_INFLIGHT], 1048576 / 22 / 104);
	assert_int_equal(p.entries[MAPSIZE_UROWS], 1048576 / 22 / 8);
	assert_true(p.bytes > MAPSIZE_MIN_BUDGET);
}

static void test_parse(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(mapsize_parse("128m", &v), 0);
	assert_int_equal(v, 128ull << 20);
	assert_int_equal(mapsize_parse("2G", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(mapsize_parse("1t", &v), 0);
	assert_int_equal(v, 1ull << 40);
	assert_int_equal(mapsize_parse("1536k", &v), 0);
	assert_int_equal(v, 1536ull << 10);
	assert_int_equal(mapsize_parse("1048576", &v), 0);
	assert_int_equal(v, 1ull << 20);
	v = 7;
	assert_int_equal(mapsize_parse("1048575", &v), -ERANGE);
	assert_int_equal(mapsize_parse("1023k", &v), -ERANGE);
	assert_int_equal(mapsize_parse("0", &v), -ERANGE);
	assert_int_equal(mapsize_parse("1025g", &v), -ERANGE);
	assert_int_equal(mapsize_parse("2t", &v), -ERANGE);
	assert_int_equal(mapsize_parse("99999999999999999999", &v), -ERANGE);
	assert_int_equal(mapsize_parse("18014398509481984k", &v), -ERANGE);
	assert_int_equal(mapsize_parse("", &v), -EINVAL);
	assert_int_equal(mapsize_parse("m", &v), -EINVAL);
	assert_int_equal(mapsize_parse("-1m", &v), -EINVAL);
	assert_int_equal(mapsize_parse("+1m", &v), -EINVAL);
	assert_int_equal(mapsize_parse(" 1m", &v), -EINVAL);
	assert_int_equal(mapsize_parse("1.5g", &v), -EINVAL);
	assert_int_equal(mapsize_parse("12mb", &v), -EINVAL);
	assert_int_equal(mapsize_parse("12q", &v), -EINVAL);
	assert_int_equal(v, 7); /* untouched on an error */
}

static void test_format(void **state)
{
	char s[32];

	(void)state;
	mapsize_format(128ull << 20, s, sizeof(s));
	assert_string_equal(s, "128m");
	mapsize_format(1536ull << 10, s, sizeof(s));
	assert_string_equal(s, "1536k");
	mapsize_format(1ull << 40, s, sizeof(s));
	assert_string_equal(s, "1t");
	mapsize_format(1000, s, sizeof(s));
	assert_string_equal(s, "1000");
	mapsize_format(3ull << 30, s, sizeof(s));
	assert_string_equal(s, "3g");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_machine),
		cmocka_unit_test(test_big_machine),
		cmocka_unit_test(test_water_filling),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_minimum),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
