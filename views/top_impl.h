/* SPDX-License-Identifier: MIT */
/*
 * top_impl — the Top view's state, shared by its two halves: top_rows.c
 * builds, names and orders the rows from a snapshot (top_rebuild()), and
 * top.c is the view (keys, Enter, drawing). Private to views/top*.c.
 */
#ifndef PROBETOP_TOP_IMPL_H
#define PROBETOP_TOP_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "view.h"

struct rowcache;

enum top_col {
	COL_RATE,
	COL_TOTAL,
	COL_AVG,
	COL_NAME,
	NCOLS
};

#define CMD_W 16 /* -b's COMMAND column, at least */
#define CMD_W_MAX 44 /* and at most */

/* A row's texts, made once (row_text()), and its place. */
struct top_text {
	uint64_t hash; /* hash_key(spec, key) */
	uint64_t rank; /* its place in refresh ranked (struct top.refresh) */
	unsigned int ranked;
	int band; /* its band then */
	int nlen, wlen; /* strlen() of name and where */
	const char *name, *where; /* FUNCTION, FILE:LINE columns */
	char key[]; /* model_key_text(" "), the identity; then name, where */
};

struct top_row {
	const struct agg_row *row;
	struct top_text *text;
	uint64_t hash; /* text's */
	int spec;
	uint64_t rank; /* place on the last refresh; UINT64_MAX: new */
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

/* What rows are sorted by (cmp_rows()), in 32 bytes; r the row (rank
 * the low 32 bits of its place: places are < the rows). The sort moves
 * pointers to these, which qsort() does fastest. */
struct top_sort {
	int band;
	uint32_t rank;
	double v; /* sort_value() */
	uint64_t total;
	const struct top_row *r;
};
_Static_assert(sizeof(struct top_sort) == 32, "a sort record is 32 bytes");

/* A key of the baseline gone now (--baseline): in none of its spec's
 * rows since attach. */
struct top_gone {
	int spec;
	const struct basetab_row *br;
};

struct top {
	struct top_row *rows, *built; /* in order; as rebuild() adds them */
	struct top_sort *keys; /* rebuild()'s sort: of the rows, */
	const struct top_sort **order; /* in order; */
	const struct top_sort **kept, **moved; /* those in their band, by
						  place, and the others */
	size_t n, cap;
	struct rowcache *texts; /* row id -> struct top_text */
	bool texts_frames; /* the frames flag they were made with */
	struct top_text **scratch; /* texts of rows with no id: freed at */
	size_t nscratch, capscratch; /* the next rebuild() */
	enum top_col sort;
	char filter[64];
	char sel[256];
	int sel_spec;
	size_t cursor, scroll;
	struct keyed *zeros; /* total when z was pressed */
	size_t nzeros;
	unsigned int refresh; /* rebuilds that placed their rows' texts */
	bool unranked; /* the next rebuild sorts from scratch (s) */
	size_t nprev; /* the last refresh's rows, at the start of a rebuild */
	struct keyed *ranks; /* their places by hash, if asked for */
	size_t nranks;
	bool indexed; /* ranks is of them */
	int maxn, maxw; /* longest name and where of the rows */
	int maxc; /* longest command of the rows (-b) */
	bool frames; /* rows are the frames spec (model_frames()) */
	int hz; /* its samples a second, if they are samples; else 0 */
	bool avg_col; /* draw the AVG column */
	bool pct_col; /* and P50 and P99 */
	struct top_gone *gone; /* --baseline: its keys gone, by old rate */
	size_t ngone, capgone;
};

/* t's rows from m: built, filtered, ordered (rows keep their place in
 * their band), the cursor on the selected key. */
void top_rebuild(struct top *t, const struct model *m);

/* Whether Top shows the rows of as (t->frames as of the last rebuild). */
bool top_spec_shown(const struct top *t, const struct model *m,
		    const struct agg_spec *as);

/* top_base.c: Top against --baseline ---------------------------------- */

/* DELTA_W + 1 + RATIO_W + 2 columns: " DELTA/s  RATIO" */
#define DELTA_W 10
#define RATIO_W 6
#define BASE_COLS (1 + DELTA_W + 1 + RATIO_W)

/* r's delta per second and ratio against the baseline, as the columns
 * " %10s %6s" ("+1,200", "x1.80"; "new" for a key the baseline has
 * not) into out; "" without a baseline. */
void top_base_cols(const struct model *m, const struct top_row *r, char *out,
		   size_t n);

/* t->gone from m's snapshot: the baseline's keys of the specs Top shows
 * that none of their rows has, highest old rate first (none without a
 * baseline; fewer when out of memory). */
void top_base_gone(struct top *t, const struct model *m);

/* The gone keys in rows lines at y of in (a heading, then one line
 * each: the old rate as a negative delta, "gone", the key); the lines
 * used. */
int top_base_draw_gone(const struct top *t, const struct model *m,
		       struct rect in, int y, int rows);

/* Remember every row's total as its zero (z). */
void top_zero_totals(struct top *t);

/* Free what the rows hold (not t). */
void top_rows_free(struct top *t);

#endif
