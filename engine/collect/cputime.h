/* SPDX-License-Identifier: MIT */
/*
 * cputime — the traced process's CPU time, to the moment.
 *
 * The budget measures the target's work in a spec's windows, a few ms
 * each: the kernel's accounting of another process (schedstat, its CPU
 * clock) moves at ticks (4 ms here), too coarse for that. pt_oncpu, on
 * every context switch, adds up the time the target's threads run on
 * each CPU (a stretch whose switch in the kernel did not show by the
 * thread's own clock at its switch out, started by pt_oncpu_tick at a
 * timer's expiry meanwhile); cputime_ns() sums it with the stretches
 * under way. Every
 * thread counts, those started later and those gone too; with -b of an
 * executable, every process that runs it (its mm's exe_file). And the
 * waits of its threads (pace.h). Called by
 * budget.c; its clock in seconds (cputime_clock_s()) by cost.c too.
 */
#ifndef PROBETOP_CPUTIME_H
#define PROBETOP_CPUTIME_H

#include <stdint.h>
#include <time.h>

#include "pace.h"

struct cputime;
struct tracer;

/* Start counting tr's target: one process (-p, a command), or every
 * process running an executable (-b). NULL for -b of a shared library,
 * or when the program could not be attached (logged at debug level). */
struct cputime *cputime_new(struct tracer *tr);

/* Stop counting. NULL is a no-op. */
void cputime_free(struct cputime *c);

/* The target's CPU time since cputime_new(), ns; 0 for NULL. */
uint64_t cputime_ns(const struct cputime *c);

/* The waits of the target's threads that ended since cputime_new() (at
 * most PT_WAIT_MAX_NS each: pace.h) into *w; none for NULL. */
void cputime_waits(const struct cputime *c, struct waits *w);

/* Clock clk now, in seconds (the budget's and the cost meter's clocks). */
double cputime_clock_s(clockid_t clk);

#endif
