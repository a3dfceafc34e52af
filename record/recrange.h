/* SPDX-License-Identifier: MIT */
/*
 * recrange — a range of a recording's intervals as one snapshot: the
 * totals of intervals a..b, for the console's replay (`[` and `]`).
 * A row's count is its total at b less its total before a (what the
 * intervals between counted, summed), its sum and histogram buckets the
 * same, and its totals are those too (the range's totals, so that a
 * view's "total" column shows them); a spec's and the snapshot's events
 * and drops are the range's, the IO and process rows' values as well,
 * their totals b's. What a range cannot say (min and max, the overhead)
 * is b's since attach.
 *
 * Call order: recrange_base() on the decoder at interval a - 1 (or
 * recrange_base_clear() for a range from the first interval), then
 * recrange_make() on it at b.
 */
#ifndef PROBETOP_RECRANGE_H
#define PROBETOP_RECRANGE_H

#include "agg.h"
#include "recdec.h"
#include "recmark.h"

/* What the recording had said before the range. */
struct recrange_base {
	struct recmark mark; /* the rows' totals */
	struct agg_snapshot snap; /* its numbers (no pointers) */
	struct agg_spec *specs; /* snap.nspecs, numbers only */
	struct agg_io_row *io; /* snap.nio */
	struct agg_proc_row *proc; /* snap.nproc */
};

/* The range's snapshot, and what it owns. */
struct recrange {
	struct agg_snapshot snap;
	struct agg_spec *specs;
	struct agg_row *rows;
	const struct agg_row **order;
	uint64_t *b; /* the rows' buckets, PT_NBUCKETS each */
	struct agg_io_row *io;
	struct agg_proc_row *proc;
};

/* The base from d, which holds interval a - 1. 0 or -ENOMEM. */
int recrange_base(struct recrange_base *base, const struct recdec *d);

/* The base before the first interval: nothing said. */
void recrange_base_clear(struct recrange_base *base);

/*
 * The range from base to d (which holds interval b) into rg (its last
 * one freed first). Its pointers into d (the specs, the key texts) stay
 * valid while d holds b. 0 or -ENOMEM.
 */
int recrange_make(struct recrange *rg, const struct recrange_base *base,
		  const struct recdec *d);

void recrange_free(struct recrange *rg);

#endif
