// SPDX-License-Identifier: MIT
/*
 * metrics — Prometheus text and OpenMetrics renderings of a snapshot;
 * see metrics.h for the names.
 *
 * The two formats differ in little: a counter's TYPE and HELP name the
 * family (OpenMetrics) or its _total sample (0.0.4), OpenMetrics escapes
 * '"' in HELP, calls the spec's description an info metric and ends with
 * "# EOF". Everything is written into one growing buffer; a key part is
 * made inert (valid UTF-8, no controls) before it is escaped.
 *
 * This file walks the snapshot's families and series, which are the
 * same in both formats: each spec's rows, the per-spec metrics, the
 * kernel's io and process rows, the globals. How each is written in the
 * format asked for is metrics_format.c's; how each spec's family and
 * labels are named, metrics_names.c's (metrics_impl.h).
 */
#include "metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inert.h"
#include "metrics_impl.h"
#include "spec.h"

/* Spec rows -------------------------------------------------------------- */

/* pid, command (-b) and the key parts of r */
static void row_labels(struct ctx *c, const struct spec_names *sn,
		       const struct agg_row *r)
{
	char num[32];

	metrics_labels_clear(c);
	metrics_label(c, "pid", agg_pid_text(r->pid, num, sizeof(num)));
	if (c->src->command)
		metrics_label(c, "command",
			      c->src->command(c->src->ctx, r->pid));
	for (int i = 0; i < r->nkeys && i < sn->nlabels; i++) {
		const struct agg_key_part *k = &r->key[i];

		if (k->is_str) {
			metrics_label(c, sn->labels[i], agg_key_text(k));
			continue;
		}
		if (k->is_signed)
			snprintf(num, sizeof(num), "%" PRId64, k->num);
		else
			snprintf(num, sizeof(num), "%" PRIu64,
				 (uint64_t)k->num);
		metrics_label(c, sn->labels[i], num);
	}
}

/* Whether row r is rendered: it has counted, and the bound allows. */
static bool row_fits(struct ctx *c, const struct agg_row *r)
{
	if (!r->total)
		return false;
	if (c->rows >= c->max_rows) {
		c->cut++;
		return false;
	}
	c->rows++;
	return true;
}

/* The le labels of sp's buckets: a bucket [lo, hi) has le = hi - 1 for
 * integers, hi ns in seconds for times (hi does not depend on the row
 * but for the first bucket's low, which no le uses) */
static void spec_les(const struct spec *sp, le_table les)
{
	struct agg_row any = { 0 };
	int n = agg_nbuckets(sp);
	char buf[32];

	for (int i = 0; i + 1 < n && i < LE_MAX; i++) {
		int64_t hi = agg_bucket_low(sp, &any, i + 1);

		if (sp->timed) /* log2 ns: its lows are 0 and 2^k, unsigned */
			metrics_seconds_text(buf, sizeof(buf), (uint64_t)hi,
					     false);
		else /* the top bucket's low is 2^63: its le is INT64_MAX */
			snprintf(buf, sizeof(buf), "%" PRId64,
				 hi == INT64_MIN ? INT64_MAX : hi - 1);
		snprintf(les[i], sizeof(les[i]), "le=\"%s\"", buf);
	}
}

/* log2 ns buckets: [2^(i-2), 2^(i-1)) for i >= 2, 0 at 1 */
static void log2_ns_les(le_table les)
{
	char buf[32];

	for (int i = 0; i + 1 < PT_NBUCKETS; i++) {
		metrics_seconds_text(buf, sizeof(buf),
				     i == 0 ? 0 : (uint64_t)1 << (i - 1),
				     false);
		snprintf(les[i], sizeof(les[i]), "le=\"%s\"", buf);
	}
}

