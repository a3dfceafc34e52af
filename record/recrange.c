// SPDX-License-Identifier: MIT
/*
 * recrange — a range of intervals as one snapshot; see recrange.h.
 */
#include "recrange.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A copy of n items of size at p, or NULL (no memory; or n 0, then
 * *ok stays). */
static void *dup_n(const void *p, size_t n, size_t size, bool *ok)
{
	void *v;

	if (!n)
		return NULL;
	v = malloc(n * size);
	if (!v)
		*ok = false;
	else
		memcpy(v, p, n * size);
	return v;
}

void recrange_base_clear(struct recrange_base *base)
{
	recmark_free(&base->mark);
	free(base->specs);
	free(base->io);
	free(base->proc);
	*base = (struct recrange_base){ 0 };
}

int recrange_base(struct recrange_base *base, const struct recdec *d)
{
	const struct agg_snapshot *s = &d->snap;
	bool ok = true;

	recrange_base_clear(base);
	if (recmark_save(&base->mark, d))
		return -ENOMEM;
	base->snap = *s;
	base->specs = dup_n(s->specs, s->nspecs, sizeof(*s->specs), &ok);
	base->io = dup_n(s->io, s->nio, sizeof(*s->io), &ok);
	base->proc = dup_n(s->proc, s->nproc, sizeof(*s->proc), &ok);
	if (!ok) {
		recrange_base_clear(base);
		return -ENOMEM;
	}
	return 0;
}

/* now - was, or now if was is more (a spec added again counts anew) */
static uint64_t since(uint64_t now, uint64_t was)
{
	return now >= was ? now - was : now;
}

static const struct agg_spec *base_spec(const struct recrange_base *base,
					int id)
{
	for (size_t i = 0; i < base->snap.nspecs; i++)
		if (base->specs[i].id == id)
			return &base->specs[i];
	return NULL;
}

/* A spec's numbers over the range: its totals less the base's. */
static void spec_range(struct agg_spec *as, const struct agg_spec *was)
{
	static const struct agg_spec none;

	if (!was)
		was = &none;
	as->events = since(as->events_total, was->events_total);
	as->drops = since(as->drops_total, was->drops_total);
	for (int r = 0; r < AGG_NDROPS; r++)
		as->why[r] = since(as->why_total[r], was->why_total[r]);
	as->unmatched = since(as->unmatched_total, was->unmatched_total);
	as->cut = since(as->cut_total, was->cut_total);
	as->events_mark = as->events_mark_total;
	as->estimated = as->estimated_total;
}

/* Row dr over the range from was (its totals before it) into out (its
 * buckets into b): false if nothing was counted in it. */
static bool row_range(const struct recdec_row *dr,
		      const struct recmark_row *was, struct agg_row *out,
		      uint64_t *b)
{
	*out = dr->row;
	out->count = out->total = since(dr->row.total, was->total);
	out->sum = out->sum_total = dr->row.sum_total - was->sum_total;
	out->mark = out->mark_total;
	out->b = out->b_total = NULL;
	if (dr->b_total) {
		for (int k = 0; k < PT_NBUCKETS; k++)
			b[k] = since(dr->b_total[k],
				     was->b_total ? was->b_total[k] : 0);
		out->b = out->b_total = b;
	}
	return out->count != 0;
}

