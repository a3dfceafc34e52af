// SPDX-License-Identifier: MIT
/*
 * mapsize — the aggregation maps' capacities from a memory budget; see
 * mapsize.h.
 */
#include "mapsize.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/types.h>

#include "probetop.h"

/*
 * What the kernel's preallocated hash table takes per entry besides key
 * and value: its element (list node, hash: 48 bytes), for a per-CPU map
 * with the pointer to the per-CPU value; and its buckets, 16 bytes each,
 * as many as the capacity rounded up to a power of two (so up to 32
 * bytes per entry). Checked against the memlock bpftool shows.
 */
#define ELEM_BYTES 48
#define PERCPU_PTR_BYTES 8
#define BUCKET_BYTES 16

#define ROUND8(n) (((uint64_t)(n) + 7) & ~(uint64_t)7)

static const struct {
	const char *name;
	uint32_t key, value, cap;
	unsigned weight;
	bool percpu;
	bool array; /* an array: its values only, no hash table */
} MAPS[MAPSIZE_NMAPS] = {
	{ "ncounts", sizeof(struct pt_nkey), sizeof(struct pt_count),
	  PT_COUNT_ENTRIES, 2, true, false },
	{ "scounts", sizeof(struct pt_skey), sizeof(struct pt_count),
	  PT_COUNT_ENTRIES, 2, true, false },
	{ "counts", sizeof(struct pt_key), sizeof(struct pt_count),
	  PT_COUNT_ENTRIES, 2, true, false },
	{ "nhists", sizeof(struct pt_nkey), sizeof(struct pt_hist),
	  PT_HIST_ENTRIES, 4, true, false },
	{ "shists", sizeof(struct pt_skey), sizeof(struct pt_hist),
	  PT_HIST_ENTRIES, 4, true, false },
	{ "hists", sizeof(struct pt_key), sizeof(struct pt_hist),
	  PT_HIST_ENTRIES, 4, true, false },
	{ "io", sizeof(struct pt_io_key), sizeof(struct pt_io_val),
	  PT_IO_ENTRIES, 1, true, false },
	{ "proc", sizeof(struct pt_proc_key), sizeof(struct pt_proc_val),
	  PT_PROC_ENTRIES, 1, true, false },
	{ "io_start", sizeof(__u64), sizeof(struct pt_io_start), PT_IO_INFLIGHT,
	  1, false, false },
	{ "urows", sizeof(__u32), sizeof(struct pt_urow), PT_UROWS, 1, false,
	  true },
};

const char *mapsize_name(enum mapsize_map m)
{
	return MAPS[m].name;
}

/* Bytes of one entry of map m over ncpus CPUs, its buckets left out:
 * its value (on every CPU, for a per-CPU map), its key, the table's
 * element. */
static uint64_t elem_bytes(enum mapsize_map m, int ncpus)
{
	uint64_t value = ROUND8(MAPS[m].value);

	if (MAPS[m].array)
		return value;
	if (MAPS[m].percpu)
		value = (uint64_t)ncpus * value + PERCPU_PTR_BYTES;
	return value + ROUND8(MAPS[m].key) + ELEM_BYTES;
}

/* Bytes of a map m of n entries over ncpus CPUs, as the kernel counts
 * (a map of values for all CPUs keeps one spare element per CPU). */
static uint64_t map_bytes(enum mapsize_map m, int ncpus, uint64_t n)
{
	uint64_t buckets = 1, elems = n + (MAPS[m].percpu ? 0 : ncpus);

	if (MAPS[m].array)
		return n * elem_bytes(m, ncpus);
	while (buckets < n)
		buckets <<= 1;
	return elems * elem_bytes(m, ncpus) + buckets * BUCKET_BYTES;
}

/* Bytes one entry of map m takes at most over ncpus CPUs (buckets
 * rounded up to twice the entries): what a share is divided by. */
static uint64_t entry_bytes(enum mapsize_map m, int ncpus)
{
	return elem_bytes(m, ncpus) + (MAPS[m].array ? 0 : 2 * BUCKET_BYTES);
}

/* The weights of the maps in open[]. */
static unsigned open_weight(const bool open[])
{
	unsigned wsum = 0;

	for (int m = 0; m < MAPSIZE_NMAPS; m++)
		wsum += open[m] ? MAPS[m].weight : 0;
	return wsum;
}

/* Give every map in open[] whose capacity fits its share of left its
 * capacity: take it out of open[] and its bytes out of *left. Returns
 * how many it gave. */
static int fill_capped(bool open[], uint64_t *left, int ncpus)
{
	unsigned wsum = open_weight(open);
	uint64_t taken = 0;
	int n = 0;

	for (int m = 0; m < MAPSIZE_NMAPS; m++) {
		uint64_t need = map_bytes(m, ncpus, MAPS[m].cap);

		if (!open[m] || need > *left / wsum * MAPS[m].weight)
			continue;
		open[m] = false;
		taken += need;
		n++;
	}
	*left -= taken;
	return n;
}

void mapsize_plan(uint64_t budget, int ncpus, struct mapsize *out)
{
	bool open[MAPSIZE_NMAPS];
	uint64_t left = budget;
	unsigned wsum;

	for (int m = 0; m < MAPSIZE_NMAPS; m++)
		open[m] = true;
	while (fill_capped(open, &left, ncpus))
		;
	wsum = open_weight(open);
	out->budget = budget;
	out->bytes = 0;
	for (int m = 0; m < MAPSIZE_NMAPS; m++) {
		uint64_t n = MAPS[m].cap;

		if (open[m])
			n = left / wsum * MAPS[m].weight /
			    entry_bytes(m, ncpus);
		if (n < MAPSIZE_MIN_ENTRIES)
			n = MAPSIZE_MIN_ENTRIES;
		out->entries[m] = (uint32_t)n;
		out->bytes += map_bytes(m, ncpus, n);
	}
}

int mapsize_parse(const char *text, uint64_t *bytes)
{
	static const char units[] = "kmgt";
	unsigned long long n;
	unsigned shift = 0;
	char *end;

	if (!isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	n = strtoull(text, &end, 10);
	if (*end) {
		for (int i = 0; units[i]; i++)
			if (tolower((unsigned char)*end) == units[i])
				shift = 10 * (i + 1);
		if (!shift || end[1])
			return -EINVAL;
	}
	if (errno || n > MAPSIZE_MAX_BUDGET >> shift)
		return -ERANGE;
	n <<= shift;
	if (n < MAPSIZE_MIN_BUDGET)
		return -ERANGE;
	*bytes = n;
	return 0;
}

void mapsize_format(uint64_t bytes, char *out, int len)
{
	static const char units[] = "\0kmgt";
	int u = 0;

	while (u < 4 && bytes && !(bytes & 1023)) {
		bytes >>= 10;
		u++;
	}
	snprintf(out, len, "%llu%.1s", (unsigned long long)bytes, &units[u]);
}
