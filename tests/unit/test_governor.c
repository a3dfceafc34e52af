// SPDX-License-Identifier: MIT
/*
 * Unit tests of the budget's governor (engine/collect/governor.h) on a simulated
 * clock: each spec fires at a known rate while attached, at a known price
 * per hit; every slot the test feeds the governor the hits the duty it
 * gave last would have seen, as budget.c does. Steady, a burst, a short
 * burst the reserve absorbs, many cheap specs, one costly among cheap
 * ones, fixed specs, a preferred spec beside a flood, no budget.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "governor.h"

#define MAXS 32
#define HIT_NS 1000.0 /* every hit costs 1 us */
#define PCT(p) ((p)*1e9 / 100.0) /* % of one CPU in ns per second */

struct sim {
	struct gov g;
	size_t n;
	double rate[MAXS]; /* hits per second while attached */
	bool fixed[MAXS];
	bool preferred[MAXS];
	double duty[MAXS]; /* of the slot under way */
};

static void sim_init(struct sim *s, size_t n)
{
	gov_init(&s->g);
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		s->rate[i] = 0;
		s->fixed[i] = false;
		s->preferred[i] = false;
		s->duty[i] = 1; /* everything starts attached */
	}
}

/* End the slot under way and start the next under budget (% of one CPU,
 * < 0: none). Returns how many specs the governor cut. */
static size_t sim_slot(struct sim *s, double budget)
{
	struct gov_in in[MAXS];

	for (size_t i = 0; i < s->n; i++) {
		double on = s->duty[i] * GOV_SLOT_S;

		in[i] = (struct gov_in){
			.live = true,
			.fixed = s->fixed[i],
			.preferred = s->preferred[i],
			.hits = (uint64_t)(s->rate[i] * on + 0.5),
			.on_s = on,
			.hit_ns = HIT_NS,
		};
	}
	return gov_slot(&s->g, in, s->n, GOV_SLOT_S,
			budget < 0 ? -1 : PCT(budget), s->duty);
}

/* What the specs cost in the slot under way, % of one CPU. */
static double sim_cost(const struct sim *s)
{
	double ns = 0;

	for (size_t i = 0; i < s->n; i++)
		ns += s->rate[i] * s->duty[i] * HIT_NS;
	return ns / 1e9 * 100.0;
}

/* Run slots until the reserve is spent (GOV_BURST_S of the budget). */
static void spend_reserve(struct sim *s, double budget)
{
	for (int slot = 0; slot < 80; slot++) /* a debt: paid 20% a slot */
		sim_slot(s, budget);
}

/* One spec at 50% of a CPU, budget 5%: attached whole in the first slot,
 * the reserve spent in the next ones, then cut to 10% of each slot and
 * kept there; over the whole run tracing took the budget plus the
 * reserve. */
static void test_steady(void **state)
{
	struct sim s;
	double spent = 0;

	(void)state;
	sim_init(&s, 1);
	s.rate[0] = 500000; /* x 1 us = 50% */
	for (int slot = 0; slot < 60; slot++) {
		spent += sim_cost(&s) * GOV_SLOT_S;
		assert_int_equal(sim_slot(&s, 5), 1);
		if (slot >= 40) {
			assert_true(s.duty[0] > 0.099 && s.duty[0] < 0.101);
			assert_true(sim_cost(&s) <= 5.0 * 1.01);
		}
	}
	spent += sim_cost(&s) * GOV_SLOT_S;
	/* % of a CPU x s: 61 slots of 5%, and the reserve's 1 s of 5% */
	assert_true(spent <= 5.0 * (61 * GOV_SLOT_S + GOV_BURST_S) * 1.01);
}

/* A cheap spec (1%) stays exact; a burst to 100x (100%) is cut in the
 * slot after the one it began in, and what that slot spent over the
 * reserve is paid back; once the burst is over, the next slot is exact
 * again. */
static void test_burst(void **state)
{
	struct sim s;

	(void)state;
	sim_init(&s, 1);
	s.rate[0] = 10000; /* 1% */
	for (int slot = 0; slot < 10; slot++) {
		assert_int_equal(sim_slot(&s, 5), 0);
		assert_true(s.duty[0] == 1);
	}
	s.rate[0] = 1000000; /* the burst: 100% while attached */
	assert_int_equal(sim_slot(&s, 5), 1); /* the slot it began in ends */
	assert_true(s.duty[0] == GOV_MIN_DUTY); /* 100 ms spent of 50 + 5 */
	for (int slot = 0; slot < 40; slot++) {
		sim_slot(&s, 5);
		assert_true(sim_cost(&s) <= 5.0 * 1.01);
	}
	assert_true(s.duty[0] > 0.049 && s.duty[0] < 0.051); /* paid back */
	s.rate[0] = 10000; /* over */
	assert_int_equal(sim_slot(&s, 5), 0);
	assert_true(s.duty[0] == 1);
}

/* A burst of 30 ms of CPU in one slot (an interpreter's start-up) is
 * within the reserve: the spec is never cut. */
static void test_short_burst(void **state)
{
	struct sim s;

	(void)state;
	sim_init(&s, 1);
	s.rate[0] = 1000; /* 0.1% */
	for (int slot = 0; slot < 20; slot++)
		assert_int_equal(sim_slot(&s, 5), 0);
	s.rate[0] = 0.030 / GOV_SLOT_S * 1e6; /* 30 ms in one slot */
	assert_int_equal(sim_slot(&s, 5), 0);
	s.rate[0] = 1000;
	for (int slot = 0; slot < 20; slot++) {
		assert_int_equal(sim_slot(&s, 5), 0);
		assert_true(s.duty[0] == 1);
	}
}

