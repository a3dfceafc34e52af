// SPDX-License-Identifier: MIT
/* winstat — the spread of a sampled spec's hits over its windows; see
 * winstat.h. */
#include "winstat.h"

#include <math.h>

void winstat_add(struct winstat *ws, double h, double w)
{
	ws->n++;
	ws->h += h;
	ws->w += w;
	ws->hh += h * h;
	ws->ww += w * w;
	ws->hw += h * w;
}

void winstat_merge(struct winstat *to, const struct winstat *from)
{
	to->n += from->n;
	to->h += from->h;
	to->w += from->w;
	to->hh += from->hh;
	to->ww += from->ww;
	to->hw += from->hw;
}

/* The residuals' (h_i - R w_i) variance over ws's windows, R its ratio;
 * INFINITY under WINSTAT_MIN windows or none with a hit. */
static double resid_var(const struct winstat *ws)
{
	double r, ss;

	if (ws->n < WINSTAT_MIN || ws->h <= 0 || ws->w <= 0)
		return INFINITY;
	r = ws->h / ws->w;
	/* sum of (h_i - r w_i)^2, expanded; rounding may make it < 0 */
	ss = ws->hh - 2 * r * ws->hw + r * r * ws->ww;
	return (ss > 0 ? ss : 0) / (ws->n - 1);
}

double winstat_rel_var(const struct winstat *ws)
{
	double s2 = resid_var(ws);

	return isinf(s2) ? INFINITY : (double)ws->n * s2 / (ws->h * ws->h);
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
