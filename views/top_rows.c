// SPDX-License-Identifier: MIT
/*
 * top_rows — Top's rows: built from the snapshot, named, averaged and
 * ordered. Called by top.c (top_impl.h); never calls it.
 *
 * Rows come from the frames.calls spec of the picked probeset; without
 * one (a program with its own probes), from every spec a user attached
 * (count, sum, quantize, lquantize, latency), each row named by its probe
 * (and, but for count and latency, its aggregation) and key. AVG is the
 * mean latency of a latency spec and the mean value of the others that
 * have a value; P50 and P99 a latency row's percentiles since attach
 * (the frame's, for frames: PostgreSQL's query latency). Rows are
 * rebuilt when a snapshot arrives or the sort/filter changes; the cursor
 * follows the selected key, not the line, so rows can move without
 * losing it.
 *
 * Rows keep their place: numeric columns sort by bands a quarter of an
 * octave wide, and rows in one band keep the order they had on the last
 * refresh, so two frames at 1,000 and 1,050 calls/s do not swap every
 * second; a row moves when its value moves to another band.
 */
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "inert.h"
#include "top_impl.h"

static uint64_t hash_key(int spec, const char *s)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)spec;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int cmp_keyed(const void *a, const void *b)
{
	uint64_t x = ((const struct keyed *)a)->hash,
		 y = ((const struct keyed *)b)->hash;

	return (x > y) - (x < y);
}

/* v of hash h in a[0..n), or dflt */
static uint64_t keyed_find(const struct keyed *a, size_t n, uint64_t h,
			   uint64_t dflt)
{
	struct keyed k = { h, 0 }, *z;

	if (!n)
		return dflt;
	z = bsearch(&k, a, n, sizeof(k), cmp_keyed);
	return z ? z->v : dflt;
}

