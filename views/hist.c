// SPDX-License-Identifier: MIT
/*
 * hist — quantize bars of one row, with p50/p90/p99, zoom and compare.
 *
 * What is shown: the histogram spec the user pinned (Left/Right cycle
 * through every quantize, lquantize and latency spec), else the Top
 * view's selected row — its own histogram if its spec has one, else the
 * row with the same key in the frames.latency spec. If that spec is not
 * attached (it costs something, e.g. CPython's line probe), the view says
 * what it costs and Enter attaches it.
 *
 * Zoom: Enter on a bucket replaces the spec by the same probes with
 * lquantize over that bucket's range (16 steps); Esc puts the previous
 * spec back. Specs are pinned by their text, so the new id after a
 * replace needs no bookkeeping. A time strip (one column per interval)
 * is drawn when the pane is wide enough.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "inert.h"
#include "view.h"

#define ZOOM_MAX 8
#define STRIP_N 60
#define ZOOM_STEPS 16

struct hist {
	char pin[SPEC_TEXT_MAX]; /* "" = follow the Top selection */
	char key[256]; /* row key within pin ("" = the first row) */
	char cmp[256]; /* compared row key, or "" */
	int cursor; /* bucket, -1 = none yet */
	char zoom[ZOOM_MAX][SPEC_TEXT_MAX]; /* specs to go back to */
	int nzoom;
	/* time strip: interval buckets of the shown row */
	uint64_t strip[STRIP_N][PT_NBUCKETS];
	int nstrip;
	char strip_id[SPEC_TEXT_MAX + 256]; /* what the strip is of */
};

/* what the view resolves to right now */
struct shown {
	const struct agg_spec *as;
	const struct agg_row *row, *cmp;
	const char *why; /* no histogram: the reason, for the screen */
	bool can_attach; /* Enter attaches frames.latency */
};

static const struct agg_spec *spec_by_text(const struct model *m,
					   const char *text)
{
	for (size_t i = 0; m->snap && i < m->snap->nspecs; i++)
		if (!strcmp(m->snap->specs[i].spec->text, text))
			return &m->snap->specs[i];
	return NULL;
}

static const struct agg_row *
row_or_first(const struct model *m, const struct agg_spec *as, const char *key)
{
	const struct agg_row *r =
		key[0] ? model_find_row(m, as->id, key) : NULL;

	return r ? r : (as->nrows ? as->rows[0] : NULL);
}

static struct shown resolve(const struct hist *h, const struct model *m)
{
	struct shown s = { 0 };
	const struct agg_spec *sel = model_spec(m, m->sel_spec);

	if (h->pin[0]) {
		s.as = spec_by_text(m, h->pin);
		if (!s.as)
			s.why = "waiting for the histogram's spec";
	} else if (sel && spec_has_buckets(sel->spec)) {
		s.as = sel;
	} else if (sel && m->frames_latency.id >= 0) {
		s.as = model_spec(m, m->frames_latency.id);
	} else if (sel && m->frames_latency.spec &&
		   m->sel_spec == m->frames_calls.id) {
		s.why = "latency per frame is not measured";
		s.can_attach = true;
	} else {
		for (size_t i = 0; m->snap && i < m->snap->nspecs; i++)
			if (spec_has_buckets(m->snap->specs[i].spec)) {
				s.as = &m->snap->specs[i];
				break;
			}
		if (!s.as)
			s.why = "no quantize or latency spec is on: select a "
				"row in Top (3), or use 'a' in Probes (2)";
	}
	if (s.as) {
		s.row = row_or_first(m, s.as,
				     h->pin[0]	 ? h->key
				     : h->key[0] ? h->key
						 : m->sel_key);
		if (h->cmp[0])
			s.cmp = model_find_row(m, s.as->id, h->cmp);
		if (!s.row)
			s.why = "no events yet";
	}
	return s;
}

static void *hist_open(void)
{
	struct hist *h = calloc(1, sizeof(*h));

	if (h)
		h->cursor = -1;
	return h;
}

static void hist_close(void *st)
{
	free(st);
}