/* "SPEC (probeset P, [S] R)" or "-e SPEC" for a family's HELP */
static void spec_help(const struct spec_names *sn, const struct agg_spec *as,
		      const char *what, char *out, size_t n)
{
	char text[INERT_MAX_PER_BYTE * SPEC_TEXT_MAX];

	inert_str(text, sizeof(text), as->spec->text);
	if (sn->origin.probeset)
		snprintf(out, n, "%s%s (probeset %s, [%s] %s)%s", what, text,
			 sn->origin.probeset,
			 sn->origin.section ? sn->origin.section : "",
			 sn->origin.role ? sn->origin.role : "",
			 as->estimated_total
				 ? "; estimates, see probetop_spec_estimated"
				 : "");
	else
		snprintf(out, n, "%sspec %s%s", what, text,
			 as->estimated_total
				 ? "; estimates, see probetop_spec_estimated"
				 : "");
}

static void spec_rows(struct ctx *c, size_t idx)
{
	const struct agg_spec *as = &c->snap->specs[idx];
	const struct spec_names *sn = &c->names[idx];
	const struct spec *sp = as->spec;
	char help[INERT_MAX_PER_BYTE * SPEC_TEXT_MAX + 256];
	char buf[NAME_MAX_LEN + 16];
	size_t first_row = c->rows;

	if (spec_has_buckets(sp)) {
		spec_help(sn, as,
			  sp->timed ? "Time in seconds, " : "Values of ", help,
			  sizeof(help));
		metrics_family(c, sn->family, KIND_HISTOGRAM, help, NULL);
		spec_les(sp, c->les);
		for (size_t i = 0; i < as->nrows; i++) {
			const struct agg_row *r = as->rows[i];

			if (!row_fits(c, r))
				continue;
			row_labels(c, sn, r);
			if (sp->timed)
				metrics_signed_seconds_text(buf, sizeof(buf),
							    r->sum_total);
			else
				snprintf(buf, sizeof(buf), "%" PRId64,
					 r->sum_total);
			metrics_histogram_row(c, sn->family, r->b_total,
					      agg_nbuckets(sp), c->les, buf);
		}
		return;
	}
	spec_help(sn, as, sp->agg == SPEC_AGG_SUM ? "Sum of " : "Count of ",
		  help, sizeof(help));
	metrics_family(c, sn->family, KIND_COUNTER, help, NULL);
	for (size_t i = 0; i < as->nrows; i++) {
		const struct agg_row *r = as->rows[i];

		if (!row_fits(c, r))
			continue;
		row_labels(c, sn, r);
		if (sp->agg == SPEC_AGG_SUM)
			metrics_sample_i64(c, sn->family, "_total",
					   r->sum_total);
		else
			metrics_sample_u64(c, sn->family, "_total", r->total);
	}
	if (sp->agg != SPEC_AGG_SUM)
		return;
	snprintf(buf, sizeof(buf), "%s_events", sn->family);
	spec_help(sn, as, "Events summed by ", help, sizeof(help));
	metrics_family(c, buf, KIND_COUNTER, help, NULL);
	c->rows = first_row; /* the same rows again */
	for (size_t i = 0; i < as->nrows; i++) {
		const struct agg_row *r = as->rows[i];

		if (!r->total || c->rows >= c->max_rows)
			continue;
		c->rows++;
		row_labels(c, sn, r);
		metrics_sample_u64(c, buf, "_total", r->total);
	}
}

/* Per-spec metrics, labelled metric="<family>" ---------------------------- */

/* probetop_lower_bound: 1 for each series whose value is a lower bound,
 * not an estimate (agg.h), with its family as label metric and its own
 * labels; none when every value is exact or an estimate. */
