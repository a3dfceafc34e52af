// SPDX-License-Identifier: MIT
/*
 * pyline — bytecode offset to source line; see pyline.h.
 */
#include "pyline.h"

#include <stdbool.h>

/* 3.8, 3.9: co_lnotab. */
static int lnotab(const uint8_t *tab, size_t n, int first, uint32_t off)
{
	uint32_t addr = 0;
	int line = first;

	for (size_t i = 0; i + 1 < n; i += 2) {
		addr += tab[i];
		if (addr > off)
			break;
		line += (int8_t)tab[i + 1];
	}
	return line;
}

/* 3.10: co_linetable of (bytecode delta, line delta) ranges. */
static int linetable310(const uint8_t *tab, size_t n, int first, uint32_t off)
{
	uint32_t start = 0;
	int line = first;

	for (size_t i = 0; i + 1 < n; i += 2) {
		uint32_t end = start + tab[i];
		int8_t delta = (int8_t)tab[i + 1];

		if (delta != -128)
			line += delta;
		if (off >= start && off < end)
			return delta == -128 ? -1 : line;
		start = end;
	}
	return -1;
}

/* An unsigned varint of the location table (6 bits a byte, bit 6 says
 * more follow); false when cut short. */
static bool varint(const uint8_t *tab, size_t n, size_t *i, uint32_t *out)
{
	uint32_t v = 0;
	int shift = 0;

	while (*i < n && shift < 32) {
		uint8_t b = tab[(*i)++];

		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
		if (!(b & 64)) {
			*out = v;
			return true;
		}
	}
	return false;
}

static bool svarint(const uint8_t *tab, size_t n, size_t *i, int *out)
{
	uint32_t v;

	if (!varint(tab, n, i, &v))
		return false;
	*out = v & 1 ? -(int)(v >> 1) : (int)(v >> 1);
	return true;
}

/* 3.11+: the location table; off in bytes, entries in 2-byte units. */
static int loctable(const uint8_t *tab, size_t n, int first, uint32_t off)
{
	uint32_t unit = 0, want = off / 2, skip;
	int line = first;
	size_t i = 0;

	while (i < n) {
		uint8_t head = tab[i++];
		int code = head >> 3 & 15, len = (head & 7) + 1, delta = 0;
		bool none = false;

		if (!(head & 0x80))
			return -1; /* not an entry's first byte */
		if (code == 15) {
			none = true;
		} else if (code == 14) { /* long: line, end line, columns */
			if (!svarint(tab, n, &i, &delta) ||
			    !varint(tab, n, &i, &skip) ||
			    !varint(tab, n, &i, &skip) ||
			    !varint(tab, n, &i, &skip))
				return -1;
		} else if (code == 13) { /* no columns */
			if (!svarint(tab, n, &i, &delta))
				return -1;
		} else if (code >= 10) { /* one line: two column bytes */
			delta = code - 10;
			i += 2;
		} else { /* short: one column byte, the same line */
			i += 1;
		}
		line += delta;
		if (want >= unit && want < unit + (uint32_t)len)
			return none ? -1 : line;
		unit += (uint32_t)len;
	}
	return -1;
}

int pyline_addr2line(int minor, const uint8_t *tab, size_t n, int first,
		     uint32_t off)
{
	if (minor <= 9)
		return lnotab(tab, n, first, off);
	if (minor == 10)
		return linetable310(tab, n, first, off);
	return loctable(tab, n, first, off);
}