static void hist_tick(void *st, const struct model *m, struct request *req)
{
	struct hist *h = st;
	struct shown s = resolve(h, m);
	char id[sizeof(h->strip_id)];

	(void)req;
	if (!s.row)
		return;
	model_key_text(m, s.row, " ", id, sizeof(id) - SPEC_TEXT_MAX);
	strncat(id, s.as->spec->text, sizeof(id) - strlen(id) - 1);
	if (strcmp(id, h->strip_id)) {
		snprintf(h->strip_id, sizeof(h->strip_id), "%s", id);
		h->nstrip = 0;
	}
	if (h->nstrip == STRIP_N) {
		memmove(h->strip[0], h->strip[1],
			sizeof(h->strip[0]) * (STRIP_N - 1));
		h->nstrip--;
	}
	memcpy(h->strip[h->nstrip++], s.row->b, sizeof(h->strip[0]));
}

/* The spec's keys as SPEC text: ", str(arg1), arg2", ", pyframe",
 * ", sql(arg0), allpids" */
static void keys_text(const struct spec *sp, char *out, size_t n)
{
	size_t o = 0;
	int len;

	out[0] = '\0';
	for (int i = 0; i < sp->nkeys && o + 2 < n; i++) {
		o += (size_t)snprintf(out + o, n - o, ", ");
		len = spec_key_text(sp, &sp->keys[i], out + o, n - o);
		if (len < 0)
			return;
		o += (size_t)len;
	}
	if (sp->allpids && o < n) /* the rows' scope, as the spec's */
		snprintf(out + o, n - o, ", allpids");
}

/* The spec text of sp with lquantize over [low, high) in 16 steps. */
static int zoom_text(const struct spec *sp, int64_t low, int64_t high,
		     char *out, size_t n)
{
	const char *eq = strchr(sp->text, '=');
	int64_t step = (high - low) / ZOOM_STEPS;
	char keys[SPEC_TEXT_MAX], val[SPEC_GLOBAL_MAX + 16];
	int len;

	if (!eq || high <= low)
		return -1;
	if (step < 1)
		step = 1;
	if (sp->timed)
		snprintf(val, sizeof(val), "latency");
	else if (spec_arg_text(sp, sp->val_arg, sp->val_cast, val,
			       sizeof(val)) < 0)
		return -1;
	keys_text(sp, keys, sizeof(keys));
	len = snprintf(
		out, n,
		"%.*s=lquantize(%s, %" PRId64 ", %" PRId64 ", %" PRId64 "%s)",
		(int)(eq - sp->text), sp->text, val, low, high, step, keys);
	return len < 0 || (size_t)len >= n ? -1 : 0;
}

static int zoom_in(struct hist *h, const struct model *m, const struct shown *s,
		   struct request *req)
{
	const struct spec *sp = s->as->spec;
	int nb = agg_nbuckets(sp), i = h->cursor;
	int64_t low, high;

	if (i <= 0 || i >= nb - 1 || h->nzoom == ZOOM_MAX)
		return VIEW_HANDLED; /* open-ended buckets have no range */
	if (m->recorded) { /* zooming attaches finer buckets */
		req->kind = REQ_SAY;
		snprintf(req->text, sizeof(req->text),
			 "a recording: its histograms have the buckets "
			 "recorded, no finer");
		return VIEW_HANDLED;
	}
	low = agg_bucket_low(sp, s->row, i);
	high = agg_bucket_low(sp, s->row, i + 1);
	if (zoom_text(sp, low, high, req->text, sizeof(req->text)))
		return VIEW_HANDLED;
	snprintf(h->zoom[h->nzoom++], SPEC_TEXT_MAX, "%s", sp->text);
	model_key_text(m, s->row, " ", h->key, sizeof(h->key));
	snprintf(h->pin, sizeof(h->pin), "%s", req->text);
	req->kind = REQ_REPLACE;
	req->id = s->as->id;
	h->cursor = -1;
	return VIEW_HANDLED;
}

