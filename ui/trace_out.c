// SPDX-License-Identifier: MIT
/*
 * trace_out — the text renderer of an agg snapshot, and
 * trace_out_print(), which picks the renderer; see trace_out.h.
 *
 * Text follows DTrace: counts in descending order, quantize bars of 40
 * '@' scaled to the row's count, from the bucket before the first used
 * one to the bucket after the last. JSON is trace_json.c's (json-c, one
 * object per line), folded stacks trace_folded.c's.
 */
#include "trace_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "inert.h"
#include "session.h"
#include "trace_impl.h"

#define BAR_WIDTH 40
#define CMD_WIDTH 24 /* -b's COMMAND column, at least */
#define CMD_WIDTH_MAX 48 /* and at most */
#define KEY_WIDTH_MAX 66 /* a string key cut at 63 bytes, "..." after */

/* Text ---------------------------------------------------------------- */

/* The row's key arguments, two blanks apart ("" without keys), strings
 * inert; the pid of a -b row is not one of them (see text_counts(),
 * text_hists()). */
static void format_key(const struct agg_row *r, char *buf, size_t n)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < r->nkeys && at < n; i++) {
		const struct agg_key_part *k = &r->key[i];
		const char *sep = at ? "  " : "";

		if (k->is_str)
			at = inert_put(buf, n, inert_put(buf, n, at, sep),
				       agg_key_text(k));
		else if (k->is_signed)
			at += (size_t)snprintf(buf + at, n - at, "%s%" PRId64,
					       sep, k->num);
		else
			at += (size_t)snprintf(buf + at, n - at, "%s%" PRIu64,
					       sep, (uint64_t)k->num);
	}
}

static bool any_shown(const struct agg_spec *as, bool final)
{
	for (size_t i = 0; i < as->nrows; i++)
		if (row_shown(as->rows[i], final))
			return true;
	return false;
}

/* v, with "~" before it if est (an estimate of the budget's). */
static const char *mark_u(uint64_t v, unsigned char mark, char *buf, size_t n)
{
	snprintf(buf, n, "%s%" PRIu64, agg_mark_sign(mark, true), v);
	return buf;
}

/* A lower bound's estimate (agg_row.guess) as "  (~N±E%)", else "". */
static const char *guess_text(double guess, double err, char *buf, size_t n)
{
	if (guess <= 0)
		return "";
	snprintf(buf, n, "  (~%.0f\u00b1%.0f%%)", guess, err * 100);
	return buf;
}

static const char *mark_i(int64_t v, unsigned char mark, char *buf, size_t n)
{
	snprintf(buf, n, "%s%" PRId64, agg_mark_sign(mark, true), v);
	return buf;
}

/* -b's COMMAND column: CMD_WIDTH, or the longest command line of the
 * rows shown, up to CMD_WIDTH_MAX ("postgres: app shop [local] idle"). */
static int command_width(const struct trace_out *out, const struct agg_spec *as,
			 bool final)
{
	int w = CMD_WIDTH;
	char cmd[CMD_WIDTH_MAX + 1];

	for (size_t i = 0; i < as->nrows; i++) {
		int len;

		if (!row_shown(as->rows[i], final))
			continue;
		len = (int)strlen(
			inert_str(cmd, sizeof(cmd),
				  out->command(out->ctx, as->rows[i]->pid)));
		w = len > w ? len : w;
	}
	return w;
}

/* --baseline: row r's rate against the baseline's, a column after the
 * others ("  +12.50/s x1.80", "  new"); nothing without one. */
static void text_vs(const struct trace_out *out, const struct basetab_spec *bs,
		    const struct agg_row *r, bool final, double span)
{
	struct basetab_cmp c;
	char buf[64];
	bool found;

	if (!out->base)
		return;
	found = trace_base_row(out, bs, r, final, span, &c);
	fprintf(out->f, "  %s", trace_base_text(&c, !found, buf, sizeof(buf)));
}

/* --baseline: the baseline's keys of as not shown now, one line each
 * ("  gone  KEY  (was 12.50/s)"). */
static void text_gone(const struct trace_out *out, const struct agg_spec *as,
		      bool final)
{
	const struct basetab_row **gone;
	size_t n = out->base ? basetab_gone(trace_base_spec(out, as), as, final,
					    &gone)
			     : 0;
	char key[2048];

	for (size_t i = 0; i < n; i++) {
		format_key(&gone[i]->row, key, sizeof(key));
		fprintf(out->f, "  gone  %s  (was %.2f/s)\n", key,
			basetab_rate(out->base->t, gone[i]));
	}
	if (n)
		free(gone);
}

