// SPDX-License-Identifier: MIT
/*
 * fnstart — function starts from `.eh_frame_hdr`; see fnstart.h.
 *
 * The section: a version byte (1), the encodings of the pointer to
 * `.eh_frame`, of the FDE count and of the table's entries, the pointer,
 * the count, then count pairs (initial location, FDE address). GNU ld,
 * gold and lld write the table as 4-byte signed offsets from the
 * section's start (DW_EH_PE_datarel | DW_EH_PE_sdata4): that is the one
 * taken.
 */
#include "fnstart.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PE_OMIT 0xff
#define PE_UDATA4 0x03
#define PE_SDATA4 0x0b
#define PE_UDATA8 0x04
#define PE_SDATA8 0x0c
#define PE_FORMAT 0x0f
#define PE_TABLE 0x3b /* datarel | sdata4 */

/* The size of a value of encoding enc (4 or 8); 0 for any other. */
static size_t enc_size(uint8_t enc)
{
	switch (enc & PE_FORMAT) {
	case PE_UDATA4:
	case PE_SDATA4:
		return 4;
	case PE_UDATA8:
	case PE_SDATA8:
		return 8;
	}
	return 0;
}

/* The FDE count at p (encoding enc, 4 or 8 bytes, read as unsigned). */
static uint64_t read_count(const uint8_t *p, uint8_t enc)
{
	uint32_t v4;
	uint64_t v8;

	if (enc_size(enc) == 4) {
		memcpy(&v4, p, 4);
		return v4;
	}
	memcpy(&v8, p, 8);
	return v8;
}

int fnstart_read(const uint8_t *data, size_t size, uint64_t vaddr,
		 uint64_t **starts, size_t *n)
{
	size_t at = 4, ptr_size, count_size;
	uint64_t count, *v;

	*starts = NULL;
	*n = 0;
	if (size < 4 || data[0] != 1)
		return -EBADMSG;
	if (data[2] == PE_OMIT || data[3] == PE_OMIT)
		return -ENOENT; /* no table: the unwinder walks .eh_frame */
	ptr_size = enc_size(data[1]);
	count_size = enc_size(data[2]);
	if (data[3] != PE_TABLE || !ptr_size || !count_size)
		return -ENOTSUP;
	if (size - at < ptr_size + count_size)
		return -EBADMSG;
	at += ptr_size;
	count = read_count(data + at, data[2]);
	at += count_size;
	if (!count)
		return -ENOENT;
	if (count > (size - at) / 8)
		return -EBADMSG;
	v = malloc(count * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint64_t i = 0; i < count; i++) {
		int32_t rel;

		memcpy(&rel, data + at + 8 * i, 4);
		v[i] = vaddr + (uint64_t)(int64_t)rel;
		if (i && v[i] < v[i - 1]) {
			free(v);
			return -EBADMSG; /* the search table must be sorted */
		}
	}
	*starts = v;
	*n = count;
	return 0;
}

bool fnstart_find(const uint64_t *starts, size_t n, uint64_t addr,
		  uint64_t *start)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first start above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (starts[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	*start = starts[lo - 1];
	return true;
}
