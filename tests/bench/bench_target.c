// SPDX-License-Identifier: MIT
/*
 * bench_target — fires one probe in a tight loop and times it.
 *
 * Prints "ready PID"; each line "hit N" or "pair N" on stdin runs the loop
 * N times and prints "ns TOTAL" (the loop's wall time). hit fires
 * bench:hit (i, one of 4 short strings); pair fires bench:enter (i) and
 * bench:leave (i), so a latency pair has two events per iteration; "keys
 * N" fires bench:key (i, "key-" and i in decimal) for i = 0..N-1, so that a
 * spec keyed by either argument has N keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

static const char *const KEYS[4] = { "alpha", "bravo", "charlie", "delta" };

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* bench:key (i, "key-<i>") for i = 0..n-1 */
static void fire_keys(long n)
{
	char key[32];

	for (long i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "key-%ld", i);
		STAP_PROBE2(bench, key, i, key);
	}
}

int main(void)
{
	char line[64];
	long n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %d\n", (int)getpid());
	while (fgets(line, sizeof(line), stdin)) {
		long long t0 = now_ns();

		if (sscanf(line, "hit %ld", &n) == 1) {
			for (long i = 0; i < n; i++)
				STAP_PROBE2(bench, hit, i, KEYS[i & 3]);
		} else if (sscanf(line, "pair %ld", &n) == 1) {
			for (long i = 0; i < n; i++) {
				STAP_PROBE1(bench, enter, i);
				STAP_PROBE1(bench, leave, i);
			}
		} else if (sscanf(line, "keys %ld", &n) == 1) {
			fire_keys(n);
		} else {
			break;
		}
		printf("ns %lld\n", now_ns() - t0);
	}
	return 0;
}
