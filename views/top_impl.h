/* SPDX-License-Identifier: MIT */
/*
 * top_impl — the Top view's state, private to its two files: top.c (the
 * view: keys, Enter, drawing) and top_rows.c (the rows: built from the
 * snapshot, named, averaged, ordered). Nothing else includes it.
 *
 * Calls go one way: top.c calls top_rows.c.
 */
#ifndef PROBETOP_TOP_IMPL_H
#define PROBETOP_TOP_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

enum top_col {
	COL_RATE,
	COL_TOTAL,
	COL_AVG,
	COL_NAME,
	NCOLS
};

#define CMD_W 16 /* -b's COMMAND column, at least */
#define CMD_W_MAX 44 /* and at most */

struct top_row {
	const struct agg_row *row;
	int spec;
	uint64_t hash; /* hash_key(spec, key) */
	uint64_t rank; /* place on the last refresh; UINT64_MAX: new */
	char key[256]; /* model_key_text(" "), the identity */
	char name[160], where[160]; /* FUNCTION, FILE:LINE columns */
	double rate, avg; /* mean latency (ns) or value, if avg_kind */
	enum {
		AVG_NONE,
		AVG_NS,
		AVG_VALUE,
		AVG_PCT /* of one CPU, from samples */
	} avg_kind;
	char p50[16], p99[16]; /* latency percentiles of a timed row (or
				  the frame's), as bucket labels; "" if none */
	uint64_t total;
	unsigned char mark, mark_total; /* rate, total: enum agg_mark */
	bool samples; /* CPU samples (profile:HZ), not calls */
	int band; /* band() of the sort column's value */
};

/* a value per row identity (hash_key), in arrays sorted by hash */
struct keyed {
	uint64_t hash, v;
};

struct top {
	struct top_row *rows;
	size_t n, cap;
	enum top_col sort;
	char filter[64];
	char sel[256];
	int sel_spec;
	size_t cursor, scroll;
	struct keyed *zeros; /* total when z was pressed */
	size_t nzeros;
	struct keyed *ranks; /* place on the last refresh */
	size_t nranks;
	int maxn, maxw; /* longest name and where of the rows */
	int maxc; /* longest command of the rows (-b) */
	bool frames; /* rows are the frames spec (model_frames()) */
	int hz; /* its samples a second, if they are samples; else 0 */
	bool avg_col; /* draw the AVG column */
	bool pct_col; /* and P50 and P99 */
};

/* t's rows from m's snapshot: those of the frames spec, else of every
 * spec Top shows, named, filtered, ordered by t->sort (keeping last
 * time's places within a band); the cursor on the selected key. */
void top_rebuild(struct top *t, const struct model *m);

/* z: from the next top_rebuild() on, each row's TOTAL counts from its
 * total now. */
void top_zero_totals(struct top *t);

#endif
