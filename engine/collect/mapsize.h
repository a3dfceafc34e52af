/* SPDX-License-Identifier: MIT */
/*
 * mapsize — how many keys each aggregation map holds. The maps are per
 * CPU and preallocated (a burst of new keys never waits for memory), so
 * a map of fixed capacity grows with the machine: 16,384 histograms are
 * 18 MB on 2 CPUs and 600 MB on 64. Instead the eight aggregation maps
 * and the table of IO under way share a memory budget (--aggsize, as
 * DTrace's aggsize): a map whose full capacity fits its share keeps it,
 * and what it leaves goes to the others; on a big machine the maps hold
 * fewer keys, never more memory. The rows of the unwind tables (one
 * array for all CPUs, 8 bytes a row) take a share of the same budget.
 */
#ifndef PROBETOP_MAPSIZE_H
#define PROBETOP_MAPSIZE_H

#include <stdbool.h>
#include <stdint.h>

#define MAPSIZE_DEFAULT (128ull << 20) /* bytes, without --aggsize */
#define MAPSIZE_MIN_ENTRIES 64 /* a map holds at least this many keys */
#define MAPSIZE_MIN_BUDGET (1ull << 20) /* --aggsize at least 1m */
#define MAPSIZE_MAX_BUDGET (1ull << 40) /* and at most 1t */

/* The aggregation maps: counts and histograms by key width (enum
 * pt_key_width: MAPSIZE_COUNTS + width, MAPSIZE_HISTS + width), then the
 * kernel's io and process maps, io_start, the IO calls and requests
 * under way (one map for all CPUs), and urows, the unwind tables. */
enum mapsize_map {
	MAPSIZE_COUNTS = 0, /* ncounts, scounts, counts */
	MAPSIZE_HISTS = 3, /* nhists, shists, hists */
	MAPSIZE_IO = 6,
	MAPSIZE_PROC = 7,
	MAPSIZE_INFLIGHT = 8,
	MAPSIZE_UROWS = 9, /* the unwind tables' rows (an array) */
	MAPSIZE_NMAPS = 10,
};

struct mapsize {
	uint64_t budget; /* what was asked */
	uint32_t entries[MAPSIZE_NMAPS];
	uint64_t bytes; /* what the maps take, estimated as the kernel does */
};

/* The map's name in the BPF object ("nhists"). */
const char *mapsize_name(enum mapsize_map m);

/*
 * The plan for budget bytes over ncpus possible CPUs: each map gets a
 * share by weight (a histogram map 4, a count map 2, io, process, IO
 * under way and unwind rows 1 each); a map whose full capacity
 * (PT_COUNT_ENTRIES, PT_HIST_ENTRIES, PT_IO_ENTRIES, PT_PROC_ENTRIES,
 * PT_IO_INFLIGHT, PT_UROWS) fits its share takes only that and the
 * rest is shared again among the others. No map gets fewer than
 * MAPSIZE_MIN_ENTRIES, so a tiny budget may be exceeded (out->bytes says
 * by how much).
 */
void mapsize_plan(uint64_t budget, int ncpus, struct mapsize *out);

/*
 * Parse a size: digits, optionally followed by k, m, g or t (powers of
 * 1024, either case): "4096", "256m", "2G". 0, or -EINVAL when text is
 * not one or -ERANGE when it lies outside
 * [MAPSIZE_MIN_BUDGET, MAPSIZE_MAX_BUDGET].
 */
int mapsize_parse(const char *text, uint64_t *bytes);

/* budget written the way mapsize_parse() reads it, as short as exact:
 * "128m", "1536k", "1000". */
void mapsize_format(uint64_t bytes, char *out, int len);

#endif
