// SPDX-License-Identifier: MIT
/* Unit tests of record/basetab.c and record/baseline.c (--baseline):
 * keys summed over intervals (pids merged, strings, numbers of either
 * sign kind and stacks told apart), histograms merged and min/max
 * widened, rates over the recorded seconds, delta and ratio, gone keys
 * (interval and final), a thousand keys past the table's growth; and a
 * recording written with record.h read back whole, cut (used, said),
 * corrupt, foreign, missing and empty (refused, with a reason). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "baseline.h"
#include "basetab.h"
#include "record.h"

static struct spec count_spec, hist_spec;

static void parse(const char *text, struct spec *out)
{
	char err[128];

	if (spec_parse(text, out, err, sizeof(err)))
		fail_msg("%s: %s", text, err);
}

static int setup(void **state)
{
	(void)state;
	parse("fixture:ints=count(str(arg0),arg1)", &count_spec);
	parse("fixture:ints=quantize(arg0)", &hist_spec);
	return 0;
}

/* A row keyed (s, num) of pid counting n. */
static void row(struct agg_row *r, const char *s, int64_t num, bool sign,
		uint32_t pid, uint64_t n)
{
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->nkeys = 2;
	r->key[0].is_str = true;
	snprintf(r->key[0].str, sizeof(r->key[0].str), "%s", s);
	r->key[1].num = num;
	r->key[1].is_signed = sign;
	r->count = n;
	r->total = n;
	r->sum = (int64_t)n * 10;
}

static int add(struct basetab *t, const struct spec *sp, struct agg_row *r,
	       size_t n)
{
	const struct agg_row *p[16];
	struct agg_spec as = { .spec = sp, .nrows = n, .rows = p };

	for (size_t i = 0; i < n; i++)
		p[i] = &r[i];
	return basetab_add(t, &as);
}

/* Two intervals: a key's counts summed, whatever its pid; a number of
 * the other sign kind, another string, another key; idle rows left
 * out; rates over the seconds. */
static void test_sums(void **state)
{
	struct basetab *t = basetab_new();
	struct agg_row r[5], q;
	const struct basetab_spec *bs;
	const struct basetab_row *br;

	(void)state;
	row(&r[0], "alpha", 7, true, 100, 3);
	row(&r[1], "alpha", 7, true, 200, 4); /* another pid, the same key */
	row(&r[2], "alpha", 7, false, 100, 5); /* unsigned 7 */
	row(&r[3], "beta", 7, true, 100, 0); /* idle */
	row(&r[4], "gamma", -1, true, 100, 9);
	assert_int_equal(add(t, &count_spec, r, 5), 0);
	row(&r[0], "alpha", 7, true, 300, 10);
	assert_int_equal(add(t, &count_spec, r, 1), 0);
	t->seconds = 4;
	bs = basetab_spec(t, count_spec.text);
	assert_non_null(bs);
	assert_null(basetab_spec(t, hist_spec.text));
	assert_int_equal(bs->nrows, 3);
	assert_int_equal(bs->events, 3 + 4 + 5 + 9 + 10);
	row(&q, "alpha", 7, true, 1, 1);
	br = basetab_find(bs, &q);
	assert_non_null(br);
	assert_int_equal(br->row.total, 17);
	assert_int_equal(br->row.sum_total, 170);
	assert_true(basetab_rate(t, br) == 17.0 / 4);
	q.key[1].is_signed = false;
	assert_int_equal(basetab_find(bs, &q)->row.total, 5);
	row(&q, "beta", 7, true, 1, 1);
	assert_null(basetab_find(bs, &q)); /* never counted */
	row(&q, "alpha", 8, true, 1, 1);
	assert_null(basetab_find(bs, &q));
	assert_null(basetab_find(NULL, &q));
	assert_true(basetab_rate(t, NULL) == 0);
	basetab_free(t);
}

/* Histograms: buckets summed per key, min and max over the intervals;
 * a stack key by its text. */
