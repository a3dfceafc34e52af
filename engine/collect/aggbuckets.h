/* SPDX-License-Identifier: MIT */
/*
 * aggbuckets — a sampled histogram row's buckets, held to the promise
 * of an estimate bucket by bucket.
 *
 * A sampled histogram row's count is an estimate when its error fits
 * the promise (agg.h). Each bucket is a smaller sample of the same
 * windows, with an error of its own: a tail bucket of a few hits cannot
 * keep the promise its row keeps. So each bucket is held to it as a row
 * is (budget_row(), agg_mark_of()), and a row is an estimate only where
 * every bucket it shows is one: else its count, sum and buckets are
 * what was counted, a lower bound. One mark for the whole row keeps a
 * bucket's share, a cumulative bucket (Prometheus' le) and the count
 * the same kind of number.
 */
#ifndef PROBETOP_AGGBUCKETS_H
#define PROBETOP_AGGBUCKETS_H

#include <stdbool.h>

struct arow;
struct budget_est;

/*
 * After a read, for histogram row r whose interval buckets (as counted)
 * stand for what e says, row.mark set by its count, f the row's factor
 * (its estimate over its count): add the buckets scaled by f to r's
 * estimated totals and their errors; make row.mark a bound where a
 * bucket cannot keep an estimate's promise, and show the scaled buckets
 * where it stays an estimate. Returns the sum of the scaled buckets (the
 * row's estimate).
 */
double aggbuckets_interval(struct arow *r, const struct budget_est *e,
			   double f);

/* Whether every estimated total bucket of histogram row r keeps an
 * estimate's promise. */
bool aggbuckets_totals_keep(const struct arow *r);

#endif
