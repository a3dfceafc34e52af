// SPDX-License-Identifier: MIT
/* Unit tests of record/: a synthetic run of three intervals (a count
 * spec keyed by a string and a number, a quantize spec with buckets, a
 * sum spec, an IO and a process row) written with record.h and read
 * back with replay.h, field by field; names stored once; the same file
 * cut at every byte (what is before the cut replays, then CUT) and
 * with every byte of a record flipped (BAD or, for a flip the checksums
 * cannot see, the same result — never a crash); foreign and future
 * files; an existing file refused; varints at their edges; probe lists
 * ('P') written when they change and read back by interval; a frame of
 * an unknown type skipped. */
#include <errno.h>
#include <fcntl.h>
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
#include <zlib.h>

#include <cmocka.h>

#include "recbuf.h"
#include "recfile.h"
#include "record.h"
#include "replay.h"

#define NROWS 3
#define NINT 3

/* One synthetic run: its specs, rows and the snapshot of interval i. */
struct run {
	struct spec spec[3];
	struct tracer_spec_info info[3];
	struct agg_spec as[3];
	struct agg_row rows[3][NROWS];
	const struct agg_row *order[3][NROWS];
	uint64_t b[NROWS][PT_NBUCKETS], bt[NROWS][PT_NBUCKETS];
	struct agg_io_row io;
	struct agg_proc_row proc;
	struct agg_snapshot snap;
};

static const char *const SPECS[3] = {
	"fixture:str=count(str(arg0),arg1)",
	"fixture:ints=quantize(arg0)",
	"fixture:ints=sum(arg1)",
};

static void parse(struct run *r)
{
	char err[256];

	for (int s = 0; s < 3; s++) {
		assert_int_equal(
			spec_parse(SPECS[s], &r->spec[s], err, sizeof(err)), 0);
		r->info[s] = (struct tracer_spec_info){
			.spec = &r->spec[s],
			.nprobes = 1,
			.nsites = 2,
			.role_sites = { 2, 0 },
		};
	}
}

/* The rows of interval i (1..NINT): row k counts (k + 1) * i, the last
 * one idle in interval 2, in an order that changes. */
static void fill_rows(struct run *r, unsigned i)
{
	static const char *const NAME[NROWS] = { "alpha", "beta;gamma",
						 "a name with \"quotes\"" };

	for (int s = 0; s < 3; s++)
		for (int k = 0; k < NROWS; k++) {
			struct agg_row *w = &r->rows[s][k];
			uint64_t c =
				(i == 2 && k == 2) ? 0 : (uint64_t)(k + 1) * i;

			w->id = (uint64_t)(s * 10 + k + 1);
			w->pid = 100 + (uint32_t)k;
			w->count = c;
			w->total += c;
			w->sum = (int64_t)c * -3;
			w->sum_total += w->sum;
			w->mark = k == 1 && i == 3 ? AGG_ESTIMATE : AGG_EXACT;
			w->mark_total = w->mark;
			if (s == 0) {
				w->nkeys = 2;
				w->key[0] = (struct agg_key_part){
					.is_str = true, .text = NAME[k]
				};
				w->key[1] = (struct agg_key_part){
					.is_signed = true, .num = -7 * k
				};
				snprintf(w->key[0].str, sizeof(w->key[0].str),
					 "%s", NAME[k]);
				w->key[0].text = NULL;
			}
			if (s == 1) {
				memset(r->b[k], 0, sizeof(r->b[k]));
				r->b[k][3 + k] = c;
				r->bt[k][3 + k] += c;
				w->b = r->b[k];
				w->b_total = r->bt[k];
				w->min = -1 - k;
				w->max = 1000 * (int64_t)i;
			}
			r->order[s][(k + i) % NROWS] = w;
		}
}