/* Twenty specs at 0.1% each (2% together) under 5%: none is cut. */
static void test_many_cheap(void **state)
{
	struct sim s;

	(void)state;
	sim_init(&s, 20);
	for (size_t i = 0; i < s.n; i++)
		s.rate[i] = 1000;
	for (int slot = 0; slot < 20; slot++) {
		assert_int_equal(sim_slot(&s, 5), 0);
		for (size_t i = 0; i < s.n; i++)
			assert_true(s.duty[i] == 1);
	}
}

/* Ten cheap specs (0.2% each) and one at 50%, budget 5%: once the
 * reserve is spent, the cheap stay exact, the costly one gets the 3%
 * left: 6% of each slot. */
static void test_one_costly(void **state)
{
	struct sim s;

	(void)state;
	sim_init(&s, 11);
	for (size_t i = 0; i < 10; i++)
		s.rate[i] = 2000;
	s.rate[10] = 500000;
	spend_reserve(&s, 5);
	for (int slot = 0; slot < 20; slot++) {
		assert_int_equal(sim_slot(&s, 5), 1);
		for (size_t i = 0; i < 10; i++)
			assert_true(s.duty[i] == 1);
		assert_true(s.duty[10] > 0.0599 && s.duty[10] < 0.0601);
		assert_true(sim_cost(&s) <= 5.0 * 1.01);
	}
}

/* Two costly specs (20% and 40%) share 10%: each gets 5%, the level. */
static void test_two_costly(void **state)
{
	struct sim s;

	(void)state;
	sim_init(&s, 2);
	s.rate[0] = 200000;
	s.rate[1] = 400000;
	spend_reserve(&s, 10);
	for (int slot = 0; slot < 5; slot++) {
		assert_int_equal(sim_slot(&s, 10), 2);
		assert_true(s.duty[0] > 0.249 && s.duty[0] < 0.251);
		assert_true(s.duty[1] > 0.1249 && s.duty[1] < 0.1251);
	}
}

/* A fixed spec (one another needs) at 4% is spent regardless: the costly
 * one gets what is left, at least GOV_MIN_DUTY; over the budget alone, a
 * fixed spec is never cut. */
static void test_fixed(void **state)
{
	struct sim s;

	(void)state;
	sim_init(&s, 2);
	s.fixed[0] = true;
	s.rate[0] = 40000; /* 4% */
	s.rate[1] = 500000; /* 50% */
	spend_reserve(&s, 5);
	assert_true(s.duty[0] == 1);
	assert_true(s.duty[1] > 0.0199 && s.duty[1] < 0.0201);
	s.rate[0] = 300000; /* 30%: over the budget alone */
	sim_slot(&s, 5);
	assert_true(s.duty[0] == 1);
	assert_true(s.duty[1] == GOV_MIN_DUTY);
}

/* A preferred spec at 6% beside a flood at 40%, budget 10%: it stays
 * whole (shared evenly it would get 5%), the flood gets what is left
 * (4%); preferred at 30%, it gets GOV_PREFER of the room (8%), the
 * flood the rest (2%). */
static void test_preferred(void **state)
{
	struct sim s;

	(void)state;
	sim_init(&s, 2);
	s.preferred[0] = true;
	s.rate[0] = 60000;
	s.rate[1] = 400000;
	spend_reserve(&s, 10);
	for (int slot = 0; slot < 5; slot++) {
		assert_int_equal(sim_slot(&s, 10), 1);
		assert_true(s.duty[0] == 1);
		assert_true(s.duty[1] > 0.0999 && s.duty[1] < 0.1001);
	}
	s.rate[0] = 300000;
	spend_reserve(&s, 10);
	for (int slot = 0; slot < 5; slot++) {
		assert_int_equal(sim_slot(&s, 10), 2);
		assert_true(s.duty[0] > 0.2666 && s.duty[0] < 0.2668);
		assert_true(s.duty[1] > 0.0499 && s.duty[1] < 0.0501);
	}
}

/* No budget: everything attached all the time, whatever it costs. */
static void test_no_budget(void **state)
{
	struct sim s;

	(void)state;
	sim_init(&s, 3);
	s.rate[0] = 1000000;
	s.rate[1] = 500000;
	for (int slot = 0; slot < 5; slot++) {
		assert_int_equal(sim_slot(&s, -1), 0);
		for (size_t i = 0; i < s.n; i++)
			assert_true(s.duty[i] == 1);
	}
}

/* A spec that goes away and comes back in the same id starts unknown. */
static void test_gone(void **state)
{
	struct gov g;
	struct gov_in in = {
		.live = true, .hits = 50000, .on_s = 0.1, .hit_ns = HIT_NS
	};
	double duty;

	(void)state;
	gov_init(&g);
	for (int slot = 0; slot < 30; slot++)
		gov_slot(&g, &in, 1, GOV_SLOT_S, PCT(5), &duty);
	assert_true(duty < 1);
	in.live = false;
	gov_slot(&g, &in, 1, GOV_SLOT_S, PCT(5), &duty);
	assert_false(g.spec[0].known);
	in = (struct gov_in){
		.live = true, .hits = 100, .on_s = 0.1, .hit_ns = HIT_NS
	};
	gov_slot(&g, &in, 1, GOV_SLOT_S, PCT(5), &duty);
	assert_true(duty == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady),
		cmocka_unit_test(test_burst),
		cmocka_unit_test(test_short_burst),
		cmocka_unit_test(test_many_cheap),
		cmocka_unit_test(test_one_costly),
		cmocka_unit_test(test_two_costly),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_preferred),
		cmocka_unit_test(test_no_budget),
		cmocka_unit_test(test_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
