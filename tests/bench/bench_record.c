// SPDX-License-Identifier: MIT
/*
 * bench_record — record.h's own cost, without a kernel's noise: a
 * snapshot of KEYS count rows keyed by a number (as
 * `fixture:ints=count(arg3)` has them), every row counted in each of
 * INTERVALS intervals (60 unless given) with counts that move the
 * order, written with record_interval(); prints the CPU time a call
 * takes (the process's, so compression and write() included) and the
 * bytes an interval. tests/bench/replay.sh keeps its hour for
 * bench_replay.
 * Usage: bench_record FILE [KEYS] [INTERVALS] [keep] (FILE must not
 * exist; it is removed unless "keep").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Interval i's counts and order: row k counts 2 + (k * 7 + i) % 5,
 * rows by count, descending. */
static void fill(struct agg_row *rows, const struct agg_row **order,
		 size_t keys, unsigned i)
{
	size_t at = 0;

	for (size_t k = 0; k < keys; k++) {
		rows[k].count = 2 + (k * 7 + i) % 5;
		rows[k].total += rows[k].count;
	}
	for (uint64_t c = 6; c >= 2; c--)
		for (size_t k = 0; k < keys; k++)
			if (rows[k].count == c)
				order[at++] = &rows[k];
}

int main(int argc, char **argv)
{
	size_t keys = argc > 2 ? strtoul(argv[2], NULL, 10) : 10000;
	unsigned intervals =
		argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 60;
	struct agg_row *rows = calloc(keys, sizeof(*rows));
	const struct agg_row **order = calloc(keys, sizeof(*order));
	struct spec sp;
	struct tracer_spec_info info = { .spec = &sp, .nprobes = 1 };
	struct agg_spec as = { .spec = &sp, .info = &info, .nrows = keys };
	struct agg_snapshot snap = { .nspecs = 1, .specs = &as };
	struct record_target t = { .binary = "", .interval_s = 1 };
	struct record *rec;
	double spent = 0;
	char err[128];

	if (argc < 2 || !rows || !order || !intervals ||
	    spec_parse("fixture:ints=count(arg3)", &sp, err, sizeof(err)))
		return 2;
	rec = record_open(argv[1]);
	if (!rec || record_target(rec, &t))
		return 1;
	for (size_t k = 0; k < keys; k++) {
		rows[k].id = k + 1;
		rows[k].nkeys = 1;
		rows[k].key[0].num = (int64_t)((1ULL << 40) | k);
	}
	as.rows = order;
	for (unsigned i = 1; i <= intervals; i++) {
		double t0;

		fill(rows, order, keys, i);
		snap.interval = i;
		snap.elapsed_s = i;
		t0 = cpu_s();
		if (record_interval(rec, &snap, NULL))
			return 1;
		spent += cpu_s() - t0;
	}
	printf("%zu keys, %u intervals: %.0f us of CPU an interval (%.3f%% "
	       "of a core at -i 1), %.0f bytes an interval, %.2f MB a "
	       "minute\n",
	       keys, intervals, 1e6 * spent / intervals,
	       100.0 * spent / intervals, (double)record_size(rec) / intervals,
	       (double)record_size(rec) / 1e6 * 60 / intervals);
	record_free(rec);
	if (argc < 5 || strcmp(argv[4], "keep"))
		unlink(argv[1]);
	free(rows);
	free(order);
	return 0;
}