static int zoom_out(struct hist *h, const struct model *m, struct request *req)
{
	const struct agg_spec *as = spec_by_text(m, h->pin);

	if (!h->nzoom)
		return VIEW_IGNORED;
	h->nzoom--;
	if (as) {
		req->kind = REQ_REPLACE;
		req->id = as->id;
		snprintf(req->text, sizeof(req->text), "%s", h->zoom[h->nzoom]);
	}
	memcpy(h->pin, h->zoom[h->nzoom], sizeof(h->pin));
	h->cursor = -1;
	return VIEW_HANDLED;
}

/* Left/Right: pin the previous/next histogram spec */
static void cycle(struct hist *h, const struct model *m, int dir)
{
	const struct agg_spec *cur = h->pin[0] ? spec_by_text(m, h->pin) : NULL;
	int n = m->snap ? (int)m->snap->nspecs : 0, at = -1;

	for (int i = 0; i < n; i++)
		if (&m->snap->specs[i] == cur)
			at = i;
	for (int k = 1; k <= n; k++) {
		int i = ((at < 0 ? (dir > 0 ? -1 : 0) : at) + dir * k + n * 2) %
			n;

		if (spec_has_buckets(m->snap->specs[i].spec)) {
			snprintf(h->pin, sizeof(h->pin), "%s",
				 m->snap->specs[i].spec->text);
			h->key[0] = '\0';
			h->cmp[0] = '\0';
			h->cursor = -1;
			h->nzoom = 0;
			return;
		}
	}
}

/* PgUp/PgDn: the previous/next row of the shown spec */
static void next_row(struct hist *h, const struct model *m,
		     const struct shown *s, int dir)
{
	size_t i = 0;

	if (!s->as || !s->row)
		return;
	while (i < s->as->nrows && s->as->rows[i] != s->row)
		i++;
	if (dir < 0 && i > 0)
		i--;
	else if (dir > 0 && i + 1 < s->as->nrows)
		i++;
	if (!h->pin[0])
		snprintf(h->pin, sizeof(h->pin), "%s", s->as->spec->text);
	model_key_text(m, s->as->rows[i], " ", h->key, sizeof(h->key));
}

static int hist_key(void *st, const struct model *m, enum action a,
		    const char *text, struct request *req)
{
	struct hist *h = st;
	struct shown s = resolve(h, m);

	(void)text;
	switch (a) {
	case ACT_UP:
		if (h->cursor > 0)
			h->cursor--;
		return VIEW_HANDLED;
	case ACT_DOWN:
		if (s.as && h->cursor + 1 < agg_nbuckets(s.as->spec))
			h->cursor++;
		return VIEW_HANDLED;
	case ACT_LEFT:
	case ACT_RIGHT:
		cycle(h, m, a == ACT_LEFT ? -1 : 1);
		return VIEW_HANDLED;
	case ACT_PGUP:
	case ACT_PGDN:
		next_row(h, m, &s, a == ACT_PGUP ? -1 : 1);
		return VIEW_HANDLED;
	case ACT_COMPARE:
		if (h->cmp[0] || !s.row)
			h->cmp[0] = '\0';
		else
			model_key_text(m, s.row, " ", h->cmp, sizeof(h->cmp));
		return VIEW_HANDLED;
	case ACT_ENTER:
		if (s.can_attach) {
			req->kind = REQ_ROLE;
			snprintf(req->text, sizeof(req->text),
				 "frames.latency");
			return VIEW_HANDLED;
		}
		if (s.row && h->cursor < 0)
			h->cursor = agg_percentile_bucket(
				s.row->b_total, agg_nbuckets(s.as->spec), 50);
		return s.row ? zoom_in(h, m, &s, req) : VIEW_HANDLED;
	case ACT_BACK:
		if (zoom_out(h, m, req))
			return VIEW_HANDLED;
		if (!h->pin[0])
			return VIEW_IGNORED;
		h->pin[0] = '\0'; /* back to following Top */
		h->key[0] = '\0';
		return VIEW_HANDLED;
	default:
		return VIEW_IGNORED;
	}
}

