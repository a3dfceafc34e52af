// SPDX-License-Identifier: MIT
/*
 * recenc — snapshots into record bodies; see recenc.h. The byte layout
 * is docs/record-format.md's; recdec.c reads what this writes, in the
 * same order.
 *
 * A row is written in an interval when it is new, counted in it, or any
 * of its totals moved: its count, then each total as its difference
 * from the last written total plus the interval's value (0 when the
 * total grew by the count, as it does but for the budget's estimates).
 * Rows are written in the snapshot's order, so that the reader has the
 * order of the rows counted in the interval as trace printed them.
 */
#include "recenc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A key part's flags (docs/record-format.md). */
#define PART_STR 0x1
#define PART_SIGNED 0x2
#define PART_STACK 0x4
#define PART_MODS 0x8

/* A string's id, interned; a missing string is "". */
static uint64_t str_id(struct recenc *e, const char *s)
{
	int64_t id = rectab_str_id(&e->strs, s ? s : "");

	if (id < 0) {
		e->part.failed = true;
		return 0;
	}
	return (uint64_t)id;
}

/* b[0..n) as its nonzero entries: their count, then (index gap, value). */
static void put_sparse(struct recbuf *b, const uint64_t *v, int n)
{
	int nz = 0, last = -1;

	for (int i = 0; i < n; i++)
		nz += v[i] != 0;
	recbuf_uv(b, (uint64_t)nz);
	for (int i = 0; i < n; i++) {
		if (!v[i])
			continue;
		recbuf_uv(b, (uint64_t)(i - last - 1));
		recbuf_uv(b, v[i]);
		last = i;
	}
}

/* The row's new total buckets as their differences from the last
 * written and the interval's, put_sparse()'s way (signed values). */
static void put_bdiff(struct recbuf *b, const struct agg_row *r,
		      const uint64_t *prev, int n)
{
	int nz = 0, last = -1;

	for (int i = 0; i < n; i++)
		nz += r->b_total[i] - prev[i] - r->b[i] != 0;
	recbuf_uv(b, (uint64_t)nz);
	for (int i = 0; i < n; i++) {
		uint64_t d = r->b_total[i] - prev[i] - r->b[i];

		if (!d)
			continue;
		recbuf_uv(b, (uint64_t)(i - last - 1));
		recbuf_sv(b, (int64_t)d);
		last = i;
	}
}

/* A new row's key: pid, parts with names by string id. */
static void put_rowdef(struct recenc *e, const struct agg_row *r)
{
	recbuf_uv(&e->part, r->pid);
	recbuf_uv(&e->part, (uint64_t)r->nkeys);
	for (int i = 0; i < r->nkeys; i++) {
		const struct agg_key_part *k = &r->key[i];
		uint8_t f = (k->is_str ? PART_STR : 0) |
			    (k->is_signed ? PART_SIGNED : 0) |
			    (k->is_stack ? PART_STACK : 0) |
			    (k->mods ? PART_MODS : 0);

		recbuf_u8(&e->part, f);
		if (k->is_str)
			recbuf_uv(&e->part, str_id(e, agg_key_text(k)));
		else
			recbuf_sv(&e->part, k->num);
		if (k->mods)
			recbuf_uv(&e->part, str_id(e, k->mods));
	}
}

/* The index of row r, a new one (*fresh) made for an id not seen. -1
 * with no memory. */
static int64_t row_index(struct recenc *e, const struct agg_row *r, bool hist,
			 bool *fresh)
{
	uint32_t at;

	*fresh = !rectab_map_get(&e->rowids, r->id, &at);
	if (!*fresh)
		return at;
	if (e->nrows == e->caprows) {
		size_t cap = e->caprows ? 2 * e->caprows : 1024;
		struct recenc_row *v = realloc(e->rows, cap * sizeof(*v));

		if (!v)
			return -1;
		e->rows = v;
		e->caprows = cap;
	}
	e->rows[e->nrows] = (struct recenc_row){ 0 };
	if (hist) {
		e->rows[e->nrows].b_total =
			calloc(PT_NBUCKETS, sizeof(uint64_t));
		if (!e->rows[e->nrows].b_total)
			return -1;
	}
	if (rectab_map_put(&e->rowids, r->id, (uint32_t)e->nrows))
		return -1;
	return (int64_t)e->nrows++;
}

