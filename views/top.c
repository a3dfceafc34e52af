// SPDX-License-Identifier: MIT
/*
 * top — the hottest frames: calls/s, total, average latency, function,
 * file:line (and PID and COMMAND for -b), sortable, filterable, zeroable.
 *
 * Rows come from the frames.calls spec of the picked probeset; without
 * one (a program with its own probes), from every spec a user attached
 * (count, sum, quantize, lquantize, latency), each row named by its probe
 * (and, but for count and latency, its aggregation) and key. AVG is the
 * mean latency of a latency spec and the mean value of the others that
 * have a value; P50 and P99, where the box is PCT_MIN_W wide, a latency
 * row's percentiles since attach (the frame's, for frames: PostgreSQL's
 * query latency). Rows are rebuilt when a
 * snapshot arrives or the sort/filter changes; the cursor follows the
 * selected key, not the line, so rows can move without losing it.
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
 *
 * A row's rate and total each carry the engine's mark (enum agg_mark:
 * exact, ~ an estimate, >= a lower bound); the box's title says what
 * the rows on screen are, from the marks drawn and what they count
 * ("exact calls", "exact and ~ estimated calls", "CPU samples"). Enter drills into a row: a call or
 * latency row to its histogram, a CPU-sample row (which times no call)
 * to its function's stacks, or a line saying why there is none.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "inert.h"
#include "rowcache.h"
#include "view.h"

enum top_col {
	COL_RATE,
	COL_TOTAL,
	COL_AVG,
	COL_NAME,
	NCOLS
};

static const char *const COL_NAMES[NCOLS] = { "calls/s", "total", "avg",
					      "name" };

/* What the title calls the rows whose numbers carry each mark (enum
 * agg_mark, drawn by draw_mark()), and why they are so, or NULL: one
 * line per kind of mark. */
#define NMARKS (AGG_BOUND + 1)

static const struct {
	const char *adj;
	const char *why;
} MARKS[NMARKS] = {
	[AGG_EXACT] = { "exact", NULL },
	[AGG_ESTIMATE] = { "estimated", "sampled by the budget" },
	[AGG_BOUND] = { "lower-bound", "sampled, no estimate within 15%" },
};

#define CMD_W 16 /* -b's COMMAND column, at least */
#define PCT_MIN_W 110 /* P50 and P99 of latency rows from this width */
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
};

static bool any_pct(const struct top *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].p50[0])
			return true;
	return false;
}

