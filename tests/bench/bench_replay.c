// SPDX-License-Identifier: MIT
/*
 * bench_replay — the console replay's reading of a long recording
 * (issue 37: a one-hour recording opens in under 1 s and steps between
 * intervals in under 50 ms). Writes FILE with record.h: INTERVALS
 * intervals (3,600: an hour at -i 1) of KEYS count rows keyed by a
 * number, each counted in every interval (so every row is in every
 * record, as in tests/bench/record.sh); then times, on the wall clock,
 * what the console does with record/replay.h: open (replay_open(),
 * replay_index(), the first interval read), steps forward and back from
 * the middle, End and Home, a jump by time, and the range of the whole
 * hour. Prints one line each.
 * Usage: bench_replay FILE [KEYS] [INTERVALS] [keep] (FILE must not
 * exist; it is removed unless "keep", for a look with the console).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "recrange.h"
#include "record.h"
#include "replay.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Write the recording: row k counts 1 + (k + 3i) % 7 in interval i. */
static int write_file(const char *path, size_t keys, unsigned n)
{
	struct agg_row *rows = calloc(keys, sizeof(*rows));
	const struct agg_row **order = calloc(keys, sizeof(*order));
	struct spec sp;
	struct tracer_spec_info info = { .spec = &sp, .nprobes = 1 };
	struct agg_spec as = { .spec = &sp, .info = &info, .nrows = keys };
	struct agg_snapshot snap = { .nspecs = 1, .specs = &as };
	struct record_target t = { .binary = "", .interval_s = 1 };
	struct record *rec;
	char err[128];

	if (!rows || !order ||
	    spec_parse("fixture:ints=count(arg3)", &sp, err, sizeof(err)))
		return -1;
	rec = record_open(path);
	if (!rec || record_target(rec, &t))
		return -1;
	for (size_t k = 0; k < keys; k++) {
		rows[k].id = k + 1;
		rows[k].nkeys = 1;
		rows[k].key[0].num = (int64_t)((1ULL << 40) | k);
		order[k] = &rows[k];
	}
	as.rows = order;
	for (unsigned i = 0; i < n; i++) {
		for (size_t k = 0; k < keys; k++) {
			rows[k].count = 1 + (k + 3 * i) % 7;
			rows[k].total += rows[k].count;
		}
		snap.interval = i + 1;
		snap.elapsed_s = i + 1;
		if (record_interval(rec, &snap, NULL))
			return -1;
	}
	printf("written: %zu keys, %u intervals, %.1f MB\n", keys, n,
	       (double)record_size(rec) / 1e6);
	record_free(rec);
	free(rows);
	free(order);
	return 0;
}

/* replay_seek(k) on the wall clock, in ms; < 0 if it failed. */
static double seek_ms(struct replay *rp, size_t k)
{
	char why[512];
	double t0 = now_s();

	if (replay_seek(rp, k, why, sizeof(why))) {
		fprintf(stderr, "seek %zu: %s\n", k, why);
		return -1;
	}
	return 1e3 * (now_s() - t0);
}

/* STEPS steps from the middle by dir; prints their mean and max. */
static void steps(struct replay *rp, size_t n, int dir, const char *what)
{
	enum {
		STEPS = 100
	};
	double sum = 0, max = 0;
	size_t k = n / 2;

	seek_ms(rp, k);
	for (int i = 0; i < STEPS; i++) {
		double ms = seek_ms(rp, k += (size_t)dir);

		sum += ms;
		max = ms > max ? ms : max;
	}
	printf("%-28s %.2f ms mean, %.2f ms max (%d steps)\n", what,
	       sum / STEPS, max, STEPS);
}

/* The whole recording as one range, as the console makes it. */
static double range_ms(struct replay *rp, size_t n)
{
	struct recrange_base base = { 0 };
	struct recrange rg = { 0 };
	double t0 = now_s();

	seek_ms(rp, n - 1);
	if (recrange_make(&rg, &base, replay_decoder(rp)))
		return -1;
	t0 = 1e3 * (now_s() - t0);
	recrange_free(&rg);
	return t0;
}

int main(int argc, char **argv)
{
	size_t keys = argc > 2 ? strtoul(argv[2], NULL, 10) : 10000;
	unsigned n = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 3600;
	struct replay *rp;
	char why[512];
	double t0;

	if (argc < 2 || !keys || !n || write_file(argv[1], keys, n))
		return 2;
	t0 = now_s();
	rp = replay_open(argv[1], why, sizeof(why));
	if (!rp || replay_index(rp, why, sizeof(why)) != REPLAY_END ||
	    seek_ms(rp, 0) < 0)
		return 1;
	printf("%-28s %.1f ms (%zu intervals indexed)\n",
	       "open, first interval", 1e3 * (now_s() - t0), replay_count(rp));
	t0 = now_s();
	replay_elapsed(rp, n / 3); /* g: a time's interval, unread */
	printf("%-28s %.2f ms\n", "an interval's time peeked",
	       1e3 * (now_s() - t0));
	printf("%-28s %.1f ms\n", "End, cold (from the start)",
	       seek_ms(rp, n - 1));
	printf("%-28s %.1f ms\n", "Home", seek_ms(rp, 0));
	printf("%-28s %.1f ms\n", "End again (marks kept)", seek_ms(rp, n - 1));
	steps(rp, n, 1, "step forward (.)");
	steps(rp, n, -1, "step back (,)");
	printf("%-28s %.1f ms\n", "range of all intervals", range_ms(rp, n));
	replay_free(rp);
	if (argc < 5 || strcmp(argv[4], "keep"))
		unlink(argv[1]);
	return 0;
}
