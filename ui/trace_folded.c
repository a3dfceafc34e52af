// SPDX-License-Identifier: MIT
/*
 * trace_folded — `probetop trace --folded`: stacks as flamegraph.pl,
 * inferno and speedscope read them; see trace_out.h.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "inert.h"
#include "trace_out.h"

#define LINE_MAX_BYTES 65536

/* Whether a key part of the spec's rows is a stack (ustack, kstack,
 * pystack, mixstack). */
static bool has_stack(const struct agg_spec *as)
{
	for (int i = 0; i < as->spec->nkeys; i++)
		if (spec_key_is_stack(&as->spec->keys[i]))
			return true;
	return false;
}

/* Row r's frames, root first, into buf: the pid of a -b row, the keys
 * that are not the stack, then the stack's frames; inert. */
static void folded_frames(const struct trace_out *out, const struct agg_row *r,
			  char *buf, size_t n)
{
	const struct agg_key_part *stack = NULL;
	size_t at = 0;
	char num[32];

	buf[0] = '\0';
	if (out->per_pid) {
		snprintf(num, sizeof(num), "pid %" PRIu32, r->pid);
		at = inert_put(buf, n, at, num);
	}
	for (int i = 0; i < r->nkeys; i++) {
		const struct agg_key_part *k = &r->key[i];

		if (k->is_stack) {
			stack = k;
			continue;
		}
		if (k->is_str)
			snprintf(num, sizeof(num), "%s", "");
		else if (k->is_signed)
			snprintf(num, sizeof(num), "%" PRId64, k->num);
		else
			snprintf(num, sizeof(num), "%" PRIu64,
				 (uint64_t)k->num);
		at = inert_put(buf, n, inert_put(buf, n, at, at ? ";" : ""),
			       k->is_str ? agg_key_text(k) : num);
	}
	if (stack)
		at = inert_put(buf, n, inert_put(buf, n, at, at ? ";" : ""),
			       agg_key_text(stack));
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The spec's rows as folded lines, sorted, so that a run's output can be
 * compared and diffed. */
static void print_spec(const struct trace_out *out, const struct agg_spec *as,
		       bool final)
{
	char **lines = calloc(as->nrows ? as->nrows : 1, sizeof(*lines));
	static char frames[LINE_MAX_BYTES];
	size_t n = 0;

	for (size_t i = 0; lines && i < as->nrows; i++) {
		const struct agg_row *r = as->rows[i];
		bool sum = as->spec->agg == SPEC_AGG_SUM;
		int64_t v = sum ? (final ? r->sum_total : r->sum)
				: (int64_t)(final ? r->total : r->count);

		if (!(final ? r->total : r->count) || v <= 0)
			continue;
		folded_frames(out, r, frames, sizeof(frames));
		if (asprintf(&lines[n], "%s %" PRId64, frames, v) >= 0)
			n++;
		else
			lines[n] = NULL;
	}
	if (lines)
		qsort(lines, n, sizeof(*lines), by_text);
	for (size_t i = 0; i < n; i++) {
		fprintf(out->f, "%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
}

/* " (sampled by the budget: N estimates within 15%, M lower bounds)":
 * how many of as's stacks are which, a folded line having no room for
 * its mark. */
static void marks_note(const struct trace_out *out, const struct agg_spec *as,
		       bool final)
{
	size_t est = 0, bound = 0;

	for (size_t i = 0; i < as->nrows; i++) {
		unsigned char m =
			final ? as->rows[i]->mark_total : as->rows[i]->mark;

		est += m == AGG_ESTIMATE;
		bound += m == AGG_BOUND;
	}
	fprintf(out->f,
		" (sampled by the budget: %zu estimates within 15%%, %zu lower "
		"bounds)",
		est, bound);
}

void trace_folded_print(const struct trace_out *out,
			const struct agg_snapshot *snap, bool final)
{
	char text[INERT_MAX_PER_BYTE * SPEC_TEXT_MAX];

	if (final)
		fprintf(out->f, "# final · %.2f s\n", snap->elapsed_s);
	else
		fprintf(out->f, "# interval %u · %.2f s\n", snap->interval,
			snap->elapsed_s);
	for (size_t s = 0; s < snap->nspecs; s++) {
		const struct agg_spec *as = &snap->specs[s];

		inert_str(text, sizeof(text), as->spec->text);
		if (!has_stack(as)) {
			fprintf(out->f, "# %s (no stack key: not folded)\n",
				text);
			continue;
		}
		fprintf(out->f, "# %s", text);
		if (final ? as->estimated_total : as->estimated)
			marks_note(out, as, final);
		fputc('\n', out->f);
		print_spec(out, as, final);
	}
	fflush(out->f);
}