static void fill_snap(struct run *r, unsigned i)
{
	fill_rows(r, i);
	for (int s = 0; s < 3; s++) {
		struct agg_spec *as = &r->as[s];

		*as = (struct agg_spec){
			.id = s,
			.spec = &r->spec[s],
			.info = &r->info[s],
			.nrows = NROWS,
			.rows = r->order[s],
			.events = 10 * i,
			.events_total = 10 * i * (i + 1) / 2,
			.drops = i,
			.drops_total = i * 2,
			.capacity = 4096,
			.cost_pct = 0.125 * i,
			.estimated = i == 3,
			.duty = 0.5,
		};
		as->why[AGG_DROP_STR] = i;
	}
	r->io.pid = 42;
	r->io.cls = 1;
	r->io.now.calls = i;
	r->io.total.calls += i;
	r->io.now.b[5] = i;
	r->proc = (struct agg_proc_row){ .pid = 42, .event = 3, .code = -9 };
	snprintf(r->proc.name, sizeof(r->proc.name), "%s", "worker");
	r->proc.now.count = i;
	r->snap = (struct agg_snapshot){
		.interval = i,
		.elapsed_s = 0.25 * i,
		.events = 30 * i,
		.events_total = 45 * i,
		.nspecs = 3,
		.specs = r->as,
		.nio = 1,
		.io = &r->io,
		.nproc = 1,
		.proc = &r->proc,
		.budget_pct = -1,
		.overhead = { .cpu_pct = 1.5,
			      .target_pct = -1,
			      .syscall_ns = 250,
			      .stats_s = 0.1 * i,
			      .nprogs = 2,
			      .progs = { { "pt_usdt", 100 * i, 7000 * i },
					 { "pt_walk_native", i, 997 * i } } },
		.overhead_total = { .stats_s = 0.3 * i,
				    .nprogs = 1,
				    .progs = { { "pt_oncpu", 5, 9 } } },
	};
	r->snap.kdrops[1] = i;
}

static bool shown(const struct agg_row *w, bool final)
{
	return final ? w->total > 0 : w->count > 0;
}

static void check_row(const struct agg_spec *as, const struct agg_row *g,
		      const struct agg_row *w, bool final)
{
	assert_int_equal(g->nkeys, w->nkeys);
	assert_int_equal(g->pid, w->pid);
	for (int k = 0; k < w->nkeys; k++) {
		assert_int_equal(g->key[k].is_str, w->key[k].is_str);
		if (w->key[k].is_str)
			assert_string_equal(agg_key_text(&g->key[k]),
					    agg_key_text(&w->key[k]));
		else
			assert_int_equal(g->key[k].num, w->key[k].num);
	}
	if (!final) {
		assert_int_equal(g->count, w->count);
		assert_int_equal(g->mark, w->mark);
	}
	assert_int_equal(g->total, w->total);
	if (as->spec->agg == SPEC_AGG_SUM || spec_has_buckets(as->spec)) {
		if (!final)
			assert_int_equal(g->sum, w->sum);
		assert_int_equal(g->sum_total, w->sum_total);
	}
	assert_int_equal(g->mark_total, w->mark_total);
	if (!spec_has_buckets(as->spec))
		return;
	assert_int_equal(g->min, w->min);
	assert_int_equal(g->max, w->max);
	assert_memory_equal(final ? g->b_total : g->b,
			    final ? w->b_total : w->b,
			    (size_t)agg_nbuckets(as->spec) * sizeof(uint64_t));
	assert_memory_equal(g->b_total, w->b_total,
			    (size_t)agg_nbuckets(as->spec) * sizeof(uint64_t));
}

