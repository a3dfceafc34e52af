// SPDX-License-Identifier: MIT
/*
 * trace_json — `probetop trace --json`: each interval, and the final
 * summary, as one JSON object on a line of its own (json-c): every
 * spec's rows with their keys (a stack as an array of frames), buckets,
 * percentiles and marks, its drops, cost and duty; the io and process
 * rows; the kernel's drops; the overhead. Called by trace_out_print()
 * (trace_out.c); see trace_out.h.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "trace_impl.h"

/* A stack's text ("root;...;leaf") as an array of its frames. */
static json_object *json_frames(const char *text)
{
	json_object *a = json_object_new_array();
	char frame[1024];

	while (*text) {
		size_t n = strcspn(text, ";");

		snprintf(frame, sizeof(frame), "%.*s", (int)n, text);
		json_object_array_add(a, cli_json_inert(frame));
		text += n + (text[n] == ';');
	}
	return a;
}

static json_object *json_key(const struct agg_row *r)
{
	json_object *key = json_object_new_array();

	for (int i = 0; i < r->nkeys; i++) {
		const struct agg_key_part *k = &r->key[i];

		json_object_array_add(
			key, k->is_stack    ? json_frames(agg_key_text(k))
			     : k->is_str    ? cli_json_inert(agg_key_text(k))
			     : k->is_signed ? json_object_new_int64(k->num)
					    : json_object_new_uint64(
						      (uint64_t)k->num));
	}
	return key;
}

static json_object *json_buckets(const struct spec *sp, const struct agg_row *r,
				 const uint64_t *b)
{
	json_object *arr = json_object_new_array();

	for (int i = 0; i < agg_nbuckets(sp); i++) {
		json_object *pair;

		if (!b[i])
			continue;
		pair = json_object_new_array();
		json_object_array_add(
			pair, json_object_new_int64(agg_bucket_low(sp, r, i)));
		json_object_array_add(pair, json_object_new_uint64(b[i]));
		json_object_array_add(arr, pair);
	}
	return arr;
}

static void json_percentiles(json_object *row, const struct spec *sp,
			     const struct agg_row *r, const uint64_t *b)
{
	static const struct {
		const char *name;
		double p;
	} P[] = { { "p50", 50 }, { "p90", 90 }, { "p99", 99 } };

	for (size_t i = 0; i < sizeof(P) / sizeof(P[0]); i++) {
		int at = agg_percentile_bucket(b, agg_nbuckets(sp), P[i].p);

		if (at >= 0)
			json_object_object_add(
				row, P[i].name,
				json_object_new_int64(
					agg_bucket_low(sp, r, at)));
	}
}

/* "PREFIXestimated": true or "PREFIXlower_bound": true into o, as mark
 * says; nothing for an exact number. */
static void json_mark(json_object *o, const char *prefix, unsigned char mark)
{
	char name[32];

	if (mark == AGG_EXACT)
		return;
	snprintf(name, sizeof(name), "%s%s", prefix,
		 mark == AGG_ESTIMATE ? "estimated" : "lower_bound");
	json_object_object_add(o, name, json_object_new_boolean(true));
}

/* A lower bound's estimate (agg_row.guess): "PREFIXestimate": N and
 * "PREFIXerror": its relative error (0.4: within 40%), if it has one. */
static void json_guess(json_object *o, const char *prefix, double guess,
		       double err)
{
	char name[32];

	if (guess <= 0)
		return;
	snprintf(name, sizeof(name), "%sestimate", prefix);
	json_object_object_add(
		o, name, json_object_new_uint64((uint64_t)llround(guess)));
	snprintf(name, sizeof(name), "%serror", prefix);
	json_object_object_add(
		o, name, json_object_new_double(round(err * 1000) / 1000));
}

/* --baseline: "rate" (events per second over span), "baseline_rate",
 * "delta" and "ratio" into row, or "new": true for a key the baseline
 * has not (its baseline_rate 0, ratio null). */
