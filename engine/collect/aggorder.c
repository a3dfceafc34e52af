// SPDX-License-Identifier: MIT
/*
 * aggorder — the order of agg's snapshot; see aggorder.h.
 *
 * Sorting many idle keys each interval would be the costliest step of a
 * read, so where each spec's rows sit in agg->order (struct layout) is
 * remembered, and reused while it still holds.
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
 * descending; then the keys, then pid, ascending. */
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
	return (x->pid > y->pid) - (x->pid < y->pid);
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

int aggorder_rows(struct agg *agg)
{
	size_t n = 0, at = 0;
	const struct agg_row **order;
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
	order = realloc(agg->order, (n ? n : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	agg->order = order;
	for (size_t s = 0; s < agg->snap.nspecs; s++) {
		struct agg_spec *as = &agg->specs[s];

		as->rows = order + at;
		for (size_t i = 0; i < agg->nrows; i++) {
			struct arow *r = agg->rows[i];

			if (r->spec != as->id || r->into)
				continue; /* not this spec's, or not shown */
			order[at++] = &r->row;
			as->events += r->row.count;
			as->events_total += r->row.total;
		}
		as->nrows = (size_t)(order + at - as->rows);
		qsort((void *)as->rows, as->nrows, sizeof(*as->rows), cmp_rows);
		agg->layout[s] = (struct layout){
			.id = as->id,
			.gen = as->info->gen,
			.off = (size_t)(as->rows - order),
			.n = as->nrows,
		};
	}
	agg->nlayout = agg->snap.nspecs;
	return 0;
}

void aggorder_io(struct agg_io_row *io, size_t n)
{
	qsort(io, n, sizeof(*io), cmp_io);
}

void aggorder_proc(struct agg_proc_row *proc, size_t n)
{
	qsort(proc, n, sizeof(*proc), cmp_proc);
}
