// SPDX-License-Identifier: MIT
/*
 * recdec — interval and final bodies into snapshots; see recdec.h. The
 * mirror of recenc.c: every get here is a put there, in that order.
 * Every count and index is checked against what the body and the table
 * can hold, so that a corrupt body that passed its checksum (or a
 * writer's bug) is a one-line error, never a crash.
 */
#include "recdec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PART_STR 0x1
#define PART_SIGNED 0x2
#define PART_STACK 0x4
#define PART_MODS 0x8

bool recdec_grow(void **v, size_t *cap, size_t want, size_t size)
{
	size_t c = *cap ? *cap : 16;
	void *p;

	if (want <= *cap)
		return true;
	while (c < want)
		c *= 2;
	p = realloc(*v, c * size);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

const char *recdec_str(const struct recdec *d, uint64_t id)
{
	return id < d->nstrs ? d->strs[id] : NULL;
}

static int fail(struct recread *r, char *why, size_t n, const char *what)
{
	snprintf(why, n, "%s", r->bad ? "a record's body ends early" : what);
	return -1;
}

/* The record's new strings, appended to the table. */
static int get_strings(struct recdec *d, struct recread *r)
{
	size_t k = recread_count(r, 1);

	if (!recdec_grow((void **)&d->strs, &d->capstrs, d->nstrs + k,
			 sizeof(*d->strs)))
		return -1;
	for (size_t i = 0; i < k && !r->bad; i++) {
		size_t len;
		const char *s = recread_str(r, &len);

		if (!s)
			return -1;
		if (d->nstrs++ < d->keptstrs)
			continue; /* the same record read again */
		d->strs[d->nstrs - 1] = strndup(s, len);
		if (!d->strs[d->nstrs - 1])
			return -1;
		d->keptstrs = d->nstrs;
	}
	return r->bad ? -1 : 0;
}

static int get_commands(struct recdec *d, struct recread *r)
{
	size_t k = recread_count(r, 2);

	for (size_t i = 0; i < k && !r->bad; i++) {
		uint64_t pid = recread_uv(r), id = recread_uv(r);

		if (!recdec_str(d, id) ||
		    rectab_map_put(&d->pidcmds, pid, (uint32_t)id))
			return -1;
	}
	return r->bad ? -1 : 0;
}

/* A row's key (recenc.c's put_rowdef()) into w. */
static int get_key(struct recdec *d, struct recread *r, struct agg_row *w)
{
	int nkeys;

	w->pid = (uint32_t)recread_uv(r);
	nkeys = (int)recread_uv(r);
	if (nkeys < 0 || nkeys > AGG_MAX_PARTS)
		return -1;
	w->nkeys = nkeys;
	for (int i = 0; i < nkeys && !r->bad; i++) {
		struct agg_key_part *k = &w->key[i];
		uint8_t f = recread_u8(r);

		k->is_str = f & PART_STR;
		k->is_signed = f & PART_SIGNED;
		k->is_stack = f & PART_STACK;
		if (k->is_str && !(k->text = recdec_str(d, recread_uv(r))))
			return -1;
		if (!k->is_str)
			k->num = recread_sv(r);
		if ((f & PART_MODS) &&
		    !(k->mods = recdec_str(d, recread_uv(r))))
			return -1;
	}
	return r->bad ? -1 : 0;
}

/* Row dr, defined before the decoder was set back (kept, see recdec.h),
 * as new again: nothing counted. */
static void reset_row(struct recdec_row *dr)
{
	dr->row.total = 0;
	dr->row.sum_total = dr->row.min = dr->row.max = 0;
	if (dr->b_total)
		memset(dr->b_total, 0, PT_NBUCKETS * sizeof(uint64_t));
}

/* A new row's key (recenc.c's put_rowdef()), as row index d->nrows. */
static int get_rowdef(struct recdec *d, struct recread *r,
		      const struct agg_spec *as, int64_t text_id)
{
	struct agg_row key = { 0 };
	struct recdec_row *dr;

	if (get_key(d, r, &key) || !recdec_grow((void **)&d->rows, &d->caprows,
						d->nrows + 1, sizeof(*d->rows)))
		return -1;
	dr = &d->rows[d->nrows];
	if (d->nrows < d->keptrows) { /* the same record read again */
		reset_row(dr);
		d->nrows++;
		return 0;
	}
	*dr = (struct recdec_row){ .spec_id = as->id,
				   .text_id = text_id,
				   .row = key };
	dr->row.id = d->nrows + 1;
	if (spec_has_buckets(as->spec)) {
		dr->b = calloc(PT_NBUCKETS, sizeof(uint64_t));
		dr->b_total = calloc(PT_NBUCKETS, sizeof(uint64_t));
		if (!dr->b || !dr->b_total) {
			free(dr->b);
			free(dr->b_total);
			return -1;
		}
		dr->row.b = dr->b;
		dr->row.b_total = dr->b_total;
	}
	d->keptrows = ++d->nrows;
	return 0;
}

/* Sparse buckets into v[0..nb): signed differences added (diff) or
 * counts set. */
static int get_sparse(struct recread *r, uint64_t *v, int nb, bool diff)
{
	size_t k = recread_count(r, 2);
	int64_t at = -1;

	for (size_t i = 0; i < k && !r->bad; i++) {
		at += (int64_t)recread_uv(r) + 1;
		if (at < 0 || at >= nb)
			return -1;
		if (diff)
			v[at] += (uint64_t)recread_sv(r);
		else
			v[at] = recread_uv(r);
	}
	return r->bad ? -1 : 0;
}

/* A row's values (recenc.c's put_rowvals()) onto its last ones. */
static int get_rowvals(struct recread *r, const struct spec *sp,
		       struct recdec_row *dr)
{
	struct agg_row *w = &dr->row;
	uint8_t marks = recread_u8(r);
	int nb = dr->b ? agg_nbuckets(sp) : 0;

	w->mark = marks & 3;
	w->mark_total = (marks >> 2) & 3;
	w->count = recread_uv(r);
	w->total += w->count + (uint64_t)recread_sv(r);
	if (sp->agg == SPEC_AGG_SUM || dr->b) {
		w->sum = recread_sv(r);
		w->sum_total += w->sum + recread_sv(r);
	}
	if (!dr->b)
		return r->bad ? -1 : 0;
	if (nb > PT_NBUCKETS)
		return -1;
	w->min += recread_sv(r);
	w->max += recread_sv(r);
	memset(dr->b, 0, PT_NBUCKETS * sizeof(uint64_t));
	if (get_sparse(r, dr->b, nb, false))
		return -1;
	for (int i = 0; i < nb; i++)
		dr->b_total[i] += dr->b[i];
	return get_sparse(r, dr->b_total, nb, true);
}

/* Spec s's text, parsed again if it is not the one parsed last. */
static int get_spec_text(struct recdec *d, struct recdec_spec *ds, uint64_t id,
			 char *why, size_t n)
{
	const char *text = recdec_str(d, id);
	char err[256];

	if (!text)
		return -1;
	if (ds->text_id == (int64_t)id)
		return 0;
	if (spec_parse(text, &ds->spec, err, sizeof(err))) {
		snprintf(why, n, "its spec '%.200s' does not parse: %s", text,
			 err);
		return -1;
	}
	ds->text_id = (int64_t)id;
	return 0;
}

/* A spec's numbers (recenc.c's put_spec_head()). */
static int get_spec_head(struct recdec *d, struct recread *r,
			 struct recdec_spec *ds, struct agg_spec *as, char *why,
			 size_t n)
{
	size_t ndrops;
	uint8_t f, m;

	*as = (struct agg_spec){ .id = (int)recread_uv(r) };
	if (get_spec_text(d, ds, recread_uv(r), why, n))
		return -1;
	for (int i = 0; i < 3; i++)
		ds->origin[i] = recdec_str(d, recread_uv(r));
	if (!ds->origin[0] || !ds->origin[1] || !ds->origin[2])
		return -1;
	ds->info = (struct tracer_spec_info){ .spec = &ds->spec };
	ds->info.nprobes = recread_uv(r);
	ds->info.nsites = recread_uv(r);
	ds->info.role_sites[0] = recread_uv(r);
	ds->info.role_sites[1] = recread_uv(r);
	as->spec = &ds->spec;
	as->info = &ds->info;
	as->events = recread_uv(r);
	as->events_total = recread_uv(r);
	as->drops = recread_uv(r);
	as->drops_total = recread_uv(r);
	ndrops = recread_count(r, 2);
	for (size_t i = 0; i < ndrops; i++) {
		uint64_t v = recread_uv(r), t = recread_uv(r);

		if (i < AGG_NDROPS) {
			as->why[i] = v;
			as->why_total[i] = t;
		}
	}
	as->capacity = (uint32_t)recread_uv(r);
	as->unmatched = recread_uv(r);
	as->unmatched_total = recread_uv(r);
	as->cut = recread_uv(r);
	as->cut_total = recread_uv(r);
	as->cost_pct = recread_f64(r);
	as->cost_pct_total = recread_f64(r);
	as->duty = recread_f64(r);
	as->duty_total = recread_f64(r);
	f = recread_u8(r);
	m = recread_u8(r);
	as->estimated = f & 1;
	as->estimated_total = f & 2;
	as->events_mark = m & 3;
	as->events_mark_total = (m >> 2) & 3;
	return r->bad ? -1 : 0;
}

/* The spec's changed rows (recenc.c's put_rows()); those counted in the
 * interval become its first shown rows, in the order written (the live
 * snapshot's: count, then total, descending); carry_rows() adds the
 * rest. */
static int get_rows(struct recdec *d, struct recread *r, struct recdec_spec *ds,
		    const struct agg_spec *as)
{
	size_t k = recread_count(r, 3);

	ds->n = 0;
	for (size_t i = 0; i < k && !r->bad; i++) {
		uint64_t ref = recread_uv(r);
		size_t at = ref ? ref - 1 : d->nrows;
		struct recdec_row *dr;

		if (!ref && get_rowdef(d, r, as, ds->text_id))
			return -1;
		if (at >= d->nrows)
			return -1;
		dr = &d->rows[at];
		if (dr->spec_id != as->id ||
		    spec_has_buckets(as->spec) != (dr->b != NULL) ||
		    get_rowvals(r, as->spec, dr))
			return -1;
		if (!dr->row.count)
			continue;
		if (!recdec_grow((void **)&ds->idx, &ds->cap, ds->n + 1,
				 sizeof(*ds->idx)))
			return -1;
		ds->idx[ds->n++] = (uint32_t)at;
	}
	return r->bad ? -1 : 0;
}

static void get_io_val(struct recread *r, struct pt_io_val *v)
{
	v->calls = recread_uv(r);
	v->errors = recread_uv(r);
	v->bytes = recread_uv(r);
	v->ns = recread_uv(r);
	memset(v->b, 0, sizeof(v->b));
	if (get_sparse(r, (uint64_t *)v->b, PT_NBUCKETS, false))
		r->bad = true;
}

static void get_proc_val(struct recread *r, struct pt_proc_val *v)
{
	v->count = recread_uv(r);
	v->ns = recread_uv(r);
	memset(v->b, 0, sizeof(v->b));
	if (get_sparse(r, (uint64_t *)v->b, PT_NBUCKETS, false))
		r->bad = true;
}

/* The IO rows, process rows and unwind tables (put_kernel()). */
static int get_kernel(struct recdec *d, struct recread *r)
{
	struct agg_snapshot *snap = &d->snap;
	struct tracer_unwind *u = &snap->unwind;
	size_t nio = recread_count(r, 4), nproc;

	if (!recdec_grow((void **)&d->io, &d->capio, nio, sizeof(*d->io)))
		return -1;
	for (size_t i = 0; i < nio && !r->bad; i++) {
		d->io[i].pid = (uint32_t)recread_uv(r);
		d->io[i].cls = (int)recread_uv(r);
		get_io_val(r, &d->io[i].now);
		get_io_val(r, &d->io[i].total);
	}
	nproc = recread_count(r, 4);
	if (!recdec_grow((void **)&d->proc, &d->capproc, nproc,
			 sizeof(*d->proc)))
		return -1;
	for (size_t i = 0; i < nproc && !r->bad; i++) {
		struct agg_proc_row *p = &d->proc[i];
		const char *name;

		p->pid = (uint32_t)recread_uv(r);
		p->event = (int)recread_uv(r);
		p->code = (int)recread_sv(r);
		name = recdec_str(d, recread_uv(r));
		snprintf(p->name, sizeof(p->name), "%s", name ? name : "");
		get_proc_val(r, &p->now);
		get_proc_val(r, &p->total);
	}
	snap->nio = nio;
	snap->io = d->io;
	snap->nproc = nproc;
	snap->proc = d->proc;
	*u = (struct tracer_unwind){ .on = recread_u8(r) };
	u->objects = recread_uv(r);
	u->rows = recread_uv(r);
	u->full = recread_uv(r);
	u->capacity = (uint32_t)recread_uv(r);
	u->nprocs = recread_count(r, 3);
	if (u->nprocs > TRACER_UNWIND_PROCS)
		return -1;
	for (size_t i = 0; i < u->nprocs; i++) {
		u->procs[i].pid = (int)recread_sv(r);
		u->procs[i].objects = recread_uv(r);
		u->procs[i].rows = recread_uv(r);
	}
	return r->bad ? -1 : 0;
}

static void get_overhead(struct recread *r, struct agg_overhead *o)
{
	o->cpu_pct = recread_f64(r);
	o->kernel_pct = recread_f64(r);
	o->target_pct = recread_f64(r);
	o->self_pct = recread_f64(r);
	o->measured = recread_u8(r);
}

/* put_overhead_more()'s, into o: none in a body that ends before them
 * (format 1.1), zeros then. */
static void get_overhead_more(struct recread *r, struct agg_overhead *o)
{
	size_t n;

	o->syscall_ns = o->stats_s = 0;
	o->nprogs = 0;
	if (r->at >= r->len)
		return;
	o->syscall_ns = recread_f64(r);
	o->stats_s = recread_f64(r);
	n = recread_count(r, 3);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct agg_prog p = { .name = "" };
		size_t len;
		const char *name = recread_str(r, &len);

		if (name)
			memcpy(p.name, name,
			       len < sizeof(p.name) ? len : sizeof(p.name) - 1);
		p.runs = recread_uv(r);
		p.ns = recread_uv(r);
		if (o->nprogs < AGG_PROGS)
			o->progs[o->nprogs++] = p;
	}
}