/* what frames.latency would cost, from the probeset's notes */
static const char *attach_cost(const struct model *m)
{
	const struct ps_spec *r = m->frames_latency.spec;
	const struct ps_note *n = NULL;
	struct spec need;
	char err[64];

	if (r && r->needs[0] && !spec_parse(r->needs, &need, err, sizeof(err)))
		n = probeset_note(m->frames_latency.ps, need.probe[0].provider,
				  need.probe[0].name);
	return n && n->cost[0] ? n->cost : "";
}

static void draw_strip(const struct hist *h, const struct spec *sp,
		       struct rect r, int lo, int hi)
{
	static const char *const UTF[] = { " ", "\u2591", "\u2592", "\u2593",
					   "\u2588" };
	static const char ASCII[] = " .:*#";
	int nb = agg_nbuckets(sp);

	draw_text(r.y, r.x, r.w, STYLE_TITLE, "last intervals");
	for (int i = lo, y = r.y + 1; i <= hi && y < r.y + r.h; i++, y++) {
		char line[STRIP_N * 3 + 1] = "";
		size_t o = 0;
		int from = h->nstrip > r.w ? h->nstrip - r.w : 0;

		for (int t = from; t < h->nstrip && i < nb; t++) {
			uint64_t max = 0, v = h->strip[t][i];
			int lv;

			for (int k = 0; k < nb; k++)
				if (h->strip[t][k] > max)
					max = h->strip[t][k];
			lv = max ? (int)((double)v * 4.0 / (double)max + 0.5)
				 : 0;
			if (v && !lv)
				lv = 1;
			o = fmt_glyph(line, o, UTF[lv], ASCII[lv]);
		}
		line[o] = '\0';
		draw_text(y, r.x, r.w, STYLE_BAR, line);
	}
}

/* The baseline's row of row's key (--baseline), or NULL. */
static const struct agg_row *base_row(const struct model *m,
				      const struct agg_spec *as,
				      const struct agg_row *row)
{
	const struct basetab_row *br =
		basetab_find(model_base_spec(m, as->id), row);

	return br ? &br->row : NULL;
}

/* "p50 X p99 Y" of row's totals at out[o] (n bytes); the new end. */
static size_t pct_put(const struct agg_spec *as, const struct agg_row *row,
		      char *out, size_t n, size_t o)
{
	static const double P[] = { 50, 99 };
	size_t start = o;

	for (int k = 0; k < 2 && o < n; k++) {
		int at = agg_percentile_bucket(row->b_total,
					       agg_nbuckets(as->spec), P[k]);
		char v[32];

		if (at < 0)
			continue;
		hist_bucket_label(as->spec, row, at, as->spec->timed, v,
				  sizeof(v));
		o += (size_t)snprintf(out + o, n - o, "%sp%.0f %s",
				      o > start ? " " : "", P[k], v);
	}
	return o;
}

/* The box's note: the row's p50 and p99 since attach. */
static void pct_note(const struct agg_spec *as, const struct agg_row *row,
		     char *out, size_t n)
{
	out[0] = '\0';
	pct_put(as, row, out, n, 0);
}

/* With a baseline, now's p50 and p99 and the baseline's side by side
 * ("  p50 4.1us p99 33us | baseline p50 2.0us p99 8.2us") into out;
 * "" without one. */
static void pct_vs(const struct agg_spec *as, const struct agg_row *row,
		   const struct agg_row *base, char *out, size_t n)
{
	size_t o = 0;

	out[0] = '\0';
	if (!base)
		return;
	o = pct_put(as, row, out, n, fmt_put(out, n, 0, "  "));
	o = fmt_put(out, n, o, " | baseline ");
	pct_put(as, base, out, n, o);
}

static void draw_one(struct hist *h, const struct model *m,
		     const struct agg_spec *as, const struct agg_row *row,
		     struct rect r, bool cursor, int *lo, int *hi)
{
	struct hist_draw hd = {
		.spec = as->spec,
		.row = row,
		.b = row->b_total,
		.cursor = cursor ? h->cursor : -1,
		.ns = as->spec->timed,
	};
	const struct agg_row *base = base_row(m, as, row);
	char key[256], cnt[32], v[32], avg[48] = "", vs[160];

