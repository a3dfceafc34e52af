// SPDX-License-Identifier: MIT
/*
 * winstat: the spread of a sampled spec's hits over its windows
 * (engine/collect/winstat.h), and what it makes of a row's estimate
 * (budget_row(), engine/collect/estimate.c): hits in proportion to the
 * CPU time have no spread; hits that all came in one window of eight
 * (calls in a phase, then other work) have a relative variance of about
 * 7, so that no row of them is an estimate and its lower bound stays at
 * what was counted; too few windows say nothing.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "agg.h"
#include "budget.h"
#include "winstat.h"

static void test_even(void **state)
{
	struct winstat ws = { 0 };

	(void)state;
	for (int i = 1; i <= 8; i++)
		winstat_add(&ws, 10.0 * i, 1000.0 * i);
	assert_true(fabs(winstat_rel_var(&ws)) < 1e-9);
}

static void test_phase(void **state)
{
	struct winstat ws = { 0 };
	double rv;

	(void)state;
	winstat_add(&ws, 800, 1e6);
	for (int i = 0; i < 7; i++)
		winstat_add(&ws, 0, 1e6);
	/* the first pair's ratio 400 hits a ms: residuals +-400, 320,000;
	 * the six others none: over n - 1 = 7 pairs, times n = 8, over
	 * 800^2 */
	rv = winstat_rel_var(&ws);
	assert_true(fabs(rv - 8.0 * (320000.0 / 7) / 640000.0) < 1e-9);
}

/* Hits per CPU ns that drift (a target warming up): the spread about the
 * drift, not the drift. 16 windows of 1000 ns, 100 + 2i hits: each pair's
 * residuals +-1, s^2 = 2 (about the whole's ratio they reach +-15). */
static void test_drift(void **state)
{
	struct winstat ws = { 0 };

	(void)state;
	for (int i = 0; i < 16; i++)
		winstat_add(&ws, 100 + 2 * i, 1000);
	assert_true(fabs(winstat_rel_var(&ws) - 16 * 2.0 / (1840.0 * 1840)) <
		    1e-12);
}

static void test_too_few(void **state)
{
	struct winstat ws = { 0 }, all = { 0 };

	(void)state;
	for (int i = 0; i < WINSTAT_MIN - 1; i++)
		winstat_add(&ws, 5, 1000);
	assert_true(isinf(winstat_rel_var(&ws)));
	winstat_merge(&all, &ws);
	winstat_merge(&all, &ws);
	assert_int_equal(all.seen, 2 * (WINSTAT_MIN - 1));
	assert_true(fabs(winstat_rel_var(&all)) < 1e-9);
	assert_true(isinf(winstat_rel_var(&(struct winstat){ .seen = 9 })));
}

/* An interval of two windows, among forty: its own error, the spread of
 * the forty's residuals over its two windows' hits, not the forty's
 * ratio's (twenty times smaller). */
static void test_few_of_all(void **state)
{
	struct winstat all = { 0 }, few = { 0 };
	double s2;

	(void)state;
	for (int i = 0; i < 40; i++)
		winstat_add(&all, i % 2 ? 60 : 140, 1000);
	winstat_add(&few, 60, 1000);
	winstat_add(&few, 140, 1000);
	/* every pair's ratio 0.1 a ns: residuals +-40, s^2 = 2 * 1600 */
	s2 = 2 * 1600.0;
	assert_true(fabs(winstat_rel_var_of(&all, &few) -
			 2 * s2 / 200.0 / 200.0) < 1e-12);
	assert_true(fabs(winstat_rel_var(&all) - 40 * s2 / 4000.0 / 4000.0) <
		    1e-12);
	assert_true(isinf(winstat_rel_var_of(&few, &few))); /* too few */
	/* windows a quarter as long, their hits a quarter: residuals of a
	 * count scale with the length, s^2 / 4 a window (the square's
	 * model gives s^2 / 16) */
	few = (struct winstat){ 0 };
	winstat_add(&few, 15, 250);
	winstat_add(&few, 35, 250);
	assert_true(fabs(winstat_rel_var_of(&all, &few) -
			 2 * s2 / 4 / 50.0 / 50.0) < 1e-12);
	/* twice as long: phases scale with the square, 4 s^2 a window */
	few = (struct winstat){ 0 };
	winstat_add(&few, 120, 2000);
	winstat_add(&few, 280, 2000);
	assert_true(fabs(winstat_rel_var_of(&all, &few) -
			 2 * 4 * s2 / 400.0 / 400.0) < 1e-12);
	assert_true(isinf(winstat_rel_var_of(&all, &(struct winstat){ 0 })));
}

