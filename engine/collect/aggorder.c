// SPDX-License-Identifier: MIT
/*
 * aggorder — the order of agg's snapshot; see aggorder.h.
 *
 * Sorting many idle keys each interval would be the costliest step of a
 * read, so where each spec's rows sit in agg->order (struct layout) is
 * remembered, and reused while it still holds. When rows changed, the
 * last order is mended rather than made again: a hundred thousand keys
 * sorted afresh cost some 30 ms each interval, with a cache miss or two
 * per comparison. The comparison ends on the order the rows came in, so
 * that the order is one, however it is reached.
 */
#include "aggorder.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "aggpriv.h"
#include "aggrows.h"

/* qsort() order of struct agg_proc_row: see aggorder_proc(). */
static int cmp_proc(const void *a, const void *b)
{
	const struct agg_proc_row *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->total.count != y->total.count)
		return x->total.count > y->total.count ? -1 : 1;
	if (x->code != y->code)
		return x->code < y->code ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* qsort() order of struct agg_io_row: see aggorder_io(). */
static int cmp_io(const void *a, const void *b)
{
	const struct agg_io_row *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->cls > y->cls) - (x->cls < y->cls);
}

/* qsort() order of pointers to rows of one spec: count, then total,
 * descending; then the keys, then pid, ascending; then the order the
 * rows came in (as qsort()'s stable sort of agg->rows kept them). */