static void test_hists(void **state)
{
	struct basetab *t = basetab_new();
	uint64_t b1[PT_NBUCKETS] = { 0 }, b2[PT_NBUCKETS] = { 0 };
	struct agg_row r[2];
	const struct basetab_row *br;

	(void)state;
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 2; i++) {
		r[i].nkeys = 1;
		r[i].key[0].is_str = r[i].key[0].is_stack = true;
		r[i].key[0].text = "main;f;g";
	}
	b1[4] = 2;
	b1[9] = 1;
	b2[4] = 5;
	r[0].b = r[0].b_total = b1;
	r[0].count = 3;
	r[0].min = 10;
	r[0].max = 300;
	r[1].b = r[1].b_total = b2;
	r[1].count = 5;
	r[1].min = 8;
	r[1].max = 20;
	assert_int_equal(add(t, &hist_spec, &r[0], 1), 0);
	assert_int_equal(add(t, &hist_spec, &r[1], 1), 0);
	br = basetab_find(basetab_spec(t, hist_spec.text), &r[0]);
	assert_non_null(br);
	assert_string_equal(agg_key_text(&br->row.key[0]), "main;f;g");
	assert_int_equal(br->row.b_total[4], 7);
	assert_int_equal(br->row.b_total[9], 1);
	assert_int_equal(br->row.min, 8);
	assert_int_equal(br->row.max, 300);
	r[1].key[0].text = "main;f;h";
	assert_null(basetab_find(basetab_spec(t, hist_spec.text), &r[1]));
	basetab_free(t);
}

/* Delta and ratio: now against then, exactly; a base of 0 has no
 * finite ratio. */
static void test_compare(void **state)
{
	struct basetab_cmp c = basetab_compare(80.0 / 1.25, 30.0 / 0.75);

	(void)state;
	assert_true(c.rate == 64.0 && c.base == 40.0);
	assert_true(c.delta == 24.0);
	assert_true(c.ratio == 1.6);
	c = basetab_compare(2, 0);
	assert_true(isinf(c.ratio) && c.delta == 2);
	c = basetab_compare(0, 5);
	assert_true(c.ratio == 0 && c.delta == -5);
}

/* Gone: the baseline's keys none of the shown rows has (final: since
 * attach, else in the interval), most events first. */
/* Marks: a key is as sure as the least sure of its intervals, and a
 * rate held against a bound (or a bound against one) has no ratio. */
static void test_marks(void **state)
{
	struct basetab *t = basetab_new();
	struct agg_row r[2], q;
	const struct basetab_spec *bs;
	const struct basetab_row *exact, *bound;
	struct basetab_cmp c;

	(void)state;
	row(&r[0], "exact", 1, true, 100, 10);
	row(&r[1], "bound", 1, true, 100, 10);
	r[1].mark = AGG_ESTIMATE;
	assert_int_equal(add(t, &count_spec, r, 2), 0);
	row(&r[0], "exact", 1, true, 100, 10);
	row(&r[1], "bound", 1, true, 100, 10);
	r[1].mark = AGG_BOUND;
	assert_int_equal(add(t, &count_spec, r, 2), 0);
	row(&r[1], "bound", 1, true, 100, 10);
	r[1].mark = AGG_ESTIMATE; /* a later estimate: still a bound */
	assert_int_equal(add(t, &count_spec, r + 1, 1), 0);
	t->seconds = 2;
	bs = basetab_spec(t, count_spec.text);
	row(&q, "exact", 1, true, 1, 1);
	exact = basetab_find(bs, &q);
	row(&q, "bound", 1, true, 1, 1);
	bound = basetab_find(bs, &q);
	assert_int_equal(exact->row.mark, AGG_EXACT);
	assert_int_equal(bound->row.mark, AGG_BOUND);
	c = basetab_compare_marked(20, AGG_EXACT, t, exact);
	assert_false(c.bound);
	assert_true(c.ratio == 2.0);
	c = basetab_compare_marked(20, AGG_ESTIMATE, t, exact);
	assert_false(c.bound); /* an estimate keeps its promise */
	c = basetab_compare_marked(20, AGG_BOUND, t, exact);
	assert_true(c.bound);
	assert_true(isnan(c.ratio));
	assert_true(c.delta == 10);
	c = basetab_compare_marked(20, AGG_EXACT, t, bound);
	assert_true(c.bound);
	assert_true(isnan(c.ratio));
	c = basetab_compare_marked(20, AGG_EXACT, t, NULL); /* new */
	assert_false(c.bound);
	basetab_free(t);
}

