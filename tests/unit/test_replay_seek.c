// SPDX-License-Identifier: MIT
/* Unit tests of the console's replay in record/: a synthetic run of
 * NINT intervals (a count spec of NK numeric keys and a quantize spec,
 * each row counting a known number an interval, some idle) written with
 * record.h, then read with replay_index() and replay_seek() in an order
 * that goes back and forth over the marks kept every few intervals:
 * every interval's rows and totals are what was written; ranges
 * (recrange.h) give the sums of their intervals, counted here; the
 * same with the marks thinned to a small budget; a file
 * cut inside an interval's record replays the intervals before it; a
 * body flipped behind its head is found when it is read, and what is
 * before it still replays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "recdec.h"
#include "record.h"
#include "recrange.h"
#include "replay.h"

#define NINT 70
#define NK 12

static char path[64];
static uint64_t frame_at[NINT + 1]; /* each interval's record's offset */

/* What row k of spec s counts in interval i (0-based): 0..4, so that
 * rows are idle in some intervals. */
static uint64_t count_of(int s, int k, unsigned i)
{
	return (uint64_t)((k * 3 + (int)i * 7 + s) % 5);
}

/* The bucket row k of the quantize spec counts in. */
static int bucket_of(int k, unsigned i)
{
	return 2 + (k + (int)i) % 4;
}

struct run {
	struct spec spec[2];
	struct tracer_spec_info info[2];
	struct agg_spec as[2];
	struct agg_row rows[2][NK];
	const struct agg_row *order[2][NK];
	uint64_t b[NK][PT_NBUCKETS], bt[NK][PT_NBUCKETS];
	struct agg_io_row io;
	struct agg_proc_row proc;
	struct agg_snapshot snap;
};

/* The IO row's calls and the process row's exits in interval i. */
static uint64_t io_of(unsigned i)
{
	return 1 + i % 3;
}

static void fill(struct run *r, unsigned i)
{
	for (int s = 0; s < 2; s++) {
		uint64_t events = 0;

		for (int k = 0; k < NK; k++) {
			struct agg_row *w = &r->rows[s][k];

			w->id = (uint64_t)(s * 100 + k + 1);
			w->nkeys = 1;
			w->key[0].num = 1000 + k;
			w->count = count_of(s, k, i);
			w->total += w->count;
			events += w->count;
			if (s == 1) {
				memset(r->b[k], 0, sizeof(r->b[k]));
				r->b[k][bucket_of(k, i)] = w->count;
				r->bt[k][bucket_of(k, i)] += w->count;
				w->sum = (int64_t)w->count * 10;
				w->sum_total += w->sum;
				w->b = r->b[k];
				w->b_total = r->bt[k];
			}
			r->order[s][k] = w;
		}
		r->as[s] = (struct agg_spec){
			.id = s,
			.spec = &r->spec[s],
			.info = &r->info[s],
			.nrows = NK,
			.rows = r->order[s],
			.events = events,
			.events_total = r->as[s].events_total + events,
		};
	}
	r->io.pid = r->proc.pid = 42;
	r->io.cls = 1;
	r->io.now.calls = io_of(i);
	r->io.total.calls += io_of(i);
	r->io.now.b[4] = io_of(i);
	r->io.total.b[4] += io_of(i);
	r->proc.event = 3;
	snprintf(r->proc.name, sizeof(r->proc.name), "child");
	r->proc.now.count = 2 * io_of(i);
	r->proc.total.count += 2 * io_of(i);
	r->snap.nio = r->snap.nproc = 1;
	r->snap.io = &r->io;
	r->snap.proc = &r->proc;
	r->snap.interval = i + 1;
	r->snap.elapsed_s = 0.5 * (i + 1);
	r->snap.nspecs = 2;
	r->snap.specs = r->as;
}

