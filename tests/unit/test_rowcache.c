// SPDX-License-Identifier: MIT
/* Unit tests of rowcache (views/): values kept by row id from one round
 * to the next, and freed by the sweep after a round that did not use
 * them; the sweep's deletions keep every other entry findable, however
 * the probe chains ran. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "rowcache.h"

static size_t freed;

static void count_free(void *v)
{
	freed++;
	free(v);
}

/* A value that says its id. */
static void *value(uint64_t id)
{
	uint64_t *v = malloc(sizeof(*v));

	assert_non_null(v);
	*v = id;
	return v;
}

static void test_round(void **state)
{
	struct rowcache *c = rowcache_new(count_free);

	(void)state;
	freed = 0;
	assert_null(rowcache_get(c, 7));
	assert_int_equal(rowcache_put(c, 7, value(7)), 0);
	assert_int_equal(rowcache_put(c, 8, value(8)), 0);
	assert_int_equal(*(uint64_t *)rowcache_get(c, 7), 7);
	rowcache_sweep(c); /* both put this round: kept */
	assert_int_equal(freed, 0);
	assert_int_equal(*(uint64_t *)rowcache_get(c, 8), 8);
	rowcache_sweep(c); /* 7 not used: freed */
	assert_int_equal(freed, 1);
	assert_null(rowcache_get(c, 7));
	assert_int_equal(*(uint64_t *)rowcache_get(c, 8), 8);
	rowcache_clear(c);
	assert_int_equal(freed, 2);
	assert_null(rowcache_get(c, 8));
	rowcache_free(c);
	rowcache_free(NULL);
}

/* Round r uses the ids i of 1..N with (i * 7 + r) % 3 != 0, putting the
 * ones it lacks: every round's ids are found, the others were freed, and
 * no value is freed twice or lost (the allocator and the count say). */
static void test_sweeps(void **state)
{
	enum {
		N = 20000,
		ROUNDS = 12
	};
	struct rowcache *c = rowcache_new(count_free);
	size_t puts = 0;

	(void)state;
	freed = 0;
	for (int r = 0; r < ROUNDS; r++) {
		size_t used = 0;

		for (uint64_t i = 1; i <= N; i++) {
			uint64_t *v;

			if ((i * 7 + (uint64_t)r) % 3 == 0)
				continue;
			used++;
			rowcache_prefetch(c, i);
			v = rowcache_get(c, i);
			if (v) {
				assert_int_equal(*v, i);
				continue;
			}
			assert_int_equal(rowcache_put(c, i, value(i)), 0);
			puts++;
		}
		rowcache_sweep(c);
		assert_int_equal(puts - freed, used);
	}
	for (uint64_t i = 1; i <= N; i++)
		if ((i * 7 + ROUNDS - 1) % 3)
			assert_int_equal(*(uint64_t *)rowcache_get(c, i), i);
	rowcache_free(c);
	assert_int_equal(freed, puts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round),
		cmocka_unit_test(test_sweeps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