static void lower_bounds(struct ctx *c)
{
	bool any = false;

	for (size_t i = 0; i < c->snap->nspecs; i++) {
		const struct agg_spec *as = &c->snap->specs[i];

		for (size_t r = 0; r < as->nrows; r++) {
			const struct agg_row *row = as->rows[r];

			if (!row->total || row->mark_total != AGG_BOUND)
				continue;
			if (!any)
				metrics_family(
					c, "probetop_lower_bound", KIND_GAUGE,
					"1 for each series that is a lower "
					"bound: "
					"no estimate could promise 15% (label "
					"metric: its family)",
					NULL);
			any = true;
			row_labels(c, &c->names[i], row);
			metrics_label(c, "metric", c->names[i].family);
			metrics_sample(c, "probetop_lower_bound", "", NULL,
				       "1");
		}
	}
}

/* probetop_lower_bound_estimate and _error: a lower bound's estimate and
 * its relative error (agg_row.guess_total), for each series that has
 * one, labelled as probetop_lower_bound is; none if no series has. */
static void bound_guesses(struct ctx *c)
{
	static const char *const FAM[] = { "probetop_lower_bound_estimate",
					   "probetop_lower_bound_error" };
	static const char *const HELP[] = {
		"A lower bound's estimate, where it has one within 100% "
		"(label metric: its family)",
		"... its relative error: the truth is within it of the "
		"estimate as an estimate's is within 15%"
	};

	for (int f = 0; f < 2; f++) {
		bool any = false;

		for (size_t i = 0; i < c->snap->nspecs; i++) {
			const struct agg_spec *as = &c->snap->specs[i];

			for (size_t r = 0; r < as->nrows; r++) {
				const struct agg_row *row = as->rows[r];
				char v[32];

				if (row->mark_total != AGG_BOUND ||
				    row->guess_total <= 0)
					continue;
				if (!any)
					metrics_family(c, FAM[f], KIND_GAUGE,
						       HELP[f], NULL);
				any = true;
				row_labels(c, &c->names[i], row);
				metrics_label(c, "metric", c->names[i].family);
				snprintf(v, sizeof(v), f ? "%.3f" : "%.0f",
					 f ? row->guess_err_total
					   : row->guess_total);
				metrics_sample(c, FAM[f], "", NULL, v);
			}
		}
	}
}

static void spec_label(struct ctx *c, size_t idx)
{
	metrics_labels_clear(c);
	metrics_label(c, "metric", c->names[idx].family);
}

