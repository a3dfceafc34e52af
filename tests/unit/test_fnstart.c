// SPDX-License-Identifier: MIT
/*
 * fnstart (find/fnstart.h): function starts from .eh_frame_hdr. On the
 * unwind fixture (built -fomit-frame-pointer, with its symbols, so the
 * truth is at hand): for each of its functions, its first address and
 * one inside it find the function's first address; on bytes made by
 * hand: a version other than 1, an encoding no linker writes, a count
 * past the section, a table out of order, no table at all.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "elfobj.h"
#include "fnstart.h"

static void fixture_path(char *out, size_t n, const char *name)
{
	const char *dir = getenv("FIXTURE_DIR");

	snprintf(out, n, "%s/%s", dir ? dir : ".", name);
}

static void test_fixture(void **state)
{
	static const char *const funcs[] = { "main",   "churn",	 "deep",
					     "hit",    "path_a", "path_b",
					     "path_c", "run",	 "spin" };
	char path[512];
	struct elfobj *obj;

	(void)state;
	fixture_path(path, sizeof(path), "unwind");
	obj = elfobj_open(path);
	assert_non_null(obj);
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		uint64_t addr = 0, start = 0;

		assert_int_equal(elfobj_symbol_addr(obj, funcs[i], &addr), 0);
		assert_int_equal(elfobj_function_start(obj, addr, &start), 0);
		assert_int_equal(start, addr);
		assert_int_equal(elfobj_function_start(obj, addr + 3, &start),
				 0);
		assert_int_equal(start, addr);
	}
	assert_int_equal(elfobj_function_start(obj, 0x10, &(uint64_t){ 0 }),
			 -ENOENT); /* before the first function */
	elfobj_free(obj);
}

/* A section of a header (version, encodings), a 4-byte pointer, a
 * 4-byte count and count entries of (start - at, 0). */
static size_t handmade(uint8_t *b, uint8_t version, uint8_t table_enc,
		       uint32_t count, const int32_t *rel, size_t nrel)
{
	size_t at = 12;

	b[0] = version;
	b[1] = 0x1b; /* pcrel | sdata4 */
	b[2] = 0x03; /* udata4 */
	b[3] = table_enc;
	memset(b + 4, 0, 4);
	memcpy(b + 8, &count, 4);
	for (size_t i = 0; i < nrel; i++, at += 8) {
		memcpy(b + at, &rel[i], 4);
		memset(b + at + 4, 0, 4);
	}
	return at;
}

static void test_handmade(void **state)
{
	const int32_t rel[] = { -0x1000, -0x800, -0x10 };
	const int32_t unsorted[] = { -0x800, -0x1000 };
	uint8_t b[64];
	uint64_t *v, start;
	size_t n, size;

	(void)state;
	size = handmade(b, 1, 0x3b, 3, rel, 3);
	assert_int_equal(fnstart_read(b, size, 0x10000, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0], 0xf000);
	assert_int_equal(v[2], 0xfff0);
	assert_true(fnstart_find(v, n, 0xf900, &start));
	assert_int_equal(start, 0xf800);
	assert_true(fnstart_find(v, n, 0x20000, &start));
	assert_int_equal(start, 0xfff0);
	assert_false(fnstart_find(v, n, 0xefff, &start));
	free(v);
	size = handmade(b, 2, 0x3b, 3, rel, 3);
	assert_int_equal(fnstart_read(b, size, 0, &v, &n), -EBADMSG);
	size = handmade(b, 1, 0x1b, 3, rel, 3);
	assert_int_equal(fnstart_read(b, size, 0, &v, &n), -ENOTSUP);
	size = handmade(b, 1, 0x3b, 4, rel, 3); /* one entry short */
	assert_int_equal(fnstart_read(b, size, 0, &v, &n), -EBADMSG);
	size = handmade(b, 1, 0x3b, 0xffffffffu, rel, 3);
	assert_int_equal(fnstart_read(b, size, 0, &v, &n), -EBADMSG);
	size = handmade(b, 1, 0x3b, 2, unsorted, 2);
	assert_int_equal(fnstart_read(b, size, 0x10000, &v, &n), -EBADMSG);
	assert_null(v);
	size = handmade(b, 1, 0xff, 0, NULL, 0); /* DW_EH_PE_omit */
	assert_int_equal(fnstart_read(b, size, 0, &v, &n), -ENOENT);
	assert_int_equal(fnstart_read(b, 3, 0, &v, &n), -EBADMSG);
	assert_false(fnstart_find(NULL, 0, 1, &start));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_handmade),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