	hd.base = base ? base->b_total : NULL;
	model_key_text(m, row, " ", key, sizeof(key));
	if (row->total) {
		double a = (double)row->sum_total / (double)row->total;

		if (as->spec->timed)
			fmt_ns(a, v, sizeof(v));
		else
			snprintf(v, sizeof(v), "%.0f", a);
		snprintf(avg, sizeof(avg), "  avg %s", v);
	}
	pct_vs(as, row, base, vs, sizeof(vs));
	draw_fmt(r.y, r.x, r.w, STYLE_NORMAL, " %s  count %s%s%s",
		 key[0] ? key : "(no key)",
		 fmt_count(row->total, cnt, sizeof(cnt)), avg, vs);
	r.y++;
	r.h--;
	draw_hist(r, &hd, lo, hi);
}

/* Why there is no histogram, wrapped to in: and when Enter can attach
 * one, what that costs. */
static void draw_why(struct rect in, const struct shown *s,
		     const struct model *m)
{
	int end = in.y + in.h, y;
	char cost[256];

	y = draw_wrapped(in.y, end, in.x, in.w, STYLE_DIM, 2, 4,
			 s->why ? s->why : "no events yet");
	if (!s->can_attach || y >= end)
		return;
	y = draw_wrapped(y, end, in.x, in.w, STYLE_NORMAL, 2, 4,
			 "Enter: measure it (attaches the probeset's "
			 "frames.latency)");
	snprintf(cost, sizeof(cost), "cost: %s", attach_cost(m));
	if (y < end)
		draw_wrapped(y, end, in.x, in.w, STYLE_WARN, 2, 4, cost);
}

static void hist_draw(void *st, const struct model *m,
		      const struct view_env *env, struct rect r, bool focus)
{
	struct hist *h = st;
	struct shown s = resolve(h, m);
	char title[INERT_MAX_PER_BYTE * SPEC_TEXT_MAX + 16], note[96] = "";
	struct rect in;
	size_t o;
	int lo, hi;

	(void)env;
	/* a spec built in Probes holds the target's object and probe names */
	o = inert_put(title, sizeof(title), 0, h->nzoom ? "zoomed: " : "");
	inert_put(title, sizeof(title), o,
		  s.as ? s.as->spec->text : "Histogram");
	if (s.row)
		pct_note(s.as, s.row, note, sizeof(note));
	in = draw_box(r, title, note, focus);
	if (in.h < 2)
		return;
	if (!s.row) {
		draw_why(in, &s, m);
		return;
	}
	if (h->cursor < 0) {
		int nb = agg_nbuckets(s.as->spec);

		h->cursor = agg_percentile_bucket(s.row->b_total, nb, 50);
	}
	if (s.cmp && in.w >= 80) {
		struct rect a = in, b = in;

		a.w = in.w / 2 - 1;
		b.x = in.x + in.w / 2;
		b.w = in.w - in.w / 2;
		draw_one(h, m, s.as, s.cmp, a, false, &lo, &hi);
		draw_one(h, m, s.as, s.row, b, focus, &lo, &hi);
		return;
	}
	if (in.w >= 110 && in.h >= 6) {
		struct rect a = in, b = in;

		a.w = in.w - STRIP_N / 2 - 2;
		b.x = in.x + a.w + 2;
		b.w = in.w - a.w - 2;
		draw_one(h, m, s.as, s.row, a, focus, &lo, &hi);
		b.y += 1;
		b.h -= 1;
		if (lo >= 0)
			draw_strip(h, s.as->spec, b, lo, hi);
		return;
	}
	draw_one(h, m, s.as, s.row, in, focus, &lo, &hi);
}

/* The spec whose histogram it draws. */
static size_t hist_shows(void *st, const struct model *m, int *ids, size_t max)
{
	struct shown s = resolve(st, m);

	if (!s.as || !max)
		return 0;
	ids[0] = s.as->id;
	return 1;
}

const struct view_ops view_hist = {
	.name = "hist",
	.title = "Histogram",
	.open = hist_open,
	.close = hist_close,
	.tick = hist_tick,
	.draw = hist_draw,
	.key = hist_key,
	.shows = hist_shows,
};
