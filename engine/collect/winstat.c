// SPDX-License-Identifier: MIT
/* winstat — the spread of a sampled spec's hits over its windows; see
 * winstat.h. */
#include "winstat.h"

#include <math.h>

/* The sum of the squares of the residuals of windows (h1, w1) and
 * (h2, w2) about their own ratio: both are e = (h2 w1 - h1 w2) / (w1 +
 * w2), one of each sign. */
static double pair_ss(double h1, double w1, double h2, double w2)
{
	double e = w1 + w2 > 0 ? (h2 * w1 - h1 * w2) / (w1 + w2) : 0;

	return 2 * e * e;
}

void winstat_add(struct winstat *ws, double h, double w)
{
	struct winstat one = {
		.seen = 1,
		.n = 1,
		.h = h,
		.w = w,
		.ww = w * w,
		.first_h = h,
		.first_w = w,
		.last_h = h,
		.last_w = w,
	};

	winstat_merge(ws, &one);
}

void winstat_merge(struct winstat *to, const struct winstat *from)
{
	if (!from->seen)
		return;
	if (!to->seen) {
		to->first_h = from->first_h;
		to->first_w = from->first_w;
	} else {
		to->np++;
		to->ssp += pair_ss(to->last_h, to->last_w, from->first_h,
				   from->first_w);
	}
	to->seen += from->seen;
	to->n += from->n;
	to->h += from->h;
	to->w += from->w;
	to->ww += from->ww;
	to->np += from->np;
	to->ssp += from->ssp;
	to->last_h = from->last_h;
	to->last_w = from->last_w;
}

/* The variance of a window's hits about the ratio of those around it
 * (winstat_rel_var()); INFINITY under WINSTAT_MIN windows or none with
 * a hit. */
static double resid_var(const struct winstat *ws)
{
	if (ws->seen < WINSTAT_MIN || ws->np <= 0 || ws->h <= 0 || ws->w <= 0)
		return INFINITY;
	return ws->ssp / ws->np;
}

double winstat_rel_var(const struct winstat *ws)
{
	double s2 = resid_var(ws);

	return isinf(s2) ? INFINITY : ws->n * s2 / (ws->h * ws->h);
}

void winstat_decay(struct winstat *ws, double keep)
{
	ws->n *= keep;
	ws->h *= keep;
	ws->w *= keep;
	ws->ww *= keep;
	ws->np *= keep;
	ws->ssp *= keep;
}

double winstat_rel_var_of(const struct winstat *all, const struct winstat *few)
{
	double s2 = resid_var(all), lin, quad;

	if (isinf(s2) || few->h <= 0)
		return INFINITY;
	/* a window's residual variance as all's average window's, scaled
	 * by its CPU time (hits that come like a Poisson count) or by its
	 * square (phases), whichever is the more */
	lin = all->n * s2 * few->w / all->w;
	quad = all->n * s2 * few->ww / all->ww;
	return (lin > quad ? lin : quad) / (few->h * few->h);
}
