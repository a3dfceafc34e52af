// SPDX-License-Identifier: MIT
/*
 * pace: what the target's waits say of whether the hits slow it down
 * (engine/collect/pace.h). A target asleep a fixed 2 ms between rounds
 * waits as long in the windows as out of them: the hits took none of
 * its waits (0). One whose work comes at a pace of its own waits less in
 * the windows by what the hits cost there: they took all of it (1).
 * Too few waits, or waits as long as the windows, say nothing (any m).
 * Odd waits widen their own sample's error only.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pace.h"

/* n waits of mean ns, every one of them mean +- sd (half each way). */
static struct waits waits_of(double n, double mean, double sd)
{
	double a = (mean - sd) / 1000, b = (mean + sd) / 1000;

	return (struct waits){ .n = n,
			       .ns = n * mean,
			       .us2 = n / 2 * (a * a + b * b) };
}

/* p with one interval: n_on waits of on in windows of 200 ms in all (5
 * of them), those of gap out of them in 800 ms; the hits cost spent ns
 * in the windows. */
static void one_interval(struct pace *p, struct waits on, struct waits gap,
			 double spent)
{
	*p = (struct pace){ 0 };
	pace_add(p, &on, &gap, spent, 5, 0.2, 0.8, 1);
}

/* 100 waits of 2 ms +- 10 us in the windows, 400 out of them; the hits
 * cost 30 ms in the windows, 0.3 ms a wait. */
static void test_slowed(void **state)
{
	struct pace p;
	double lo, hi;

	(void)state;
	one_interval(&p, waits_of(100, 2e6, 1e4), waits_of(400, 2e6, 1e4),
		     30e6);
	pace_range(&p, &lo, &hi);
	/* the means' standard error: 10 us / 10 and / 20, 1.12 us, over
	 * 300 us a wait: 3.7e-3, three of them 0.011 */
	assert_true(lo < 0 && lo > -0.02);
	assert_true(hi > 0 && hi < 0.02);
}

/* The same waits 0.3 ms shorter in the windows: the hits' cost came
 * out of them. */
static void test_paced(void **state)
{
	double lo, hi, edge = 2e6 * 5 / 0.2e9 + 2e6 * 5 / 0.8e9;
	struct pace p;

	(void)state;
	one_interval(&p, waits_of(100, 1.7e6, 1e4), waits_of(400, 2e6, 1e4),
		     30e6);
	pace_range(&p, &lo, &hi);
	assert_true(lo > 0.98 && lo < 1);
	/* the waits across a window's edge may have hidden a share edge
	 * (6.25 %) of the difference */
	assert_true(hi > 1 / (1 - edge) && hi < 1.02 / (1 - edge));
}

/* An interval of odd waits (2 ms +- 1 ms) and then nine of even ones
 * (+- 10 us): m as precise as the even ones make it, not as the odd
 * ones' spread pooled with theirs would. */
static void test_odd(void **state)
{
	struct waits on = waits_of(100, 2e6, 1e4),
		     gap = waits_of(400, 2e6, 1e4);
	struct waits odd_on = waits_of(100, 2e6, 1e6);
	struct waits odd_gap = waits_of(400, 2e6, 1e6);
	struct pace p = { 0 };
	double lo, hi;

	(void)state;
	pace_add(&p, &odd_on, &odd_gap, 30e6, 5, 0.2, 0.8, 1);
	pace_range(&p, &lo, &hi);
	assert_true(hi - lo > 0.3); /* 1.1 ms over 300 us / 10, 6 sigmas */
	for (int i = 0; i < 9; i++)
		pace_add(&p, &on, &gap, 30e6, 5, 0.2, 0.8, 1);
	pace_range(&p, &lo, &hi);
	/* nine samples of 0.0037 each: 0.0012, three of them 0.004 */
	assert_true(lo < 0 && lo > -0.006 && hi > 0 && hi < 0.006);
}

/* Waits too few for a sample are kept until they make one. */
static void test_gather(void **state)
{
	struct waits on = waits_of(PACE_MIN / 2, 2e6, 1e4);
	struct waits gap = waits_of(400, 2e6, 1e4);
	struct pace p = { 0 };

	(void)state;
	pace_add(&p, &on, &gap, 30e6, 5, 0.2, 0.8, 1);
	assert_true(p.w == 0);
	pace_add(&p, &on, &gap, 30e6, 5, 0.2, 0.8, 1);
	assert_true(p.w > 0 && p.s_on.n == 0);
}

/* Too few waits on either side, no cost, or waits as long as the
 * windows: nothing said. */
static void test_unknown(void **state)
{
	struct waits none = { 0 };
	struct waits few = waits_of(PACE_MIN - 1, 2e6, 1e4);
	struct waits many = waits_of(400, 2e6, 1e4);
	struct waits longw = waits_of(400, 20e6, 1e4);
	struct waits pairs[][2] = {
		{ none, none }, { few, many }, { many, few }, { longw, longw }
	};
	struct pace p;
	double lo, hi;

	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		one_interval(&p, pairs[i][0], pairs[i][1], 30e6);
		pace_range(&p, &lo, &hi);
		assert_true(isinf(lo) && lo < 0 && isinf(hi));
	}
	one_interval(&p, many, many, 0);
	pace_range(&p, &lo, &hi);
	assert_true(isinf(lo) && lo < 0 && isinf(hi));
}

/* waits_add() weighs the older less; waits_sub() undoes a sum. */
static void test_sums(void **state)
{
	struct waits a = waits_of(10, 1e6, 0), b = waits_of(30, 2e6, 0), d;

	(void)state;
	waits_add(&a, &b, 0.5);
	assert_true(fabs(a.n - 35) < 1e-9 && fabs(a.ns - 65e6) < 1e-3);
	waits_sub(&a, &b, &d);
	assert_true(fabs(d.n - 5) < 1e-9 && fabs(d.ns - 5e6) < 1e-3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slowed),	cmocka_unit_test(test_paced),
		cmocka_unit_test(test_odd),	cmocka_unit_test(test_gather),
		cmocka_unit_test(test_unknown), cmocka_unit_test(test_sums),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
