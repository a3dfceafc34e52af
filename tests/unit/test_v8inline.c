// SPDX-License-Identifier: MIT
/* Unit tests of an optimized code's source position table read
 * (engine/name/v8inline.h, v8inline_position()): tables written here
 * as V8 writes them (each entry a code offset and a source position,
 * as deltas from the entry before, zigzag VLQ; a code offset that is
 * no statement written as -offset - 1), then the position at code
 * offsets before, at, between and past their entries; a table cut in
 * the middle of an entry, and one cut before the offset looked for, give
 * none. The chain itself needs a live V8 (trace_nodeinline). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "v8inline.h"

/* A table being written. */
struct table {
	uint8_t b[256];
	size_t n;
	int64_t code, pos; /* the last entry's */
};

/* v zigzag VLQ-coded at the end of t. */
static void put_int(struct table *t, int64_t v)
{
	uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);

	do {
		t->b[t->n++] = (uint8_t)((u & 0x7f) | (u > 0x7f ? 0x80 : 0));
		u >>= 7;
	} while (u);
}

/* An entry: code offset code (a statement or not), source position pos
 * (V8's raw: script offset + 1 in bits 1-30, inlining id + 1 from bit
 * 31). */
static void put_entry(struct table *t, int64_t code, bool statement,
		      int64_t offset, int inlining)
{
	int64_t pos = (offset + 1) << 1 | (int64_t)(inlining + 1) << 31;
	int64_t dc = code - t->code;

	put_int(t, statement ? dc : -dc - 1);
	put_int(t, pos - t->pos);
	t->code = code;
	t->pos = pos;
}

static int64_t raw(int64_t offset, int inlining)
{
	return (offset + 1) << 1 | (int64_t)(inlining + 1) << 31;
}

static void test_lookup(void **state)
{
	struct table t = { 0 };
	int64_t pos = 0;

	(void)state;
	put_entry(&t, 1, false, 197, -1);
	put_entry(&t, 40, true, 232, -1);
	put_entry(&t, 152, false, 31, 1); /* into an inlined function */
	put_entry(&t, 209, true, 69, 1);
	put_entry(&t, 289, false, 122, 0); /* into another one */
	put_entry(&t, 100000, true, 1u << 29, 3); /* far, multi-byte */
	assert_int_equal(v8inline_position(t.b, t.n, true, 0, &pos), -1);
	assert_int_equal(v8inline_position(t.b, t.n, true, 1, &pos), 0);
	assert_int_equal(pos, raw(197, -1));
	assert_int_equal(v8inline_position(t.b, t.n, true, 151, &pos), 0);
	assert_int_equal(pos, raw(232, -1));
	assert_int_equal(v8inline_position(t.b, t.n, true, 152, &pos), 0);
	assert_int_equal(pos, raw(31, 1));
	assert_int_equal(v8inline_position(t.b, t.n, true, 250, &pos), 0);
	assert_int_equal(pos, raw(69, 1));
	assert_int_equal(v8inline_position(t.b, t.n, true, 99999, &pos), 0);
	assert_int_equal(pos, raw(122, 0));
	assert_int_equal(v8inline_position(t.b, t.n, true, 1u << 20, &pos), 0);
	assert_int_equal(pos, raw(1u << 29, 3));
	/* not the whole table: the last entry's position is not known to
	 * hold past it */
	assert_int_equal(v8inline_position(t.b, t.n, false, 1u << 20, &pos),
			 -1);
	assert_int_equal(v8inline_position(t.b, t.n, false, 250, &pos), 0);
	assert_int_equal(pos, raw(69, 1));
}

static void test_cut(void **state)
{
	struct table t = { 0 };
	int64_t pos;

	(void)state;
	put_entry(&t, 10, true, 5, -1);
	put_entry(&t, 300, true, 1000, 2);
	/* cut in the middle of the last entry's position */
	assert_int_equal(v8inline_position(t.b, t.n - 1, true, 400, &pos), -1);
	assert_int_equal(v8inline_position(t.b, 0, true, 400, &pos), -1);
	t.b[t.n - 1] |= 0x80; /* "more" with nothing after it */
	assert_int_equal(v8inline_position(t.b, t.n, true, 400, &pos), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
