// SPDX-License-Identifier: MIT
/*
 * estimate — what a row of a sampled spec stands for (budget.h's
 * budget_row()): from what budget.c measured of its spec's windows, the
 * estimate, its errors and a lower bound. Pure; called by agg.
 */
#include "budget.h"

#include <math.h>

#include "agg.h"

/*
 * The variance of the estimate cw * f of a row's hits, cw of them
 * counted in windows that saw 1/f of the work: those are known, and the
 * error is in the hits out of the windows, cw * (f - 1) expected, as
 * random as the windows' own: cw * f * (f - 1) (binomial; cw * f^2, a
 * Poisson's of all cw * f, took the counted hits as unknown too: eleven
 * times this at f = 1.1). Pure.
 */
static double sample_var(double cw, double f)
{
	return cw * f * (f - 1);
}

void budget_row_parts(const struct budget_est *e, double c, double *pvar,
		      double *out)
{
	double cw = c * e->in_windows;

	*pvar = *out = 0;
	if (!e->estimated || !e->missed)
		return; /* attached all the time, or idle when not: exact */
	if (cw <= 0) /* none in the windows */
		/* they saw no work: nothing says; or they saw work but no
		 * hit of this row: its hits in the gaps are likely none, as
		 * doubtful as one */
		*pvar = e->blind || !isfinite(e->factor)
				? INFINITY
				: e->factor * e->factor;
	else if (!e->measured || !isfinite(e->f_hi))
		*pvar = INFINITY;
	else {
		*pvar = sample_var(cw, e->factor);
		*out = cw * (e->factor - 1);
	}
}

double budget_row_var(double pvar, double out, double rel_var)
{
	return pvar + (out > 0 ? out * out * rel_var : 0);
}

/*
 * The hits c_w = c * in_windows a row counted in its spec's windows
 * stand for c_w * factor. Two errors: the factor's, from the price of a
 * hit (c_w times the spread of f_lo..f_hi about it: an error of sign
 * unknown but the same in every interval, so it adds up), and the row's
 * hits in the windows are a sample of its hits (budget_row_parts(), its
 * spec's windows' spread this interval). The lower bound takes the least
 * factor any price allows (budget.c's least_factor()), less AGG_SIGMAS
 * of that error: never below c. Exact where the spec was attached all
 * the time, or the target idle while it was not; no estimate where the
 * windows saw no work but the gaps did.
 */
void budget_row(const struct budget_est *e, double c, double *est, double *sys,
		double *var, double *lo)
{
	double cw = c * e->in_windows, pvar, out;

	budget_row_parts(e, c, &pvar, &out);
	*est = *lo = c;
	*sys = 0;
	*var = budget_row_var(pvar, out, e->rel_var);
	if (!e->estimated || !e->missed || cw <= 0)
		return;
	if (e->measured && isfinite(e->f_min) && isfinite(e->rel_var))
		*lo = fmax(c, c - cw + cw * e->f_min -
				      AGG_SIGMAS *
					      sqrt(budget_row_var(
						      cw * e->f_min * e->f_min,
						      cw * (e->f_min - 1),
						      e->rel_var)));
	if (!isfinite(pvar))
		return;
	*est = c - cw + cw * e->factor;
	*sys = cw * fmax(e->f_hi - e->factor, e->factor - e->f_lo);
}