static void test_gone(void **state)
{
	struct basetab *t = basetab_new();
	struct agg_row r[4];
	const struct agg_row *p[2];
	const struct basetab_row **gone;
	struct agg_spec now = { .spec = &count_spec, .nrows = 2, .rows = p };
	const struct basetab_spec *bs;
	size_t n;

	(void)state;
	row(&r[0], "a", 1, true, 1, 5);
	row(&r[1], "b", 1, true, 1, 50);
	row(&r[2], "c", 1, true, 1, 7);
	row(&r[3], "d", 1, true, 1, 1);
	assert_int_equal(add(t, &count_spec, r, 4), 0);
	bs = basetab_spec(t, count_spec.text);
	row(&r[0], "a", 1, true, 9, 0); /* counted before, not now */
	r[0].total = 3;
	row(&r[1], "new", 1, true, 9, 2);
	p[0] = &r[0];
	p[1] = &r[1];
	n = basetab_gone(bs, &now, false, &gone);
	assert_int_equal(n, 4);
	assert_string_equal(gone[0]->row.key[0].str, "b");
	assert_string_equal(gone[1]->row.key[0].str, "c");
	assert_string_equal(gone[2]->row.key[0].str, "a");
	assert_string_equal(gone[3]->row.key[0].str, "d");
	free(gone);
	n = basetab_gone(bs, &now, true, &gone);
	assert_int_equal(n, 3); /* a counted since attach */
	assert_string_equal(gone[2]->row.key[0].str, "d");
	free(gone);
	assert_int_equal(basetab_gone(NULL, &now, true, &gone), 0);
	assert_null(gone);
	basetab_free(t);
}

/* A thousand keys over three intervals: every one found with its sum,
 * through the table's growth. */
static void test_many(void **state)
{
	struct basetab *t = basetab_new();
	struct agg_row r;
	const struct basetab_spec *bs;
	char name[32];

	(void)state;
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 1000; k++) {
			snprintf(name, sizeof(name), "key%d", k);
			row(&r, name, k, false, 1, (uint64_t)k + 1);
			assert_int_equal(add(t, &count_spec, &r, 1), 0);
		}
	bs = basetab_spec(t, count_spec.text);
	assert_int_equal(bs->nrows, 1000);
	for (int k = 0; k < 1000; k++) {
		snprintf(name, sizeof(name), "key%d", k);
		row(&r, name, k, false, 1, 1);
		assert_int_equal(basetab_find(bs, &r)->row.total,
				 3 * ((uint64_t)k + 1));
	}
	basetab_free(t);
}

/* A recording of two intervals (elapsed 0.5 and 1.25 s) of one count
 * spec: alpha 3 then 4, beta 2 then idle; its path into path. */
