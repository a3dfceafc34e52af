// SPDX-License-Identifier: MIT
/*
 * bench_replay — the console replay's reading of a long recording
 * (issue 37: a one-hour recording opens in under 1 s and steps between
 * intervals in under 50 ms): times, on the wall clock, what the console
 * does with record/replay.h on FILE (tests/bench/replay.sh has
 * bench_record write an hour): open (replay_open(), replay_index(), the
 * first interval read), an unread interval's time peeked (g), End and
 * Home, steps forward and back from the middle, and the range of the
 * whole recording. Prints one line each.
 * Usage: bench_replay FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "recrange.h"
#include "replay.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
	struct replay *rp;
	char why[512];
	double t0 = now_s();
	size_t n;

	if (argc != 2)
		return 2;
	rp = replay_open(argv[1], why, sizeof(why));
	if (!rp || replay_index(rp, why, sizeof(why)) != REPLAY_END ||
	    (n = replay_count(rp)) < 2 * 100 || seek_ms(rp, 0) < 0) {
		fprintf(stderr,
			"bench_replay: %s: not a whole recording of "
			"200 intervals or more\n",
			argv[1]);
		return 1;
	}
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
	return 0;
}