static void check_spec(const struct agg_spec *g, const struct agg_spec *w,
		       bool final)
{
	size_t n = 0;

	assert_string_equal(g->spec->text, w->spec->text);
	assert_int_equal(g->id, w->id);
	assert_int_equal(g->info->nsites, w->info->nsites);
	assert_int_equal(g->info->role_sites[0], w->info->role_sites[0]);
	assert_int_equal(g->events, w->events);
	assert_int_equal(g->events_total, w->events_total);
	assert_int_equal(g->drops_total, w->drops_total);
	assert_int_equal(g->why[AGG_DROP_STR], w->why[AGG_DROP_STR]);
	assert_int_equal(g->capacity, w->capacity);
	assert_true(g->cost_pct == w->cost_pct);
	assert_int_equal(g->estimated, w->estimated);
	for (size_t i = 0; i < w->nrows; i++) {
		if (!shown(w->rows[i], final))
			continue;
		assert_true(n < g->nrows);
		check_row(w, g->rows[n++], w->rows[i], final);
	}
	if (final) {
		assert_int_equal(g->nrows, n);
		return;
	}
	/* after an interval's counted rows, the others that have a total,
	 * as the live snapshot lists them: by total, descending */
	for (size_t i = n; i < g->nrows; i++) {
		assert_int_equal(g->rows[i]->count, 0);
		assert_true(g->rows[i]->total > 0);
		assert_true(i == n ||
			    g->rows[i]->total <= g->rows[i - 1]->total);
	}
}

/* Format 1.2's: the syscall price, the statistics' time, the programs. */
static void check_overhead_more(const struct agg_overhead *g,
				const struct agg_overhead *w)
{
	assert_true(g->syscall_ns == w->syscall_ns);
	assert_true(g->stats_s == w->stats_s);
	assert_int_equal(g->nprogs, w->nprogs);
	for (size_t i = 0; i < w->nprogs; i++) {
		assert_string_equal(g->progs[i].name, w->progs[i].name);
		assert_int_equal(g->progs[i].runs, w->progs[i].runs);
		assert_int_equal(g->progs[i].ns, w->progs[i].ns);
	}
}

/* got, replayed, against want, the snapshot recorded. */
static void check_snap(const struct agg_snapshot *g,
		       const struct agg_snapshot *w, bool final)
{
	assert_int_equal(g->interval, w->interval);
	assert_true(g->elapsed_s == w->elapsed_s);
	assert_int_equal(g->events_total, w->events_total);
	assert_int_equal(g->kdrops[1], w->kdrops[1]);
	assert_true(g->overhead.target_pct == w->overhead.target_pct);
	check_overhead_more(&g->overhead, &w->overhead);
	check_overhead_more(&g->overhead_total, &w->overhead_total);
	assert_true(g->budget_pct == w->budget_pct);
	assert_int_equal(g->nspecs, w->nspecs);
	for (size_t s = 0; s < w->nspecs; s++)
		check_spec(&g->specs[s], &w->specs[s], final);
	assert_int_equal(g->nio, 1);
	assert_int_equal(g->io[0].now.calls, w->io[0].now.calls);
	assert_int_equal(g->io[0].now.b[5], w->io[0].now.b[5]);
	assert_int_equal(g->nproc, 1);
	assert_string_equal(g->proc[0].name, "worker");
	assert_int_equal(g->proc[0].code, -9);
}

static char path[64];

static void new_path(void)
{
	snprintf(path, sizeof(path), "/tmp/test_record.%d", (int)getpid());
	unlink(path);
}

static const char *command(void *ctx, uint32_t pid)
{
	(void)ctx;
	return pid == 100 ? "app --one" : "app";
}

/* spec 1 is the python probeset's frames.calls; the others -e's */
static void origin(void *ctx, int id, struct record_origin *o)
{
	(void)ctx;
	*o = (struct record_origin){ 0 };
	if (id == 1)
		*o = (struct record_origin){ "python", "frames", "calls" };
}

static const struct record_names NAMES = { command, origin, NULL };

/* r parsed, a new file at path with target t written. */
static struct record *start_run(struct run *r, const struct record_target *t)
{
	struct record *rec;

	memset(r, 0, sizeof(*r));
	parse(r);
	new_path();
	rec = record_open(path);
	assert_non_null(rec);
	assert_int_equal(record_target(rec, t), 0);
	return rec;
}