/* put_guesses()'s, onto the rows (zero_counts() cleared theirs): none
 * in a body that ends before them (format 1.2 and older). 0, or -1 for
 * a row not read yet. */
static int get_guesses(struct recdec *d, struct recread *r)
{
	size_t n;

	if (r->at >= r->len)
		return 0;
	n = recread_count(r, 33);
	for (size_t i = 0; i < n && !r->bad; i++) {
		uint64_t at = recread_uv(r);
		struct agg_row *w;

		if (at >= d->nrows)
			return -1;
		w = &d->rows[at].row;
		w->guess = recread_f64(r);
		w->guess_err = recread_f64(r);
		w->guess_total = recread_f64(r);
		w->guess_err_total = recread_f64(r);
	}
	return r->bad ? -1 : 0;
}

/* The snapshot's own numbers (put_snap_head()). */
static void get_snap_head(struct recread *r, struct agg_snapshot *snap)
{
	uint8_t m;
	size_t nk;

	*snap = (struct agg_snapshot){ .interval = (unsigned)recread_uv(r) };
	snap->elapsed_s = recread_f64(r);
	snap->events = recread_uv(r);
	snap->events_total = recread_uv(r);
	m = recread_u8(r);
	snap->events_mark = m & 3;
	snap->events_mark_total = (m >> 2) & 3;
	snap->drops = recread_uv(r);
	snap->drops_total = recread_uv(r);
	nk = recread_count(r, 3);
	for (size_t k = 0; k < nk; k++) {
		uint64_t v = recread_uv(r), t = recread_uv(r),
			 c = recread_uv(r);

		if (k < PT_KDROP_N) {
			snap->kdrops[k] = v;
			snap->kdrops_total[k] = t;
			snap->kcapacity[k] = (uint32_t)c;
		}
	}
	get_overhead(r, &snap->overhead);
	get_overhead(r, &snap->overhead_total);
	snap->budget_pct = recread_f64(r);
	snap->sampled = recread_uv(r);
}

