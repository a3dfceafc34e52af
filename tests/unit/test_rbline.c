// SPDX-License-Identifier: MIT
/* Unit tests of Ruby's line tables (engine/name/rbline.h): a succinct
 * index built here from the format's description (immediate part, then
 * blocks of 512 positions) for iseqs of a few sizes, every pc's line
 * checked against the plain rule (the last entry starting at or before
 * the position one before the pc); pcs whose bits wrap at 2^20; a table
 * of one entry; a pc outside the iseq; an index or entries cut short. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <linux/types.h>

#include "rbline.h"
#include "rbshared.h"

#define ENTRY 12 /* Ruby 3.1's entry: line_no, node_id, events */
#define MAXPOS 2100

struct built {
	uint8_t info[MAXPOS * ENTRY];
	uint8_t succ[PT_RBSUCC];
	uint32_t pos[MAXPOS]; /* where each entry starts */
	uint32_t n;
	struct rbline_table t;
};

static void put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The succinct index of b's positions for an iseq of size VALUEs. */
static size_t index_of(struct built *b, uint32_t size)
{
	size_t at = 0;
	uint32_t r = 0, k = 0;

	memset(b->succ, 0, sizeof(b->succ));
	for (uint32_t x = 0; x < size && x < PT_RBSUCC_IMM; x++) {
		if (k < b->n && b->pos[k] == x)
			r = ++k;
		uint64_t w = 0;
		memcpy(&w, b->succ + x / 9 * 8, 8);
		w |= (uint64_t)r << (x % 9 * 7);
		put(b->succ + x / 9 * 8, w, 8);
	}
	at = size < PT_RBSUCC_IMM ? (size + 8) / 9 * 8 : PT_RBSUCC_IMM / 9 * 8;
	for (uint32_t blk = 0;
	     size > PT_RBSUCC_IMM && blk < (size - PT_RBSUCC_IMM + 511) / 512;
	     blk++) {
		uint8_t *p = b->succ + at;
		uint64_t small = 0, part = 0;

		put(p, k, 4);
		for (uint32_t j = 0; j < 8; j++) {
			uint64_t bits = 0;

			if (j)
				small |= part << ((j - 1) * 9);
			for (uint32_t i = 0; i < 64; i++) {
				uint32_t x =
					PT_RBSUCC_IMM + blk * 512 + j * 64 + i;

				if (k < b->n && b->pos[k] == x) {
					bits |= 1ULL << i;
					k++;
				}
			}
			put(p + 16 + j * 8, bits, 8);
			part += (uint64_t)__builtin_popcountll(bits);
		}
		put(p + 8, small, 8);
		at += PT_RBSUCC_BLOCK;
	}
	return at;
}

/* An iseq of size VALUEs at encoded whose entries start every step
 * VALUEs (and at 0), entry i on line 100 + 3 * i. */
static void build(struct built *b, uint32_t size, uint32_t step,
		  uint64_t encoded)
{
	b->n = 0;
	for (uint32_t x = 0; x < size; x += step) {
		b->pos[b->n] = x;
		put(b->info + b->n * ENTRY, 100 + 3 * b->n, 4);
		put(b->info + b->n * ENTRY + 4, 0xdead, 4);
		put(b->info + b->n * ENTRY + 8, 0xbeef, 4);
		b->n++;
	}
	b->t = (struct rbline_table){
		.encoded = encoded,
		.iseq_size = size,
		.ninfo = b->n,
		.entry = ENTRY,
		.info = b->info,
		.info_bytes = (size_t)b->n * ENTRY,
		.succ = b->succ,
		.succ_bytes = index_of(b, size),
	};
}

/* The line Ruby gives the frame at pc offset off: the last entry
 * starting at or before off - 1 (0 for off 0). */
static int want(const struct built *b, uint32_t off)
{
	uint32_t pos = off ? off - 1 : 0, i = 0;

	while (i + 1 < b->n && b->pos[i + 1] <= pos)
		i++;
	return 100 + 3 * (int)i;
}

static uint32_t bits_of(uint64_t encoded, uint32_t off)
{
	return (uint32_t)((encoded + 8ULL * off) >> 3) & ((1u << 20) - 1);
}

static void check_all(uint32_t size, uint32_t step, uint64_t encoded)
{
	static struct built b;

	build(&b, size, step, encoded);
	for (uint32_t off = 0; off <= size; off++)
		if (rbline_at(&b.t, bits_of(encoded, off)) != want(&b, off))
			fail_msg("size %u step %u: off %u gives %d, not %d",
				 size, step, off,
				 rbline_at(&b.t, bits_of(encoded, off)),
				 want(&b, off));
}

static void test_sizes(void **state)
{
	(void)state;
	check_all(20, 3, 0x55550000a010);
	check_all(53, 2, 0x55550000a010);
	check_all(54, 5, 0x55550000a010);
	check_all(60, 1, 0x55550000a010);
	check_all(700, 4, 0x7f12345678a0);
	check_all(2000, 7, 0x7f12345678a0);
	check_all(2000, 1, 0x7f12345678a0);
}

static void test_wrap(void **state)
{
	/* iseq_encoded's bits 3-22 near their end: a pc's bits wrap */
	(void)state;
	check_all(700, 3, 0x7f00007ffff0);
	check_all(300, 2, 0x7f00007fff00);
}

static void test_edges(void **state)
{
	static struct built b;
	uint64_t enc = 0x55550000a010;

	(void)state;
	build(&b, 10, 100, enc); /* one entry, no index */
	b.t.succ_bytes = 0;
	assert_int_equal(rbline_at(&b.t, bits_of(enc, 0)), 100);
	assert_int_equal(rbline_at(&b.t, bits_of(enc, 10)), 100);
	assert_int_equal(rbline_at(&b.t, bits_of(enc, 11)), -1);
	assert_int_equal(rbline_at(&b.t, bits_of(enc, 5000)), -1);
	build(&b, 2000, 7, enc); /* its index cut after one block */
	b.t.succ_bytes = PT_RBSUCC_IMM / 9 * 8 + PT_RBSUCC_BLOCK;
	assert_int_equal(rbline_at(&b.t, bits_of(enc, 500)), want(&b, 500));
	assert_int_equal(rbline_at(&b.t, bits_of(enc, 600)), -1);
	build(&b, 2000, 7, enc); /* its entries cut */
	b.t.info_bytes = 10 * ENTRY;
	assert_int_equal(rbline_at(&b.t, bits_of(enc, 70)), want(&b, 70));
	assert_int_equal(rbline_at(&b.t, bits_of(enc, 72)), -1);
	b.t.ninfo = 0;
	assert_int_equal(rbline_at(&b.t, bits_of(enc, 1)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