/* Record NINT intervals (a message after the first) and the final. */
static void write_run(void)
{
	static struct run r;
	char *argv[] = { "app", "--one", NULL };
	struct record_target t = { .pid = 0,
				   .binary = "/usr/bin/app",
				   .command = argv,
				   .interval_s = 0.25,
				   .per_pid = true };
	struct record *rec = start_run(&r, &t);

	for (unsigned i = 1; i <= NINT; i++) {
		fill_snap(&r, i);
		assert_int_equal(record_interval(rec, &r.snap, &NAMES), 0);
		if (i == 1)
			assert_int_equal(record_message(rec, "exec'd x"), 0);
	}
	assert_int_equal(record_final(rec, &r.snap), 0);
	record_free(rec);
}

static void test_roundtrip(void **state)
{
	static struct run want;
	char why[256];
	struct replay *rp;
	const struct record_target *t;
	struct stat st;

	(void)state;
	write_run();
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	memset(&want, 0, sizeof(want));
	parse(&want);
	rp = replay_open(path, why, sizeof(why));
	assert_non_null(rp);
	assert_int_equal(replay_next(rp, why, sizeof(why)), REPLAY_TARGET);
	t = replay_target(rp);
	assert_string_equal(t->binary, "/usr/bin/app");
	assert_string_equal(t->command[1], "--one");
	assert_null(t->command[2]);
	assert_true(t->per_pid);
	assert_true(t->interval_s == 0.25);
	for (unsigned i = 1; i <= NINT; i++) {
		fill_snap(&want, i);
		assert_int_equal(replay_next(rp, why, sizeof(why)),
				 REPLAY_INTERVAL);
		check_snap(replay_snapshot(rp), &want.snap, false);
		if (i == 1) {
			assert_int_equal(replay_next(rp, why, sizeof(why)),
					 REPLAY_MESSAGE);
			assert_string_equal(replay_message(rp), "exec'd x");
		}
	}
	{
		struct record_origin o;

		replay_origin(rp, 1, &o);
		assert_string_equal(o.probeset, "python");
		assert_string_equal(o.section, "frames");
		assert_string_equal(o.role, "calls");
		replay_origin(rp, 0, &o);
		assert_string_equal(o.role, "");
	}
	assert_string_equal(replay_command(rp, 100), "app --one");
	assert_string_equal(replay_command(rp, 101), "app");
	assert_string_equal(replay_command(rp, 7), "");
	assert_int_equal(replay_next(rp, why, sizeof(why)), REPLAY_FINAL);
	check_snap(replay_snapshot(rp), &want.snap, true);
	assert_int_equal(replay_next(rp, why, sizeof(why)), REPLAY_END);
	assert_int_equal(replay_next(rp, why, sizeof(why)), REPLAY_END);
	assert_int_equal(replay_intervals(rp), NINT);
	replay_free(rp);
	replay_free(NULL);
	unlink(path);
}

/* The file's bytes into *len; the caller frees them. */
static unsigned char *slurp(size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = malloc(1 << 20);

	assert_non_null(f);
	assert_non_null(p);
	*len = fread(p, 1, 1 << 20, f);
	fclose(f);
	return p;
}

static void spill(const unsigned char *p, size_t len)
{
	FILE *f;

	unlink(path);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, len, f), len);
	fclose(f);
}

/* How many times s is in the bodies of the frames of p[0..len). */
static int in_bodies(const unsigned char *p, size_t len, const char *s)
{
	int n = 0;

	for (size_t at = 16; at + 20 <= len;) {
		uLongf clen = recbuf_get_le32(p + at + 4),
		       blen = recbuf_get_le32(p + at + 8);
		unsigned char *body = malloc(blen + 1);
		const unsigned char *q = body, *end = body + blen;

		assert_non_null(body);
		assert_int_equal(uncompress(body, &blen, p + at + 20, clen),
				 Z_OK);
		while ((q = memmem(q, (size_t)(end - q), s, strlen(s)))) {
			n++;
			q++;
		}
		free(body);
		at += 20 + clen;
	}
	return n;
}

