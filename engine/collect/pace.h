/* SPDX-License-Identifier: MIT */
/*
 * pace — whether the target's hits slow it down, from how long its
 * threads wait.
 *
 * The budget's estimate by time (budget.c's by_time()) scales a spec's
 * hits in its windows by the time they stood for; but while attached the
 * target spends what the hits cost. A target that does its work as fast
 * as it can (a loop, a backend waiting for its client's next query, a
 * thread asleep a fixed 2 ms between rounds) takes that much longer over
 * it: its hits come more slowly in the windows. One whose work comes at
 * a pace of its own (requests arriving) is not slowed: its threads wait
 * that much less for the next piece of work. Which it is shows in its
 * waits: the same in the windows as out of them, or shorter by what the
 * hits cost there. Called by budget.c; pure.
 */
#ifndef PROBETOP_PACE_H
#define PROBETOP_PACE_H

/* Waits of the target's threads that ended (pt_oncpu): how many, their
 * ns, the sum of their squares in us^2. */
struct waits {
	double n, ns, us2;
};

/* PACE_MIN waits at least on either side make a sample (pace_add()) */
#define PACE_MIN 20
#define PACE_SIGMAS 3.0
/* the least variance of a wait's length, ns^2 (pt_oncpu sums their
 * squares in whole us) */
#define PACE_VAR_MIN_NS2 1e6

/* a - b into out. */
void waits_sub(const struct waits *a, const struct waits *b, struct waits *out);

/* b into a; every field of a times keep first (0 < keep <= 1). */
void waits_add(struct waits *a, const struct waits *b, double keep);

/*
 * A spec's windows and gaps as its pace is read from them: their waits,
 * what every hit cost in the windows, how many windows and how long
 * they and the gaps were, the older weighing less. The waits also make
 * samples, each of the intervals that gave it PACE_MIN waits on either
 * side: its m (the difference of its means over the hits' cost a wait)
 * and that m's variance. The samples are weighed by their precision, so
 * that a few odd waits (a runtime warming up: a JVM's main thread,
 * asleep 2 ms a round, waits other lengths as it starts) widen their
 * own sample's error, not that of every sample while they are
 * remembered. Zero: none.
 */
struct pace {
	struct waits on, gap;
	double spent, wins, on_s, gap_s;
	struct waits s_on, s_gap; /* the sample under way */
	double s_spent;
	double w, wm; /* the samples' inverse variances, and m's over them */
};

/* An interval's windows into p, every older one weighing keep times
 * what it did (0 < keep <= 1): the waits that ended in them (on) and out
 * of them (gap), what the hits cost in them (spent_ns), how many there
 * were (wins), how long they and the gaps were (on_s, gap_s). */
void pace_add(struct pace *p, const struct waits *on, const struct waits *gap,
	      double spent_ns, double wins, double on_s, double gap_s,
	      double keep);

/*
 * The share m of what the hits cost in p's windows that came out of the
 * target's waits. 0: a target slowed by all the hits cost; 1: one not
 * slowed at all. As a range [*lo, *hi], at PACE_SIGMAS of the samples'
 * m, widened for the waits that began on one side of a window's edge
 * and ended on the other (their share is about the mean wait over the
 * mean window, or gap): below 0 where the waits may be longer in the
 * windows (the hits made the target wait more: a lock held longer, a
 * runtime's own waits). (-INFINITY, INFINITY) where they say nothing:
 * no sample yet (too few waits: those longer than PT_WAIT_MAX_NS, which
 * pt_oncpu does not count, may be where the hits' cost went), or waits
 * as long as the windows. The waits are the hitters' (pt_oncpu): a
 * thread that never hits a probe is not slowed by one.
 */
void pace_range(const struct pace *p, double *lo, double *hi);

#endif
