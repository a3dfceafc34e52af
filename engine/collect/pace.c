// SPDX-License-Identifier: MIT
/* pace — whether the target's hits slow it down; see pace.h. */
#include "pace.h"

#include <math.h>

void waits_sub(const struct waits *a, const struct waits *b, struct waits *out)
{
	out->n = a->n - b->n;
	out->ns = a->ns - b->ns;
	out->us2 = a->us2 - b->us2;
}

void waits_add(struct waits *a, const struct waits *b, double keep)
{
	a->n = a->n * keep + b->n;
	a->ns = a->ns * keep + b->ns;
	a->us2 = a->us2 * keep + b->us2;
}

/* The mean of w's waits, ns, and its variance, ns^2: a wait's at least
 * PACE_VAR_MIN_NS2 (pt_oncpu sums their squares in whole us). */
static double mean_of(const struct waits *w, double *var)
{
	double mean = w->ns / w->n;
	double s2 = w->us2 * 1e6 / w->n - mean * mean;

	*var = fmax(s2, PACE_VAR_MIN_NS2) / w->n;
	return mean;
}

/* The sample under way, if it has PACE_MIN waits on either side, into
 * p's samples, weighed by its precision; it starts again. */
static void sample_end(struct pace *p)
{
	double v_on, v_gap, m, var, per;

	if (p->s_on.n < PACE_MIN || p->s_gap.n < PACE_MIN || p->s_spent <= 0)
		return;
	per = p->s_spent / p->s_on.n; /* the hits' cost a wait in the windows */
	m = (mean_of(&p->s_gap, &v_gap) - mean_of(&p->s_on, &v_on)) / per;
	var = (v_on + v_gap) / (per * per);
	p->w += 1 / var;
	p->wm += m / var;
	p->s_on = p->s_gap = (struct waits){ 0 };
	p->s_spent = 0;
}

void pace_add(struct pace *p, const struct waits *on, const struct waits *gap,
	      double spent_ns, double wins, double on_s, double gap_s,
	      double keep)
{
	waits_add(&p->on, on, keep);
	waits_add(&p->gap, gap, keep);
	p->spent = p->spent * keep + spent_ns;
	p->wins = p->wins * keep + wins;
	p->on_s = p->on_s * keep + on_s;
	p->gap_s = p->gap_s * keep + gap_s;
	p->w *= keep;
	p->wm *= keep;
	waits_add(&p->s_on, on, 1);
	waits_add(&p->s_gap, gap, 1);
	p->s_spent += spent_ns;
	sample_end(p);
}

void pace_range(const struct pace *p, double *lo, double *hi)
{
	double m, se, edge, m_gap, v;

	*lo = -INFINITY;
	*hi = INFINITY;
	if (p->w <= 0 || p->gap.n <= 0 || p->on_s <= 0 || p->gap_s <= 0)
		return;
	/* a wait that ends in a window but began before it was not
	 * shortened; one that ends after it was: each brings the means
	 * together, by about the share of the waits that cross an edge */
	m_gap = mean_of(&p->gap, &v);
	edge = m_gap * p->wins / (p->on_s * 1e9) +
	       m_gap * p->wins / (p->gap_s * 1e9);
	if (edge >= 0.5)
		return;
	m = p->wm / p->w;
	se = 1 / sqrt(p->w);
	/* the edges only bring m towards 0: it may be 1 / (1 - edge)
	 * times as far from it */
	*lo = fmin(m - PACE_SIGMAS * se, (m - PACE_SIGMAS * se) / (1 - edge));
	*hi = fmax(m + PACE_SIGMAS * se, (m + PACE_SIGMAS * se) / (1 - edge));
}