static int cmp_rows(const void *a, const void *b)
{
	const struct agg_row *x = *(const struct agg_row *const *)a;
	const struct agg_row *y = *(const struct agg_row *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	for (int i = 0; i < x->nkeys; i++) {
		int c = x->key[i].is_str
				? strcmp(agg_key_text(&x->key[i]),
					 agg_key_text(&y->key[i]))
				: (x->key[i].num > y->key[i].num) -
					  (x->key[i].num < y->key[i].num);

		if (c)
			return c;
	}
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (arow_of(x)->seq > arow_of(y)->seq) -
	       (arow_of(x)->seq < arow_of(y)->seq);
}

/*
 * Whether last interval's grouping and order still hold: no row changed in
 * this interval or the one before (rows are sorted by interval count, so
 * an interval after a busy one reorders), no row came or went, and the
 * same specs are live. Then the sort, the costliest step with many idle
 * keys, is skipped.
 */
static bool order_holds(struct agg *agg, size_t nlive)
{
	if (agg->changed || agg->prev_changed || nlive != agg->nrows ||
	    agg->snap.nspecs != agg->nlayout)
		return false;
	for (size_t s = 0; s < agg->snap.nspecs; s++)
		if (agg->layout[s].id != agg->specs[s].id ||
		    agg->layout[s].gen != agg->specs[s].info->gen)
			return false;
	return true;
}

/* Point each spec at its rows as laid out last time (order_holds()). */
static void reuse_order(struct agg *agg)
{
	for (size_t s = 0; s < agg->snap.nspecs; s++) {
		struct agg_spec *as = &agg->specs[s];

		as->rows = agg->order + agg->layout[s].off;
		as->nrows = agg->layout[s].n;
		for (size_t i = 0; i < as->nrows; i++)
			as->events_total += as->rows[i]->total;
	}
}

/* Room for n rows in the order arrays; 0 or -ENOMEM. */
static int order_room(struct agg *agg, size_t n)
{
	const struct agg_row ***v[5] = { &agg->order, &agg->order_next,
					 &agg->order_tmp[0], &agg->order_tmp[1],
					 &agg->order_tmp[2] };

	if (n <= agg->order_cap && agg->order)
		return 0;
	n = n > 2 * agg->order_cap ? n : 2 * agg->order_cap;
	for (int i = 0; i < 5; i++) {
		const struct agg_row **grown =
			realloc((void *)*v[i], (n ? n : 1) * sizeof(**v[i]));

		if (!grown)
			return -ENOMEM;
		*v[i] = grown;
	}
	agg->order_cap = n;
	return 0;
}

/* Row r is placed in the order by its count and total now. */
static void mark_ordered(const struct agg_row *r)
{
	struct arow *a = arow_of(r);

	a->ordered = true;
	a->ord_count = r->count;
	a->ord_total = r->total;
}

/* The first i in u[lo..n) (sorted) that row *t goes before, by galloping
 * from lo: steps that double, then a binary search. */
static size_t gallop(const struct agg_row **u, size_t lo, size_t n,
		     const struct agg_row **t)
{
	size_t hi = lo, step = 1;

	while (hi < n && cmp_rows(t, &u[hi]) >= 0) {
		lo = hi + 1;
		hi = lo + step;
		step *= 2;
	}
	hi = hi < n ? hi : n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_rows(t, &u[mid]) >= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Merge the sorted u[0..nu) and the few t[0..nt) into out, each t put in
 * place by gallop(): the runs of u between them are copied whole. */
static void merge(const struct agg_row **u, size_t nu, const struct agg_row **t,
		  size_t nt, const struct agg_row **out)
{
	size_t i = 0, o = 0;

	for (size_t j = 0; j < nt; j++) {
		size_t to = gallop(u, i, nu, &t[j]);

		memcpy(out + o, u + i, (to - i) * sizeof(*out));
		o += to - i;
		i = to;
		out[o++] = t[j];
	}
	memcpy(out + o, u + i, (nu - i) * sizeof(*out));
}

/*
 * Spec as's rows, in order, into out: from last time's order old[0..nold)
 * (its rows then, all still its own and shown) and the rows it gained
 * since, t[0..nt) (with room for nold more). If old is still in order
 * with this interval's values, it stays as is; otherwise its rows whose
 * count or total moved since join t, which is sorted and merged into the
 * others (in order among themselves still): what a sort of all would
 * make, in fewer comparisons when few rows move. Adds the rows up into
 * as's events. Returns how many rows.
 */
static size_t order_spec(struct agg *agg, struct agg_spec *as,
			 const struct agg_row **old, size_t nold,
			 const struct agg_row **t, size_t nt,
			 const struct agg_row **out)
{
	const struct agg_row **u = agg->order_tmp[1];
	size_t nu = 0, nmoved = 0;
	bool sorted = true;

	for (size_t i = 0; i < nold; i++) {
		const struct arow *a = arow_of(old[i]);

		if (i + AGG_AHEAD < nold)
			aggrows_prefetch(arow_of(old[i + AGG_AHEAD]));
		sorted = sorted && (!i || cmp_rows(&old[i - 1], &old[i]) < 0);
		if (a->row.count == a->ord_count &&
		    a->row.total == a->ord_total)
			u[nu++] = old[i];
		else
			t[nt + nmoved++] = old[i];
	}
	for (size_t i = 0; i < nold + nt; i++) {
		const struct agg_row *r = i < nold ? old[i] : t[i - nold];

		as->events += r->count;
		as->events_total += r->total;
		mark_ordered(r);
	}
	if (sorted) {
		u = old;
		nu = nold;
	} else {
		nt += nmoved;
	}
	qsort((void *)t, nt, sizeof(*t), cmp_rows);
	merge(u, nu, t, nt, out);
	return nu + nt;
}

/*
 * The shown rows of agg->rows that are in no order yet, grouped by spec
 * id into agg->order_tmp[0]: spec id's from at[id], n[id] of them.
 */
static void fresh_rows(struct agg *agg, size_t at[PT_MAX_SPECS],
		       size_t n[PT_MAX_SPECS])
{
	const struct agg_row **fresh = agg->order_tmp[0];
	size_t o = 0;

	memset(n, 0, PT_MAX_SPECS * sizeof(n[0]));
	for (size_t i = 0; i < agg->nrows; i++) {
		const struct arow *r = agg->rows[i];

		if (!r->into && !r->ordered)
			n[r->spec]++;
	}
	for (int id = 0; id < PT_MAX_SPECS; id++) {
		at[id] = o;
		o += n[id];
	}
	memset(n, 0, PT_MAX_SPECS * sizeof(n[0]));
	for (size_t i = 0; i < agg->nrows; i++) {
		const struct arow *r = agg->rows[i];

		if (!r->into && !r->ordered)
			fresh[at[r->spec] + n[r->spec]++] = &r->row;
	}
}

/* Where each live spec's rows were in agg->order last time, by spec id:
 * the index of its layout, or -1 if it had none (or another
 * generation's). */
static void old_layouts(const struct agg *agg, int prev[PT_MAX_SPECS])
{
	for (int id = 0; id < PT_MAX_SPECS; id++)
		prev[id] = -1;
	for (size_t l = 0; l < agg->nlayout; l++) {
		const struct tracer_spec_info *info =
			tracer_spec_info(agg->tr, agg->layout[l].id);

		if (info && info->gen == agg->layout[l].gen)
			prev[agg->layout[l].id] = (int)l;
	}
}

/* Lay out every live spec's rows, in order, in agg->order (see
 * order_spec()). 0 or -ENOMEM. */
static int reorder(struct agg *agg)
{
	size_t at[PT_MAX_SPECS], nfresh[PT_MAX_SPECS], o = 0;
	int prev[PT_MAX_SPECS];
	const struct agg_row **next;

	if (order_room(agg, agg->nrows))
		return -ENOMEM;
	next = agg->order_next;
	fresh_rows(agg, at, nfresh);
	old_layouts(agg, prev);
	for (size_t s = 0; s < agg->snap.nspecs; s++) {
		struct agg_spec *as = &agg->specs[s];
		const struct layout *l =
			prev[as->id] >= 0 ? &agg->layout[prev[as->id]] : NULL;
		const struct agg_row **t = agg->order_tmp[2];

		memcpy(t, agg->order_tmp[0] + at[as->id],
		       nfresh[as->id] * sizeof(*t));
		as->rows = next + o;
		as->nrows =
			order_spec(agg, as, l ? agg->order + l->off : NULL,
				   l ? l->n : 0, t, nfresh[as->id], next + o);
		o += as->nrows;
	}
	for (size_t s = 0; s < agg->snap.nspecs; s++)
		agg->layout[s] = (struct layout){
			.id = agg->specs[s].id,
			.gen = agg->specs[s].info->gen,
			.off = (size_t)(agg->specs[s].rows - next),
			.n = agg->specs[s].nrows,
		};
	agg->nlayout = agg->snap.nspecs;
	agg->order_next = agg->order;
	agg->order = next;
	return 0;
}

int aggorder_rows(struct agg *agg)
{
	size_t n = 0;
	bool holds;

	for (size_t i = 0; i < agg->nrows; i++) {
		struct arow *r = agg->rows[i];
		const struct tracer_spec_info *info =
			tracer_spec_info(agg->tr, r->spec);

		if (!info || info->gen != r->gen) {
			aggrows_free_row(r);
			continue;
		}
		agg->rows[n++] = r;
	}
	holds = order_holds(agg, n);
	agg->prev_changed = agg->changed;
	agg->changed = false;
	if (holds) {
		reuse_order(agg);
		return 0;
	}
	if (n != agg->nrows) {
		agg->nrows = n;
		if (aggrows_rehash(agg, agg->nslots ? agg->nslots : 1024))
			return -ENOMEM;
	}
	return reorder(agg);
}

void aggorder_io(struct agg_io_row *io, size_t n)
{
	qsort(io, n, sizeof(*io), cmp_io);
}

void aggorder_proc(struct agg_proc_row *proc, size_t n)
{
	qsort(proc, n, sizeof(*proc), cmp_proc);
}