/* Whether r holds anything its last written state p does not. */
static bool row_changed(const struct agg_row *r, const struct recenc_row *p,
			int nb)
{
	if (r->count || r->total != p->total || r->sum_total != p->sum_total ||
	    r->mark_total != p->mark_total)
		return true;
	if (!p->b_total)
		return false;
	return r->min != p->min || r->max != p->max ||
	       memcmp(r->b_total, p->b_total, (size_t)nb * sizeof(uint64_t));
}

/* r's values after its reference, and p made what the file now has. */
static void put_rowvals(struct recbuf *b, const struct spec *sp,
			const struct agg_row *r, struct recenc_row *p, int nb)
{
	recbuf_u8(b, (uint8_t)(r->mark | r->mark_total << 2));
	recbuf_uv(b, r->count);
	recbuf_sv(b, (int64_t)(r->total - p->total - r->count));
	if (sp->agg == SPEC_AGG_SUM || p->b_total) {
		recbuf_sv(b, r->sum);
		recbuf_sv(b, r->sum_total - p->sum_total - r->sum);
	}
	if (p->b_total) {
		recbuf_sv(b, r->min - p->min);
		recbuf_sv(b, r->max - p->max);
		put_sparse(b, r->b, nb);
		put_bdiff(b, r, p->b_total, nb);
		memcpy(p->b_total, r->b_total, (size_t)nb * sizeof(uint64_t));
	}
	p->total = r->total;
	p->sum_total = r->sum_total;
	p->min = r->min;
	p->max = r->max;
	p->mark_total = r->mark_total;
}

/* The rows of as that changed: their number, then each as its index + 1
 * (0: a new row, its key following), then its values. */
static int put_rows(struct recenc *e, const struct agg_spec *as)
{
	bool hist = spec_has_buckets(as->spec);
	int nb = hist ? agg_nbuckets(as->spec) : 0;
	size_t n = 0;
	struct recbuf *b = &e->part;
	size_t count_at;

	if (nb > PT_NBUCKETS)
		return -EINVAL;
	count_at = recbuf_hole(b);
	for (size_t i = 0; i < as->nrows; i++) {
		const struct agg_row *r = as->rows[i];
		bool fresh;
		int64_t at = row_index(e, r, hist, &fresh);

		if (at < 0)
			return -ENOMEM;
		if (!fresh && !row_changed(r, &e->rows[at], nb))
			continue;
		recbuf_uv(b, fresh ? 0 : (uint64_t)at + 1);
		if (fresh)
			put_rowdef(e, r);
		put_rowvals(b, as->spec, r, &e->rows[at], nb);
		n++;
	}
	recbuf_fill(b, count_at, n);
	return b->failed ? -ENOMEM : 0;
}

/* The spec's numbers: what it is, where from, what was attached,
 * drops, cost. */
static void put_spec_head(struct recenc *e, const struct agg_spec *as,
			  const struct record_names *names)
{
	struct recbuf *b = &e->part;
	struct record_origin o = { 0 };

	if (names && names->origin)
		names->origin(names->ctx, as->id, &o);
	recbuf_uv(b, (uint64_t)as->id);
	recbuf_uv(b, str_id(e, as->spec->text));
	recbuf_uv(b, str_id(e, o.probeset));
	recbuf_uv(b, str_id(e, o.section));
	recbuf_uv(b, str_id(e, o.role));
	recbuf_uv(b, as->info->nprobes);
	recbuf_uv(b, as->info->nsites);
	recbuf_uv(b, as->info->role_sites[0]);
	recbuf_uv(b, as->info->role_sites[1]);
	recbuf_uv(b, as->events);
	recbuf_uv(b, as->events_total);
	recbuf_uv(b, as->drops);
	recbuf_uv(b, as->drops_total);
	recbuf_uv(b, AGG_NDROPS);
	for (int i = 0; i < AGG_NDROPS; i++) {
		recbuf_uv(b, as->why[i]);
		recbuf_uv(b, as->why_total[i]);
	}
	recbuf_uv(b, as->capacity);
	recbuf_uv(b, as->unmatched);
	recbuf_uv(b, as->unmatched_total);
	recbuf_uv(b, as->cut);
	recbuf_uv(b, as->cut_total);
	recbuf_f64(b, as->cost_pct);
	recbuf_f64(b, as->cost_pct_total);
	recbuf_f64(b, as->duty);
	recbuf_f64(b, as->duty_total);
	recbuf_u8(b, (uint8_t)(as->estimated | as->estimated_total << 1));
	recbuf_u8(b, (uint8_t)(as->events_mark | as->events_mark_total << 2));
}