static void test_names_once(void **state)
{
	size_t len;
	unsigned char *p;

	(void)state;
	write_run();
	p = slurp(&len);
	/* counted in 3 intervals each, written once */
	assert_int_equal(in_bodies(p, len, "a name with"), 1);
	assert_int_equal(in_bodies(p, len, "beta;gamma"), 1);
	assert_int_equal(in_bodies(p, len, "fixture:ints=quantize"), 1);
	assert_int_equal(in_bodies(p, len, "app --one"), 1);
	free(p);
	unlink(path);
}

/* Replay the file to its end: the last event, the intervals read. */
static enum replay_event replay_to_end(unsigned *intervals, bool *opened)
{
	char why[256];
	struct replay *rp = replay_open(path, why, sizeof(why));
	enum replay_event ev;

	*opened = rp != NULL;
	*intervals = 0;
	if (!rp)
		return REPLAY_BAD;
	do
		ev = replay_next(rp, why, sizeof(why));
	while (ev != REPLAY_END && ev != REPLAY_CUT && ev != REPLAY_BAD);
	*intervals = replay_intervals(rp);
	replay_free(rp);
	return ev;
}

/* Cut at every byte: what is before the cut replays, never an error. */
static void test_cut(void **state)
{
	size_t len;
	unsigned char *p;
	unsigned last = 0;

	(void)state;
	write_run();
	p = slurp(&len);
	for (size_t cut = 16; cut < len; cut++) {
		unsigned n;
		bool opened;
		enum replay_event ev;

		spill(p, cut);
		ev = replay_to_end(&n, &opened);
		assert_true(opened);
		assert_true(ev == REPLAY_CUT || ev == REPLAY_END);
		assert_true(n >= last && n <= NINT);
		last = n;
	}
	assert_int_equal(last, NINT);
	free(p);
	unlink(path);
}

/* Flip each bit of one byte at a time after the header: always BAD. */
static void test_flip(void **state)
{
	size_t len;
	unsigned char *p;

	(void)state;
	write_run();
	p = slurp(&len);
	for (size_t at = 16; at < len; at++) {
		unsigned n;
		bool opened;

		p[at] ^= 0x10;
		spill(p, len);
		assert_int_equal(replay_to_end(&n, &opened), REPLAY_BAD);
		p[at] ^= 0x10;
	}
	free(p);
	unlink(path);
}

static void test_foreign(void **state)
{
	unsigned char h[16];
	char why[256];

	(void)state;
	new_path();
	spill((const unsigned char *)"#!/bin/sh\necho hello, world\n", 28);
	assert_null(replay_open(path, why, sizeof(why)));
	assert_string_equal(why, "not a probetop recording");
	spill(h, 0);
	assert_null(replay_open(path, why, sizeof(why)));
	assert_string_equal(why, "not a probetop recording");
	/* a later format: major 2 */
	memcpy(h, "PTRECORD\2\0\0\0", 12);
	recbuf_le32(h + 12, (uint32_t)crc32(0, h, 12));
	spill(h, 16);
	assert_null(replay_open(path, why, sizeof(why)));
	assert_string_equal(
		why, "recording format 2.0; this probetop reads format 1");
	unlink(path);
	assert_null(replay_open(path, why, sizeof(why)));
	assert_string_equal(why, strerror(ENOENT));
}

/* An existing file is never overwritten; a new one is 0600 whatever the
 * umask. */
static void test_exists(void **state)
{
	struct stat st;
	mode_t was = umask(0);
	struct record *rec;

	(void)state;
	new_path();
	rec = record_open(path);
	assert_non_null(rec);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	record_free(rec);
	record_free(NULL);
	errno = 0;
	assert_null(record_open(path));
	assert_int_equal(errno, EEXIST);
	umask(was);
	unlink(path);
}