/* Room for nspecs specs in d, new ones never parsed. */
static bool specs_room(struct recdec *d, size_t nspecs)
{
	size_t cap = d->capspecs, was = d->capspecs;

	if (nspecs <= cap)
		return true;
	if (!recdec_grow((void **)&d->specs, &cap, nspecs, sizeof(*d->specs)))
		return false;
	for (size_t i = was; i < cap; i++)
		d->specs[i] = (struct recdec_spec){ .text_id = -1 };
	d->capspecs = cap;
	cap = was;
	return recdec_grow((void **)&d->as, &cap, d->capspecs, sizeof(*d->as));
}

/* Each spec's shown rows, from indices to pointers into d->rows (which
 * no longer moves until the next body). */
static int point_rows(struct recdec *d)
{
	for (size_t s = 0; s < d->snap.nspecs; s++) {
		struct recdec_spec *ds = &d->specs[s];

		if (!recdec_grow((void **)&ds->rows, &ds->caprows, ds->n,
				 sizeof(*ds->rows)))
			return -1;
		for (size_t i = 0; i < ds->n; i++)
			ds->rows[i] = &d->rows[ds->idx[i]].row;
		d->as[s].rows = ds->rows;
		d->as[s].nrows = ds->n;
	}
	return 0;
}

/* Before an interval's rows are read: nothing counted in it yet (a row
 * not written in it did not change: it counted nothing), no estimate
 * of a bound (get_guesses() says which have one). */