static void text_counts(const struct trace_out *out, const struct agg_spec *as,
			bool final, double span)
{
	bool sum = as->spec->agg == SPEC_AGG_SUM;
	bool keyed = as->spec->nkeys > 0;
	int width = 3, cmdw = out->per_pid ? command_width(out, as, final) : 0;
	char key[2048], cmd[CMD_WIDTH_MAX + 1], a[32], b[32], num[16], g[48];
	const struct basetab_spec *bs = trace_base_spec(out, as);

	for (size_t i = 0; i < as->nrows; i++) {
		int len;

		format_key(as->rows[i], key, sizeof(key));
		len = (int)strlen(key);
		if (len > width)
			width = len > KEY_WIDTH_MAX ? KEY_WIDTH_MAX : len;
	}
	if (out->per_pid)
		fprintf(out->f, "  %7s  %-*s", "PID", cmdw, "COMMAND");
	if (keyed)
		fprintf(out->f, "  %-*s", width, "KEY");
	fprintf(out->f, "  %12s  %12s%s%s\n", final ? "" : "COUNT", "TOTAL",
		sum ? "           SUM" : "", out->base ? "  VS BASELINE" : "");
	for (size_t i = 0; i < as->nrows; i++) {
		const struct agg_row *r = as->rows[i];

		if (!row_shown(r, final))
			continue;
		format_key(r, key, sizeof(key));
		if (out->per_pid) {
			fprintf(out->f, "  %7s  %-*.*s",
				agg_pid_text(r->pid, num, sizeof(num)), cmdw,
				cmdw,
				inert_str(cmd, sizeof(cmd),
					  out->command(out->ctx, r->pid)));
		}
		if (keyed)
			fprintf(out->f, "  %-*s", width, key);
		if (final)
			fprintf(out->f, "  %12s  %12s", "",
				mark_u(r->total, r->mark_total, a, sizeof(a)));
		else
			fprintf(out->f, "  %12s  %12s",
				mark_u(r->count, r->mark, a, sizeof(a)),
				mark_u(r->total, r->mark_total, b, sizeof(b)));
		if (sum)
			fprintf(out->f, "  %12s",
				mark_i(final ? r->sum_total : r->sum,
				       final ? r->mark_total : r->mark, a,
				       sizeof(a)));
		text_vs(out, bs, r, final, span);
		fputs(guess_text(final ? r->guess_total : r->guess,
				 final ? r->guess_err_total : r->guess_err, g,
				 sizeof(g)),
		      out->f);
		fputc('\n', out->f);
	}
	text_gone(out, as, final);
}

static void bucket_label(const struct spec *sp, const struct agg_row *r, int i,
			 int n, char *buf, size_t len)
{
	if (sp->agg == SPEC_AGG_LQUANTIZE && i == 0)
		snprintf(buf, len, "< %" PRId64, sp->lq_low);
	else if (sp->agg == SPEC_AGG_LQUANTIZE && i == n - 1)
		snprintf(buf, len, ">= %" PRId64, agg_bucket_low(sp, r, i));
	else if (sp->agg != SPEC_AGG_LQUANTIZE && i == 0)
		snprintf(buf, len, "< 0");
	else
		snprintf(buf, len, "%" PRId64, agg_bucket_low(sp, r, i));
}

/* A histogram's buckets b of count events; each count carries mark
 * (enum agg_mark), as the row's count does. */