static void spec_meta(struct ctx *c)
{
	const struct agg_snapshot *snap = c->snap;

	if (!snap->nspecs)
		return;
	metrics_family(c, "probetop_spec", KIND_INFO,
		       "Each aggregation's metric family and its spec", NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		const struct spec_names *sn = &c->names[i];

		spec_label(c, i);
		metrics_label(c, "spec", snap->specs[i].spec->text);
		if (sn->origin.probeset) {
			metrics_label(c, "probeset", sn->origin.probeset);
			metrics_label(c, "section",
				      sn->origin.section ? sn->origin.section
							 : "");
			metrics_label(c, "role",
				      sn->origin.role ? sn->origin.role : "");
		}
		metrics_sample(c, "probetop_spec", "_info", NULL, "1");
	}
	metrics_family(
		c, "probetop_spec_events", KIND_COUNTER,
		"Events of the aggregation since attach, recorded or dropped",
		NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		spec_label(c, i);
		metrics_sample_u64(c, "probetop_spec_events", "_total",
				   snap->specs[i].events_total);
	}
	metrics_family(c, "probetop_spec_drops", KIND_COUNTER,
		       "Events the aggregation dropped since attach, by reason",
		       NULL);
	for (size_t i = 0; i < snap->nspecs; i++)
		for (int r = 0; r < AGG_NDROPS; r++) {
			spec_label(c, i);
			metrics_label(c, "reason",
				      agg_drop_name(snap->specs[i].spec, r));
			metrics_sample_u64(c, "probetop_spec_drops", "_total",
					   snap->specs[i].why_total[r]);
		}
	metrics_family(
		c, "probetop_spec_unmatched", KIND_COUNTER,
		"Ends of a latency pair without their start, since attach",
		NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		if (!snap->specs[i].spec->timed)
			continue;
		spec_label(c, i);
		metrics_sample_u64(c, "probetop_spec_unmatched", "_total",
				   snap->specs[i].unmatched_total);
	}
	metrics_family(
		c, "probetop_spec_estimated", KIND_GAUGE,
		"1 if the budget sampled the aggregation: its totals hold "
		"estimates (within 15%) or lower bounds",
		NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		spec_label(c, i);
		metrics_sample_u64(c, "probetop_spec_estimated", "",
				   snap->specs[i].estimated_total);
	}
	metrics_family(
		c, "probetop_spec_events_lower_bound", KIND_GAUGE,
		"1 if the aggregation's probetop_spec_events_total is a lower "
		"bound: no estimate could promise 15%",
		NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		spec_label(c, i);
		metrics_sample_u64(c, "probetop_spec_events_lower_bound", "",
				   snap->specs[i].events_mark_total ==
					   AGG_BOUND);
	}
	metrics_family(
		c, "probetop_spec_duty_ratio", KIND_GAUGE,
		"Share of the last interval the aggregation was attached",
		NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		spec_label(c, i);
		metrics_sample_f(c, "probetop_spec_duty_ratio", "",
				 snap->specs[i].duty);
	}
	metrics_family(
		c, "probetop_spec_cost_ratio", KIND_GAUGE,
		"CPU the aggregation's probes took from the targets over the "
		"last interval, in CPUs",
		NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		spec_label(c, i);
		metrics_sample_f(c, "probetop_spec_cost_ratio", "",
				 snap->specs[i].cost_pct / 100.0);
	}
	metrics_family(c, "probetop_spec_probes", KIND_GAUGE,
		       "Probes the aggregation is attached to", NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		spec_label(c, i);
		metrics_sample_u64(
			c, "probetop_spec_probes", "",
			snap->specs[i].info ? snap->specs[i].info->nprobes : 0);
	}
	metrics_family(c, "probetop_spec_locations", KIND_GAUGE,
		       "Probe locations the aggregation is attached at", NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		spec_label(c, i);
		metrics_sample_u64(
			c, "probetop_spec_locations", "",
			snap->specs[i].info ? snap->specs[i].info->nsites : 0);
	}
}

/* The kernel's io and process rows --------------------------------------- */

static void io_rows(struct ctx *c)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} COUNTERS[] = {
		{ "probetop_io_calls", "IO calls and block requests",
		  offsetof(struct pt_io_val, calls) },
		{ "probetop_io_errors", "IO calls that failed",
		  offsetof(struct pt_io_val, errors) },
		{ "probetop_io_bytes", "Bytes the IO calls moved",
		  offsetof(struct pt_io_val, bytes) },
	};
	const struct agg_snapshot *snap = c->snap;
	char sum[64];

	if (!snap->nio)
		return;
	for (size_t k = 0; k < sizeof(COUNTERS) / sizeof(COUNTERS[0]); k++) {
		metrics_family(c, COUNTERS[k].name, KIND_COUNTER,
			       COUNTERS[k].help,
			       " (probeset io), since attach");
		for (size_t i = 0; i < snap->nio; i++) {
			const struct agg_io_row *io = &snap->io[i];

			metrics_labels_clear(c);
			metrics_label_u64(c, "pid", io->pid);
			metrics_label(c, "class", agg_io_class_name(io->cls));
			metrics_sample_u64(
				c, COUNTERS[k].name, "_total",
				*(const __u64 *)((const char *)&io->total +
						 COUNTERS[k].off));
		}
	}
	metrics_family(c, "probetop_io_latency_seconds", KIND_HISTOGRAM,
		       "Time IO calls and block requests took (probeset io)",
		       NULL);
	log2_ns_les(c->les);
	for (size_t i = 0; i < snap->nio; i++) {
		const struct agg_io_row *io = &snap->io[i];

		metrics_labels_clear(c);
		metrics_label_u64(c, "pid", io->pid);
		metrics_label(c, "class", agg_io_class_name(io->cls));
		metrics_seconds_text(sum, sizeof(sum), io->total.ns, false);
		metrics_histogram_row(c, "probetop_io_latency_seconds",
				      (const uint64_t *)io->total.b,
				      PT_NBUCKETS, c->les, sum);
	}
}