static void write_recording(char *path, size_t n, bool final)
{
	struct record_target tg = { .pid = 42, .binary = "", .interval_s = 1 };
	struct tracer_spec_info info = { .spec = &count_spec, .nprobes = 1 };
	struct agg_row r[2];
	const struct agg_row *p[2] = { &r[0], &r[1] };
	struct agg_spec as = {
		.spec = &count_spec, .info = &info, .nrows = 2, .rows = p
	};
	struct agg_snapshot snap = { .nspecs = 1,
				     .specs = &as,
				     .budget_pct = -1 };
	struct record *rec;

	snprintf(path, n, "/tmp/test_basetab.%d.ptr", (int)getpid());
	unlink(path);
	rec = record_open(path);
	assert_non_null(rec);
	assert_int_equal(record_target(rec, &tg), 0);
	row(&r[0], "alpha", 1, true, 0, 3);
	row(&r[1], "beta", 1, true, 0, 2);
	r[0].id = 1;
	r[1].id = 2;
	snap.interval = 1;
	snap.elapsed_s = 0.5;
	assert_int_equal(record_interval(rec, &snap, NULL), 0);
	r[0].count = 4;
	r[0].total = 7;
	r[0].sum = 40;
	r[0].sum_total = 70;
	r[1].count = 0;
	r[1].sum = 0;
	snap.interval = 2;
	snap.elapsed_s = 1.25;
	assert_int_equal(record_interval(rec, &snap, NULL), 0);
	if (final)
		assert_int_equal(record_final(rec, &snap), 0);
	record_free(rec);
}

static void test_load(void **state)
{
	char path[128], why[256], note[256];
	struct basetab *t;
	struct agg_row q;
	const struct basetab_spec *bs;
	FILE *f;
	long size;
	int c;

	(void)state;
	write_recording(path, sizeof(path), true);
	t = baseline_load(path, why, sizeof(why), note, sizeof(note));
	assert_non_null(t);
	assert_string_equal(note, "");
	assert_true(t->seconds == 1.25);
	assert_int_equal(t->intervals, 2);
	bs = basetab_spec(t, count_spec.text);
	row(&q, "alpha", 1, true, 0, 1);
	assert_int_equal(basetab_find(bs, &q)->row.total, 7); /* not 14 */
	assert_true(basetab_rate(t, basetab_find(bs, &q)) == 7 / 1.25);
	row(&q, "beta", 1, true, 0, 1);
	assert_int_equal(basetab_find(bs, &q)->row.total, 2);
	basetab_free(t);

	/* cut inside the last record: the first interval stands */
	write_recording(path, sizeof(path), false);
	f = fopen(path, "r+");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	assert_int_equal(truncate(path, size - 5), 0);
	t = baseline_load(path, why, sizeof(why), note, sizeof(note));
	assert_non_null(t);
	assert_non_null(strstr(note, "read up to interval 1"));
	assert_int_equal(t->intervals, 1);
	assert_true(t->seconds == 0.5);
	basetab_free(t);

	/* a flipped byte in a body: corrupt */
	write_recording(path, sizeof(path), false);
	f = fopen(path, "r+");
	fseek(f, size - 8, SEEK_SET);
	c = fgetc(f);
	fseek(f, size - 8, SEEK_SET);
	fputc(c ^ 0x40, f);
	fclose(f);
	assert_null(baseline_load(path, why, sizeof(why), note, sizeof(note)));
	assert_non_null(strstr(why, "bad"));

	/* the header and target only: nothing to hold a run against */
	assert_int_equal(truncate(path, 16), 0);
	assert_null(baseline_load(path, why, sizeof(why), note, sizeof(note)));
	assert_string_equal(why, "the recording holds no interval");
	unlink(path);
	assert_null(baseline_load(path, why, sizeof(why), note, sizeof(note)));
	assert_non_null(strstr(why, "No such file"));
	assert_null(
		baseline_load("/bin/sh", why, sizeof(why), note, sizeof(note)));
	assert_string_equal(why, "not a probetop recording");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_sums, setup),
		cmocka_unit_test_setup(test_hists, setup),
		cmocka_unit_test(test_compare),
		cmocka_unit_test_setup(test_marks, setup),
		cmocka_unit_test_setup(test_gone, setup),
		cmocka_unit_test_setup(test_many, setup),
		cmocka_unit_test_setup(test_load, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
