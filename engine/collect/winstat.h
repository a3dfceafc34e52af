/* SPDX-License-Identifier: MIT */
/*
 * winstat — the spread of a sampled spec's hits over its windows: each
 * window (the part of a slot it was attached, budget.c) counted h hits
 * in w ns of the target's own CPU time. The budget's estimate scales
 * the hits by the CPU time (a ratio estimator, hits per CPU ns); its
 * error comes from how far each window's hits lie from that ratio, so
 * that hits that come in phases (a burst of calls, then other work)
 * give the error they have, not the one of hits that come at random.
 * Used by budget.c.
 */
#ifndef PROBETOP_WINSTAT_H
#define PROBETOP_WINSTAT_H

/* windows needed for a spread to be read (fewer: nothing is said) */
#define WINSTAT_MIN 4

struct winstat {
	unsigned int seen; /* windows counted */
	double n; /* their weight: 1 each, less as they age
		     (winstat_decay()) */
	double h, w; /* sums of their hits and CPU ns */
	double ww; /* sum of w*w */
	double first_h, first_w, last_h, last_w; /* the first and last
						     window, in time */
	double np; /* pairs of consecutive windows (n - 1), weighed */
	double ssp; /* sum over those pairs of their residuals' squares
		       about the pair's own ratio, weighed */
};

/* A window with h hits in w CPU ns into ws, after its last. */
void winstat_add(struct winstat *ws, double h, double w);

/* The windows of from into to as well, after to's. */
void winstat_merge(struct winstat *to, const struct winstat *from);

/* Every window of ws weighs keep times what it did (0 < keep <= 1):
 * the spread then is mostly that of the windows added since. */
void winstat_decay(struct winstat *ws, double keep);

/*
 * The relative variance of the ratio estimate ws->h / ws->w from its
 * windows: n s^2 / h^2 where s^2 is the variance of a window's hits
 * about the ratio of the windows around it: each pair of consecutive
 * windows' residuals about the pair's own ratio, squared, averaged over
 * the pairs (for equal windows, half the mean square of successive
 * differences: the residuals' variance where the ratio holds still, and
 * where it drifts, as a target warming up does over its first second,
 * the spread about the drift, not the drift: an interval's estimate
 * takes its own windows' ratio). 0 for hits exactly in proportion;
 * INFINITY under WINSTAT_MIN windows counted, or none with a hit. Pure.
 */
double winstat_rel_var(const struct winstat *ws);

/*
 * The relative variance of few's ratio (too few windows to give their
 * own spread) with the residuals' variance s^2 of all's windows (few's
 * among them): an interval's own error, which all's ratio, of many more
 * windows, would understate. Each of few's windows has the variance of
 * all's average window scaled by its CPU time, or by its square,
 * whichever sum is the more: few->n s^2 / few->h^2 for windows of all's
 * size, less for shorter ones (a budget that parks a spec most of an
 * interval leaves short windows, whose residuals are smaller than the
 * long ones' of the intervals before). INFINITY under WINSTAT_MIN
 * windows in all, or no hit in few. Pure.
 */
double winstat_rel_var_of(const struct winstat *all, const struct winstat *few);

#endif
