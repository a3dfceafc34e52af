/* SPDX-License-Identifier: MIT */
/*
 * aggrows — agg's rows (private to the agg modules, see aggpriv.h): the
 * key rows of the specs in a hash table by their raw BPF key (struct
 * pt_key), each keeping the totals seen last time so that a read turns
 * the kernel's running totals into this interval's values (the IO and
 * process rows: aggkern.h).
 *
 * The *_entry functions take one map entry as read by aggread: key, and
 * vals holding agg->ncpu per-CPU values agg_round8(value size) apart. A
 * row that cannot be added (out of memory, or its spec was removed a
 * moment ago) is skipped. Rows are owned by agg (agg->rows, agg->io,
 * agg->proc) until agg_free().
 *
 * A key map's entry can also be taken in two halves: *_take() finds (or
 * adds) its row and sums its values over CPUs, *_put() adds them to the
 * row later. aggread walks the key maps in steps and puts what it took
 * when the walk is done, so that the rows a snapshot shows do not change
 * in between (a row added meanwhile is in no snapshot yet).
 */
#ifndef PROBETOP_AGGROWS_H
#define PROBETOP_AGGROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h> /* before probetop.h */
#include <stdint.h>

#include "probetop.h"

struct agg;
struct arow;

/*
 * The row of key k, added if new (and reset if its spec's slot was reused
 * since it was added), with buckets if hist. NULL if out of memory or k's
 * spec is gone.
 */
struct arow *aggrows_get(struct agg *agg, const struct pt_key *k, bool hist);

/* Add what one source of count row r gained since the last read. */
void aggrows_gain(struct agg *agg, struct arow *r, uint64_t count, int64_t sum);

/* A count map's entry (key: struct pt_key; vals: struct pt_count). */
void aggrows_count_entry(struct agg *agg, const void *key, const void *vals);

/* A histogram map's entry (key: struct pt_key; vals: struct pt_hist). */
void aggrows_hist_entry(struct agg *agg, const void *key, const void *vals);

/* A count map's entry taken: its row, the row's generation then, and the
 * map's totals summed over CPUs. */
struct aggrows_count {
	struct arow *r;
	unsigned int gen;
	uint64_t count;
	int64_t sum;
};

/* A histogram map's entry taken: the same with its buckets; v.min and
 * v.max over the CPUs that counted (INT64_MAX, INT64_MIN if none). */
struct aggrows_hist {
	struct arow *r;
	unsigned int gen;
	struct pt_hist v;
};

/* Take a count map's entry (as aggrows_count_entry()) into *e; false if
 * it has no row (skipped). */
bool aggrows_count_take(struct agg *agg, const void *key, const void *vals,
			struct aggrows_count *e);

/* Add what e took to its row, unless the row or its spec changed
 * generation since (a spec removed and its slot reused meanwhile). */
void aggrows_count_put(struct agg *agg, const struct aggrows_count *e);

/* The same for a histogram map's entry. */
bool aggrows_hist_take(struct agg *agg, const void *key, const void *vals,
		       struct aggrows_hist *e);
void aggrows_hist_put(struct agg *agg, const struct aggrows_hist *e);

/*
 * Rebuild the index of agg->rows[0..nrows) with nslots (a power of two
 * > 2 * nrows). 0, or -ENOMEM (the old index is kept).
 */
int aggrows_rehash(struct agg *agg, size_t nslots);

struct budget_est;

/* Before a read adds to r: its totals as counted (aggrows_show() may
 * have shown estimates). */
void aggrows_raw(struct arow *r);

/*
 * After a read: r's interval values (zero unless touched: a source
 * added to it in this read) stand for what e says (budget_row()); keep
 * its counted and estimated totals and show each of count and total as
 * its mark says: an estimate's value, or what was counted. Whether its
 * totals show other than what was counted (aggrows_raw() has work).
 */
bool aggrows_show(struct arow *r, bool touched, const struct budget_est *e);

/* Ask the memory for what a pass over the rows reads and writes of row r
 * (its bookkeeping and its numbers), a few rows ahead of the one it is
 * at: a hundred thousand rows, a cache miss or two each, otherwise wait
 * on the memory one row at a time. NULL is a no-op. */
void aggrows_prefetch(const struct arow *r);

/* Free a row taken out of agg->rows; NULL is a no-op. */
void aggrows_free_row(struct arow *r);

#endif