static void proc_labels(struct ctx *c, const struct agg_proc_row *r)
{
	metrics_labels_clear(c);
	metrics_label_u64(c, "pid", r->pid);
	metrics_label(c, "event", agg_proc_event_name(r->event));
	if (r->event == PT_PROC_EXIT) {
		char code[16];

		snprintf(code, sizeof(code), "%d", r->code);
		metrics_label(c, "code", code);
	}
	metrics_label(c, "name", r->name);
}

static void proc_rows(struct ctx *c)
{
	const struct agg_snapshot *snap = c->snap;
	bool ends = false;
	char sum[64];

	if (!snap->nproc)
		return;
	metrics_family(
		c, "probetop_process_events", KIND_COUNTER,
		"Forks, threads, execs and exits of the watched processes "
		"(probeset process), since attach",
		NULL);
	for (size_t i = 0; i < snap->nproc; i++) {
		proc_labels(c, &snap->proc[i]);
		metrics_sample_u64(c, "probetop_process_events", "_total",
				   snap->proc[i].total.count);
		ends |= agg_proc_event_ends(snap->proc[i].event);
	}
	if (!ends)
		return;
	metrics_family(c, "probetop_process_lifetime_seconds", KIND_HISTOGRAM,
		       "How long the processes and threads that ended lived "
		       "(probeset process)",
		       NULL);
	log2_ns_les(c->les);
	for (size_t i = 0; i < snap->nproc; i++) {
		const struct agg_proc_row *r = &snap->proc[i];

		if (!agg_proc_event_ends(r->event))
			continue;
		proc_labels(c, r);
		metrics_seconds_text(sum, sizeof(sum), r->total.ns, false);
		metrics_histogram_row(c, "probetop_process_lifetime_seconds",
				      (const uint64_t *)r->total.b, PT_NBUCKETS,
				      c->les, sum);
	}
}

/* Global metrics --------------------------------------------------------- */

