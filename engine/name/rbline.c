// SPDX-License-Identifier: MIT
/*
 * rbline — a Ruby pc to its source line; see rbline.h.
 */
#include "rbline.h"

#include <linux/types.h>

#include "rbshared.h"

#define OFF_MASK ((1u << 20) - 1) /* PT_RBLINE()'s bits of the pc */
#define SMALL 64 /* positions of a block's part */
#define BLOCK 512 /* positions of a block */

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* How many entries start at or before position pos; -1 if the index
 * kept does not reach it. */
static int64_t rank(const struct rbline_table *t, uint32_t pos)
{
	uint32_t x, sb, bit;
	uint64_t small, bits;
	size_t at;

	if (pos < PT_RBSUCC_IMM) {
		at = pos / 9 * 8;
		if (at + 8 > t->succ_bytes)
			return -1;
		return (int64_t)(le(t->succ + at, 8) >> (pos % 9 * 7) & 0x7f);
	}
	x = pos - PT_RBSUCC_IMM;
	at = PT_RBSUCC_IMM / 9 * 8 + (size_t)(x / BLOCK) * PT_RBSUCC_BLOCK;
	if (at + PT_RBSUCC_BLOCK > t->succ_bytes)
		return -1;
	sb = x % BLOCK / SMALL;
	bit = x % SMALL;
	small = sb ? le(t->succ + at + 8, 8) >> ((sb - 1) * 9) & 0x1ff : 0;
	bits = le(t->succ + at + 16 + sb * 8, 8) << (63 - bit);
	return (int64_t)le(t->succ + at, 4) + (int64_t)small +
	       __builtin_popcountll(bits);
}

int rbline_at(const struct rbline_table *t, uint32_t pcbits)
{
	uint32_t off = (pcbits - (uint32_t)(t->encoded >> 3)) & OFF_MASK;
	uint32_t pos = off ? off - 1 : 0;
	int64_t idx = 0;
	size_t at;

	if (!t->ninfo || off > t->iseq_size || !t->entry)
		return -1;
	if (t->ninfo > 1)
		idx = rank(t, pos) - 1;
	if (idx < 0 || (uint64_t)idx >= t->ninfo)
		return -1;
	at = (size_t)idx * t->entry + t->line_at;
	if (at + 4 > t->info_bytes)
		return -1;
	return (int)(int32_t)le(t->info + at, 4);
}