static void test_varint(void **state)
{
	static const int64_t V[] = { 0,	  1,	     -1,	63,
				     -64, 64,	     127,	128,
				     300, INT64_MAX, INT64_MIN, -1234567 };
	struct recbuf b = { 0 };
	struct recread r;

	(void)state;
	for (size_t i = 0; i < sizeof(V) / sizeof(V[0]); i++) {
		recbuf_sv(&b, V[i]);
		recbuf_uv(&b, (uint64_t)V[i]);
	}
	recbuf_f64(&b, -0.0);
	recbuf_f64(&b, 1e300);
	recbuf_str(&b, "name");
	r = (struct recread){ .p = b.p, .len = b.len };
	for (size_t i = 0; i < sizeof(V) / sizeof(V[0]); i++) {
		assert_int_equal(recread_sv(&r), V[i]);
		assert_int_equal(recread_uv(&r), (uint64_t)V[i]);
	}
	assert_true(recread_f64(&r) == 0.0);
	assert_true(recread_f64(&r) == 1e300);
	{
		size_t n;
		const char *s = recread_str(&r, &n);

		assert_int_equal(n, 4);
		assert_memory_equal(s, "name", 4);
	}
	assert_false(r.bad);
	assert_int_equal(recread_uv(&r), 0);
	assert_true(r.bad);
	/* a count larger than the bytes left */
	r = (struct recread){ .p = (const unsigned char *)"\x7f", .len = 1 };
	assert_int_equal(recread_count(&r, 1), 0);
	assert_true(r.bad);
	recbuf_free(&b);
}

/* Probe lists ('P', format 1.1): A before interval 1, A again (not
 * written: unchanged), B (a library loaded) before interval 3. */
static const struct record_probe PROBES_A[] = {
	{ "/usr/bin/app", "app", "start", "-4@%edi", 1, false, 1 },
	{ "/usr/bin/app", "app", "query", "8@%rsi -8@%rdx", 2, true, 3 },
};
static const struct record_probe PROBES_B[] = {
	{ "/usr/bin/app", "app", "start", "-4@%edi", 1, false, 1 },
	{ "/usr/bin/app", "app", "query", "8@%rsi -8@%rdx", 2, true, 3 },
	{ "/usr/lib/libx.so.1", "libx", "call", "", 0, false, 2 },
};

static void check_probes(struct replay *rp, const struct record_probe *want,
			 size_t nwant)
{
	size_t n;
	const struct record_probe *v = replay_probes(rp, &n);

	assert_non_null(v);
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(v[i].object, want[i].object);
		assert_string_equal(v[i].provider, want[i].provider);
		assert_string_equal(v[i].name, want[i].name);
		assert_string_equal(v[i].args, want[i].args);
		assert_int_equal(v[i].nargs, want[i].nargs);
		assert_int_equal(v[i].semaphore, want[i].semaphore);
		assert_int_equal(v[i].nlocs, want[i].nlocs);
	}
}

/* Frames of type in the file at path. */
static unsigned count_frames(int type)
{
	struct recfile_reader rd;
	char why[256];
	unsigned n = 0;
	uint64_t at;
	int t;

	assert_int_equal(recfile_reader_open(&rd, path, why, sizeof(why)), 0);
	assert_int_equal(rd.minor, RECFILE_MINOR);
	while (recfile_skip(&rd, &t, &at, why, sizeof(why)) == RECFILE_OK)
		n += t == type;
	recfile_reader_close(&rd);
	return n;
}