/* The commands of the pids of the rows counted, those not written yet or
 * changed since: their number, then (pid, string id) each. */
static void put_commands(struct recenc *e, const struct agg_snapshot *snap,
			 const struct record_names *names)
{
	struct recbuf *b = &e->part;
	size_t count_at = recbuf_hole(b), n = 0;

	for (size_t s = 0; names && names->command && s < snap->nspecs; s++) {
		const struct agg_spec *as = &snap->specs[s];

		for (size_t i = 0; i < as->nrows; i++) {
			uint32_t pid = as->rows[i]->pid, was;
			uint64_t id;

			if (!as->rows[i]->total)
				continue;
			id = str_id(e, names->command(names->ctx, pid));
			if (rectab_map_get(&e->pidcmds, pid, &was) && was == id)
				continue;
			if (rectab_map_put(&e->pidcmds, pid, (uint32_t)id))
				b->failed = true;
			recbuf_uv(b, pid);
			recbuf_uv(b, id);
			n++;
		}
	}
	recbuf_fill(b, count_at, n);
}

/* An IO or process value's numbers and log2 buckets. */
static void put_io_val(struct recbuf *b, const struct pt_io_val *v)
{
	recbuf_uv(b, v->calls);
	recbuf_uv(b, v->errors);
	recbuf_uv(b, v->bytes);
	recbuf_uv(b, v->ns);
	put_sparse(b, (const uint64_t *)v->b, PT_NBUCKETS);
}

static void put_proc_val(struct recbuf *b, const struct pt_proc_val *v)
{
	recbuf_uv(b, v->count);
	recbuf_uv(b, v->ns);
	put_sparse(b, (const uint64_t *)v->b, PT_NBUCKETS);
}

/* The IO rows, the process rows and the unwind tables, all of them
 * (a few: by process and class or event). */
static void put_kernel(struct recenc *e, const struct agg_snapshot *snap)
{
	struct recbuf *b = &e->part;
	const struct tracer_unwind *u = &snap->unwind;

	recbuf_uv(b, snap->nio);
	for (size_t i = 0; i < snap->nio; i++) {
		recbuf_uv(b, snap->io[i].pid);
		recbuf_uv(b, (uint64_t)snap->io[i].cls);
		put_io_val(b, &snap->io[i].now);
		put_io_val(b, &snap->io[i].total);
	}
	recbuf_uv(b, snap->nproc);
	for (size_t i = 0; i < snap->nproc; i++) {
		const struct agg_proc_row *r = &snap->proc[i];

		recbuf_uv(b, r->pid);
		recbuf_uv(b, (uint64_t)r->event);
		recbuf_sv(b, r->code);
		recbuf_uv(b, str_id(e, r->name));
		put_proc_val(b, &r->now);
		put_proc_val(b, &r->total);
	}
	recbuf_u8(b, u->on);
	recbuf_uv(b, u->objects);
	recbuf_uv(b, u->rows);
	recbuf_uv(b, u->full);
	recbuf_uv(b, u->capacity);
	recbuf_uv(b, u->nprocs);
	for (size_t i = 0; i < u->nprocs; i++) {
		recbuf_sv(b, u->procs[i].pid);
		recbuf_uv(b, u->procs[i].objects);
		recbuf_uv(b, u->procs[i].rows);
	}
}

static void put_overhead(struct recbuf *b, const struct agg_overhead *o)
{
	recbuf_f64(b, o->cpu_pct);
	recbuf_f64(b, o->kernel_pct);
	recbuf_f64(b, o->target_pct);
	recbuf_f64(b, o->self_pct);
	recbuf_u8(b, o->measured);
}

/* What format 1.2 adds to an overhead, at the end of the body: the IO
 * watch's price of a syscall, the statistics' seconds, the programs. */
static void put_overhead_more(struct recbuf *b, const struct agg_overhead *o)
{
	recbuf_f64(b, o->syscall_ns);
	recbuf_f64(b, o->stats_s);
	recbuf_uv(b, o->nprogs);
	for (size_t i = 0; i < o->nprogs; i++) {
		recbuf_str(b, o->progs[i].name);
		recbuf_uv(b, o->progs[i].runs);
		recbuf_uv(b, o->progs[i].ns);
	}
}

