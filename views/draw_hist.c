// SPDX-License-Identifier: MIT
/*
 * draw_hist — draw.h's quantize histogram: DTrace's bars, one bucket a
 * line, each bar its bucket's share of the row's count; with a baseline
 * (--baseline) its share of the baseline's count overlaid on the same
 * line, so that distributions of runs of different lengths compare:
 * where both reach a full block, where now's bar alone a dark shade,
 * where the baseline's alone a light one (ASCII: '@', '#', '.').
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"

/* The cells of a bar of n out of total in w cells: none for 0, at least
 * one for more. */
static int cells(uint64_t n, uint64_t total, int w)
{
	int len = total ? (int)((double)n * w / (double)total + 0.5) : 0;

	return n && !len ? 1 : len;
}

/* A bar of now cells and, with overlay, base cells over it into
 * out[0..n). */
static void bar_cells(char *out, size_t n, int now, int base, bool overlay)
{
	static const char *const UTF[3] = { "\u2588", "\u2593", "\u2591" };
	static const char ASCII[3] = { '@', '#', '.' };
	size_t o = 0;

	for (int k = 0; (k < now || k < base) && o + 4 < n; k++) {
		int c = k < now && k < base ? 0 : k < now ? 1 : 2;

		if (!overlay)
			c = 0; /* no baseline: DTrace's bars */
		o = fmt_glyph(out, o, UTF[c], ASCII[c]);
	}
	out[o] = '\0';
}

/* The bars' column head: what their shades are, with a baseline. */
static const char *legend(const struct hist_draw *h)
{
	if (!h->base)
		return "Distribution";
	return draw_utf8() ? "\u2588 both \u2593 now \u2591 baseline"
			   : "@ both # now . baseline";
}

const char *hist_bucket_label(const struct spec *spec,
			      const struct agg_row *row, int i, bool ns,
			      char *buf, size_t n)
{
	int nb = agg_nbuckets(spec);
	int64_t low = agg_bucket_low(spec, row, i);

	if (i == 0 && (spec->agg != SPEC_AGG_LQUANTIZE || low < spec->lq_low))
		snprintf(buf, n, "< %" PRId64,
			 spec->agg == SPEC_AGG_LQUANTIZE ? spec->lq_low : 0);
	else if (spec->agg == SPEC_AGG_LQUANTIZE && i == nb - 1)
		snprintf(buf, n, ">= %" PRId64, low);
	else if (ns)
		fmt_ns((double)low, buf, n);
	else
		snprintf(buf, n, "%" PRId64, low);
	return buf;
}

/* The range of buckets worth drawing: non-empty ones of b (or of base,
 * if not NULL), one empty each side */
static void hist_range(const uint64_t *b, const uint64_t *base, int nb,
		       int *first, int *last)
{
	*first = -1;
	*last = -1;
	for (int i = 0; i < nb; i++) {
		if (!b[i] && !(base && base[i]))
			continue;
		if (*first < 0)
			*first = i;
		*last = i;
	}
	if (*first < 0)
		return;
	if (*first > 0)
		(*first)--;
	if (*last < nb - 1)
		(*last)++;
}

void draw_hist(struct rect r, const struct hist_draw *h, int *first, int *last)
{
	static const struct {
		double p;
		const char *name;
	} P[] = { { 50, "p50" }, { 90, "p90" }, { 99, "p99" } };
	int nb = agg_nbuckets(h->spec), mark[3], lo, hi, barw, markw;
	uint64_t total = 0, btotal = 0;
	char lab[32], cnt[32];

	hist_range(h->b, h->base, nb, &lo, &hi);
	*first = lo;
	*last = hi;
	if (lo < 0 || r.h < 2) {
		draw_text(r.y, r.x, r.w, STYLE_DIM, "  (no data yet)");
		return;
	}
	for (int i = 0; i < nb; i++) {
		total += h->b[i];
		btotal += h->base ? h->base[i] : 0;
	}
	for (int k = 0; k < 3; k++)
		mark[k] = agg_percentile_bucket(h->b, nb, P[k].p);
	/* value (11) '|' bar count (10) marks (4), the bar gets the rest */
	markw = r.w >= 40 ? 4 : 0;
	barw = r.w - 12 - 1 - 10 - markw;
	if (barw > 40 && r.w < 100)
		barw = 40;
	if (barw < 1)
		return;
	draw_fmt(r.y, r.x, r.w, STYLE_TITLE, "%11s  %-*s%10s",
		 h->ns ? "latency" : "value", fmt_w(legend(h), barw), legend(h),
		 "count");
	/* more buckets than lines: keep the cursor (or the top) in view */
	if (hi - lo + 1 > r.h - 1) {
		int want = h->cursor >= lo && h->cursor <= hi ? h->cursor : lo;

		if (want - lo >= r.h - 1)
			lo = want - (r.h - 2);
		hi = lo + r.h - 2;
	}
	for (int i = lo, y = r.y + 1; i <= hi; i++, y++) {
		char bar[512] = "", marks[16] = "";

		bar_cells(bar, sizeof(bar), cells(h->b[i], total, barw),
			  h->base ? cells(h->base[i], btotal, barw) : 0,
			  h->base != NULL);
		for (int k = 2; k >= 0; k--)
			if (mark[k] == i && !marks[0])
				snprintf(marks, sizeof(marks), " %s",
					 P[k].name);
		hist_bucket_label(h->spec, h->row, i, h->ns, lab, sizeof(lab));
		draw_fmt(y, r.x, 12,
			 i == h->cursor ? STYLE_SELECTED : STYLE_NORMAL, "%*s ",
			 fmt_w(lab, 11), lab);
		draw_text(y, r.x + 12, 1, STYLE_NORMAL, "|");
		draw_text(y, r.x + 13, barw, STYLE_BAR, bar);
		draw_fmt(y, r.x + 13 + barw, 10, STYLE_NORMAL, "%10s",
			 fmt_count(h->b[i], cnt, sizeof(cnt)));
		draw_text(y, r.x + 23 + barw, markw, STYLE_MARK, marks);
	}
}