static void json_vs(json_object *row, const struct trace_out *out,
		    const struct agg_spec *as, const struct agg_row *r,
		    bool final, double span)
{
	struct basetab_cmp c;
	bool found = trace_base_row(out, trace_base_spec(out, as), r, final,
				    span, &c);

	json_object_object_add(row, "rate", json_object_new_double(c.rate));
	json_object_object_add(row, "baseline_rate",
			       json_object_new_double(c.base));
	json_object_object_add(row, "delta", json_object_new_double(c.delta));
	json_object_object_add(
		row, "ratio",
		found && !c.bound ? json_object_new_double(c.ratio) : NULL);
	if (found && c.bound) /* a ratio of bounds can be anything */
		json_object_object_add(row, "ratio_bound",
				       json_object_new_boolean(true));
	if (!found)
		json_object_object_add(row, "new",
				       json_object_new_boolean(true));
}

/* --baseline: [{"key", "baseline_rate", "baseline_total"}]: the
 * baseline's keys of as not shown now, highest rate first */
static json_object *json_gone(const struct trace_out *out,
			      const struct agg_spec *as, bool final)
{
	const struct basetab_row **gone;
	size_t n = basetab_gone(trace_base_spec(out, as), as, final, &gone);
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "key", json_key(&gone[i]->row));
		json_object_object_add(o, "baseline_rate",
				       json_object_new_double(basetab_rate(
					       out->base->t, gone[i])));
		json_object_object_add(
			o, "baseline_total",
			json_object_new_uint64(gone[i]->row.total));
		json_object_array_add(a, o);
	}
	if (n)
		free(gone);
	return a;
}

/* {"file", "seconds", "intervals"}: what the baseline is */
static json_object *json_baseline(const struct trace_base *b)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "file", cli_json_inert(b->path));
	json_object_object_add(o, "seconds",
			       json_object_new_double(b->t->seconds));
	json_object_object_add(o, "intervals",
			       json_object_new_uint64(b->t->intervals));
	return o;
}

static json_object *json_row(const struct trace_out *out,
			     const struct agg_spec *as, const struct agg_row *r,
			     bool final, double span)
{
	const struct spec *sp = as->spec;
	json_object *row = json_object_new_object();

	json_object_object_add(row, "key", json_key(r));
	if (out->per_pid) {
		/* null: a row over every process (allpids) */
		json_object_object_add(row, "pid",
				       r->pid ? json_object_new_int64(r->pid)
					      : NULL);
		json_object_object_add(
			row, "command",
			cli_json_inert(out->command(out->ctx, r->pid)));
	}
	json_object_object_add(
		row, "count",
		json_object_new_uint64(final ? r->total : r->count));
	json_object_object_add(row, "total", json_object_new_uint64(r->total));
	if (sp->agg == SPEC_AGG_SUM) {
		json_object_object_add(
			row, "sum",
			json_object_new_int64(final ? r->sum_total : r->sum));
		json_object_object_add(row, "sum_total",
				       json_object_new_int64(r->sum_total));
	}
	if (spec_has_buckets(sp)) {
		const uint64_t *b = final ? r->b_total : r->b;

		json_object_object_add(
			row, "sum",
			json_object_new_int64(final ? r->sum_total : r->sum));
		json_object_object_add(row, "min",
				       json_object_new_int64(r->min));
		json_object_object_add(row, "max",
				       json_object_new_int64(r->max));
		json_percentiles(row, sp, r, b);
		json_object_object_add(row, "buckets", json_buckets(sp, r, b));
	}
	json_mark(row, "", final ? r->mark_total : r->mark);
	json_guess(row, "", final ? r->guess_total : r->guess,
		   final ? r->guess_err_total : r->guess_err);
	if (!final) {
		json_mark(row, "total_", r->mark_total);
		json_guess(row, "total_", r->guess_total, r->guess_err_total);
	}
	if (out->base)
		json_vs(row, out, as, r, final, span);
	return row;
}