/* What format 1.3 adds, at the end of the body: the lower bounds'
 * estimates (agg_row.guess) of the snapshot's rows that have one, each
 * by its row number (every row of the snapshot has one by now). */
static void put_guesses(struct recenc *e, const struct agg_snapshot *snap)
{
	struct recbuf *b = &e->part;
	size_t count_at = recbuf_hole(b), n = 0;

	for (size_t s = 0; s < snap->nspecs; s++) {
		const struct agg_spec *as = &snap->specs[s];

		for (size_t i = 0; i < as->nrows; i++) {
			const struct agg_row *r = as->rows[i];
			uint32_t at;

			if ((r->guess <= 0 && r->guess_total <= 0) ||
			    !rectab_map_get(&e->rowids, r->id, &at))
				continue;
			recbuf_uv(b, at);
			recbuf_f64(b, r->guess);
			recbuf_f64(b, r->guess_err);
			recbuf_f64(b, r->guess_total);
			recbuf_f64(b, r->guess_err_total);
			n++;
		}
	}
	recbuf_fill(b, count_at, n);
}

/* The snapshot's own numbers, before its string table. */
static void put_snap_head(struct recbuf *b, const struct agg_snapshot *snap)
{
	recbuf_uv(b, snap->interval);
	recbuf_f64(b, snap->elapsed_s);
	recbuf_uv(b, snap->events);
	recbuf_uv(b, snap->events_total);
	recbuf_u8(b,
		  (uint8_t)(snap->events_mark | snap->events_mark_total << 2));
	recbuf_uv(b, snap->drops);
	recbuf_uv(b, snap->drops_total);
	recbuf_uv(b, PT_KDROP_N);
	for (int k = 0; k < PT_KDROP_N; k++) {
		recbuf_uv(b, snap->kdrops[k]);
		recbuf_uv(b, snap->kdrops_total[k]);
		recbuf_uv(b, snap->kcapacity[k]);
	}
	put_overhead(b, &snap->overhead);
	put_overhead(b, &snap->overhead_total);
	recbuf_f64(b, snap->budget_pct);
	recbuf_uv(b, snap->sampled);
}

int recenc_interval(struct recenc *e, const struct agg_snapshot *snap,
		    const struct record_names *names, struct recbuf *body)
{
	int err = 0;

	recbuf_reset(body);
	recbuf_reset(&e->part);
	put_snap_head(body, snap);
	put_commands(e, snap, names);
	recbuf_uv(&e->part, snap->nspecs);
	for (size_t s = 0; !err && s < snap->nspecs; s++) {
		put_spec_head(e, &snap->specs[s], names);
		err = put_rows(e, &snap->specs[s]);
	}
	if (err)
		return err;
	put_kernel(e, snap);
	put_overhead_more(&e->part, &snap->overhead);
	put_overhead_more(&e->part, &snap->overhead_total);
	put_guesses(e, snap);
	recbuf_uv(body, e->strs.n - e->strs.nwritten);
	for (size_t i = e->strs.nwritten; i < e->strs.n; i++)
		recbuf_str(body, e->strs.strs[i]);
	recbuf_bytes(body, e->part.p, e->part.len);
	return body->failed || e->part.failed ? -ENOMEM : 0;
}

int recenc_final(struct recenc *e, const struct agg_snapshot *snap,
		 struct recbuf *body)
{
	recbuf_reset(body);
	recbuf_uv(body, snap->nspecs);
	for (size_t s = 0; s < snap->nspecs; s++) {
		const struct agg_spec *as = &snap->specs[s];
		size_t count_at = recbuf_hole(body), n = 0;

		for (size_t i = 0; i < as->nrows; i++) {
			uint32_t at;

			if (!as->rows[i]->total ||
			    !rectab_map_get(&e->rowids, as->rows[i]->id, &at))
				continue;
			recbuf_uv(body, at);
			n++;
		}
		recbuf_fill(body, count_at, n);
	}
	return body->failed ? -ENOMEM : 0;
}

void recenc_free(struct recenc *e)
{
	for (size_t i = 0; i < e->nrows; i++)
		free(e->rows[i].b_total);
	free(e->rows);
	rectab_strs_free(&e->strs);
	rectab_map_free(&e->rowids);
	rectab_map_free(&e->pidcmds);
	recbuf_free(&e->part);
	*e = (struct recenc){ 0 };
}
