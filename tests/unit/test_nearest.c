// SPDX-License-Identifier: MIT
/* Unit tests of nearest: the edit distance, and the suggestion for a
 * spec probe that matches nothing, on the sdt_target fixture's probes and
 * functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "catalog.h"
#include "child.h"
#include "nearest.h"
#include "spec.h"

static void test_distance(void **state)
{
	char a[300], b[300];

	(void)state;
	assert_int_equal(nearest_distance("kitten", "sitting", 5), 3);
	assert_int_equal(nearest_distance("gc_start", "gc__start", 3), 1);
	assert_int_equal(nearest_distance("pyhton", "python", 3), 1); /* swap */
	assert_int_equal(nearest_distance("GC__Start", "gc__start", 3), 0);
	assert_int_equal(nearest_distance("", "abc", 3), 3);
	assert_int_equal(nearest_distance("abcdef", "uvwxyz", 2), 3); /* cut */
	assert_int_equal(nearest_distance("a", "abcdef", 2), 3); /* lengths */
	memset(a, 'a', 299);
	a[299] = '\0';
	strcpy(b, a);
	assert_int_equal(nearest_distance(a, b, 3), 4); /* too long */
}

/* The suggestion for spec text's first probe over the fixture's objects,
 * or "" if none. */
static const char *suggest(const char *text)
{
	static char out[600];
	const struct cat_object *objs[1];
	struct catalog *cat =
		catalog_open_file(NULL, fixture_path("sdt_target"));
	struct spec sp;
	char err[256];

	assert_non_null(cat);
	assert_int_equal(spec_parse(text, &sp, err, sizeof(err)), 0);
	objs[0] = catalog_object(cat, 0);
	if (!nearest_probe(objs, 1, &sp.probe[0], out, sizeof(out)))
		assert_string_equal(out, "");
	catalog_free(cat);
	return out;
}

static void test_usdt(void **state)
{
	(void)state;
	assert_string_equal(suggest("fixture:int"), "fixture:ints");
	assert_string_equal(suggest("fixtuer:ints"), "fixture:ints");
	assert_string_equal(suggest("python:ints"), "fixture:ints");
	assert_string_equal(suggest("fixture:lentsr"), "fixture:lenstr");
	assert_string_equal(suggest("sdt_target:fixture:konts"),
			    "sdt_target:fixture:konst");
	assert_string_equal(suggest("fixture:ints"), ""); /* it is there */
	assert_string_equal(suggest("fixture:zzzzzz"), "");
	assert_string_equal(suggest("fixture:in*"), ""); /* a glob */
	assert_string_equal(suggest("libother.so:fixture:int"), "");
}

static void test_fn(void **state)
{
	(void)state;
	assert_string_equal(suggest("fn:fire_int"), "fn:fire_ints");
	assert_string_equal(suggest("fn:sdt_target:nets%return"),
			    "fn:sdt_target:nest%return");
	assert_string_equal(suggest("fn:main"), "");
	assert_string_equal(suggest("fn:fire_nothing_like_it"), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_usdt),
		cmocka_unit_test(test_fn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
