/* SPDX-License-Identifier: MIT */
/*
 * budget — keep what tracing takes from the targets under --budget PCT
 * (% of one CPU), by duty-cycling the costliest specs (governor.h).
 *
 * Time is cut in slots of GOV_SLOT_S. At the start of each, every spec
 * is attached; the governor, from each spec's hits in the slot that
 * ended (the stats map's hit counters, on while a budget is) and the
 * price of a hit (cost_hit_ns()), gives each a duty, and a spec with a
 * duty d < 1 is parked (park.h: no breakpoint, semaphore back to zero)
 * after d of the slot: its windows are spread over every interval, ten
 * a second. A burst is cut in the slot after the one it started in.
 *
 * Estimates. A sampled spec saw only what its target did while it was
 * attached, and the target ran slower then (each hit costs it a trap):
 * scaling by the share of wall time would count a hot probe many times
 * too low, and a target that sleeps between bursts does its work when
 * it does, not evenly. The share of the target's work is what counts:
 * its CPU time to the moment (cputime.h) at every mark, less what the
 * hits cost, over the spec's sampled slots and in its windows. A hit's
 * price is known to cost_price_err(): where the hits took most of the
 * windows' CPU time, the work left is a small difference of two large
 * numbers, and the factor's spread over that error says so. Each row's
 * estimate comes with that spread and the variance of its own sample of
 * hits, as scattered as its spec's hits were over its windows (winstat.h:
 * calls in phases are not calls at random), (budget_row(), estimate.c),
 * from which agg says whether it is an estimate
 * that keeps its promise or only a lower bound (agg.h). With -b (no one
 * process) every sampled count is a lower bound.
 *
 * Called by agg (agg_tick(), agg_read(), agg_set_budget()).
 */
#ifndef PROBETOP_BUDGET_H
#define PROBETOP_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

struct cost;
struct tracer;
struct budget;
struct cputime;

/* Per spec id, what an interval's rows stand for (budget_row()). */
struct budget_est {
	bool estimated; /* sampled in the interval: rows are estimates */
	double duty; /* share of the interval it was attached (1: all) */
	double in_windows; /* share of its hits counted in sampled slots */
	bool by_time; /* the factor is by time, not the target's CPU time
			 (budget.c's factors()) */
	double factor; /* what those hits stand for (>= 1) */
	double f_lo, f_hi; /* ... at any price (and pace) the error allows;
			      f_hi INFINITY: nothing can be said */
	double f_min; /* the least it can be (a lower bound's) */
	double rel_var; /* its relative variance from its windows' spread
			   (winstat.h): this interval's, or all its
			   windows' where it had too few; INFINITY: too
			   few in all to say */
	double rel_all; /* ... from all its windows since attach: a
			   total's */
	bool measured; /* the target's CPU time was (a process, not -b) */
	bool missed; /* the target worked out of the windows (else, idle
			there, it missed nothing: its counts are whole) */
	bool blind; /* ... but not in them: nothing says what it missed */
};

/* Follow tr's specs; c prices a hit. pct: % of one CPU, < 0 for none.
 * NULL with errno ENOMEM. */
struct budget *budget_new(struct tracer *tr, const struct cost *c, double pct);

/* Attach every parked spec again and free. NULL is a no-op. */
void budget_free(struct budget *b);

/* Change the budget (< 0: none; every spec is attached again at once). */
void budget_set(struct budget *b, double pct);

/* The budget, % of one CPU, or < 0 for none. */
double budget_pct(const struct budget *b);

/* The target's CPU time the budget reads (cputime.h), or NULL if none. */
const struct cputime *budget_cputime(const struct budget *b);

/* The CLOCK_MONOTONIC second at which budget_tick() is due next, or a
 * negative number when nothing is (no budget). */
double budget_wake_s(const struct budget *b);

/* Start the slots and park the specs that are due (call at least at
 * budget_wake_s(); early calls are cheap). */
void budget_tick(struct budget *b);

/* Specs sampled in the current slot, and, if costliest is not NULL, the id of
 * the costliest of them (or -1). */
size_t budget_sampled(const struct budget *b, int *costliest);

/* End the interval (since the last call, or budget_new()): what each of
 * the n spec ids' rows stand for, into out[0..n). A new slot begins
 * with the next interval. */
void budget_interval(struct budget *b, struct budget_est *out, size_t n);

/*
 * A row of a spec e describes counted c this interval: the estimate of
 * what it would have counted attached all the time into *est, its error
 * of unknown sign into *sys and its variance into *var (both 0: exact;
 * *var INFINITY: no estimate, *est is c), and a lower bound (at least c)
 * into *lo. Pure.
 */
void budget_row(const struct budget_est *e, double c, double *est, double *sys,
		double *var, double *lo);

/*
 * The parts of budget_row()'s variance that a total over intervals adds
 * up: *pvar, its hits' own as if they came at random (INFINITY: no
 * estimate), and *out, the hits it stands for out of the windows, whose
 * variance is out^2 times its spec's relative variance from its windows'
 * spread: of all of them (rel_all) for a total. Both 0 where exact. Pure.
 */
void budget_row_parts(const struct budget_est *e, double c, double *pvar,
		      double *out);

/* The variance of pvar and out (budget_row_parts()'s, or their sums over
 * intervals) with a relative variance rel_var of the hits out of the
 * windows: out's its square times it. Pure. */
double budget_row_var(double pvar, double out, double rel_var);

#endif