static void write_run(void)
{
	static const char *const SPECS[2] = { "fixture:ints=count(arg0)",
					      "fixture:ints=quantize(arg0)" };
	static struct run r;
	struct record_target t = { .pid = 7, .binary = "", .interval_s = 0.5 };
	struct record *rec;
	char err[256];

	memset(&r, 0, sizeof(r));
	for (int s = 0; s < 2; s++) {
		assert_int_equal(
			spec_parse(SPECS[s], &r.spec[s], err, sizeof(err)), 0);
		r.info[s] = (struct tracer_spec_info){ .spec = &r.spec[s] };
	}
	snprintf(path, sizeof(path), "/tmp/test_replay_seek.%d", (int)getpid());
	unlink(path);
	rec = record_open(path);
	assert_non_null(rec);
	assert_int_equal(record_target(rec, &t), 0);
	for (unsigned i = 0; i < NINT; i++) {
		fill(&r, i);
		frame_at[i] = record_size(rec);
		assert_int_equal(record_interval(rec, &r.snap, NULL), 0);
		if (i == 5)
			assert_int_equal(record_message(rec, "after six"), 0);
	}
	frame_at[NINT] = record_size(rec);
	record_free(rec);
}

static struct replay *open_indexed(enum replay_event want, size_t n)
{
	char why[512];
	struct replay *rp = replay_open(path, why, sizeof(why));

	assert_non_null(rp);
	assert_int_equal(replay_index(rp, why, sizeof(why)), want);
	assert_int_equal(replay_count(rp), n);
	return rp;
}

/* The snapshot shows interval i: each row counted so far with its count
 * in it (0 for one that counted nothing: listed as live lists it) and
 * its total over 0..i. */
static void check_interval(const struct agg_snapshot *snap, unsigned i)
{
	assert_int_equal(snap->interval, i + 1);
	assert_int_equal(snap->nspecs, 2);
	for (int s = 0; s < 2; s++) {
		const struct agg_spec *as = &snap->specs[s];
		size_t want = 0;

		for (int k = 0; k < NK; k++) {
			uint64_t so_far = 0;

			for (unsigned x = 0; x <= i; x++)
				so_far += count_of(s, k, x);
			want += so_far != 0;
		}
		assert_int_equal(as->nrows, want);
		for (size_t j = 0; j < as->nrows; j++) {
			const struct agg_row *w = as->rows[j];
			int k = (int)(w->key[0].num - 1000);
			uint64_t total = 0;

			for (unsigned x = 0; x <= i; x++)
				total += count_of(s, k, x);
			assert_int_equal(w->count, count_of(s, k, i));
			assert_int_equal(w->total, total);
			if (s == 1)
				assert_int_equal(w->b[bucket_of(k, i)],
						 w->count);
		}
	}
}

static void test_seek(void **state)
{
	static const unsigned ORDER[] = { 0, 1,	 69, 35, 34, 33, 16, 15,
					  0, 50, 49, 17, 31, 32, 47, 48 };
	struct replay *rp;
	size_t nmsgs;
	const struct replay_msg *m;
	char why[512];

	(void)state;
	write_run();
	rp = open_indexed(REPLAY_END, NINT);
	assert_int_equal(replay_target(rp)->pid, 7);
	m = replay_messages(rp, &nmsgs);
	assert_int_equal(nmsgs, 1);
	assert_string_equal(m[0].text, "after six");
	assert_int_equal(m[0].after, 6);
	for (size_t j = 0; j < sizeof(ORDER) / sizeof(ORDER[0]); j++) {
		assert_int_equal(replay_seek(rp, ORDER[j], why, sizeof(why)),
				 0);
		check_interval(replay_snapshot(rp), ORDER[j]);
		assert_true(replay_seconds(rp, ORDER[j]) == 0.5);
		assert_true(replay_elapsed(rp, NINT - 1) == 0.5 * NINT);
	}
	assert_int_equal(replay_seek(rp, NINT, why, sizeof(why)), -1);
	replay_free(rp);
	unlink(path);
}

/* Marks thinned to a budget of a few: K doubles, and the intervals
 * read the same, back and forth, before and after the furthest read. */
static void test_thin(void **state)
{
	static const unsigned ORDER[] = { 20, 3, 69, 40, 39, 0, 68, 31, 32, 5 };
	struct replay *rp;
	char why[512];

	(void)state;
	write_run();
	rp = open_indexed(REPLAY_END, NINT);
	replay_mark_budget(rp, 3 * 1024);
	for (size_t j = 0; j < sizeof(ORDER) / sizeof(ORDER[0]); j++) {
		assert_int_equal(replay_seek(rp, ORDER[j], why, sizeof(why)),
				 0);
		check_interval(replay_snapshot(rp), ORDER[j]);
	}
	assert_true(replay_mark_every(rp) > 16);
	replay_free(rp);
	unlink(path);
}