static void text_bars(const struct trace_out *out, const struct spec *sp,
		      const struct agg_row *r, const uint64_t *b,
		      uint64_t count, unsigned char mark)
{
	int n = agg_nbuckets(sp), first = -1, last = -1;
	char label[32];

	for (int i = 0; i < n; i++) {
		if (!b[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
	}
	if (first < 0)
		return;
	first = first > 0 ? first - 1 : 0;
	last = last < n - 1 ? last + 1 : n - 1;
	fprintf(out->f,
		"  %16s  ------------- Distribution ------------- count\n",
		sp->timed ? "ns" : "value");
	for (int i = first; i <= last; i++) {
		int bar = count ? (int)((b[i] * BAR_WIDTH + count / 2) / count)
				: 0;

		bucket_label(sp, r, i, n, label, sizeof(label));
		fprintf(out->f, "  %16s |%.*s%*s %s%" PRIu64 "\n", label, bar,
			"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
			BAR_WIDTH - bar, "",
			b[i] ? agg_mark_sign(mark, true) : "", b[i]);
	}
}

static void text_hists(const struct trace_out *out, const struct agg_spec *as,
		       bool final, double span)
{
	const struct spec *sp = as->spec;
	const struct basetab_spec *bs = trace_base_spec(out, as);
	char key[2048], cmd[256], a[32], t[32], num[16], g[48];

	for (size_t i = 0; i < as->nrows; i++) {
		const struct agg_row *r = as->rows[i];
		uint64_t count = final ? r->total : r->count;
		int64_t sum = final ? r->sum_total : r->sum;
		const uint64_t *b = final ? r->b_total : r->b;

		if (!row_shown(r, final))
			continue;
		format_key(r, key, sizeof(key));
		if (out->per_pid) {
			fprintf(out->f, "  pid %s (%s)%s%s\n",
				agg_pid_text(r->pid, num, sizeof(num)),
				inert_str(cmd, sizeof(cmd),
					  out->command(out->ctx, r->pid)),
				key[0] ? "  " : "", key);
		} else if (key[0])
			fprintf(out->f, "  %s\n", key);
		fprintf(out->f,
			"  count %s  avg %.1f  min %" PRId64 "  max %" PRId64
			"  count since attach %s%s\n",
			mark_u(count, final ? r->mark_total : r->mark, a,
			       sizeof(a)),
			count ? (double)sum / (double)count : 0.0, r->min,
			r->max, mark_u(r->total, r->mark_total, t, sizeof(t)),
			guess_text(r->guess_total, r->guess_err_total, g,
				   sizeof(g)));
		if (out->base) {
			fprintf(out->f, "  vs baseline");
			text_vs(out, bs, r, final, span);
			fputc('\n', out->f);
		}
		text_bars(out, sp, r, b, count,
			  final ? r->mark_total : r->mark);
	}
	text_gone(out, as, final);
}

/* Process events: one line per (pid, event, code, name); exits show
 * their status (or -signal) and the average lifetime. */
static void text_proc(const struct trace_out *out,
		      const struct agg_snapshot *snap, bool final)
{
	bool head = false;

	for (size_t i = 0; i < snap->nproc; i++) {
		const struct agg_proc_row *r = &snap->proc[i];
		const struct pt_proc_val *v = final ? &r->total : &r->now;
		char code[16] = "-", life[24] = "-", name[256];

		if (!v->count)
			continue;
		if (!head)
			fprintf(out->f, "PROC %8s %-11s %5s %10s %14s %s\n",
				"PID", "EVENT", "CODE", "COUNT", "AVG_LIFE_NS",
				"NAME");
		head = true;
		if (r->event == PT_PROC_EXIT)
			snprintf(code, sizeof(code), "%d", r->code);
		if (agg_proc_event_ends(r->event))
			snprintf(life, sizeof(life), "%llu",
				 (unsigned long long)(v->ns / v->count));
		fprintf(out->f, "PROC %8" PRIu32 " %-11s %5s %10llu %14s %s\n",
			r->pid, agg_proc_event_name(r->event), code,
			(unsigned long long)v->count, life,
			inert_str(name, sizeof(name), r->name));
	}
}

/* "(N dropped by the kernel: ...)" after the IO and PROC lines, if the
 * kernel lost some of them. */
static void text_kdrops(const struct trace_out *out,
			const struct agg_snapshot *snap, bool final)
{
	const uint64_t *n = final ? snap->kdrops_total : snap->kdrops;
	uint64_t lost = 0;
	char why[256];

	for (int k = 0; k < PT_KDROP_N; k++)
		lost += n[k];
	if (!lost)
		return;
	session_kdrops(snap, final, why, sizeof(why));
	fprintf(out->f, "(%llu dropped by the kernel: %s)\n",
		(unsigned long long)lost, why);
}

/* "  (waiting: ...)" after a spec that cannot record yet. */
static void print_waiting(FILE *f, const struct tracer_spec_info *info)
{
	char what[700], shown[2048];

	session_waiting(info, what, sizeof(what));
	if (what[0])
		fprintf(f, "  (waiting: %s yet)",
			inert_str(shown, sizeof(shown), what));
}

/* "overhead ≈ 3.1% of one CPU (12% of the target's; 2.0% machine-wide,
 * +0.25 µs a syscall), budget 5%, probetop 0.4%" */
static void text_overhead(const struct trace_out *out,
			  const struct agg_overhead *o, double budget)
{
	bool machine = o->kernel_pct >= 0.05 || o->syscall_ns > 0;

	fprintf(out->f, "overhead ≈ %.1f%% of one CPU", o->cpu_pct);
	if (o->target_pct >= 0 || machine)
		fprintf(out->f, " (");
	if (o->target_pct >= 0)
		fprintf(out->f, "%.0f%% of the %s%s", o->target_pct,
			out->pid ? "target's" : "targets'",
			machine ? "; " : "");
	if (machine)
		fprintf(out->f, "%.1f%% machine-wide", o->kernel_pct);
	if (o->syscall_ns > 0)
		fprintf(out->f, ", +%.2f µs a syscall", o->syscall_ns / 1e3);
	if (o->target_pct >= 0 || machine)
		fprintf(out->f, ")");
	if (budget >= 0)
		fprintf(out->f, ", budget %g%%%s", budget,
			agg_over_budget(o, budget)
				? " exceeded (by what cannot be sampled)"
				: "");
	else
		fprintf(out->f, ", no budget");
	fprintf(out->f, ", probetop %.1f%%%s\n", o->self_pct,
		o->measured ? "" : " (estimated: no BPF statistics)");
}

/* "  (sampled: attached 6% of the time to stay under the 5% budget; ~:
 * estimates)" after the spec line of a spec the budget sampled */
static void text_sampled(const struct trace_out *out,
			 const struct agg_snapshot *snap,
			 const struct agg_spec *as, bool final)
{
	if (!(final ? as->estimated_total : as->estimated))
		return;
	fprintf(out->f,
		"  (sampled: attached %.0f%% of the time to stay under the "
		"%g%% budget; ~: estimates within 15%%, ≥: lower bounds "
		"where no estimate can promise that)",
		100.0 * (final ? as->duty_total : as->duty), snap->budget_pct);
}

static void print_text(const struct trace_out *out,
		       const struct agg_snapshot *snap, bool final)
{
	double span = trace_base_span(out, snap, final);

	if (final)
		fprintf(out->f,
			"=== final · %.2f s · %s%" PRIu64 " events · %" PRIu64
			" drops\n",
			snap->elapsed_s,
			agg_mark_sign(snap->events_mark_total, true),
			snap->events_total, snap->drops_total);
	else
		fprintf(out->f,
			"=== interval %u · %.2f s · %s%" PRIu64
			" events · %" PRIu64 " drops\n",
			snap->interval, snap->elapsed_s,
			agg_mark_sign(snap->events_mark, true), snap->events,
			snap->drops);
	for (size_t s = 0; s < snap->nspecs; s++) {
		const struct agg_spec *as = &snap->specs[s];
		uint64_t drops = final ? as->drops_total : as->drops;
		uint64_t unmatched =
			final ? as->unmatched_total : as->unmatched;
		char text[INERT_MAX_PER_BYTE * SPEC_TEXT_MAX];

		fputs(inert_str(text, sizeof(text), as->spec->text), out->f);
		print_waiting(out->f, as->info);
		text_sampled(out, snap, as, final);
		if (drops) {
			char why[256];

			session_drops(as, final, why, sizeof(why));
			fprintf(out->f, "  (%" PRIu64 " dropped: %s)", drops,
				why);
		}
		if (unmatched)
			fprintf(out->f, "  (%" PRIu64 " unmatched returns)",
				unmatched);
		fputc('\n', out->f);
		if (!any_shown(as, final)) {
			fprintf(out->f, "  (no events)\n");
			text_gone(out, as, final);
		} else if (spec_has_buckets(as->spec))
			text_hists(out, as, final, span);
		else
			text_counts(out, as, final, span);
		fputc('\n', out->f);
	}
	for (size_t i = 0; i < snap->nio; i++) {
		const struct agg_io_row *io = &snap->io[i];
		const struct pt_io_val *v = final ? &io->total : &io->now;

		if (i == 0)
			fprintf(out->f, "IO  %8s %-12s %10s %14s %8s %12s\n",
				"PID", "CLASS", "CALLS", "BYTES", "ERRORS",
				"AVG_NS");
		fprintf(out->f,
			"IO  %8" PRIu32 " %-12s %10llu %14llu %8llu %12llu\n",
			io->pid, agg_io_class_name(io->cls), v->calls, v->bytes,
			v->errors, v->calls ? v->ns / v->calls : 0ULL);
	}
	text_proc(out, snap, final);
	text_kdrops(out, snap, final);
	text_overhead(out, final ? &snap->overhead_total : &snap->overhead,
		      snap->budget_pct);
	fflush(out->f);
}

void trace_out_print(const struct trace_out *out,
		     const struct agg_snapshot *snap, bool final)
{
	if (out->json)
		trace_json_print(out, snap, final);
	else if (out->folded)
		trace_folded_print(out, snap, final);
	else
		print_text(out, snap, final);
	if (out->base && !final)
		out->base->last_s = snap->elapsed_s;
}