static void zero_counts(struct recdec *d)
{
	for (size_t i = 0; i < d->nrows; i++) {
		d->rows[i].row.count = 0;
		d->rows[i].row.sum = 0;
		d->rows[i].row.guess = d->rows[i].row.guess_total = 0;
		d->rows[i].row.guess_err = d->rows[i].row.guess_err_total = 0;
		if (d->rows[i].b)
			memset(d->rows[i].b, 0, PT_NBUCKETS * sizeof(uint64_t));
	}
}

static const struct recdec_row *by_total_rows; /* by_total()'s */

/* qsort: row indices by their rows' totals, descending. */
static int by_total(const void *a, const void *b)
{
	uint64_t x = by_total_rows[*(const uint32_t *)a].row.total;
	uint64_t y = by_total_rows[*(const uint32_t *)b].row.total;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* After them: every spec's rows that counted nothing in the interval,
 * with their totals, after those that did, by total, as the live
 * snapshot lists them (a quiet interval of the console showed "no calls
 * yet" in replay where live listed every row). 0, or -1 on ENOMEM. */
static int carry_rows(struct recdec *d)
{
	for (size_t s = 0; s < d->snap.nspecs; s++) {
		struct recdec_spec *ds = &d->specs[s];
		size_t counted = ds->n;

		for (size_t i = 0; i < d->nrows; i++) {
			const struct recdec_row *dr = &d->rows[i];

			if (dr->spec_id != d->as[s].id ||
			    dr->text_id != ds->text_id || dr->row.count ||
			    !dr->row.total)
				continue;
			if (!recdec_grow((void **)&ds->idx, &ds->cap, ds->n + 1,
					 sizeof(*ds->idx)))
				return -1;
			ds->idx[ds->n++] = (uint32_t)i;
		}
		by_total_rows = d->rows;
		qsort(ds->idx + counted, ds->n - counted, sizeof(*ds->idx),
		      by_total);
	}
	return 0;
}

int recdec_interval(struct recdec *d, struct recread *r, char *why, size_t n)
{
	size_t nspecs;

	get_snap_head(r, &d->snap);
	if (get_strings(d, r) || get_commands(d, r))
		return fail(r, why, n, "a bad string table");
	nspecs = recread_count(r, 8);
	if (!specs_room(d, nspecs))
		return fail(r, why, n, "no memory for its specs");
	why[0] = '\0';
	zero_counts(d);
	for (size_t s = 0; s < nspecs; s++) {
		if (get_spec_head(d, r, &d->specs[s], &d->as[s], why, n))
			return why[0] ? -1 : fail(r, why, n, "a bad spec");
		if (get_rows(d, r, &d->specs[s], &d->as[s]))
			return fail(r, why, n, "a bad row");
	}
	d->snap.nspecs = nspecs;
	d->snap.specs = d->as;
	if (get_kernel(d, r))
		return fail(r, why, n, "bad IO or process rows");
	get_overhead_more(r, &d->snap.overhead);
	get_overhead_more(r, &d->snap.overhead_total);
	if (r->bad)
		return fail(r, why, n, "a bad program list");
	if (get_guesses(d, r))
		return fail(r, why, n, "a bad lower bound's estimate");
	return carry_rows(d) || point_rows(d)
		       ? fail(r, why, n, "no memory for its rows")
		       : 0;
}

int recdec_final(struct recdec *d, struct recread *r, char *why, size_t n)
{
	size_t nspecs = recread_count(r, 1);

	if (nspecs != d->snap.nspecs)
		return fail(r, why, n, "a final summary of other specs");
	for (size_t s = 0; s < nspecs; s++) {
		struct recdec_spec *ds = &d->specs[s];
		size_t k = recread_count(r, 1);

		if (!recdec_grow((void **)&ds->idx, &ds->cap, k,
				 sizeof(*ds->idx)))
			return fail(r, why, n, "no memory for its rows");
		for (size_t i = 0; i < k && !r->bad; i++) {
			uint64_t at = recread_uv(r);

			if (at >= d->nrows ||
			    d->rows[at].spec_id != d->as[s].id)
				return fail(r, why, n, "a bad row");
			ds->idx[i] = (uint32_t)at;
		}
		ds->n = k;
	}
	if (r->bad)
		return fail(r, why, n, "");
	return point_rows(d) ? fail(r, why, n, "no memory for its rows") : 0;
}

void recdec_free(struct recdec *d)
{
	for (size_t i = 0; i < d->keptstrs; i++)
		free(d->strs[i]);
	free(d->strs);
	for (size_t i = 0; i < d->keptrows; i++) {
		free(d->rows[i].b);
		free(d->rows[i].b_total);
	}
	free(d->rows);
	for (size_t i = 0; i < d->capspecs; i++) {
		free(d->specs[i].idx);
		free(d->specs[i].rows);
	}
	free(d->specs);
	free(d->as);
	free(d->io);
	free(d->proc);
	rectab_map_free(&d->pidcmds);
	*d = (struct recdec){ 0 };
}