/* By count, then total, descending: agg's order. */
static int by_count(const void *a, const void *b)
{
	const struct agg_row *x = *(const struct agg_row *const *)a,
			     *y = *(const struct agg_row *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Every row of d counted in the range, into rg->rows (those of each
 * spec together, in rg->order from spec s's first), the specs' rows
 * pointed at them. */
static void rows_range(struct recrange *rg, const struct recrange_base *base,
		       const struct recdec *d)
{
	size_t n = 0, nb = 0;

	for (size_t s = 0; s < rg->snap.nspecs; s++) {
		struct agg_spec *as = &rg->specs[s];
		size_t first = n;

		for (size_t i = 0; i < d->nrows; i++) {
			const struct recdec_row *dr = &d->rows[i];
			struct recmark_row was;

			if (dr->spec_id != as->id)
				continue;
			recmark_row(&base->mark, i, &was);
			if (!row_range(dr, &was, &rg->rows[n], rg->b + nb))
				continue;
			rg->order[n] = &rg->rows[n];
			nb += dr->b_total ? PT_NBUCKETS : 0;
			n++;
		}
		qsort(rg->order + first, n - first, sizeof(*rg->order),
		      by_count);
		as->rows = rg->order + first;
		as->nrows = n - first;
	}
}

static void io_range(struct recrange *rg, const struct recrange_base *base)
{
	for (size_t i = 0; i < rg->snap.nio; i++) {
		struct agg_io_row *r = &rg->io[i];
		const struct pt_io_val *was = NULL;

		for (size_t j = 0; j < base->snap.nio && !was; j++)
			if (base->io[j].pid == r->pid &&
			    base->io[j].cls == r->cls)
				was = &base->io[j].total;
		r->now = r->total;
		if (!was)
			continue;
		r->now.calls = since(r->total.calls, was->calls);
		r->now.errors = since(r->total.errors, was->errors);
		r->now.bytes = since(r->total.bytes, was->bytes);
		r->now.ns = since(r->total.ns, was->ns);
		for (int k = 0; k < PT_NBUCKETS; k++)
			r->now.b[k] = since(r->total.b[k], was->b[k]);
	}
}

static void proc_range(struct recrange *rg, const struct recrange_base *base)
{
	for (size_t i = 0; i < rg->snap.nproc; i++) {
		struct agg_proc_row *r = &rg->proc[i];
		const struct pt_proc_val *was = NULL;

		for (size_t j = 0; j < base->snap.nproc && !was; j++) {
			const struct agg_proc_row *o = &base->proc[j];

			if (o->pid == r->pid && o->event == r->event &&
			    o->code == r->code && !strcmp(o->name, r->name))
				was = &o->total;
		}
		r->now = r->total;
		if (!was)
			continue;
		r->now.count = since(r->total.count, was->count);
		r->now.ns = since(r->total.ns, was->ns);
		for (int k = 0; k < PT_NBUCKETS; k++)
			r->now.b[k] = since(r->total.b[k], was->b[k]);
	}
}

/* The snapshot's own numbers over the range. */
static void head_range(struct agg_snapshot *s, const struct agg_snapshot *was)
{
	s->events = since(s->events_total, was->events_total);
	s->drops = since(s->drops_total, was->drops_total);
	for (int k = 0; k < PT_KDROP_N; k++)
		s->kdrops[k] = since(s->kdrops_total[k], was->kdrops_total[k]);
	s->events_mark = s->events_mark_total;
	s->overhead = s->overhead_total;
}

int recrange_make(struct recrange *rg, const struct recrange_base *base,
		  const struct recdec *d)
{
	const struct agg_snapshot *s = &d->snap;
	size_t nb = 0, nr = d->nrows ? d->nrows : 1;
	bool ok = true;

	recrange_free(rg);
	for (size_t i = 0; i < d->nrows; i++)
		nb += d->rows[i].b_total ? PT_NBUCKETS : 0;
	rg->snap = *s;
	rg->specs = dup_n(s->specs, s->nspecs, sizeof(*s->specs), &ok);
	rg->io = dup_n(s->io, s->nio, sizeof(*s->io), &ok);
	rg->proc = dup_n(s->proc, s->nproc, sizeof(*s->proc), &ok);
	rg->rows = malloc(nr * sizeof(*rg->rows));
	rg->order = malloc(nr * sizeof(*rg->order));
	rg->b = malloc((nb ? nb : 1) * sizeof(*rg->b));
	if (!ok || !rg->rows || !rg->order || !rg->b) {
		recrange_free(rg);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nspecs; i++)
		spec_range(&rg->specs[i], base_spec(base, rg->specs[i].id));
	rows_range(rg, base, d);
	io_range(rg, base);
	proc_range(rg, base);
	head_range(&rg->snap, &base->snap);
	rg->snap.specs = rg->specs;
	rg->snap.io = rg->io;
	rg->snap.proc = rg->proc;
	return 0;
}

void recrange_free(struct recrange *rg)
{
	free(rg->specs);
	free(rg->rows);
	free(rg->order);
	free(rg->b);
	free(rg->io);
	free(rg->proc);
	*rg = (struct recrange){ 0 };
}
