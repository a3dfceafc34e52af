// SPDX-License-Identifier: MIT
/*
 * top_rows — the Top view's rows: built from a snapshot, named
 * (FUNCTION and FILE:LINE, or the probe and its key), filtered and
 * ordered; see top_impl.h.
 *
 * A row's texts (its key, the name and FILE:LINE columns) are made once
 * in its life and kept by its id (rowcache.h): at a hundred thousand
 * rows, formatting every key each interval was most of a refresh. Rows
 * are sorted as small records (struct top_sort) and then laid out in
 * their order, rather than moved about by the sort; and as rows keep
 * their place (below), those whose band did not change are in order
 * already: only the others are sorted, and merged in.
 *
 * Rows keep their place: numeric columns sort by bands a quarter of an
 * octave wide, and rows in one band keep the order they had on the last
 * refresh, so two frames at 1,000 and 1,050 calls/s do not swap every
 * second; a row moves when its value moves to another band.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "inert.h"
#include "rowcache.h"
#include "top_impl.h"
#include "view.h"

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

/* a[] := (hash, f(row i)) of the first n rows, sorted by hash; false on
 * ENOMEM */
static bool keyed_store(struct keyed **a, size_t *na, const struct top *t,
			size_t n, bool totals)
{
	struct keyed *z = realloc(*a, (n ? n : 1) * sizeof(*z));

	if (!z)
		return false;
	*a = z;
	*na = n;
	for (size_t i = 0; i < n; i++)
		z[i] = (struct keyed){ t->rows[i].hash,
				       totals ? t->rows[i].row->total : i };
	qsort(z, n, sizeof(*z), cmp_keyed);
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

/* Row's name and where (nn and nw bytes) from its key text key: FUNCTION
 * and FILE:LINE when the frames keys are (function, file, line);
 * CLASS.METHOD for (class, method); otherwise the key, and outside
 * frames the probe's name. */
static void name_row(const struct model *m, const struct agg_spec *as,
		     bool frames, const struct agg_row *row, const char *key,
		     char *name, size_t nn, char *where, size_t nw)
{
	const struct spec_probe *p = &as->spec->probe[0];
	size_t o;

	name[0] = where[0] = '\0';
	if (frames && row->nkeys >= 3 && row->key[0].is_str &&
	    row->key[1].is_str && !row->key[2].is_str) {
		bool neg = row->key[2].num < 0;

		inert_put(name, nn, 0, agg_key_text(&row->key[0]));
		o = inert_put(where, nw, 0, base(agg_key_text(&row->key[1])));
		o = fmt_put(where, nw, o, ":");
		fmt_put_num(where, nw, o,
			    neg ? -(uint64_t)row->key[2].num
				: (uint64_t)row->key[2].num,
			    neg);
	} else if (frames && row->nkeys == 2 && row->key[0].is_str &&
		   row->key[1].is_str) {
		/* (class, method): Java, Ruby */
		o = inert_put(name, nn, 0, agg_key_text(&row->key[0]));
		o = fmt_put(name, nn, o, ".");
		inert_put(name, nn, o, agg_key_text(&row->key[1]));
	} else if (frames) {
		fmt_put(name, nn, 0, key_sans_pid(m, key));
	} else {
		o = inert_put(name, nn, 0, p->fn ? "fn" : p->provider);
		o = fmt_put(name, nn, o, ":");
		o = inert_put(name, nn, o, p->name);
		if (as->spec->agg != SPEC_AGG_COUNT &&
		    as->spec->agg != SPEC_AGG_LATENCY) {
			o = fmt_put(name, nn, o, " ");
			fmt_put(name, nn, o, agg_text(as->spec));
		}
		fmt_put(where, nw, 0, key_sans_pid(m, key));
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
		src = model_find_row(m, m->frames_latency.id, r->text->key);
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
	return !t->filter[0] || strstr(r->text->name, t->filter) ||
	       strstr(r->text->where, t->filter);
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

/* Keep text, of a row with no id, until the next top_rebuild(); false if
 * out of memory. */
static bool keep_scratch(struct top *t, struct top_text *text)
{
	if (t->nscratch == t->capscratch) {
		size_t cap = t->capscratch ? 2 * t->capscratch : 64;
		struct top_text **v =
			realloc(t->scratch, cap * sizeof(*t->scratch));

		if (!v)
			return false;
		t->scratch = v;
		t->capscratch = cap;
	}
	t->scratch[t->nscratch++] = text;
	return true;
}

/* Row's texts (spec as): kept from an earlier refresh, or made now and
 * kept by its id (rows without one: until the next top_rebuild()). NULL if
 * out of memory. */
static struct top_text *row_text(struct top *t, const struct model *m,
				 const struct agg_spec *as,
				 const struct agg_row *row)
{
	struct top_text *x = row->id ? rowcache_get(t->texts, row->id) : NULL;
	char key[256], name[160], where[160];
	size_t kl, nl, wl;

	if (x)
		return x;
	model_key_text(m, row, " ", key, sizeof(key));
	name_row(m, as, t->frames, row, key, name, sizeof(name), where,
		 sizeof(where));
	kl = strlen(key) + 1;
	nl = strlen(name) + 1;
	wl = strlen(where) + 1;
	x = malloc(sizeof(*x) + kl + nl + wl);
	if (!x)
		return NULL;
	memcpy(x->key, key, kl);
	x->name = memcpy(x->key + kl, name, nl);
	x->where = memcpy(x->key + kl + nl, where, wl);
	x->nlen = (int)nl - 1;
	x->wlen = (int)wl - 1;
	x->hash = hash_key(as->id, key);
	x->ranked = 0; /* no refresh's */
	if (row->id ? rowcache_put(t->texts, row->id, x) < 0
		    : !keep_scratch(t, x)) {
		free(x);
		return NULL;
	}
	return x;
}

/* Room for one more row in t->built (and t->rows); 0 or -1. */
static int row_room(struct top *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	struct top_row *v;
	struct top_sort *o;
	const struct top_sort **p;

	if (t->n < t->cap)
		return 0;
	v = realloc(t->built, cap * sizeof(*v));
	if (!v)
		return -1;
	t->built = v;
	v = realloc(t->rows, cap * sizeof(*v));
	if (!v)
		return -1;
	t->rows = v;
	o = realloc(t->keys, cap * sizeof(*o));
	if (!o)
		return -1;
	t->keys = o;
	p = realloc(t->order, cap * sizeof(*p));
	if (!p)
		return -1;
	t->order = p;
	p = realloc(t->kept, cap * sizeof(*p));
	if (!p)
		return -1;
	t->kept = p;
	p = realloc(t->moved, cap * sizeof(*p));
	if (!p)
		return -1;
	t->moved = p;
	t->cap = cap;
	return 0;
}

/*
 * Where the row of text x was on the last refresh (UINT64_MAX: not there,
 * or s asked for a new order): kept in x if it is the text of a row that
 * was there; else looked up by its identity (x->hash) among the last
 * refresh's rows, in case that row had another id (a spec slot reused,
 * the texts remade).
 */
static uint64_t last_place(struct top *t, const struct top_text *x)
{
	if (t->unranked)
		return UINT64_MAX;
	if (x->ranked && x->ranked == t->refresh)
		return x->rank;
	if (!t->indexed &&
	    !keyed_store(&t->ranks, &t->nranks, t, t->nprev, false))
		t->nranks = 0;
	t->indexed = true;
	return keyed_find(t->ranks, t->nranks, x->hash, UINT64_MAX);
}

static int add_row(struct top *t, const struct model *m,
		   const struct agg_spec *as, const struct agg_row *row)
{
	struct top_row *r;

	if (row_room(t))
		return -1;
	r = &t->built[t->n];
	r->row = row;
	r->spec = as->id;
	r->text = row_text(t, m, as, row);
	if (!r->text)
		return -1;
	if (!wanted(t, r))
		return 0;
	r->hash = r->text->hash;
	r->rank = last_place(t, r->text);
	r->rate = m->snap_s > 0 ? (double)row->count / m->snap_s : 0;
	r->total = row->total - keyed_find(t->zeros, t->nzeros, r->hash, 0);
	r->mark = row->mark;
	r->mark_total = row->mark_total;
	r->samples = as->spec->probe[0].hz > 0;
	avg_of(m, as, row, t->frames, r);
	r->band = band(sort_value(r, t->sort));
	t->maxn = r->text->nlen > t->maxn ? r->text->nlen : t->maxn;
	t->maxw = r->text->wlen > t->maxw ? r->text->wlen : t->maxw;
	if (m->binary_mode) {
		char cmd[CMD_W_MAX + 1];
		int len = (int)strlen(inert_str(cmd, sizeof(cmd),
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
	const struct top_sort *x = *(const struct top_sort *const *)a;
	const struct top_sort *y = *(const struct top_sort *const *)b;
	enum top_col c = *(const enum top_col *)arg;
	int d;

	if (c == COL_NAME) {
		d = strcmp(x->r->text->name, y->r->text->name);
		if (!d)
			d = strcmp(x->r->text->where, y->r->text->where);
		return d ? d : strcmp(x->r->text->key, y->r->text->key);
	}
	if (x->band != y->band)
		return x->band < y->band ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->r->text->key, y->r->text->key);
}

/* Whether row r is in the band it was in on the last refresh, which
 * placed it at r->rank (of t->nprev): then it is in order among the
 * others that are (numeric columns sort by band, then place). */
static bool kept_band(const struct top *t, const struct top_row *r)
{
	return t->sort != COL_NAME && r->rank < t->nprev &&
	       r->text->ranked == t->refresh && r->text->rank == r->rank &&
	       r->text->band == r->band;
}

/* The first i in a[lo..n) (sorted) that b goes before (cmp_rows()), by
 * galloping from lo: steps that double, then a binary search. */
static size_t gallop(const struct top *t, const struct top_sort **a, size_t lo,
		     size_t n, const struct top_sort **b)
{
	size_t hi = lo, step = 1;
	void *arg = (void *)&t->sort;

	while (hi < n && cmp_rows(b, &a[hi], arg) >= 0) {
		lo = hi + 1;
		hi = lo + step;
		step *= 2;
	}
	hi = hi < n ? hi : n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_rows(b, &a[mid], arg) >= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Merge the sorted a[0..na) and the few b[0..nb) into out (cmp_rows(); a
 * first of equals), each b put in place by gallop(): the runs of a
 * between them are copied whole. */
static void merge(const struct top *t, const struct top_sort **a, size_t na,
		  const struct top_sort **b, size_t nb,
		  const struct top_sort **out)
{
	size_t i = 0, o = 0;

	for (size_t j = 0; j < nb; j++) {
		size_t to = gallop(t, a, i, na, &b[j]);

		memcpy(out + o, a + i, (to - i) * sizeof(*out));
		o += to - i;
		i = to;
		out[o++] = b[j];
	}
	memcpy(out + o, a + i, (na - i) * sizeof(*out));
}

/* Sort t->built[0..n) into t->rows (cmp_rows()): the rows that kept
 * their band are laid out by their place, the others sorted and merged
 * in; what a sort of all would make. */
static void sort_rows(struct top *t)
{
	size_t nkept = 0, nmoved = 0;

	if (t->nprev)
		memset(t->kept, 0, t->nprev * sizeof(*t->kept));
	for (size_t i = 0; i < t->n; i++) {
		const struct top_row *r = &t->built[i];

		t->keys[i] = (struct top_sort){ r->band, (uint32_t)r->rank,
						sort_value(r, t->sort),
						r->total, r };
		if (kept_band(t, r))
			t->kept[r->rank] = &t->keys[i];
		else
			t->moved[nmoved++] = &t->keys[i];
	}
	for (size_t i = 0; i < t->nprev; i++)
		if (t->kept[i])
			t->kept[nkept++] = t->kept[i];
	qsort_r(t->moved, nmoved, sizeof(*t->moved), cmp_rows, &t->sort);
	merge(t, t->kept, nkept, t->moved, nmoved, t->order);
	for (size_t i = 0; i < t->n; i++)
		t->rows[i] = *t->order[i]->r;
}

/* Whether spec as has rows in Top when there are no frames: every spec
 * but the GC pane's and the frames' latency. */
static bool is_top_spec(const struct model *m, const struct agg_spec *as)
{
	int id = as->id;

	return id != m->gc_pause.id && id != m->gc_collected.id &&
	       id != m->frames_latency.id;
}

/* Before a top_rebuild() with frames (or not): the scratch texts of the
 * last one freed, and the kept ones too if frames changed (the name
 * columns differ). */
static void begin_texts(struct top *t, bool frames)
{
	for (size_t i = 0; i < t->nscratch; i++)
		free(t->scratch[i]);
	t->nscratch = 0;
	if (frames != t->texts_frames)
		rowcache_clear(t->texts);
	t->texts_frames = frames;
}

/* Before the k-th row of as is added: ask the memory for what rows a
 * little further on will need (their row, its count, their texts' slot,
 * then their texts), so that a hundred thousand rows are not read one
 * cache miss at a time. */
static void prefetch(const struct top *t, const struct agg_spec *as, size_t k)
{
	if (k + 24 < as->nrows) {
		__builtin_prefetch(as->rows[k + 24]);
		__builtin_prefetch(&as->rows[k + 24]->count);
	}
	if (k + 16 < as->nrows)
		rowcache_prefetch(t->texts, as->rows[k + 16]->id);
	if (k + 8 < as->nrows)
		rowcache_prefetch_value(t->texts, as->rows[k + 8]->id);
}

bool top_spec_shown(const struct top *t, const struct model *m,
		    const struct agg_spec *as)
{
	const struct model_role *fr = model_frames(m);

	return t->frames ? fr && as->id == fr->id : is_top_spec(m, as);
}

/* Add the rows of the snapshot's specs Top shows: the frames', or
 * every top spec's; false if out of memory (the rows so far added). */
static bool add_rows(struct top *t, const struct model *m)
{
	for (size_t i = 0; i < m->snap->nspecs; i++) {
		const struct agg_spec *as = &m->snap->specs[i];

		if (!top_spec_shown(t, m, as))
			continue;
		if (t->frames)
			t->hz = as->spec->probe[0].hz;
		for (size_t k = 0; k < as->nrows; k++) {
			prefetch(t, as, k);
			if (add_row(t, m, as, as->rows[k]))
				return false;
		}
	}
	return true;
}

/* After a rebuild's sort: each row's text keeps its place, for the next
 * (all: every row is there; else the next starts from scratch). */
static void place_rows(struct top *t, bool all)
{
	t->refresh++;
	t->unranked = !all;
	for (size_t i = 0; i < t->n && all; i++) {
		if (i + 8 < t->n)
			__builtin_prefetch(t->rows[i + 8].text, 1);
		t->rows[i].text->rank = i;
		t->rows[i].text->ranked = t->refresh;
		t->rows[i].text->band = t->rows[i].band;
	}
}

/* Sort t->built[0..n) into t->rows (cmp_rows()). */
void top_rebuild(struct top *t, const struct model *m)
{
	const struct model_role *fr = model_frames(m);
	uint64_t sel = hash_key(t->sel_spec, t->sel);
	bool all;

	if (m->snap)
		t->nprev = t->n; /* the last refresh's rows: t->rows */
	t->n = 0;
	t->maxn = t->maxw = t->maxc = 0;
	t->frames = fr != NULL;
	t->hz = 0;
	t->indexed = false;
	begin_texts(t, t->frames);
	if (!m->snap)
		return;
	all = add_rows(t, m);
	sort_rows(t);
	rowcache_sweep(t->texts);
	place_rows(t, all);
	if (!all)
		return;
	/* the cursor follows the selected key */
	for (size_t i = 0; i < t->n; i++) {
		if (t->rows[i].spec == t->sel_spec &&
		    t->rows[i].text->hash == sel &&
		    !strcmp(t->rows[i].text->key, t->sel)) {
			t->cursor = i;
			return;
		}
	}
	if (t->cursor >= t->n)
		t->cursor = t->n ? t->n - 1 : 0;
}

void top_zero_totals(struct top *t)
{
	keyed_store(&t->zeros, &t->nzeros, t, t->n, true);
}

void top_rows_free(struct top *t)
{
	free(t->rows);
	free(t->built);
	free(t->keys);
	free(t->order);
	free(t->kept);
	free(t->moved);
	rowcache_free(t->texts);
	for (size_t i = 0; i < t->nscratch; i++)
		free(t->scratch[i]);
	free(t->scratch);
	free(t->zeros);
	free(t->ranks);
}