static void globals(struct ctx *c)
{
	static const char *const KDROPS[PT_KDROP_N] = {
		[PT_KDROP_INFLIGHT] = "in_flight",
		[PT_KDROP_IO] = "io",
		[PT_KDROP_PROC] = "process",
	};
	const struct agg_snapshot *snap = c->snap;
	const struct agg_overhead *o = &snap->overhead;

	metrics_labels_clear(c);
	metrics_family(c, "probetop_probes_attached", KIND_GAUGE,
		       "Probes attached to the target", NULL);
	metrics_sample_u64(c, "probetop_probes_attached", "", c->src->probes);
	metrics_family(c, "probetop_intervals", KIND_COUNTER,
		       "Intervals read since attach (this rendering's)", NULL);
	metrics_sample_u64(c, "probetop_intervals", "_total", snap->interval);
	metrics_family(
		c, "probetop_events", KIND_COUNTER,
		"Events of every aggregation since attach, recorded or dropped",
		NULL);
	metrics_sample_u64(c, "probetop_events", "_total", snap->events_total);
	metrics_family(c, "probetop_drops", KIND_COUNTER,
		       "Events dropped since attach (the aggregations' and the "
		       "kernel's)",
		       NULL);
	metrics_sample_u64(c, "probetop_drops", "_total", snap->drops_total);
	metrics_family(c, "probetop_kernel_drops", KIND_COUNTER,
		       "IO and process records the kernel lost since attach, "
		       "by reason",
		       NULL);
	for (int k = 0; k < PT_KDROP_N; k++) {
		metrics_labels_clear(c);
		metrics_label(c, "reason", KDROPS[k]);
		metrics_sample_u64(c, "probetop_kernel_drops", "_total",
				   snap->kdrops_total[k]);
	}
	metrics_labels_clear(c);
	metrics_family(
		c, "probetop_overhead_cpu_ratio", KIND_GAUGE,
		"CPU tracing took from the targets over the last interval, in "
		"CPUs",
		NULL);
	metrics_sample_f(c, "probetop_overhead_cpu_ratio", "",
			 o->cpu_pct / 100.0);
	if (o->target_pct >= 0) {
		metrics_family(
			c, "probetop_overhead_target_ratio", KIND_GAUGE,
			"That CPU as a share of the targets' own over the last "
			"interval",
			NULL);
		metrics_sample_f(c, "probetop_overhead_target_ratio", "",
				 o->target_pct / 100.0);
	}
	metrics_family(c, "probetop_overhead_cpu_seconds", KIND_COUNTER,
		       "CPU time tracing took from the targets since attach",
		       NULL);
	metrics_sample_f(c, "probetop_overhead_cpu_seconds", "_total",
			 snap->overhead_total.cpu_pct / 100.0 *
				 snap->elapsed_s);
	metrics_family(c, "probetop_overhead_machine_ratio", KIND_GAUGE,
		       "Of that, what the kernel-side watches took from every "
		       "process on the machine, in CPUs",
		       NULL);
	metrics_sample_f(c, "probetop_overhead_machine_ratio", "",
			 o->kernel_pct / 100.0);
	if (o->syscall_ns > 0) {
		metrics_family(c, "probetop_syscall_overhead_seconds",
			       KIND_GAUGE,
			       "What the IO watch adds to every syscall of "
			       "every process on the machine",
			       NULL);
		metrics_sample_f(c, "probetop_syscall_overhead_seconds", "",
				 o->syscall_ns / 1e9);
	}
	metrics_family(c, "probetop_self_cpu_ratio", KIND_GAUGE,
		       "probetop's own CPU over the last interval, in CPUs",
		       NULL);
	metrics_sample_f(c, "probetop_self_cpu_ratio", "", o->self_pct / 100.0);
	if (snap->budget_pct >= 0) {
		metrics_family(c, "probetop_budget_cpu_ratio", KIND_GAUGE,
			       "The budget (--budget), in CPUs", NULL);
		metrics_sample_f(c, "probetop_budget_cpu_ratio", "",
				 snap->budget_pct / 100.0);
	}
}

char *metrics_render(const struct metrics_src *src, enum metrics_format fmt,
		     size_t *len)
{
	struct ctx c = {
		.src = src,
		.snap = src->snap,
		.om = fmt == METRICS_OPENMETRICS,
		.max_rows =
			src->max_series ? src->max_series : METRICS_MAX_SERIES,
	};
	char *text = NULL, help[128];

	c.les = calloc(LE_MAX, sizeof(c.les[0]));
	if (!c.les || metrics_name_specs(&c))
		goto out;
	for (size_t i = 0; i < c.snap->nspecs; i++)
		spec_rows(&c, i);
	lower_bounds(&c);
	bound_guesses(&c);
	spec_meta(&c);
	io_rows(&c);
	proc_rows(&c);
	globals(&c);
	metrics_labels_clear(&c);
	snprintf(help, sizeof(help),
		 "Aggregation rows left out of this rendering (over %zu rows)",
		 c.max_rows);
	metrics_family(&c, "probetop_export_series_cut", KIND_GAUGE, help,
		       NULL);
	metrics_sample_u64(&c, "probetop_export_series_cut", "", c.cut);
	if (c.om)
		metrics_puts(&c.o, "# EOF\n");
	if (!c.o.oom && c.o.p) {
		text = c.o.p;
		c.o.p = NULL;
		*len = c.o.len;
	}
out:
	free(c.o.p);
	free(c.lbl.p);
	free(c.scratch);
	free(c.names);
	free(c.les);
	if (!text)
		errno = ENOMEM;
	return text;
}