/* A slow window (half the hits) among steady ones, then four intervals
 * of two steady windows, each older window weighing half as much an
 * interval: the spread the next interval falls back on is the slow
 * window's, a sixteenth of it by then; undecayed, it stays a twelfth
 * (one pair in twelve) for as long as the session. Each weighs what it
 * did: a window counted is still counted (seen), for WINSTAT_MIN. */
static void test_decay(void **state)
{
	struct winstat recent = { 0 }, all = { 0 }, iv = { 0 }, few = { 0 };
	double first, s2;

	(void)state;
	winstat_add(&iv, 100, 1000);
	winstat_add(&iv, 50, 1000); /* the slow one */
	winstat_add(&iv, 100, 1000);
	winstat_add(&iv, 100, 1000);
	winstat_merge(&recent, &iv);
	winstat_merge(&all, &iv);
	winstat_add(&few, 100, 1000);
	winstat_add(&few, 100, 1000);
	first = winstat_rel_var_of(&recent, &few);
	/* pairs (100, 50) and (50, 100): residuals +-50/2 = 25, 1250 each;
	 * over 3 pairs: s2 = 2500 / 3 */
	assert_true(fabs(first - 2 * (2500.0 / 3) / 200.0 / 200.0) < 1e-12);
	for (int k = 0; k < 4; k++) {
		winstat_decay(&recent, 0.5);
		winstat_merge(&recent, &few);
		winstat_merge(&all, &few);
	}
	assert_int_equal(recent.seen, 12);
	assert_true(fabs(recent.n - (4 / 16.0 + 2 * (1 / 8.0 + 1 / 4.0 +
						     1 / 2.0 + 1))) < 1e-12);
	/* only the slow window's two pairs have residuals, at 1/16 */
	s2 = 2500.0 / 16 / recent.np;
	assert_true(fabs(winstat_rel_var_of(&recent, &few) -
			 2 * s2 / 200.0 / 200.0) < 1e-9);
	assert_true(winstat_rel_var_of(&recent, &few) < first / 16);
	assert_true(fabs(winstat_rel_var_of(&all, &few) -
			 2 * (2500.0 / 11) / 200.0 / 200.0) < 1e-12);
}

/* A row that counted 1000, all in windows that stand for 4x their hits:
 * an estimate of 4000 when the hits came evenly; a bound of 1000 when
 * they came in one window of eight. */
static void test_row(void **state)
{
	struct budget_est e = { .estimated = true,
				.duty = 0.25,
				.in_windows = 1,
				.factor = 4,
				.f_lo = 3.9,
				.f_hi = 4.1,
				.f_min = 3.5,
				.measured = true,
				.missed = true,
				.rel_var = 0 };
	double est, sys, var, lo;

	(void)state;
	budget_row(&e, 1000, &est, &sys, &var, &lo);
	assert_true(fabs(est - 4000) < 1e-9);
	assert_int_equal(agg_mark_of(est, sys, var), AGG_ESTIMATE);
	assert_true(lo > 1000 && lo < 3500);
	/* the 3000 it stands for out of the windows: its variance is theirs
	 * from the spread; the 1000 counted in them add only their own */
	e.rel_var = 0.0004;
	budget_row(&e, 1000, &est, &sys, &var, &lo);
	assert_true(fabs(var - (1000 * 4 * 3 + 3000.0 * 3000 * 0.0004)) < 1e-6);
	e.rel_var = 7.0;
	budget_row(&e, 1000, &est, &sys, &var, &lo);
	assert_int_equal(agg_mark_of(est, sys, var), AGG_BOUND);
	assert_true(lo == 1000);
	e.rel_var = INFINITY;
	budget_row(&e, 1000, &est, &sys, &var, &lo);
	assert_int_equal(agg_mark_of(est, sys, var), AGG_BOUND);
	assert_true(lo == 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_even),
		cmocka_unit_test(test_drift),
		cmocka_unit_test(test_phase),
		cmocka_unit_test(test_too_few),
		cmocka_unit_test(test_few_of_all),
		cmocka_unit_test(test_decay),
		cmocka_unit_test(test_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
