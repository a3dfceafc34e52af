/* SPDX-License-Identifier: MIT */
/*
 * aggpriv — agg's state, private to the agg modules: agg.c (orchestration),
 * aggread.c (reading the maps), aggrows.c (the row table) and aggorder.c
 * (ordering). No other file includes it; agg's callers see struct agg as
 * the opaque type of agg.h.
 */
#ifndef PROBETOP_AGGPRIV_H
#define PROBETOP_AGGPRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "agg.h"

/* Keys (and their per-CPU values) one batch lookup asks for. */
#define AGG_BATCH 1024

/* The key maps: (two strings, one, none) x (counts, histograms). */
#define AGG_KEY_MAPS 6

struct aggrows_count;
struct aggrows_hist;

/* A read under way (agg_read_step()): where the walk of the key maps is,
 * and what it took of them (aggrows_*_take()), put into the rows when it
 * is done. The arrays keep their room from one read to the next. */
struct agg_walk {
	bool on;
	bool use[AGG_KEY_MAPS]; /* the key maps it walks */
	int map; /* the one it walks now */
	bool first; /* whose first batch is next (else from next on) */
	uint32_t next;
	struct aggrows_count *counts;
	size_t ncounts, capcounts;
	struct aggrows_hist *hists;
	size_t nhists, caphists;
};

/* One row and what agg keeps to diff its totals. */
struct arow {
	struct pt_key key;
	uint32_t klen; /* the bytes of key indexed (aggrows.c) */
	int spec;
	unsigned int gen;
	unsigned int stamp; /* the read that last added to row.count */
	struct arow *into; /* a pyline row by bytecode offset: the row of its
			      line, which shows what it counts; NULL: shown */
	uint64_t seq; /* rows in the order they came (agg->rows'): the
			 last tie-break of the snapshot's order */
	bool ordered; /* in agg->order as of the last sort, by ord_count
			 and ord_total (aggorder.c) */
	uint64_t ord_count, ord_total;
	bool minmax; /* row.min and row.max hold a value */
	uint64_t map_total; /* what the map (or solo slot) held at the last */
	int64_t map_sum; /* read: the count and sum behind row.total */
	/* Since attach: what was counted (row.total and sum_total while a
	 * read adds to them; they show est_* where those are estimates),
	 * the estimates and their variance (budget_row()) */
	uint64_t raw_total;
	int64_t raw_sum_total;
	double est_total, est_sum_total, sys_total, var_total;
	double pvar_total,
		out_total; /* var_total's parts (budget_row_parts()) */
	double lo_total; /* a lower bound of the count (budget_row()) */
	struct agg_row row;
	uint64_t *buckets; /* hist kinds: [0..N) interval, [N..2N) total
			      counted, [2N..3N) the map's at the last read,
			      [3N..4N) total estimated */
	double *berr; /* hist kinds, once sampled: [0..N) each estimated
			 total bucket's error, [N..2N) its variance */
};

/* Where each spec's rows sit in agg->order, as of the last sort. */
struct layout {
	int id;
	unsigned int gen;
	size_t off, n;
};

struct agg {
	struct tracer *tr;
	struct cost *cost;
	int ncpu;
	struct timespec start;
	unsigned int interval;
	struct arow **rows; /* dense */
	size_t nrows, caprows;
	size_t *slots; /* hash: index + 1 into rows, 0 = empty */
	size_t nslots;
	struct agg_spec *specs;
	const struct agg_row **order; /* rows of every spec, grouped */
	const struct agg_row **order_next; /* the next order, being made */
	const struct agg_row **order_tmp[3]; /* aggorder's scratch */
	size_t order_cap; /* room in each of the five */
	uint64_t next_seq; /* struct arow.seq */
	uint64_t next_id; /* the last struct agg_row.id given */
	struct agg_io_row *io;
	size_t nio, capio;
	struct agg_proc_row *proc;
	size_t nproc, capproc;
	struct symbolizer *sym; /* sym() keys */
	struct stackname *stacks; /* ustack and kstack keys */
	struct mixstack *mix; /* mixstack keys */
	struct pt_stat prev_stat[PT_MAX_SPECS];
	uint64_t prev_kdrops[PT_KDROP_N];
	unsigned int stat_gen[PT_MAX_SPECS];
	struct pt_count *aprev; /* [spec][slot][cpu]: aslots last time */
	unsigned int aprev_gen[PT_MAX_SPECS];
	void *keys, *vals; /* batch buffers */
	bool changed, prev_changed; /* a row came or moved, now / before */
	bool shown; /* a row's totals show other than what was counted
		       (aggrows_raw() has work at the next read) */
	struct layout layout[PT_MAX_SPECS];
	struct budget *budget;
	bool est_total[PT_MAX_SPECS]; /* a spec's totals hold estimates */
	double ev_est[PT_MAX_SPECS], ev_sys[PT_MAX_SPECS], ev_var[PT_MAX_SPECS],
		ev_lo[PT_MAX_SPECS]; /* its events'
							      estimate */
	double on_s[PT_MAX_SPECS], live_s[PT_MAX_SPECS]; /* attached, and
							    live, since */
	unsigned int est_gen[PT_MAX_SPECS];
	size_t nlayout;
	struct agg_walk walk;
	struct agg_snapshot snap;
};

/* How many rows ahead a pass over them prefetches (aggrows_prefetch()). */
#define AGG_AHEAD 8

/* The struct arow whose row is r. */
static inline struct arow *arow_of(const struct agg_row *r)
{
	return (struct arow *)((char *)r - offsetof(struct arow, row));
}

/* n rounded up to 8: the stride of per-CPU values in a lookup's buffer. */
static inline size_t agg_round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

#endif
