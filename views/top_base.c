// SPDX-License-Identifier: MIT
/*
 * top_base — the Top view against `--baseline OLD` (top_impl.h): each
 * row's rate held against the baseline's rate of its key (the delta per
 * second and the ratio; "new" for a key the baseline never counted),
 * and the baseline's keys this run has not counted since attach, listed
 * under the rows with their old rate (and, but for frames, their spec). The baseline is the model's
 * (record/basetab.h: the old recording's events over its seconds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "inert.h"
#include "top_impl.h"

void top_base_cols(const struct model *m, const struct top_row *r, char *out,
		   size_t n)
{
	const struct basetab_row *br;
	struct basetab_cmp c;
	char d[32], x[32];

	out[0] = '\0';
	if (!m->base)
		return;
	if (m->exited) { /* no rate now to hold against it */
		snprintf(out, n, " %*s %*s", DELTA_W, "-", RATIO_W, "-");
		return;
	}
	br = basetab_find(model_base_spec(m, r->spec), r->row);
	if (!br) {
		snprintf(out, n, " %*s %*s", DELTA_W, "", RATIO_W, "new");
		return;
	}
	c = basetab_compare_marked(r->rate, r->row->mark, m->base, br);
	snprintf(out, n, " %*s %*s", DELTA_W, fmt_delta(c.delta, d, sizeof(d)),
		 RATIO_W, c.bound ? "bound" : fmt_ratio(c.ratio, x, sizeof(x)));
}

/* qsort: gone keys by old events, most first */
static int by_events(const void *a, const void *b)
{
	const struct top_gone *x = a, *y = b;

	if (x->br->row.total != y->br->row.total)
		return x->br->row.total < y->br->row.total ? 1 : -1;
	return x->spec - y->spec;
}

/* Append the n keys of gone for spec to t->gone; false out of memory. */
static bool add_gone(struct top *t, int spec, const struct basetab_row **gone,
		     size_t n)
{
	if (t->ngone + n > t->capgone) {
		size_t cap = 2 * (t->ngone + n);
		struct top_gone *v = realloc(t->gone, cap * sizeof(*v));

		if (!v)
			return false;
		t->gone = v;
		t->capgone = cap;
	}
	for (size_t i = 0; i < n; i++)
		t->gone[t->ngone++] = (struct top_gone){ spec, gone[i] };
	return true;
}

void top_base_gone(struct top *t, const struct model *m)
{
	t->ngone = 0;
	if (!m->base || !m->snap)
		return;
	for (size_t i = 0; i < m->snap->nspecs; i++) {
		const struct agg_spec *as = &m->snap->specs[i];
		const struct basetab_row **gone;
		size_t n;
		bool ok;

		if (!top_spec_shown(t, m, as))
			continue;
		n = basetab_gone(model_base_spec(m, as->id), as, true, &gone);
		ok = !n || add_gone(t, as->id, gone, n);
		free(gone);
		if (!ok)
			break;
	}
	qsort(t->gone, t->ngone, sizeof(*t->gone), by_events);
}

int top_base_draw_gone(const struct top *t, const struct model *m,
		       struct rect in, int y, int rows)
{
	char key[512], d[32], rate[32];
	char spec[SPEC_TEXT_MAX * INERT_MAX_PER_BYTE];
	int lines = 1;

	if (!t->ngone || rows < 2)
		return 0;
	draw_fmt(y, in.x, in.w, STYLE_DIM,
		 "  %zu key%s of the baseline not counted now:", t->ngone,
		 t->ngone == 1 ? "" : "s");
	for (size_t i = 0; i < t->ngone && lines < rows; i++, lines++) {
		const struct basetab_row *br = t->gone[i].br;
		double old = basetab_rate(m->base, br);
		const char *k = key;
		const struct agg_spec *as;

		model_key_text(m, &br->row, " ", key, sizeof(key));
		if (m->binary_mode && strchr(key, ' ')) /* no pid: "0 " */
			k = strchr(key, ' ') + 1;
		as = t->frames ? NULL : model_spec(m, t->gone[i].spec);
		draw_fmt(
			y + lines, in.x, in.w, STYLE_DIM,
			"%10s %11s %*s %*s  %s%s%s (was %s/s)", "-", "-",
			DELTA_W, fmt_delta(-old, d, sizeof(d)), RATIO_W, "gone",
			as ? inert_str(spec, sizeof(spec), as->spec->text) : "",
			as ? "  " : "", k, fmt_rate(old, rate, sizeof(rate)));
	}
	return lines;
}
