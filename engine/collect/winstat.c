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

double winstat_rel_var(const struct winstat *ws)
{
	double r, ss;

	if (ws->n < WINSTAT_MIN || ws->h <= 0 || ws->w <= 0)
		return INFINITY;
	r = ws->h / ws->w;
	/* sum of (h_i - r w_i)^2, expanded; rounding may make it < 0 */
	ss = ws->hh - 2 * r * ws->hw + r * r * ws->ww;
	if (ss < 0)
		ss = 0;
	return (double)ws->n * (ss / (ws->n - 1)) / (ws->h * ws->h);
}