/* {"map_full":N,"string":N,"depth":N,"python":N}: the spec's drops by
 * reason (agg_drop_name()) */
static json_object *json_drops_by(const struct agg_spec *as, bool final)
{
	json_object *o = json_object_new_object();

	for (int r = 0; r < AGG_NDROPS; r++)
		json_object_object_add(
			o, agg_drop_name(as->spec, r),
			json_object_new_uint64(final ? as->why_total[r]
						     : as->why[r]));
	return o;
}

/* A percentage, rounded to 4 decimals */
static json_object *json_pct(double pct)
{
	return json_object_new_double(round(pct * 1e4) / 1e4);
}

/* Each program's runs and run time in the statistics' time (stats_s). */
static json_object *json_programs(const struct agg_overhead *ov)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < ov->nprogs; i++) {
		json_object *p = json_object_new_object();

		json_object_object_add(
			p, "name", json_object_new_string(ov->progs[i].name));
		json_object_object_add(
			p, "runs", json_object_new_uint64(ov->progs[i].runs));
		json_object_object_add(p, "ns",
				       json_object_new_uint64(ov->progs[i].ns));
		json_object_array_add(a, p);
	}
	return a;
}

static json_object *json_overhead(const struct agg_overhead *ov)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "cpu_pct", json_pct(ov->cpu_pct));
	json_object_object_add(o, "kernel_pct", json_pct(ov->kernel_pct));
	json_object_object_add(o, "target_pct",
			       ov->target_pct >= 0 ? json_pct(ov->target_pct)
						   : NULL);
	json_object_object_add(o, "self_pct", json_pct(ov->self_pct));
	json_object_object_add(o, "syscall_ns",
			       json_object_new_double(round(ov->syscall_ns)));
	json_object_object_add(o, "measured",
			       json_object_new_boolean(ov->measured));
	json_object_object_add(
		o, "stats_s",
		json_object_new_double(round(ov->stats_s * 1e4) / 1e4));
	json_object_object_add(o, "programs", json_programs(ov));
	return o;
}

static json_object *json_agg(const struct trace_out *out,
			     const struct agg_spec *as, bool final, double span)
{
	json_object *o = json_object_new_object(), *rows;

	json_object_object_add(o, "spec", cli_json_inert(as->spec->text));
	json_object_object_add(
		o, "kind",
		json_object_new_string(spec_agg_name(as->spec->agg)));
	json_object_object_add(o, "probes",
			       json_object_new_uint64(as->info->nprobes));
	json_object_object_add(o, "locations",
			       json_object_new_uint64(as->info->nsites));
	json_object_object_add(
		o, "waiting",
		json_object_new_boolean(tracer_spec_waiting(as->info, NULL)));
	json_object_object_add(
		o, "drops",
		json_object_new_uint64(final ? as->drops_total : as->drops));
	json_object_object_add(o, "drops_by", json_drops_by(as, final));
	json_object_object_add(o, "capacity",
			       json_object_new_uint64(as->capacity));
	json_object_object_add(
		o, "cost_pct",
		json_pct(final ? as->cost_pct_total : as->cost_pct));
	if (final ? as->estimated_total : as->estimated) {
		/* down: a duty under 1 never shows as 1 */
		json_object_object_add(
			o, "duty",
			json_object_new_double(
				floor((final ? as->duty_total : as->duty) *
				      1e4) /
				1e4));
		json_object_object_add(o, "estimated",
				       json_object_new_boolean(true));
	}
	if (as->spec->timed) {
		json_object_object_add(
			o, "unmatched",
			json_object_new_uint64(final ? as->unmatched_total
						     : as->unmatched));
		json_object_object_add(
			o, "cut",
			json_object_new_uint64(final ? as->cut_total
						     : as->cut));
	}
	rows = json_object_new_array();
	for (size_t i = 0; i < as->nrows; i++)
		if (row_shown(as->rows[i], final))
			json_object_array_add(
				rows,
				json_row(out, as, as->rows[i], final, span));
	json_object_object_add(o, "rows", rows);
	if (out->base)
		json_object_object_add(o, "gone", json_gone(out, as, final));
	return o;
}