/* a[] := (hash, f(row i)) of every row, sorted by hash; false on ENOMEM */
static bool keyed_store(struct keyed **a, size_t *n, const struct top *t,
			bool totals)
{
	struct keyed *z = realloc(*a, (t->n ? t->n : 1) * sizeof(*z));

	if (!z)
		return false;
	*a = z;
	*n = t->n;
	for (size_t i = 0; i < t->n; i++)
		z[i] = (struct keyed){ t->rows[i].hash,
				       totals ? t->rows[i].row->total : i };
	qsort(z, *n, sizeof(*z), cmp_keyed);
	return true;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The key without the pid that binary mode puts first (it has a column) */
static const char *key_sans_pid(const struct model *m, const char *key)
{
	const char *sp = strchr(key, ' ');

	if (!m->binary_mode)
		return key;
	return sp ? sp + 1 : "";
}

/* What follows the spec's '=': "sum(arg0)", "quantize(arg1,str(arg0))". */
static const char *agg_text(const struct spec *sp)
{
	const char *eq = strrchr(sp->text, '=');

	return eq ? eq + 1 : spec_agg_name(sp->agg);
}

/* FUNCTION and FILE:LINE when the frames keys are (function, file, line);
 * CLASS.METHOD for (class, method); otherwise the key, and outside frames
 * the probe's name. */
static void name_row(const struct model *m, const struct agg_spec *as,
		     bool frames, struct top_row *r)
{
	const struct agg_row *row = r->row;
	const struct spec_probe *p = &as->spec->probe[0];

	const size_t nn = sizeof(r->name), nw = sizeof(r->where);
	size_t o;

	r->where[0] = '\0';
	if (frames && row->nkeys >= 3 && row->key[0].is_str &&
	    row->key[1].is_str && !row->key[2].is_str) {
		bool neg = row->key[2].num < 0;

		inert_put(r->name, nn, 0, row->key[0].str);
		o = inert_put(r->where, nw, 0, base(row->key[1].str));
		o = fmt_put(r->where, nw, o, ":");
		fmt_put_num(r->where, nw, o,
			    neg ? -(uint64_t)row->key[2].num
				: (uint64_t)row->key[2].num,
			    neg);
	} else if (frames && row->nkeys == 2 && row->key[0].is_str &&
		   row->key[1].is_str) {
		/* (class, method): Java, Ruby */
		o = inert_put(r->name, nn, 0, row->key[0].str);
		o = fmt_put(r->name, nn, o, ".");
		inert_put(r->name, nn, o, row->key[1].str);
	} else if (frames) {
		fmt_put(r->name, nn, 0, key_sans_pid(m, r->key));
	} else {
		o = inert_put(r->name, nn, 0, p->fn ? "fn" : p->provider);
		o = fmt_put(r->name, nn, o, ":");
		o = inert_put(r->name, nn, o, p->name);
		if (as->spec->agg != SPEC_AGG_COUNT &&
		    as->spec->agg != SPEC_AGG_LATENCY) {
			o = fmt_put(r->name, nn, o, " ");
			fmt_put(r->name, nn, o, agg_text(as->spec));
		}
		fmt_put(r->where, nw, 0, key_sans_pid(m, r->key));
	}
}

/* r->p50 and r->p99 of the latency row src of spec as, since attach. */
static void percentiles(const struct agg_spec *as, const struct agg_row *src,
			struct top_row *r)
{
	int nb, at;

	if (!as || !as->spec->timed || !src->b_total)
		return;
	nb = agg_nbuckets(as->spec);
	at = agg_percentile_bucket(src->b_total, nb, 50);
	if (at >= 0)
		hist_bucket_label(as->spec, src, at, true, r->p50,
				  sizeof(r->p50));
	at = agg_percentile_bucket(src->b_total, nb, 99);
	if (at >= 0)
		hist_bucket_label(as->spec, src, at, true, r->p99,
				  sizeof(r->p99));
}

/* r->avg and r->avg_kind of row (spec as): its own mean for a timed spec
 * or one with a value, the frame's mean latency for frames, else none. */
static void avg_of(const struct model *m, const struct agg_spec *as,
		   const struct agg_row *row, bool frames, struct top_row *r)
{
	const struct agg_row *src = NULL;

	r->avg_kind = AVG_NONE;
	r->p50[0] = r->p99[0] = '\0';
	if (as->spec->probe[0].hz) { /* samples: the % of one CPU */
		r->avg = m->snap_s > 0
				 ? 100.0 * (double)row->count / m->snap_s /
					   as->spec->probe[0].hz
				 : 0;
		r->avg_kind = AVG_PCT;
		return;
	}
	if (as->spec->timed || as->spec->val_arg >= 0)
		src = row;
	else if (frames && m->frames_latency.id >= 0)
		src = model_find_row(m, m->frames_latency.id, r->key);
	if (!src || !src->total)
		return;
	r->avg = (double)src->sum_total / (double)src->total;
	r->avg_kind = src == row && !as->spec->timed ? AVG_VALUE : AVG_NS;
	if (r->avg_kind == AVG_NS)
		percentiles(src == row ? as
				       : model_spec(m, m->frames_latency.id),
			    src, r);
}

static bool wanted(const struct top *t, const struct top_row *r)
{
	return !t->filter[0] || strstr(r->name, t->filter) ||
	       strstr(r->where, t->filter);
}

/* The band of v >= 0: four per octave of v * 16 (so rates below one per
 * second still differ); -1 for 0, -2 for unknown (< 0). */
static int band(double v)
{
	uint64_t u;
	int msb;

	if (v < 0)
		return -2;
	u = v > 0 ? (uint64_t)(v * 16) + 1 : 0;
	if (!u)
		return -1;
	msb = 63 - __builtin_clzll(u);
	return msb * 4 +
	       (int)(msb >= 2 ? (u >> (msb - 2)) & 3 : (u << (2 - msb)) & 3);
}

static double sort_value(const struct top_row *r, enum top_col c)
{
	if (c == COL_AVG)
		return r->avg_kind == AVG_NONE ? -1 : r->avg;
	return c == COL_RATE ? r->rate : (double)r->total;
}

static int add_row(struct top *t, const struct model *m,
		   const struct agg_spec *as, const struct agg_row *row)
{
	struct top_row *r;
	int len;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct top_row *v = realloc(t->rows, cap * sizeof(*v));

		if (!v)
			return -1;
		t->rows = v;
		t->cap = cap;
	}
	r = &t->rows[t->n];
	r->row = row;
	r->spec = as->id;
	model_key_text(m, row, " ", r->key, sizeof(r->key));
	name_row(m, as, t->frames, r);
	if (!wanted(t, r))
		return 0;
	r->hash = hash_key(as->id, r->key);
	r->rank = keyed_find(t->ranks, t->nranks, r->hash, UINT64_MAX);
	r->rate = m->snap_s > 0 ? (double)row->count / m->snap_s : 0;
	r->total = row->total - keyed_find(t->zeros, t->nzeros, r->hash, 0);
	r->mark = row->mark;
	r->mark_total = row->mark_total;
	r->samples = as->spec->probe[0].hz > 0;
	avg_of(m, as, row, t->frames, r);
	r->band = band(sort_value(r, t->sort));
	len = (int)strlen(r->name);
	t->maxn = len > t->maxn ? len : t->maxn;
	len = (int)strlen(r->where);
	t->maxw = len > t->maxw ? len : t->maxw;
	if (m->binary_mode) {
		char cmd[CMD_W_MAX + 1];

		len = (int)strlen(inert_str(cmd, sizeof(cmd),
					    model_pid_cmd(m, row->pid)));
		t->maxc = len > t->maxc ? len : t->maxc;
	}
	t->n++;
	return 0;
}