/* Range a..b: each row's count the sum of its counts over a..b, the
 * buckets' too, the spec's events, the IO and process rows' values. */
static void check_range(struct replay *rp, unsigned a, unsigned b)
{
	struct recrange_base base = { 0 };
	struct recrange rg = { 0 };
	char why[512];
	uint64_t io;

	if (a) {
		assert_int_equal(replay_seek(rp, a - 1, why, sizeof(why)), 0);
		assert_int_equal(recrange_base(&base, replay_decoder(rp)), 0);
	}
	assert_int_equal(replay_seek(rp, b, why, sizeof(why)), 0);
	assert_int_equal(recrange_make(&rg, &base, replay_decoder(rp)), 0);
	for (int s = 0; s < 2; s++) {
		const struct agg_spec *as = &rg.snap.specs[s];
		uint64_t events = 0, last = UINT64_MAX;

		assert_int_equal(as->nrows, NK); /* each counts in 5 */
		for (size_t j = 0; j < as->nrows; j++) {
			const struct agg_row *w = as->rows[j];
			int k = (int)(w->key[0].num - 1000);
			uint64_t sum = 0, bsum[PT_NBUCKETS] = { 0 };

			for (unsigned x = a; x <= b; x++) {
				sum += count_of(s, k, x);
				bsum[bucket_of(k, x)] += count_of(s, k, x);
			}
			assert_int_equal(w->count, sum);
			assert_int_equal(w->total, sum);
			assert_true(w->count <= last); /* by count */
			last = w->count;
			events += sum;
			for (int x = 0; s == 1 && x < PT_NBUCKETS; x++)
				assert_int_equal(w->b[x], bsum[x]);
			if (s == 1)
				assert_int_equal(w->sum, (int64_t)sum * 10);
		}
		assert_int_equal(as->events, events);
	}
	io = 0;
	for (unsigned x = a; x <= b; x++)
		io += io_of(x);
	assert_int_equal(rg.snap.nio, 1);
	assert_int_equal(rg.snap.io[0].now.calls, io);
	assert_int_equal(rg.snap.io[0].now.b[4], io);
	assert_int_equal(rg.snap.nproc, 1);
	assert_int_equal(rg.snap.proc[0].now.count, 2 * io);
	assert_true(rg.snap.elapsed_s == 0.5 * (b + 1));
	recrange_free(&rg);
	recrange_base_clear(&base);
}

static void test_range(void **state)
{
	struct replay *rp;

	(void)state;
	write_run();
	rp = open_indexed(REPLAY_END, NINT);
	check_range(rp, 10, 40);
	check_range(rp, 0, 69);
	check_range(rp, 33, 37);
	check_range(rp, 17, 18);
	check_range(rp, 0, 4);
	replay_free(rp);
	unlink(path);
}

/* The file cut inside interval 40's record: 40 intervals replay. */
static void test_cut(void **state)
{
	struct replay *rp;
	char why[512];

	(void)state;
	write_run();
	assert_int_equal(truncate(path, (off_t)(frame_at[40] + 30)), 0);
	rp = open_indexed(REPLAY_CUT, 40);
	assert_int_equal(replay_seek(rp, 39, why, sizeof(why)), 0);
	check_interval(replay_snapshot(rp), 39);
	assert_int_equal(replay_seek(rp, 40, why, sizeof(why)), -1);
	replay_free(rp);
	unlink(path);
}

/* A byte of interval 30's body flipped: the index sees its head whole;
 * reading it fails, and the 30 before it still replay. */
static void test_flip(void **state)
{
	struct replay *rp;
	char why[512];
	FILE *f;
	int c;

	(void)state;
	write_run();
	f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, (long)frame_at[30] + 24, SEEK_SET);
	c = fgetc(f);
	fseek(f, (long)frame_at[30] + 24, SEEK_SET);
	fputc(c ^ 0x40, f);
	fclose(f);
	rp = open_indexed(REPLAY_END, NINT);
	assert_int_equal(replay_seek(rp, 50, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "bad record"));
	assert_int_equal(replay_count(rp), 30);
	assert_int_equal(replay_seek(rp, 29, why, sizeof(why)), 0);
	check_interval(replay_snapshot(rp), 29);
	replay_free(rp);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seek),  cmocka_unit_test(test_thin),
		cmocka_unit_test(test_range), cmocka_unit_test(test_cut),
		cmocka_unit_test(test_flip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