/* log2 buckets as [[low, count], ...], empty buckets left out */
static json_object *json_log2_buckets(const __u64 *b)
{
	json_object *arr = json_object_new_array();

	for (int i = 0; i < PT_NBUCKETS; i++) {
		json_object *pair;

		if (!b[i])
			continue;
		pair = json_object_new_array();
		json_object_array_add(
			pair,
			json_object_new_int64(i < 2 ? 0 : 1LL << (i - 2)));
		json_object_array_add(pair, json_object_new_uint64(b[i]));
		json_object_array_add(arr, pair);
	}
	return arr;
}

static json_object *json_io(const struct agg_io_row *io, bool final)
{
	json_object *o = json_object_new_object();
	const struct pt_io_val *v = final ? &io->total : &io->now;

	json_object_object_add(o, "pid", json_object_new_int64(io->pid));
	json_object_object_add(
		o, "class", json_object_new_string(agg_io_class_name(io->cls)));
	json_object_object_add(o, "calls", json_object_new_uint64(v->calls));
	json_object_object_add(o, "bytes", json_object_new_uint64(v->bytes));
	json_object_object_add(o, "errors", json_object_new_uint64(v->errors));
	json_object_object_add(o, "ns", json_object_new_uint64(v->ns));
	json_object_object_add(o, "buckets", json_log2_buckets(v->b));
	return o;
}

/* {"pid", "event", "name", "count", "total"} and for exits "code",
 * "life_ns" (summed lifetime) and "buckets" (log2 lifetimes) */
static json_object *json_proc(const struct agg_proc_row *r, bool final)
{
	json_object *o = json_object_new_object();
	const struct pt_proc_val *v = final ? &r->total : &r->now;

	json_object_object_add(o, "pid", json_object_new_int64(r->pid));
	json_object_object_add(
		o, "event",
		json_object_new_string(agg_proc_event_name(r->event)));
	json_object_object_add(o, "name", cli_json_inert(r->name));
	json_object_object_add(o, "count", json_object_new_uint64(v->count));
	json_object_object_add(o, "total",
			       json_object_new_uint64(r->total.count));
	if (r->event == PT_PROC_EXIT)
		json_object_object_add(o, "code", json_object_new_int(r->code));
	if (agg_proc_event_ends(r->event)) {
		json_object_object_add(o, "life_ns",
				       json_object_new_uint64(v->ns));
		json_object_object_add(o, "buckets", json_log2_buckets(v->b));
	}
	return o;
}

/* {"pid":N,"objects":N,"rows":N,"bytes":N}: the tables one process
 * walks by */
static json_object *json_unwind_proc(const struct tracer_unwind_proc *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "pid", json_object_new_int64(p->pid));
	json_object_object_add(o, "objects",
			       json_object_new_uint64(p->objects));
	json_object_object_add(o, "rows", json_object_new_uint64(p->rows));
	json_object_object_add(
		o, "bytes",
		json_object_new_uint64(p->rows * sizeof(struct pt_urow)));
	return o;
}

/* {"objects":N,"rows":N,"bytes":N,"capacity":N,"capacity_bytes":N,
 * "full":N,"procs":[...]}: the unwind tables ustack walks by, in the
 * kernel, in total (each object once) and per process; capacity: the
 * rows they may take at most; full: objects whose rows did not fit
 * (their frames walked by frame pointer) */