/* Numeric columns: band (descending), the last refresh's place, the exact
 * value, then the key. Name: name, file:line, key. */
static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct top_row *x = a, *y = b;
	enum top_col c = *(const enum top_col *)arg;
	double vx, vy;
	int d;

	if (c == COL_NAME) {
		d = strcmp(x->name, y->name);
		if (!d)
			d = strcmp(x->where, y->where);
		return d ? d : strcmp(x->key, y->key);
	}
	if (x->band != y->band)
		return x->band < y->band ? 1 : -1;
	vx = sort_value(x, c);
	vy = sort_value(y, c);
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (vx != vy)
		return vx < vy ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* Whether spec as has rows in Top when there are no frames: every spec
 * but the GC pane's and the frames' latency. */
static bool is_top_spec(const struct model *m, const struct agg_spec *as)
{
	int id = as->id;

	return id != m->gc_pause.id && id != m->gc_collected.id &&
	       id != m->frames_latency.id;
}

void top_rebuild(struct top *t, const struct model *m)
{
	t->n = 0;
	t->maxn = t->maxw = t->maxc = 0;
	const struct model_role *fr = model_frames(m);

	t->frames = fr != NULL;
	t->hz = 0;
	if (!m->snap)
		return;
	for (size_t i = 0; i < m->snap->nspecs; i++) {
		const struct agg_spec *as = &m->snap->specs[i];

		if (t->frames ? as->id != fr->id : !is_top_spec(m, as))
			continue;
		if (t->frames)
			t->hz = as->spec->probe[0].hz;
		for (size_t k = 0; k < as->nrows; k++)
			if (add_row(t, m, as, as->rows[k]))
				return;
	}
	qsort_r(t->rows, t->n, sizeof(*t->rows), cmp_rows, &t->sort);
	if (!keyed_store(&t->ranks, &t->nranks, t, false))
		t->nranks = 0;
	/* the cursor follows the selected key */
	for (size_t i = 0; i < t->n; i++) {
		if (t->rows[i].spec == t->sel_spec &&
		    !strcmp(t->rows[i].key, t->sel)) {
			t->cursor = i;
			return;
		}
	}
	if (t->cursor >= t->n)
		t->cursor = t->n ? t->n - 1 : 0;
}

void top_zero_totals(struct top *t)
{
	keyed_store(&t->zeros, &t->nzeros, t, true);
}
