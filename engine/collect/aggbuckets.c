// SPDX-License-Identifier: MIT
/*
 * aggbuckets — a sampled histogram row's buckets, held to the promise
 * bucket by bucket; see aggbuckets.h.
 */
#include "aggbuckets.h"

#include <stdlib.h>

#include "aggpriv.h"
#include "budget.h"

#define N PT_NBUCKETS

/* round(v * f) for a count, f >= 1 */
static uint64_t scale_u(uint64_t v, double f)
{
	return (uint64_t)((double)v * f + 0.5);
}

/* Add bucket i's error in this interval to r->berr (allocated at the
 * first sampled interval); whether its scaled count s keeps the promise. */
static bool bucket_keeps(struct arow *r, const struct budget_est *e, int i,
			 uint64_t s)
{
	double est, sys, var, lo;

	budget_row(e, (double)r->buckets[i], &est, &sys, &var, &lo);
	if (!r->berr && (sys > 0 || var > 0))
		r->berr = calloc(2 * N, sizeof(*r->berr));
	if (!r->berr)
		return sys <= 0 && var <= 0;
	r->berr[i] += sys;
	r->berr[N + i] += var;
	/* a bucket none of whose hits were seen is no number shown */
	return !s || agg_mark_of((double)s, sys, var) != AGG_BOUND;
}

double aggbuckets_interval(struct arow *r, const struct budget_est *e, double f)
{
	uint64_t *est_b = r->buckets + 3 * N, scaled[N];
	bool keep = true;
	double n = 0;

	for (int i = 0; i < N; i++) {
		scaled[i] = scale_u(r->buckets[i], f);
		est_b[i] += scaled[i];
		n += (double)scaled[i];
		keep &= bucket_keeps(r, e, i, scaled[i]);
	}
	if (r->row.mark == AGG_ESTIMATE && !keep)
		r->row.mark = AGG_BOUND;
	if (r->row.mark == AGG_ESTIMATE)
		for (int i = 0; i < N; i++)
			r->buckets[i] = scaled[i];
	return n;
}

bool aggbuckets_totals_keep(const struct arow *r)
{
	const uint64_t *est_b = r->buckets + 3 * N;

	for (int i = 0; i < N && r->berr; i++)
		if (est_b[i] && agg_mark_of((double)est_b[i], r->berr[i],
					    r->berr[N + i]) == AGG_BOUND)
			return false;
	return true;
}