static json_object *json_unwind(const struct tracer_unwind *u)
{
	json_object *o = json_object_new_object(),
		    *procs = json_object_new_array();

	json_object_object_add(o, "objects",
			       json_object_new_uint64(u->objects));
	json_object_object_add(o, "rows", json_object_new_uint64(u->rows));
	json_object_object_add(
		o, "bytes",
		json_object_new_uint64(u->rows * sizeof(struct pt_urow)));
	json_object_object_add(o, "capacity",
			       json_object_new_uint64(u->capacity));
	json_object_object_add(o, "capacity_bytes",
			       json_object_new_uint64((uint64_t)u->capacity *
						      sizeof(struct pt_urow)));
	json_object_object_add(o, "full", json_object_new_uint64(u->full));
	for (size_t i = 0; i < u->nprocs; i++)
		json_object_array_add(procs, json_unwind_proc(&u->procs[i]));
	json_object_object_add(o, "procs", procs);
	return o;
}

/* {"in_flight":N,"io":N,"process":N}: what the kernel's IO and process
 * counting lost, by reason */
static json_object *json_kdrops(const struct agg_snapshot *snap, bool final)
{
	static const char *const name[PT_KDROP_N] = {
		[PT_KDROP_INFLIGHT] = "in_flight",
		[PT_KDROP_IO] = "io",
		[PT_KDROP_PROC] = "process",
	};
	const uint64_t *n = final ? snap->kdrops_total : snap->kdrops;
	json_object *o = json_object_new_object();

	for (int k = 0; k < PT_KDROP_N; k++)
		json_object_object_add(o, name[k],
				       json_object_new_uint64(n[k]));
	return o;
}

void trace_json_print(const struct trace_out *out,
		      const struct agg_snapshot *snap, bool final)
{
	json_object *o = json_object_new_object(), *aggs, *io, *procs;
	double span = trace_base_span(out, snap, final);

	if (final)
		json_object_object_add(o, "final", json_object_new_boolean(1));
	else
		json_object_object_add(o, "interval",
				       json_object_new_int64(snap->interval));
	json_object_object_add(o, "elapsed_s",
			       json_object_new_double(snap->elapsed_s));
	if (out->pid)
		json_object_object_add(o, "pid",
				       json_object_new_int64(out->pid));
	json_object_object_add(o, "events",
			       json_object_new_uint64(final ? snap->events_total
							    : snap->events));
	json_mark(o, "", final ? snap->events_mark_total : snap->events_mark);
	json_object_object_add(o, "drops",
			       json_object_new_uint64(final ? snap->drops_total
							    : snap->drops));
	json_object_object_add(
		o, "overhead",
		json_overhead(final ? &snap->overhead_total : &snap->overhead));
	json_object_object_add(
		o, "budget_pct",
		snap->budget_pct >= 0 ? json_object_new_double(snap->budget_pct)
				      : NULL);
	if (out->base)
		json_object_object_add(o, "baseline", json_baseline(out->base));
	aggs = json_object_new_array();
	for (size_t s = 0; s < snap->nspecs; s++)
		json_object_array_add(
			aggs, json_agg(out, &snap->specs[s], final, span));
	json_object_object_add(o, "aggs", aggs);
	if (snap->nio) {
		io = json_object_new_array();
		for (size_t i = 0; i < snap->nio; i++)
			json_object_array_add(io, json_io(&snap->io[i], final));
		json_object_object_add(o, "io", io);
	}
	if (out->kernel)
		json_object_object_add(o, "kernel_drops",
				       json_kdrops(snap, final));
	if (snap->unwind.on)
		json_object_object_add(o, "unwind", json_unwind(&snap->unwind));
	if (snap->nproc) {
		procs = json_object_new_array();
		for (size_t i = 0; i < snap->nproc; i++)
			json_object_array_add(procs,
					      json_proc(&snap->proc[i], final));
		json_object_object_add(o, "process", procs);
	}
	fprintf(out->f, "%s\n",
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	fflush(out->f);
	json_object_put(o);
}