static void test_probes(void **state)
{
	static struct run r;
	static const struct record_target t = { .interval_s = 1 };
	const struct record_probe *const lists[] = { PROBES_A, PROBES_A,
						     PROBES_B };
	const size_t sizes[] = { 2, 2, 3 };
	struct record *rec;
	struct replay *rp;
	char why[256];

	(void)state;
	rec = start_run(&r, &t);
	for (unsigned i = 1; i <= NINT; i++) {
		fill_snap(&r, i);
		assert_int_equal(record_probes(rec, lists[i - 1], sizes[i - 1]),
				 0);
		assert_int_equal(record_interval(rec, &r.snap, &NAMES), 0);
	}
	assert_int_equal(record_final(rec, &r.snap), 0);
	record_free(rec);
	assert_int_equal(count_frames(RECFILE_PROBES), 2);

	/* read in order, the lists are skipped: the same events */
	rp = replay_open(path, why, sizeof(why));
	assert_non_null(rp);
	assert_int_equal(replay_next(rp, why, sizeof(why)), REPLAY_TARGET);
	for (unsigned i = 1; i <= NINT; i++)
		assert_int_equal(replay_next(rp, why, sizeof(why)),
				 REPLAY_INTERVAL);
	assert_int_equal(replay_next(rp, why, sizeof(why)), REPLAY_FINAL);
	assert_int_equal(replay_next(rp, why, sizeof(why)), REPLAY_END);
	replay_free(rp);

	/* by interval, back and forth: the list last written before it */
	rp = replay_open(path, why, sizeof(why));
	assert_non_null(rp);
	assert_int_equal(replay_index(rp, why, sizeof(why)), REPLAY_END);
	assert_int_equal(replay_count(rp), NINT);
	for (int k = NINT - 1; k >= 0; k--) {
		assert_int_equal(replay_seek(rp, (size_t)k, why, sizeof(why)),
				 0);
		check_probes(rp, lists[k], sizes[k]);
	}
	assert_int_equal(replay_seek(rp, NINT - 1, why, sizeof(why)), 0);
	check_probes(rp, PROBES_B, 3);
	replay_free(rp);

	/* a recording without one (as 1.0 wrote it) lists none */
	write_run();
	rp = replay_open(path, why, sizeof(why));
	assert_non_null(rp);
	assert_int_equal(replay_index(rp, why, sizeof(why)), REPLAY_END);
	assert_int_equal(replay_seek(rp, 0, why, sizeof(why)), 0);
	{
		size_t n = 1;

		assert_null(replay_probes(rp, &n));
		assert_int_equal(n, 0);
	}
	replay_free(rp);
	unlink(path);
}

/* A frame of a type this probetop does not know (a later minor's), after
 * the target and at the end: skipped by its length, in order and by
 * the index alike (what makes 'P' readable by a 1.0 reader). */
static void test_unknown_type(void **state)
{
	struct recbuf body = { 0 }, tmp = { 0 };
	unsigned char *p, *q;
	size_t len, tend, zlen;
	uint64_t end = 0;
	unsigned n;
	bool opened;
	char why[256], zpath[80];
	struct replay *rp;
	int fd;

	(void)state;
	write_run();
	p = slurp(&len);
	tend = 16 + 20 + recbuf_get_le32(p + 16 + 4); /* after 'T' */
	snprintf(zpath, sizeof(zpath), "%s.z", path);
	fd = open(zpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	recbuf_str(&body, "a record of a later minor");
	assert_int_equal(recfile_put(fd, &end, 'Z', &body, &tmp), 0);
	zlen = (size_t)end;
	q = malloc(len + 2 * zlen);
	assert_non_null(q);
	assert_int_equal(pread(fd, q + tend, zlen, 0), (ssize_t)zlen);
	close(fd);
	unlink(zpath);
	memcpy(q, p, tend);
	memcpy(q + tend + zlen, p + tend, len - tend);
	memcpy(q + len + zlen, q + tend, zlen);
	spill(q, len + 2 * zlen);
	assert_int_equal(replay_to_end(&n, &opened), REPLAY_END);
	assert_int_equal(n, NINT);
	rp = replay_open(path, why, sizeof(why));
	assert_non_null(rp);
	assert_int_equal(replay_index(rp, why, sizeof(why)), REPLAY_END);
	assert_int_equal(replay_count(rp), NINT);
	for (size_t k = 0; k < NINT; k++)
		assert_int_equal(replay_seek(rp, k, why, sizeof(why)), 0);
	replay_free(rp);
	recbuf_free(&body);
	recbuf_free(&tmp);
	free(p);
	free(q);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_names_once),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_flip),
		cmocka_unit_test(test_foreign),
		cmocka_unit_test(test_exists),
		cmocka_unit_test(test_varint),
		cmocka_unit_test(test_probes),
		cmocka_unit_test(test_unknown_type),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
