// SPDX-License-Identifier: MIT
/*
 * gc — collections per second per generation (or kind), the pause-time
 * histogram over all of them with percentiles, objects collected, and a
 * sparkline of collections over the last minute. Reads the gc.pause and
 * gc.collected roles of the picked probeset, and the title of its [gc]
 * section if it has one (PostgreSQL's checkpoints).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "view.h"

#define HISTORY 60

struct gc {
	double runs[HISTORY]; /* collections per second, oldest first */
	size_t n;
	uint64_t merged[PT_NBUCKETS], merged_total[PT_NBUCKETS];
};

static void *gc_open(void)
{
	return calloc(1, sizeof(struct gc));
}

static void gc_close(void *st)
{
	free(st);
}

static void push(double *v, size_t *n, double x)
{
	if (*n == HISTORY) {
		memmove(v, v + 1, sizeof(*v) * (HISTORY - 1));
		(*n)--;
	}
	v[(*n)++] = x;
}

static void gc_tick(void *st, const struct model *m, struct request *req)
{
	struct gc *g = st;
	const struct agg_spec *as = model_spec(m, m->gc_pause.id);
	uint64_t runs = 0;

	(void)req;
	for (size_t i = 0; as && i < as->nrows; i++)
		runs += as->rows[i]->count;
	if (as)
		push(g->runs, &g->n,
		     m->snap_s > 0 ? (double)runs / m->snap_s : 0);
}

/* All rows' pause buckets in one histogram row (keys merged). */
static void merge(struct gc *g, const struct agg_spec *as, struct agg_row *out)
{
	int nb = agg_nbuckets(as->spec);

	memset(out, 0, sizeof(*out));
	memset(g->merged, 0, sizeof(g->merged));
	memset(g->merged_total, 0, sizeof(g->merged_total));
	out->min = INT64_MAX;
	for (size_t i = 0; i < as->nrows; i++) {
		const struct agg_row *r = as->rows[i];

		for (int b = 0; b < nb; b++) {
			g->merged[b] += r->b[b];
			g->merged_total[b] += r->b_total[b];
		}
		out->total += r->total;
		out->sum_total += r->sum_total;
		if (r->min < out->min)
			out->min = r->min;
		if (r->max > out->max)
			out->max = r->max;
	}
	out->b = g->merged;
	out->b_total = g->merged_total;
}

/* Collections per second of each row of the pause spec as, into line
 * (len bytes): "generation=0 81/s  generation=1 6.0/s", or with short
 * "gen0 81/s  gen1 6.0/s" (the label's first three letters); "gc 3/s"
 * for a row without a key. */
static void rates_line(const struct model *m, const struct agg_spec *as,
		       const char *label, bool short_, char *line, size_t len)
{
	int o = 0;

	line[0] = '\0';
	for (size_t i = 0; i < as->nrows && o < (int)len - 40; i++) {
		char key[64], a[32];
		const char *k = key, *sp;
		bool named;

		model_key_text(m, as->rows[i], " ", key, sizeof(key));
		if (m->binary_mode) { /* its pid first: not the key */
			sp = strchr(key, ' ');
			k = sp ? sp + 1 : "";
		}
		named = label[0] && k[0];
		/* "full=0: 2/s", not "full=0 2/s": a key that is a number
		 * must not read as the rate */
		o += snprintf(line + o, len - (size_t)o, "%s%.*s%s%s: %s%s/s",
			      o ? "  " : "", named ? (short_ ? 3 : 64) : 0,
			      label, named && !short_ ? "=" : "",
			      k[0] ? k : "gc",
			      m->exited ? "" : draw_mark(as->rows[i]->mark),
			      model_rate(m, (double)as->rows[i]->count, a,
					 sizeof(a)));
	}
}

static void gc_draw(void *st, const struct model *m, const struct view_env *env,
		    struct rect r, bool focus)
{
	struct gc *g = st;
	const struct agg_spec *as = model_spec(m, m->gc_pause.id);
	const struct agg_spec *col = model_spec(m, m->gc_collected.id);
	const char *label =
		m->gc_pause.spec && m->gc_pause.ps
			? m->gc_pause.ps->sections[m->gc_pause.spec->section]
				  .labels[0]
			: "";
	const char *title =
		m->gc_pause.spec && m->gc_pause.ps
			? m->gc_pause.ps->sections[m->gc_pause.spec->section]
				  .title
			: "";
	struct rect in = draw_box(r, title[0] ? title : "GC", NULL, focus);
	struct agg_row all;
	char line[256], a[32], b[32];
	int y = in.y;

	(void)env;
	if (in.h < 1)
		return;
	if (!as) {
		draw_text(y, in.x, in.w, STYLE_DIM,
			  m->gc_pause.spec ? " waiting for the GC probes"
					   : " no probeset with GC probes for "
					     "this process");
		return;
	}
	rates_line(m, as, label, false, line, sizeof(line));
	/* where it does not fit: "gen0 81/s", as DTrace's users write */
	if ((int)strlen(line) >= in.w)
		rates_line(m, as, label, true, line, sizeof(line));
	y = draw_fields(y, in.y + in.h, in.x, in.w, STYLE_NORMAL, 1, 1,
			as->nrows ? line : "no collection yet");
	merge(g, as, &all);
	if (all.total && y < in.y + in.h) {
		int p50 = agg_percentile_bucket(all.b_total, PT_NBUCKETS, 50);
		int p99 = agg_percentile_bucket(all.b_total, PT_NBUCKETS, 99);

		char mx[32];

		snprintf(line, sizeof(line), "pause p50 %s  p99 %s  max %s",
			 hist_bucket_label(as->spec, &all, p50, true, a,
					   sizeof(a)),
			 hist_bucket_label(as->spec, &all, p99, true, b,
					   sizeof(b)),
			 fmt_ns((double)all.max, mx, sizeof(mx)));
		y = draw_fields(y, in.y + in.h, in.x, in.w, STYLE_NORMAL, 1, 1,
				line);
	}
	if (col && col->nrows && y < in.y + in.h) {
		const struct agg_row *c = col->rows[0];

		snprintf(line, sizeof(line), "collected %s/s  total %s",
			 model_rate(m, (double)c->sum, a, sizeof(a)),
			 fmt_count((uint64_t)c->sum_total, b, sizeof(b)));
		y = draw_fields(y, in.y + in.h, in.x, in.w, STYLE_NORMAL, 1, 1,
				line);
	}
	if (y < in.y + in.h) {
		draw_text(y, in.x, 1, STYLE_NORMAL, " ");
		draw_spark(y++, in.x + 1, in.w - 1, g->runs, g->n);
	}
	if (all.total && in.y + in.h - y >= 4) {
		struct hist_draw hd = { .spec = as->spec,
					.row = &all,
					.b = all.b_total,
					.cursor = -1,
					.ns = true };
		int lo, hi;

		draw_hist(
			(struct rect){ y + 1, in.x, in.y + in.h - y - 1, in.w },
			&hd, &lo, &hi);
	}
}

/* Its collections' specs: pauses and what they found. */
static size_t gc_shows(void *st, const struct model *m, int *ids, size_t max)
{
	size_t n = 0;

	(void)st;
	if (m->gc_pause.id >= 0 && n < max)
		ids[n++] = m->gc_pause.id;
	if (m->gc_collected.id >= 0 && n < max)
		ids[n++] = m->gc_collected.id;
	return n;
}

const struct view_ops view_gc = {
	.name = "gc",
	.title = "GC",
	.open = gc_open,
	.close = gc_close,
	.tick = gc_tick,
	.draw = gc_draw,
	.shows = gc_shows,
};