static bool any_avg(const struct top *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].avg_kind != AVG_NONE)
			return true;
	return false;
}

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

		inert_put(name, nn, 0, row->key[0].str);
		o = inert_put(where, nw, 0, base(row->key[1].str));
		o = fmt_put(where, nw, o, ":");
		fmt_put_num(where, nw, o,
			    neg ? -(uint64_t)row->key[2].num
				: (uint64_t)row->key[2].num,
			    neg);
	} else if (frames && row->nkeys == 2 && row->key[0].is_str &&
		   row->key[1].is_str) {
		/* (class, method): Java, Ruby */
		o = inert_put(name, nn, 0, row->key[0].str);
		o = fmt_put(name, nn, o, ".");
		inert_put(name, nn, o, row->key[1].str);
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

/* Keep text, of a row with no id, until the next rebuild(); false if
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
 * kept by its id (rows without one: until the next rebuild()). NULL if
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

/* Sort t->built[0..n) into t->rows (cmp_rows()). */
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

/* Before a rebuild() with frames (or not): the scratch texts of the
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

/* Add the rows of the snapshot's specs Top shows: the frames' (fr), or
 * every top spec's; false if out of memory (the rows so far added). */
static bool add_rows(struct top *t, const struct model *m,
		     const struct model_role *fr)
{
	for (size_t i = 0; i < m->snap->nspecs; i++) {
		const struct agg_spec *as = &m->snap->specs[i];

		if (t->frames ? as->id != fr->id : !is_top_spec(m, as))
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

static void rebuild(struct top *t, const struct model *m)
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
	all = add_rows(t, m, fr);
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

/* Select the cursor's row; asks the console to remember it. */
static void select_cursor(struct top *t, struct request *req)
{
	if (!t->n)
		return;
	snprintf(t->sel, sizeof(t->sel), "%s", t->rows[t->cursor].text->key);
	t->sel_spec = t->rows[t->cursor].spec;
	req->kind = REQ_SELECT;
	req->id = t->sel_spec;
	snprintf(req->text, sizeof(req->text), "%s", t->sel);
}

static void top_close(void *st);

static void *top_open(void)
{
	struct top *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->sel_spec = -1;
	t->texts = rowcache_new(free);
	if (!t->texts) {
		top_close(t);
		return NULL;
	}
	return t;
}

static void top_close(void *st)
{
	struct top *t = st;

	if (!t)
		return;
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
	free(t);
}

static void top_tick(void *st, const struct model *m, struct request *req)
{
	struct top *t = st;

	rebuild(t, m);
	if (t->n &&
	    (t->sel_spec < 0 || strcmp(t->rows[t->cursor].text->key, t->sel) ||
	     t->rows[t->cursor].spec != t->sel_spec))
		select_cursor(t, req);
}

static void zero_totals(struct top *t)
{
	keyed_store(&t->zeros, &t->nzeros, t, t->n, true);
}

/* Whether a spec of the snapshot keys its rows by a Python stack. */
static bool has_pystack(const struct model *m)
{
	for (size_t i = 0; m->snap && i < m->snap->nspecs; i++) {
		const struct spec *sp = m->snap->specs[i].spec;

		for (int k = 0; k < sp->nkeys; k++)
			if (sp->keys[k].kind == SPEC_KEY_PYSTACK)
				return true;
	}
	return false;
}

/* Whether row is keyed by a call stack. */
static bool stack_row(const struct agg_row *row)
{
	for (int i = 0; i < row->nkeys; i++)
		if (row->key[i].is_stack)
			return true;
	return false;
}

/*
 * Enter on a CPU-sample row (a profile:HZ spec's): a sample times no
 * call, so there is no histogram. What belongs to it is where it was
 * sampled: a stack row's Stacks view; a Python frame's function there,
 * highlighted (as S); else a line saying why there is nothing to open.
 */
static void enter_samples(const struct top *t, const struct model *m,
			  struct request *req)
{
	const struct top_row *r = &t->rows[t->cursor];
	const struct agg_row *row = r->row;
	bool frame = row->nkeys >= 3 && row->key[0].is_str &&
		     row->key[1].is_str && !row->key[2].is_str;
	char fn[160];

	if (stack_row(row)) {
		req->kind = REQ_VIEW;
		req->view = "stacks";
		return;
	}
	if (frame)
		inert_str(fn, sizeof(fn), row->key[0].str);
	if (frame && has_pystack(m)) {
		req->kind = REQ_STACKS;
		snprintf(req->text, sizeof(req->text), "%s", fn);
		return;
	}
	req->kind = REQ_SAY;
	snprintf(req->text, sizeof(req->text),
		 "%s%sCPU samples time no call, so no histogram; %s",
		 frame ? fn : "", frame ? ": " : "",
		 frame ? "its stacks need -e 'profile:99=count(pystack)'"
		       : "key samples by pystack or ustack for Stacks (7)");
}

static int top_key(void *st, const struct model *m, enum action a,
		   const char *text, struct request *req)
{
	struct top *t = st;

	if (list_move(&t->cursor, t->n, a)) {
		select_cursor(t, req);
		return VIEW_HANDLED;
	}
	switch (a) {
	case ACT_SORT:
	case ACT_SORT_NEXT:
		t->sort = (t->sort + 1) % NCOLS;
		t->unranked = true; /* a new order from scratch */
		break;
	case ACT_SORT_PREV:
		t->sort = (t->sort + NCOLS - 1) % NCOLS;
		t->unranked = true;
		break;
	case ACT_FILTER:
		req->kind = REQ_PROMPT;
		snprintf(req->text, sizeof(req->text), "filter: ");
		return VIEW_HANDLED;
	case ACT_TEXT:
		snprintf(t->filter, sizeof(t->filter), "%s", text ? text : "");
		t->cursor = 0;
		break;
	case ACT_BACK:
		if (!t->filter[0])
			return VIEW_IGNORED;
		t->filter[0] = '\0';
		break;
	case ACT_ZERO:
		zero_totals(t);
		break;
	case ACT_ENTER:
		if (!t->n)
			return VIEW_HANDLED;
		if (t->rows[t->cursor].samples) {
			enter_samples(t, m, req);
			return VIEW_HANDLED;
		}
		select_cursor(t, req);
		req->kind = REQ_VIEW;
		req->view = "hist";
		return VIEW_HANDLED;
	case ACT_STACKS:
		if (!t->n)
			return VIEW_IGNORED;
		req->kind = REQ_STACKS;
		snprintf(req->text, sizeof(req->text), "%s",
			 t->rows[t->cursor].text->name);
		return VIEW_HANDLED;
	default:
		return VIEW_IGNORED;
	}
	rebuild(t, m);
	return VIEW_HANDLED;
}

/* Frames keyed by one string (PostgreSQL's query text): its label,
 * upper-cased, names the name column, into buf; NULL for others. */
static const char *one_key_label(const struct model *m, char *buf, size_t n)
{
	const struct model_role *fr = model_frames(m);
	const char *label;
	size_t i;

	if (!fr || !fr->spec || !fr->ps || fr->spec->spec.nkeys != 1)
		return NULL;
	label = fr->ps->sections[fr->spec->section].labels[0];
	for (i = 0; label[i] && i + 1 < n; i++)
		buf[i] = (char)(label[i] >= 'a' && label[i] <= 'z'
					? label[i] - 'a' + 'A'
					: label[i]);
	buf[i] = '\0';
	return i ? buf : NULL;
}

static void heading(const struct top *t, const struct model *m, struct rect r,
		    int namew, int cmdw)
{
	char h[512], pid[80] = "", label[PS_NAME_MAX];
	const char *one =
		t->frames ? one_key_label(m, label, sizeof(label)) : NULL;
	const char *name = one ? one : t->frames ? "FUNCTION" : "PROBE";
	const char *where = one ? "" : t->frames ? "FILE:LINE" : "KEY";

	if (m->binary_mode)
		snprintf(pid, sizeof(pid), "%7s %-*s ", "PID", cmdw, "COMMAND");
	snprintf(h, sizeof(h), "%s%10s %11s%s%s  %-*s %s", pid,
		 t->hz ? "SAMPLES/s" : "CALLS/s", "TOTAL",
		 t->avg_col ? (t->hz ? "    %CPU" : "     AVG") : "",
		 t->pct_col ? "     P50     P99" : "", namew, name, where);
	draw_text(r.y, r.x, r.w, STYLE_TITLE, h);
}

/* The COMMAND column's width (-b): CMD_W, or up to the longest command
 * (at most CMD_W_MAX) while the names and FILE:LINE still fit in what
 * is left of avail, so that a command's end shows where there is room
 * ("postgres: app shop [local] SELECT"). */
static int cmd_width(const struct top *t, int avail)
{
	int want = t->maxc < CMD_W ? CMD_W : t->maxc;
	int spare = avail - (t->maxn > 8 ? t->maxn : 8) -
		    (t->maxw ? 1 + (t->maxw > 9 ? t->maxw : 9) : 0);

	if (want > CMD_W_MAX)
		want = CMD_W_MAX;
	if (spare < 0)
		spare = 0;
	return want - CMD_W > spare ? CMD_W + spare : want;
}

/* The FUNCTION/PROBE column's width out of avail columns: the longest
 * name if the longest FILE:LINE/KEY still fits after it, else what leaves
 * room for that, but at least half of avail (and at least 8). */
static int name_width(const struct top *t, int avail)
{
	int maxn = t->maxn > 8 ? t->maxn : 8, maxw = t->maxw > 9 ? t->maxw : 9;
	int w = avail - 1 - maxw;

	if (w < avail / 2)
		w = avail / 2;
	if (w > maxn)
		w = maxn;
	return w < 8 ? 8 : w;
}

/* s in w columns: as is if it fits, else its end after a mark, so that
 * FILE:LINE keeps its line ("…orkload.py:64"). */
static const char *tail(const char *s, int w, char *buf, size_t n)
{
	int len = (int)strlen(s);

	if (w < 4 || len <= w)
		return s;
	snprintf(buf, n, "%s%s", draw_utf8() ? "\u2026" : "<",
		 s + len - (w - 1));
	return buf;
}

/* The columns s takes (UTF-8). */
static int width_of(const char *s)
{
	return (int)strlen(s) - fmt_w(s, 0);
}

/* The mark rate's (or total's) column draws for mark: none on a 0. */
static unsigned char mark_drawn(double v, unsigned char mark)
{
	return v > 0 && mark < NMARKS ? mark : AGG_EXACT;
}

/* Which marks the rows on screen, lines from t->scroll, draw: a bit per
 * enum agg_mark; *samples whether there are rows and all are CPU
 * samples. */
static unsigned marks_shown(const struct top *t, int lines, bool *samples)
{
	unsigned set = 0;

	*samples = true;
	for (int i = 0; i < lines && t->scroll + (size_t)i < t->n; i++) {
		const struct top_row *r = &t->rows[t->scroll + (size_t)i];

		set |= 1u << mark_drawn(r->rate, r->mark);
		set |= 1u << mark_drawn((double)r->total, r->mark_total);
		*samples = *samples && r->samples;
	}
	*samples = *samples && (set || t->hz);
	return set;
}

/*
 * The box's title into out: "Top frames" or "Top probes", then what the
 * rows on screen are from their marks (a set of enum agg_mark bits) and
 * what they count, "exact calls", "exact and ~ estimated calls", "CPU
 * samples"; with why (long) the reasons in brackets, "(sampled by the
 * budget)"; then the filter.
 */
static void title_text(const struct top *t, unsigned marks, bool samples,
		       bool why, char *out, size_t n)
{
	const char *noun = samples ? "CPU samples" : t->frames ? "calls" : "";
	int nmarks = __builtin_popcount(marks), nwhy = 0, k = 0;
	size_t o = fmt_put(out, n, 0, t->frames ? "Top frames" : "Top probes");
	char words[160] = "", whys[160] = "";
	size_t w = 0, y = 0;

	for (int i = 0; i < NMARKS; i++)
		nwhy += (marks >> i & 1) && MARKS[i].why;
	for (int i = 0; i < NMARKS; i++) {
		const char *sym = draw_mark((unsigned char)i);

		if (!(marks >> i & 1))
			continue;
		if (k++)
			w = fmt_put(words, sizeof(words), w,
				    k == nmarks ? " and " : ", ");
		if (*sym) {
			w = fmt_put(words, sizeof(words), w, sym);
			w = fmt_put(words, sizeof(words), w, " ");
		}
		w = fmt_put(words, sizeof(words), w, MARKS[i].adj);
		if (!MARKS[i].why)
			continue;
		y = fmt_put(whys, sizeof(whys), y, y ? "; " : " (");
		if (nwhy > 1) {
			y = fmt_put(whys, sizeof(whys), y, sym);
			y = fmt_put(whys, sizeof(whys), y, ": ");
		}
		y = fmt_put(whys, sizeof(whys), y, MARKS[i].why);
	}
	if (marks == 1u << AGG_EXACT && samples)
		words[0] = '\0'; /* samples: a count, not a claim of time */
	if (y)
		fmt_put(whys, sizeof(whys), y, ")");
	if (words[0] || noun[0]) {
		o = fmt_put(out, n, o, ", ");
		o = fmt_put(out, n, o, words);
		o = fmt_put(out, n, o, words[0] && noun[0] ? " " : "");
		o = fmt_put(out, n, o, noun);
	}
	if (why)
		o = fmt_put(out, n, o, whys);
	if (t->filter[0]) {
		o = fmt_put(out, n, o, " /");
		fmt_put(out, n, o, t->filter);
	}
}

/* num, with its mark before it (draw_mark()) */
static const char *approx(char *buf, size_t n, unsigned char mark,
			  const char *num)
{
	snprintf(buf, n, "%s%s", draw_mark(mark), num);
	return buf;
}

static void top_draw(void *st, const struct model *m,
		     const struct view_env *env, struct rect r, bool focus)
{
	struct top *t = st;
	char note[64], title[512];
	struct rect in;
	int namew, lines, avail, cmdw;
	unsigned marks;
	bool samples;

	(void)env;
	snprintf(note, sizeof(note), "%s %s",
		 t->hz && t->sort == COL_RATE ? "samples/s"
					      : COL_NAMES[t->sort],
		 draw_utf8() ? "\u25bc" : "v");
	lines = r.h - 3; /* the box's, less the heading */
	if (lines > 0)
		list_scroll(t->cursor, &t->scroll, lines);
	marks = marks_shown(t, lines, &samples);
	/* the reasons if they fit beside the note (draw_box()) */
	title_text(t, marks, samples, true, title, sizeof(title));
	if (width_of(title) + width_of(note) + 4 >= r.w - 4)
		title_text(t, marks, samples, false, title, sizeof(title));
	in = draw_box(r, title, note, focus);
	if (in.h < 2)
		return;
	t->avg_col = in.w >= 90 || any_avg(t);
	t->pct_col = in.w >= PCT_MIN_W && any_pct(t);
	avail = in.w - (t->avg_col ? 33 : 25) - (t->pct_col ? 16 : 0);
	cmdw = m->binary_mode ? cmd_width(t, avail - 9 - CMD_W) : 0;
	if (m->binary_mode)
		avail -= 9 + cmdw; /* "%7u %-*s " */
	namew = name_width(t, avail);
	heading(t, m, in, namew, cmdw);
	if (!t->n) {
		draw_text(
			in.y + 1, in.x, in.w, STYLE_DIM,
			!m->snap       ? "  waiting for the first interval"
			: t->filter[0] ? "  no row matches the filter"
			: t->frames
				? "  no calls yet"
				: "  nothing counted yet: switch probes on in "
				  "Probes (2)");
		return;
	}
	for (int i = 0; i < lines && t->scroll + (size_t)i < t->n; i++) {
		const struct top_row *row = &t->rows[t->scroll + (size_t)i];
		char rate[32], tot[32], v[32] = "-", avg[40] = "", pid[64] = "";
		char pct[40] = "";
		char erate[34], etot[34];
		char wh[200], cmd[CMD_W_MAX + 1];

		if (row->avg_kind == AVG_PCT)
			snprintf(v, sizeof(v), "%.1f%%", row->avg);
		else if (row->avg_kind == AVG_NS)
			fmt_ns(row->avg, v, sizeof(v));
		else if (row->avg_kind == AVG_VALUE)
			fmt_si(row->avg, v, sizeof(v));
		if (t->avg_col)
			snprintf(avg, sizeof(avg), " %*s", fmt_w(v, 7), v);
		if (t->pct_col)
			snprintf(pct, sizeof(pct), " %*s %*s",
				 fmt_w(row->p50[0] ? row->p50 : "-", 7),
				 row->p50[0] ? row->p50 : "-",
				 fmt_w(row->p99[0] ? row->p99 : "-", 7),
				 row->p99[0] ? row->p99 : "-");
		if (m->binary_mode)
			snprintf(pid, sizeof(pid), "%7u %-*.*s ", row->row->pid,
				 cmdw, cmdw,
				 inert_str(cmd, sizeof(cmd),
					   model_pid_cmd(m, row->row->pid)));
		draw_fmt(in.y + 1 + i, in.x, in.w,
			 focus && t->scroll + (size_t)i == t->cursor
				 ? STYLE_SELECTED
				 : STYLE_NORMAL,
			 "%s%10s %11s%s%s  %-*.*s %s", pid,
			 approx(erate, sizeof(erate),
				row->rate > 0 ? row->mark : AGG_EXACT,
				fmt_rate(row->rate, rate, sizeof(rate))),
			 approx(etot, sizeof(etot),
				row->total > 0 ? row->mark_total : AGG_EXACT,
				fmt_count(row->total, tot, sizeof(tot))),
			 avg, pct, namew, row->text->where[0] ? namew : in.w,
			 row->text->name,
			 t->frames ? tail(row->text->where, avail - namew - 1,
					  wh, sizeof(wh))
				   : row->text->where);
	}
}

const struct view_ops view_top = {
	.name = "top",
	.title = "Top",
	.open = top_open,
	.close = top_close,
	.tick = top_tick,
	.draw = top_draw,
	.key = top_key,
};
