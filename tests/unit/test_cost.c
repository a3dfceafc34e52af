// SPDX-License-Identifier: MIT
/* Unit tests of the cost meter's arithmetic (engine/collect/cost.h): hits from an
 * interval's events (latency pairs are two hits), ns to % of one CPU,
 * the share of the target's CPU, and nothing from no events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cost.h"

static void test_hits_count(void **state)
{
	struct spec sp = { .agg = SPEC_AGG_COUNT };
	struct agg_spec as = { .spec = &sp,
			       .events = 1000,
			       .drops = 10,
			       .events_total = 5000,
			       .drops_total = 20 };

	(void)state;
	assert_int_equal(cost_hits(&as, false), 1000); /* drops hit too */
	assert_int_equal(cost_hits(&as, true), 5000);
}

static void test_hits_latency(void **state)
{
	struct spec sp = { .agg = SPEC_AGG_LATENCY };
	/* 90 pairs recorded, 10 dropped, 5 ends without a start, 3 halves
	 * the budget's windows cut from their pair */
	struct agg_spec as = { .spec = &sp,
			       .events = 100,
			       .drops = 10,
			       .unmatched = 5,
			       .cut = 3,
			       .events_total = 300,
			       .drops_total = 10,
			       .unmatched_total = 7,
			       .cut_total = 40 };

	(void)state;
	assert_int_equal(cost_hits(&as, false), 2 * 90 + 10 + 5 + 3);
	assert_int_equal(cost_hits(&as, true), 2 * 290 + 10 + 7 + 40);
}

static void test_zero(void **state)
{
	struct spec sp = { .agg = SPEC_AGG_LATENCY };
	struct agg_spec as = { .spec = &sp };

	(void)state;
	assert_int_equal(cost_hits(&as, false), 0);
	assert_true(cost_spec_ns(0, 700, 90, 0) == 0);
	assert_true(cost_pct(0, 1.0) == 0);
	assert_true(cost_pct(5e8, 0) == 0); /* no interval: nothing */
}

static void test_pct(void **state)
{
	(void)state;
	/* 1,000,000 hits of 500 + 100 ns in 2 s: 0.6 s of 2 = 30% */
	assert_true(cost_spec_ns(1000000, 500, 100, 0) == 6e8);
	/* half of them shared another spec's trap: 250 + 100 ns a hit */
	assert_true(cost_spec_ns(1000000, 500, 100, 0.5) == 3.5e8);
	assert_float_equal(cost_pct(6e8, 2.0), 30.0, 1e-9);
	/* of a target that used 1.5 s of CPU: 40% */
	assert_float_equal(cost_share(6e8, 1.5e9), 40.0, 1e-9);
	assert_true(cost_share(6e8, 0) < 0); /* unknown */
	assert_float_equal(cost_pct(2e9, 1.0), 200.0, 1e-9); /* 2 CPUs */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hits_count),
		cmocka_unit_test(test_hits_latency),
		cmocka_unit_test(test_zero),
		cmocka_unit_test(test_pct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
