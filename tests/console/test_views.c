// SPDX-License-Identifier: MIT
/*
 * Views without a kernel: a model made by hand (a frames count spec, a GC
 * latency spec, IO rows), actions injected, requests checked; and headless
 * golden screens (newterm on /dev/null) at 80x24 and 120x40. Set
 * UPDATE_GOLDEN=1 to rewrite the golden files after a deliberate change.
 */
#include <curses.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <cmocka.h>

#include "draw.h"
#include "flame.h"
#include "stacks_impl.h"
#include "view.h"

static struct spec calls_spec, pause_spec;
static struct agg_row rows[3], gc_rows[2];
static const struct agg_row *row_ptrs[3], *gc_ptrs[2];
static uint64_t gc_b[2][2][PT_NBUCKETS];
static struct agg_spec specs[2];
static struct agg_io_row io[2];
static struct agg_proc_row procs[2];
static struct agg_snapshot snap;
static struct model model;

static void parse(const char *text, struct spec *out)
{
	char err[128];

	if (spec_parse(text, out, err, sizeof(err)))
		fail_msg("%s: %s", text, err);
}

static void frame(struct agg_row *r, const char *fn, const char *file, int line,
		  uint64_t count, uint64_t total)
{
	memset(r, 0, sizeof(*r));
	r->nkeys = 3;
	r->key[0].is_str = r->key[1].is_str = true;
	snprintf(r->key[0].str, PT_STR_LEN, "%s", fn);
	snprintf(r->key[1].str, PT_STR_LEN, "%s", file);
	r->key[2].num = line;
	r->key[2].is_signed = true;
	r->count = count;
	r->total = total;
}

static void build_model(void)
{
	parse("python:function__return=count(str(arg1),str(arg0),arg2)",
	      &calls_spec);
	parse("python:gc__start..python:gc__done=latency(arg0)", &pause_spec);
	frame(&rows[0], "leaf", "/srv/app.py", 3, 3041000, 9120331);
	frame(&rows[1], "fib", "/srv/app.py", 2, 538313, 1614939);
	frame(&rows[2], "main", "/srv/app.py", 9, 1, 1);
	for (int i = 0; i < 3; i++)
		row_ptrs[i] = &rows[i];
	for (int g = 0; g < 2; g++) {
		struct agg_row *r = &gc_rows[g];

		memset(r, 0, sizeof(*r));
		r->nkeys = 1;
		r->key[0].num = g;
		r->count = g ? 1 : 12;
		r->total = g ? 3 : 36;
		gc_b[g][0][14] = r->count; /* 4096..8191 ns */
		gc_b[g][1][14] = r->total - 2;
		gc_b[g][1][17] = 2; /* 32768.. */
		r->b = gc_b[g][0];
		r->b_total = gc_b[g][1];
		r->sum_total = (int64_t)r->total * 6000;
		r->min = 4100;
		r->max = 40000;
		gc_ptrs[g] = r;
	}
	specs[0] = (struct agg_spec){ .id = 0,
				      .spec = &calls_spec,
				      .nrows = 3,
				      .rows = row_ptrs,
				      .events = 3579314 };
	specs[1] = (struct agg_spec){
		.id = 1, .spec = &pause_spec, .nrows = 2, .rows = gc_ptrs
	};
	io[0] = (struct agg_io_row){ .pid = 4242,
				     .cls = PT_IO_READ,
				     .now = { .calls = 120, .bytes = 1200000 },
				     .total = { .calls = 360,
						.bytes = 3600000 } };
	io[0].total.b[12] = 360;
	io[1] = (struct agg_io_row){ .pid = 4242,
				     .cls = PT_IO_FSYNC,
				     .now = { .calls = 1 },
				     .total = { .calls = 3 } };
	io[1].total.b[22] = 3;
	procs[0] = (struct agg_proc_row){ .pid = 4242,
					  .event = PT_PROC_FORK,
					  .now = { .count = 2 },
					  .total = { .count = 6 } };
	procs[1] =
		(struct agg_proc_row){ .pid = 4242,
				       .event = PT_PROC_EXIT,
				       .code = 3,
				       .name = "worker",
				       .now = { .count = 2 },
				       .total = { .count = 5, .ns = 5000000 } };
	snap = (struct agg_snapshot){ .interval = 3,
				      .elapsed_s = 3,
				      .events = 3579327,
				      .nspecs = 2,
				      .specs = specs,
				      .nio = 2,
				      .io = io,
				      .nproc = 2,
				      .proc = procs };
	model = (struct model){
		.pid = 4242,
		.target = "python3.11",
		.cmdline = "python3.11 app.py",
		.cpu_pct = 87,
		.uptime_s = 192,
		.rss_bytes = 41000000,
		.probes_on = 4,
		.probes_total = 9,
		.interval_s = 1,
		.snap = &snap,
		.snap_s = 1,
		.frames_calls = { .id = 0 },
		.frames_samples = { .id = -1 },
		.frames_latency = { .id = -1 },
		.gc_pause = { .id = 1 },
		.gc_collected = { .id = -1 },
		.alloc = { .id = -1 },
		.io_on = true,
		.proc_on = true,
		.sel_spec = -1,
	};
}

/* View lifecycle helpers ------------------------------------------------ */

struct inst {
	const struct view_ops *ops;
	void *st;
};

static struct inst insts[16];

static struct inst *inst(const char *name)
{
	for (int i = 0; insts[i].ops; i++)
		if (!strcmp(insts[i].ops->name, name))
			return &insts[i];
	fail_msg("no view %s", name);
	return NULL;
}

static void env_draw(const struct view_env *env, const char *view,
		     const struct model *m, struct rect r, bool focus)
{
	struct inst *v = inst(view);

	v->ops->draw(v->st, m, env, r, focus);
}

static void tick_all(void)
{
	for (int i = 0; insts[i].ops; i++) {
		struct request r = { REQ_NONE };

		if (insts[i].ops->tick)
			insts[i].ops->tick(insts[i].st, &model, &r);
		if (r.kind == REQ_SELECT) {
			model.sel_spec = r.id;
			snprintf(model.sel_key, sizeof(model.sel_key), "%s",
				 r.text);
		}
	}
}

static int setup(void **state)
{
	const struct view_ops *const *all = views_all();

	(void)state;
	build_model();
	for (int i = 0; all[i]; i++) {
		insts[i].ops = all[i];
		insts[i].st = all[i]->open();
	}
	tick_all();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; insts[i].ops; i++)
		insts[i].ops->close(insts[i].st);
	memset(insts, 0, sizeof(insts));
	return 0;
}

static int key(const char *view, enum action a, const char *text,
	       struct request *r)
{
	struct inst *v = inst(view);

	memset(r, 0, sizeof(*r));
	return v->ops->key(v->st, &model, a, text, r);
}

/* Logic ------------------------------------------------------------------ */

static void test_top_selects_and_sorts(void **state)
{
	struct request r;

	(void)state;
	/* the first tick selected the hottest row */
	assert_int_equal(model.sel_spec, 0);
	assert_string_equal(model.sel_key, "leaf /srv/app.py 3");
	assert_int_equal(key("top", ACT_DOWN, NULL, &r), VIEW_HANDLED);
	assert_int_equal(r.kind, REQ_SELECT);
	assert_string_equal(r.text, "fib /srv/app.py 2");
	/* sort by name: fib, leaf, main; the cursor stays on fib */
	key("top", ACT_SORT, NULL, &r);
	key("top", ACT_SORT, NULL, &r);
	key("top", ACT_SORT, NULL, &r);
	key("top", ACT_DOWN, NULL, &r);
	assert_string_equal(r.text, "leaf /srv/app.py 3");
	/* a filter keeps matching rows only */
	assert_int_equal(key("top", ACT_FILTER, NULL, &r), VIEW_HANDLED);
	assert_int_equal(r.kind, REQ_PROMPT);
	key("top", ACT_TEXT, "mai", &r);
	key("top", ACT_DOWN, NULL, &r);
	assert_string_equal(r.text, "main /srv/app.py 9");
	key("top", ACT_ENTER, NULL, &r);
	assert_int_equal(r.kind, REQ_VIEW);
	assert_string_equal(r.view, "hist");
	assert_int_equal(key("top", ACT_BACK, NULL, &r), VIEW_HANDLED);
	assert_int_equal(key("top", ACT_BACK, NULL, &r), VIEW_IGNORED);
}

static void render(const char *view, int w, int h, bool utf8, char *got,
		   size_t n);

/* The title says what the rows on screen are, from the marks their
 * numbers draw: exact calls; with ~ on all or some of them, estimated,
 * and why where it fits; lower bounds; from the rows on screen only. */
static void test_top_title(void **state)
{
	static char got[65536];
	struct request r;

	(void)state;
	render("top", 80, 24, true, got, sizeof(got));
	assert_non_null(strstr(got, " Top frames, exact calls "));
	for (int i = 0; i < 3; i++)
		rows[i].mark = rows[i].mark_total = AGG_ESTIMATE;
	tick_all();
	render("top", 80, 24, true, got, sizeof(got));
	assert_non_null(strstr(
		got,
		" Top frames, ~ estimated calls (sampled by the budget) "));
	assert_non_null(strstr(got, "~3,041,000  ~9,120,331  leaf"));
	/* nothing this interval (no mark drawn on 0) and an exact total */
	rows[2].mark_total = AGG_EXACT;
	rows[2].count = 0;
	tick_all();
	render("top", 100, 24, true, got, sizeof(got));
	assert_non_null(strstr(got, " Top frames, exact and ~ estimated calls "
				    "(sampled by the budget) "));
	/* 80 columns: the reason gives way to the sort column's note */
	render("top", 80, 24, true, got, sizeof(got));
	assert_non_null(strstr(got, " Top frames, exact and ~ estimated calls "
				    "qq"));
	assert_non_null(strstr(got, " calls/s "));
	/* main, the exact row, below the box's one line: not on screen */
	render("top", 80, 4, true, got, sizeof(got));
	assert_non_null(strstr(got, " Top frames, ~ estimated calls ("));
	/* the Dashboard's pane: no room for the reason beside the note */
	render("dash", 80, 24, true, got, sizeof(got));
	assert_non_null(
		strstr(got, " Top frames, exact and ~ estimated calls "));
	assert_null(strstr(got, "(sampled"));
	/* a lower bound beside them: every kind, with its own reason */
	rows[1].mark = rows[1].mark_total = AGG_BOUND;
	tick_all();
	render("top", 160, 24, true, got, sizeof(got));
	assert_non_null(strstr(got, " Top frames, exact, ~ estimated and "
				    "\u2265 lower-bound calls (~: sampled by "
				    "the budget; \u2265: sampled, no estimate "
				    "within 15%) "));
	assert_non_null(strstr(got, "\u2265538,313"));
	/* selected, a lower bound with an estimate beside it says it on
	 * the line under the rows; the rows give that line up */
	assert_null(strstr(got, "give or take"));
	rows[1].guess_total = 2000000;
	rows[1].guess_err_total = 0.4;
	tick_all();
	key("top", ACT_DOWN, NULL, &r);
	render("top", 160, 24, true, got, sizeof(got));
	assert_non_null(strstr(got,
			       "  fib: \u22651,614,939 in total, ~2,000,000 "
			       "give or take 40% (too few in the "
			       "budget's windows to promise 15%)"));
	key("top", ACT_UP, NULL, &r);
	render("top", 160, 24, true, got, sizeof(got));
	assert_null(strstr(got, "give or take"));
	rows[1].guess_total = rows[1].guess_err_total = 0;
}

static struct spec samples_spec;

/* Top's frames from profile:99=count(pyframe): CPU samples. */
static void use_samples(struct agg_spec *as)
{
	parse("profile:99=count(pyframe)", &samples_spec);
	as->spec = &samples_spec;
	model.frames_calls.id = -1;
	model.frames_samples.id = 0;
	tick_all();
}

/* CPU-sample rows: the title says so; Enter has no histogram to open
 * (samples time no call), and no stacks without a pystack aggregation:
 * it says why on the status line. */
static void test_top_samples(void **state)
{
	static char got[65536];
	struct request r;

	(void)state;
	use_samples(&specs[0]);
	render("top", 80, 24, true, got, sizeof(got));
	assert_non_null(strstr(got, " Top frames, CPU samples "));
	assert_non_null(strstr(got, "SAMPLES/s"));
	assert_int_equal(key("top", ACT_ENTER, NULL, &r), VIEW_HANDLED);
	assert_int_equal(r.kind, REQ_SAY);
	assert_non_null(strstr(r.text, "leaf: CPU samples time no call, so "
				       "no histogram"));
}

/* The keys of Top's first n rows, top down, into out[i] */
static void top_order(int n, char out[][64])
{
	struct request r;

	key("top", ACT_HOME, NULL, &r);
	for (int i = 0; i < n; i++) {
		if (i)
			key("top", ACT_DOWN, NULL, &r);
		snprintf(out[i], 64, "%.63s", r.text);
	}
}

static void test_top_keeps_places(void **state)
{
	char o[3][64];

	(void)state;
	/* within a quarter octave rows keep the last order: leaf stays first */
	rows[0].count = 1100;
	rows[1].count = 1150;
	tick_all();
	top_order(3, o);
	assert_string_equal(o[0], "leaf /srv/app.py 3");
	assert_string_equal(o[1], "fib /srv/app.py 2");
	rows[0].count = 1150;
	rows[1].count = 1100;
	tick_all();
	rows[0].count = 1100;
	rows[1].count = 1150;
	tick_all();
	top_order(3, o);
	assert_string_equal(o[0], "leaf /srv/app.py 3");
	/* a real change moves the row */
	rows[1].count = 3000;
	tick_all();
	top_order(3, o);
	assert_string_equal(o[0], "fib /srv/app.py 2");
	assert_string_equal(o[1], "leaf /srv/app.py 3");
	assert_string_equal(o[2], "main /srv/app.py 9");
	/* and stays there when they are close again */
	rows[0].count = 1150;
	rows[1].count = 1100;
	tick_all();
	top_order(3, o);
	assert_string_equal(o[0], "fib /srv/app.py 2");
}

static void test_hist_zoom(void **state)
{
	struct request r;

	(void)state;
	/* pin the GC latency histogram, row generation 0 */
	key("hist", ACT_RIGHT, NULL, &r);
	key("hist", ACT_ENTER, NULL, &r);
	assert_int_equal(r.kind, REQ_REPLACE);
	assert_int_equal(r.id, 1);
	/* p50 bucket 14 holds 4096..8191: 16 steps of 256 */
	assert_string_equal(r.text,
			    "python:gc__start..python:gc__done="
			    "lquantize(latency, 4096, 8192, 256, arg0)");
	assert_int_equal(key("hist", ACT_BACK, NULL, &r), VIEW_HANDLED);
	assert_int_equal(r.kind, REQ_NONE); /* the zoomed spec is not live */
}

/* The zoom keeps every kind of key: the python probeset's latency,
 * keyed by function, file and the frame's first line. */
static void test_hist_zoom_keys(void **state)
{
	static struct spec lat;
	struct request r;

	(void)state;
	parse("python:function__entry..python:function__return="
	      "latency(str(arg1),str(arg0),pyfirstline)",
	      &lat);
	specs[1].spec = &lat;
	key("hist", ACT_RIGHT, NULL, &r);
	key("hist", ACT_ENTER, NULL, &r);
	assert_int_equal(r.kind, REQ_REPLACE);
	assert_string_equal(r.text,
			    "python:function__entry..python:function__return="
			    "lquantize(latency, 4096, 8192, 256, str(arg1), "
			    "str(arg0), pyfirstline)");
	/* the postgresql probeset's: a variable's key, over every process */
	parse("postgresql:query__execute__start@PortalRun.."
	      "postgresql:query__execute__done@PortalRun="
	      "latency(sql(`debug_query_string), allpids)",
	      &lat);
	key("hist", ACT_BACK, NULL, &r);
	key("hist", ACT_RIGHT, NULL, &r);
	key("hist", ACT_ENTER, NULL, &r);
	assert_int_equal(r.kind, REQ_REPLACE);
	assert_string_equal(r.text,
			    "postgresql:query__execute__start@PortalRun.."
			    "postgresql:query__execute__done@PortalRun="
			    "lquantize(latency, 4096, 8192, 256, "
			    "sql(`debug_query_string), allpids)");
}

static void test_probes_toggle(void **state)
{
	static const struct ps_note unsafe = { .probe = "ruby:cmethod__entry",
					       .unsafe = "it crashed" };
	struct model_probe probes[2] = {
		{ .object = "/usr/lib/libruby.so",
		  .provider = "ruby",
		  .name = "cmethod__entry",
		  .args = "",
		  .nlocs = 1,
		  .spec_id = -1,
		  .note = &unsafe },
		{ .object = "/usr/lib/libruby.so",
		  .provider = "ruby",
		  .name = "gc__mark__begin",
		  .args = "",
		  .nlocs = 1,
		  .spec_id = 7 },
	};
	struct request r;

	(void)state;
	model.probes = probes;
	model.nprobes = 2;
	inst("probes")->ops->tick(inst("probes")->st, &model, &r);
	key("probes", ACT_TOGGLE, NULL, &r);
	assert_int_equal(r.kind, REQ_NONE); /* risky: asks for y first */
	key("probes", ACT_YES, NULL, &r);
	assert_int_equal(r.kind, REQ_PROBE_ON); /* the console picks the spec */
	assert_int_equal(r.id, 0);
	key("probes", ACT_DOWN, NULL, &r);
	key("probes", ACT_TOGGLE, NULL, &r);
	assert_int_equal(r.kind, REQ_PROBE_OFF); /* every spec on it */
	assert_int_equal(r.id, 1);
	model.probes = NULL;
	model.nprobes = 0;
}

/* Golden screens ---------------------------------------------------------- */

static void dump(char *out, size_t n)
{
	size_t o = 0;

	for (int y = 0; y < LINES; y++) {
		wchar_t line[512];
		char mb[2048];
		int len;

		mvinnwstr(y, 0, line, COLS);
		len = (int)wcstombs(mb, line, sizeof(mb));
		while (len > 0 && mb[len - 1] == ' ')
			len--;
		o += (size_t)snprintf(out + o, n - o, "%.*s\n", len, mb);
	}
}

/* Render view at w x h (UTF-8, or the ASCII fallback) into got (n
 * bytes), one text line per screen line; with pairs (w x h, row by
 * row), in 256 colours, and each cell's colour pair into pairs. */
static void render_pairs(const char *view, int w, int h, bool utf8, char *got,
			 size_t n, short *pairs)
{
	struct view_env env = { env_draw, NULL };
	FILE *null_out = fopen("/dev/null", "w"),
	     *null_in = fopen("/dev/null", "r");
	SCREEN *scr;

	setenv("TERM", pairs ? "xterm-256color" : "xterm", 1);
	scr = newterm(NULL, null_out, null_in);
	assert_non_null(scr);
	resizeterm(h, w);
	draw_init(pairs != NULL, utf8);
	erase();
	inst(view)->ops->draw(inst(view)->st, &model, &env,
			      (struct rect){ 0, 0, h, w }, true);
	dump(got, n);
	for (int y = 0; pairs && y < h; y++)
		for (int x = 0; x < w; x++)
			pairs[y * w + x] = (short)PAIR_NUMBER(mvinch(y, x));
	endwin();
	delscreen(scr);
	fclose(null_out);
	fclose(null_in);
}

static void render(const char *view, int w, int h, bool utf8, char *got,
		   size_t n)
{
	render_pairs(view, w, h, utf8, got, n, NULL);
}

/* Render view at w x h and compare it with
 * tests/console/golden/STEM[-ascii]-WxH.txt. */
static void golden_as(const char *stem, const char *view, int w, int h,
		      bool utf8)
{
	char path[512], got[65536], want[65536] = "";
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "%s/tests/console/golden/%s%s-%dx%d.txt",
		 getenv("SOURCE_ROOT"), stem, utf8 ? "" : "-ascii", w, h);
	render(view, w, h, utf8, got, sizeof(got));
	if (getenv("UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(got, f);
		fclose(f);
		return;
	}
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: missing (UPDATE_GOLDEN=1 writes it)", path);
	len = fread(want, 1, sizeof(want) - 1, f);
	want[len] = '\0';
	fclose(f);
	if (strcmp(got, want))
		fail_msg("%s differs; got:\n%s", path, got);
}

static void golden_in(const char *view, int w, int h, bool utf8)
{
	golden_as(view, view, w, h, utf8);
}

static void golden(const char *view, int w, int h)
{
	golden_in(view, w, h, true);
}

static void test_golden(void **state)
{
	(void)state;
	golden("dash", 80, 24);
	golden("dash", 120, 40);
	golden("top", 80, 24);
	golden("gc", 60, 20);
	golden("io", 80, 12);
	golden("help", 80, 24);
	golden_in("dash", 80, 24, false); /* TERM=vt100, no UTF-8 locale */
}

/* Once the target has exited, every per-second column says ended (its
 * last interval's rate is not going on), and the totals stay. */
static void test_exited_rates(void **state)
{
	static char got[65536];

	(void)state;
	model.exited = true;
	render("dash", 120, 40, true, got, sizeof(got));
	model.exited = false;
	assert_non_null(strstr(got, "x     ended   9,120,331  leaf"));
	assert_non_null(strstr(got, "x read          ended     ended  1.0µs"));
	assert_non_null(strstr(got, "0: ended/s"));
	assert_null(strstr(got, "3,041,000"));
}

/* Probes on a recording without a probe list says so, not that the
 * process has no probes. */
static void test_probes_unrecorded(void **state)
{
	static char got[65536];
	const struct model_probe *probes = model.probes;
	size_t n = model.nprobes;

	(void)state;
	model.probes = NULL;
	model.nprobes = 0;
	model.recorded = model.no_probe_list = true;
	tick_all();
	render("probes", 100, 12, true, got, sizeof(got));
	model.recorded = model.no_probe_list = false;
	tick_all();
	assert_non_null(strstr(got, "this recording holds no probe list "
				    "(written before format 1.1)"));
	assert_null(strstr(got, "no USDT probes"));
	render("probes", 100, 12, true, got, sizeof(got));
	model.probes = probes;
	model.nprobes = n;
	assert_non_null(strstr(got, "this process has no USDT probes"));
}

/* Why Top has no frames, wrapped over its rows: and in place of the
 * "nothing counted" line when it is empty. */
static void test_frames_why(void **state)
{
	static char got[65536];
	int calls = model.frames_calls.id;

	(void)state;
	snprintf(model.frames_why, sizeof(model.frames_why),
		 "PHP counts calls only in a process started with "
		 "USE_ZEND_DTRACE=1, and this one was not: restart it so, or "
		 "sample its stacks in Stacks (7)");
	model.frames_why_any = true;
	model.frames_calls.id = -1; /* its probes then: Top probes */
	tick_all();
	render("top", 80, 24, true, got, sizeof(got));
	model.frames_calls.id = calls;
	model.frames_why[0] = '\0';
	tick_all();
	assert_non_null(strstr(got,
			       "x  PHP counts calls only in a process "
			       "started with USE_ZEND_DTRACE=1, and this x"));
	assert_non_null(strstr(got, "x    one was not: restart it so"));
	assert_non_null(strstr(got, "Top probes"));
}

/* The GC pane names its rows by the probeset's label, "generation=0",
 * and where that does not fit by its first letters, "gen0". */
static void test_gc_labels(void **state)
{
	static const char ini[] = "[probeset]\nname = t\ndetect = p:gc\n"
				  "[gc]\npause = p:gc..p:done=latency(arg0)\n"
				  "labels = generation\n";
	struct probeset ps;
	char err[256], got[8192];

	(void)state;
	assert_int_equal(probeset_parse("t", ini, &ps, err, sizeof(err)), 0);
	model.gc_pause.ps = &ps;
	model.gc_pause.spec = probeset_spec(&ps, "gc", "pause");
	assert_non_null(model.gc_pause.spec);
	render("gc", 60, 8, true, got, sizeof(got));
	assert_non_null(strstr(got, " generation=0: 12/s  generation=1: 1/s "));
	render("gc", 30, 8, true, got, sizeof(got));
	assert_non_null(strstr(got, " gen0: 12/s  gen1: 1/s "));
	assert_null(strstr(got, "generation="));
	assert_non_null(strstr(got, "GC"));
	/* a [gc] with a title (PostgreSQL's checkpoints) names the pane */
	strcpy(ps.sections[model.gc_pause.spec->section].title, "Checkpoints");
	render("gc", 30, 8, true, got, sizeof(got));
	assert_non_null(strstr(got, "Checkpoints"));
	assert_null(strstr(got, "GC"));
	model.gc_pause = (struct model_role){ .id = 1 };
}

/* A probeset's [io] section shows in the IO pane under its title, a row
 * per spec and key: its rate, its total and, for latency, its p99; with
 * no syscall IO (-b) it still does. */
static void test_io_runtime(void **state)
{
	static const char ini[] =
		"[probeset]\nname = t\ndetect = p:gc\n"
		"[io]\ntitle = PostgreSQL IO\n"
		"reads = p:a=count(str(arg1),str(arg0),arg2)\n"
		"waits = p:gc..p:done=latency(arg0)\nlabels = x\n";
	struct probeset ps;
	char err[256], got[8192];

	(void)state;
	assert_int_equal(probeset_parse("t", ini, &ps, err, sizeof(err)), 0);
	model.io_roles[0] = (struct model_role){
		.id = 0, .ps = &ps, .spec = probeset_spec(&ps, "io", "reads")
	};
	model.io_roles[1] = (struct model_role){
		.id = 1, .ps = &ps, .spec = probeset_spec(&ps, "io", "waits")
	};
	render("io", 80, 20, true, got, sizeof(got));
	assert_non_null(strstr(got, " PostgreSQL IO KEY "));
	assert_non_null(strstr(got, " reads         leaf /srv/app.py 3   "
				    "3,041,000 9,120,331"));
	assert_non_null(strstr(got, " waits         0                       "
				    "    12        36    33µs"));
	model.io_on = false;
	render("io", 80, 20, true, got, sizeof(got));
	assert_non_null(strstr(got, "syscall IO is off"));
	assert_non_null(strstr(got, " reads         leaf /srv/app.py 3"));
	model.io_on = true;
	memset(model.io_roles, 0, sizeof(model.io_roles));
}

/* A narrow pane wraps its summary lines between fields (two blanks
 * apart), never inside one: the IO pane's process events and the GC
 * pane's pause percentiles keep every number. */
static void test_narrow_fields(void **state)
{
	char got[8192];

	(void)state;
	render("io", 30, 12, true, got, sizeof(got)); /* 28 inside */
	assert_non_null(strstr(got, "x procs/s  fork 2  exec 0    x"));
	assert_non_null(strstr(got, "x exit 2  thread 0           x"));
	assert_non_null(strstr(got, "x exit       3       2  worke"));
	render("io", 33, 12, true, got, sizeof(got)); /* "exit" would fit */
	assert_non_null(strstr(got, "x procs/s  fork 2  exec 0       x"));
	assert_non_null(strstr(got, "x exit 2  thread 0              x"));
	render("gc", 30, 8, true, got, sizeof(got));
	assert_non_null(strstr(got, "x pause p50 4.1µs  p99 33µs  x"));
	assert_non_null(strstr(got, "x max 40µs                   x"));
	render("gc", 34, 8, true, got, sizeof(got)); /* "max" would fit */
	assert_non_null(strstr(got, "x pause p50 4.1µs  p99 33µs      x"));
	assert_non_null(strstr(got, "x max 40µs                       x"));
	assert_int_equal(draw_fields_rows(12, 1, 1, "ab cd  ef gh"), 2);
	assert_int_equal(draw_fields_rows(30, 1, 1, "ab cd  ef gh"), 1);
	/* a field wider than a row is split where the row ends */
	assert_int_equal(draw_fields_rows(8, 1, 1, "abcdefghijklmn"), 3);
}

/* A row of n events whose values add up to sum, keyed by num (or none). */
static void value_row(struct agg_row *r, int nkeys, int64_t num, uint64_t n,
		      int64_t sum)
{
	memset(r, 0, sizeof(*r));
	r->nkeys = nkeys;
	r->key[0].num = num;
	r->count = r->total = n;
	r->sum = r->sum_total = sum;
}

/* Without frames Top has a row for every spec a user attached: count and
 * latency by probe, sum and quantize also by their aggregation, each with
 * its exact mean (a time for latency, a value for the others). The GC
 * pane's specs stay out. */
static void test_top_every_agg(void **state)
{
	static struct spec sp[4];
	static const char *const text[4] = {
		"fixture:str=count()",
		"fixture:lenstr=sum(arg1)",
		"fixture:quant=quantize(arg0,arg1)",
		"fixture:enter..fixture:leave=latency()",
	};
	static uint64_t b[PT_NBUCKETS];
	struct agg_row r[4];
	const struct agg_row *rp[4];
	struct agg_spec as[5];
	struct agg_snapshot s2 = snap;
	struct request req;
	char got[8192];

	(void)state;
	value_row(&r[0], 0, 0, 6, 0);
	value_row(&r[1], 0, 0, 4, 30); /* lengths 7, 8, 7, 8 */
	value_row(&r[2], 1, 5, 3, -4500000); /* keyed by arg1 = 5 */
	value_row(&r[3], 0, 0, 2, 3000);
	b[1] = 1; /* buckets are not what Top shows; Histogram needs some */
	r[2].b = r[2].b_total = r[3].b = r[3].b_total = b;
	for (int i = 0; i < 4; i++) {
		parse(text[i], &sp[i]);
		rp[i] = &r[i];
		as[i] = (struct agg_spec){
			.id = 10 + i, .spec = &sp[i], .nrows = 1, .rows = &rp[i]
		};
	}
	as[4] = specs[1]; /* the GC pause, id 1 */
	s2.nspecs = 5;
	s2.specs = as;
	model.snap = &s2;
	model.frames_calls.id = -1;
	tick_all();
	render("top", 80, 9, true, got, sizeof(got));
	assert_non_null(strstr(got, "Top probes"));
	assert_non_null(strstr(got, "  6       -  fixture:str "));
	assert_non_null(strstr(got, "  4     7.5  fixture:lenstr sum(arg1) "));
	assert_non_null(strstr(got, "  3   -1.5M  fixture:quant "
				    "quantize(arg0,arg1) 5"));
	assert_non_null(strstr(got, "  2   1.5µs  fixture:enter "));
	assert_null(strstr(got, "python:gc"));
	key("top", ACT_TEXT, "sum", &req);
	render("top", 80, 9, true, got, sizeof(got));
	assert_non_null(strstr(got, "Top probes, exact /sum"));
	assert_non_null(strstr(got, "fixture:lenstr sum(arg1)"));
	assert_null(strstr(got, "fixture:str "));
	model.snap = &snap;
}

/* fmt_si: a value in at most six columns, its sign kept */
static void test_fmt_si(void **state)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{ 0, "0" },	     { 7.5, "7.5" },	    { -3, "-3" },
		{ 812, "812" },	     { 9999, "9999" },	    { 41000, "41k" },
		{ 1234567, "1.2M" }, { -1500000, "-1.5M" }, { 999600, "1.0M" },
		{ 9.4e12, "9.4T" },  { 2e18, "2e+18" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(fmt_si(cases[i].v, buf, sizeof(buf)),
				    cases[i].want);
}

/* Messages: the newest end the box and stay in view as more come; Up
 * and Home scroll back (and stay there), Down never goes past the last
 * page, End follows the newest again. A long message wraps. */
static void test_log_scroll(void **state)
{
	static char text[12][96];
	static const char *lines[12];
	char got[8192];
	struct request r;

	(void)state;
	for (int i = 0; i < 12; i++) {
		snprintf(text[i], sizeof(text[i]),
			 i == 5 ? "message %d is long enough to take two rows "
				  "of this box"
				: "message %d",
			 i);
		lines[i] = text[i];
	}
	model.log = (struct model_log){ .n = 10, .lines = lines };
	render("log", 40, 8, true, got, sizeof(got)); /* 6 rows inside */
	assert_non_null(strstr(got, "message 9"));
	assert_non_null(strstr(got, "message 5 is long"));
	assert_non_null(strstr(got, "x   rows of this box")); /* row 2 */
	assert_null(strstr(got, "message 4"));
	key("log", ACT_UP, NULL, &r);
	render("log", 40, 8, true, got, sizeof(got));
	assert_non_null(strstr(got, "message 4"));
	assert_null(strstr(got, "message 9"));
	model.log.n = 11; /* scrolled back: a new message does not move it */
	render("log", 40, 8, true, got, sizeof(got));
	assert_non_null(strstr(got, "message 4"));
	for (int i = 0; i < 5; i++)
		key("log", ACT_DOWN, NULL, &r);
	render("log", 40, 8, true, got, sizeof(got));
	assert_non_null(strstr(got, "message 10"));
	assert_non_null(strstr(got, "message 6"));
	assert_null(strstr(got, "message 5"));
	model.log.n = 12; /* at the end: it follows the newest */
	render("log", 40, 8, true, got, sizeof(got));
	assert_non_null(strstr(got, "message 11"));
	key("log", ACT_HOME, NULL, &r);
	render("log", 40, 8, true, got, sizeof(got));
	assert_non_null(strstr(got, " message 0"));
	assert_null(strstr(got, "message 11"));
	key("log", ACT_END, NULL, &r);
	render("log", 40, 8, true, got, sizeof(got));
	assert_non_null(strstr(got, "message 11"));
	model.log = (struct model_log){ 0 };
}

/* --baseline --------------------------------------------------------------- */

/* A baseline of seconds s holding spec sp's rows r[0..n) (their counts
 * over the whole recording). */
static struct basetab *baseline_of(const struct spec *sp, struct agg_row *r,
				   size_t n, double s)
{
	struct basetab *t = basetab_new();
	const struct agg_row *ptrs[8];
	struct agg_spec as = { .spec = sp, .nrows = n, .rows = ptrs };

	assert_non_null(t);
	for (size_t i = 0; i < n; i++)
		ptrs[i] = &r[i];
	assert_int_equal(basetab_add(t, &as), 0);
	t->seconds = s;
	t->intervals = 2;
	return t;
}

/* Top against a baseline of 2 s: leaf 1,000,000 (500,000/s, now
 * 3,041,000/s: +2,541,000, x6.08), fib 1,076,626 (538,313/s as now: 0,
 * x1.00), old 20 (10/s, not counted now: gone); main is new. */
static void test_top_baseline(void **state)
{
	static char got[65536];
	struct agg_row old[3];
	struct basetab *t;

	(void)state;
	frame(&old[0], "leaf", "/srv/app.py", 3, 1000000, 1000000);
	frame(&old[1], "fib", "/srv/app.py", 2, 1076626, 1076626);
	frame(&old[2], "old", "/srv/app.py", 5, 20, 20);
	t = baseline_of(&calls_spec, old, 3, 2);
	model.base = t;
	snprintf(model.base_what, sizeof(model.base_what), "old.ptr, 2.0 s");
	tick_all();
	render("top", 120, 20, true, got, sizeof(got));
	assert_non_null(strstr(got, "DELTA/s  RATIO"));
	assert_non_null(strstr(got, "against the baseline old.ptr, 2.0 s"));
	assert_non_null(strstr(got, "3,041,000   9,120,331 +2,541,000  x6.08"));
	assert_non_null(strstr(got, "538,313   1,614,939          0  x1.00"));
	assert_non_null(strstr(got, "1           1               new"));
	assert_non_null(strstr(got, "1 key of the baseline not counted now:"));
	assert_non_null(strstr(got, "-           -        -10   gone  old "
				    "/srv/app.py 5 (was 10/s)"));
	model.base = NULL;
	basetab_free(t);
}

/* Stacks ----------------------------------------------------------------- */

static struct spec stack_spec;
static struct agg_row stack_rows[4];
static const struct agg_row *stack_ptrs[4];
static struct agg_spec stack_specs[3];
static struct agg_snapshot stack_snap;

/* A pystack row: stack (folded, root first) counted n times in all. */
static void stack_row(struct agg_row *r, const char *stack, uint64_t n)
{
	memset(r, 0, sizeof(*r));
	r->nkeys = 1;
	r->key[0].is_str = r->key[0].is_stack = true;
	r->key[0].text = stack;
	r->count = n / 2;
	r->total = n;
}

/* The model with a stack spec (id 5) beside the frames and GC specs:
 * a;b;c x300, a;b;d x100, and two narrow ones under b (one sample
 * each): 402 samples. */
static int setup_stacks(void **state)
{
	setup(state);
	parse("profile:99=count(pystack)", &stack_spec);
	stack_row(&stack_rows[0], "a;b;c", 300);
	stack_row(&stack_rows[1], "a;b;d", 100);
	stack_row(&stack_rows[2], "a;b;n1", 1);
	stack_row(&stack_rows[3], "a;b;n2", 1);
	for (int i = 0; i < 4; i++)
		stack_ptrs[i] = &stack_rows[i];
	stack_specs[0] = specs[0];
	stack_specs[1] = specs[1];
	stack_specs[2] = (struct agg_spec){
		.id = 5, .spec = &stack_spec, .nrows = 4, .rows = stack_ptrs
	};
	stack_snap = snap;
	stack_snap.nspecs = 3;
	stack_snap.specs = stack_specs;
	model.snap = &stack_snap;
	tick_all();
	return 0;
}

static int teardown_stacks(void **state)
{
	model.snap = &snap;
	return teardown(state);
}

/* The cell of the node named name in a layout, or NULL. */
static const struct flame_cell *cell_named(const struct flame *f,
					   const struct flame_cell *c, size_t n,
					   const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].node != FLAME_MERGED &&
		    !strcmp(flame_name(f, c[i].node), name))
			return &c[i];
	return NULL;
}

/* The tree: frames merged by path, counts cumulative, siblings in name
 * order, ids stable across refreshes; the layout: widths in proportion
 * (300:100 in 78 columns: 59 and 19), narrow frames merged into one
 * `+` cell after the wide ones. */
static void test_flame_layout(void **state)
{
	struct flame *f = flame_new();
	struct flame_cell cells[78 * 8];
	const struct flame_cell *c, *d;
	size_t n, nodes;
	uint32_t id_c;

	(void)state;
	assert_non_null(f);
	flame_begin(f);
	assert_int_equal(flame_add(f, "a;b;d", 100), 0);
	assert_int_equal(flame_add(f, "a;b;c", 300), 0);
	assert_int_equal(flame_add(f, "a;b;n1", 1), 0);
	assert_int_equal(flame_add(f, "a;b;n2", 1), 0);
	assert_int_equal(flame_add(f, "a", 2), 0); /* self time of a */
	flame_end(f);
	assert_int_equal(flame_count(f), 7);
	assert_int_equal(flame_total(f, FLAME_ROOT), 404);
	n = flame_layout(f, FLAME_ROOT, 78, 8, cells, 78 * 8);
	c = cell_named(f, cells, n, "c");
	d = cell_named(f, cells, n, "d");
	assert_non_null(c);
	assert_non_null(d);
	assert_int_equal(c->row, 3);
	assert_int_equal(c->w, 58); /* 300 * 78 / 404 = 57.9 */
	assert_int_equal(d->x, c->x + c->w); /* c before d: name order */
	assert_int_equal(d->w, 19);
	assert_int_equal(cells[n - 1].node, FLAME_MERGED); /* n1 + n2 */
	assert_int_equal(cells[n - 1].count, 2);
	assert_int_equal(cells[n - 1].x, d->x + d->w);
	assert_int_equal(cells[n - 1].w, 1);
	assert_int_equal(cell_named(f, cells, n, "a")->w, 78);
	assert_int_equal(flame_self(f, c->node), 300);
	id_c = c->node;
	/* a refresh: a new sibling sorts before c; c keeps its id */
	flame_begin(f);
	flame_add(f, "a;b;d", 100);
	flame_add(f, "a;b;c", 300);
	flame_add(f, "a;b;0", 100);
	flame_end(f);
	n = flame_layout(f, FLAME_ROOT, 80, 8, cells, 78 * 8);
	c = cell_named(f, cells, n, "c");
	assert_int_equal(c->node, id_c);
	assert_int_equal(cell_named(f, cells, n, "0")->x, 0);
	assert_int_equal(c->x, 16);
	assert_int_equal(c->w, 48);
	assert_null(cell_named(f, cells, n, "n1")); /* no samples now */
	/* zoomed into b: b is the full width */
	n = flame_layout(f, flame_node(f, id_c)->parent, 80, 8, cells, 640);
	assert_int_equal(cells[0].w, 80);
	assert_int_equal(cells[0].row, 0);
	assert_int_equal(cell_named(f, cells, n, "c")->w, 48);
	/* search: each sample once */
	assert_int_equal(flame_match_total(f, FLAME_ROOT, "b", true, &nodes),
			 500);
	assert_int_equal(nodes, 1);
	assert_int_equal(flame_match_total(f, FLAME_ROOT, "", false, &nodes),
			 0);
	flame_free(f);
}

/* A frame's module (the engine's naming, agg_key_part.mods) kept by
 * the node its first stack made: one part per frame, "" for none, the
 * first module seen for a node staying; none without mods; a stack seen
 * again keeps what it had. */
static void test_flame_mods(void **state)
{
	struct flame *f = flame_new();
	uint32_t ids[4] = { 0 };

	(void)state;
	assert_non_null(f);
	flame_begin(f);
	assert_int_equal(flame_add_mods(f, "_start;main;leaf;0x10",
					"app;app;libc.so.6;", 3),
			 0);
	assert_int_equal(
		flame_add_mods(f, "_start;main;other", "app;lib.so;libx.so", 2),
		0);
	assert_int_equal(flame_add(f, "_start;plain", 1), 0);
	flame_end(f);
	for (uint32_t id = 1; id < flame_count(f); id++) {
		const char *nm = flame_name(f, id);

		if (!strcmp(nm, "main"))
			ids[0] = id;
		else if (!strcmp(nm, "leaf"))
			ids[1] = id;
		else if (!strcmp(nm, "0x10"))
			ids[2] = id;
		else if (!strcmp(nm, "plain"))
			ids[3] = id;
	}
	assert_string_equal(flame_mod(f, FLAME_ROOT), "");
	assert_string_equal(flame_mod(f, ids[0]), "app"); /* the first's */
	assert_string_equal(flame_mod(f, ids[1]), "libc.so.6");
	assert_string_equal(flame_mod(f, ids[2]), "");
	assert_string_equal(flame_mod(f, ids[3]), "");
	assert_string_equal(flame_mod(f, 1), "app"); /* _start */
	flame_begin(f);
	flame_add_mods(f, "_start;main;leaf;0x10", "z;z;z;z", 1);
	flame_end(f);
	assert_string_equal(flame_mod(f, ids[1]), "libc.so.6");
	assert_int_equal(flame_total(f, ids[1]), 1);
	flame_free(f);
}

/* The status line of the Stacks view at 80x24, from the screen. */
static const char *stacks_status(char *got, size_t n)
{
	char *line;

	render("stacks", 80, 24, true, got, n);
	line = strstr(got, "\n"); /* the status line is the 23rd */
	for (int i = 0; i < 21 && line; i++)
		line = strchr(line + 1, '\n');
	return line ? line + 1 : "";
}

/* Keys: Down to the widest child, Left/Right along a row, Up to the
 * parent; Enter zooms, Esc zooms out, then clears the search, then
 * hands Esc back; / searches; t switches to the interval's counts. */
static void test_stacks_keys(void **state)
{
	static char got[65536];
	struct request r;

	(void)state;
	assert_non_null(strstr(stacks_status(got, sizeof(got)),
			       "all  self 0 (0.0%)  total 402 (100.0%)"));
	for (int i = 0; i < 3; i++)
		assert_int_equal(key("stacks", ACT_DOWN, NULL, &r),
				 VIEW_HANDLED);
	assert_non_null(strstr(stacks_status(got, sizeof(got)),
			       "c  self 300 (74.6%)  total 300 (74.6%)"));
	key("stacks", ACT_RIGHT, NULL, &r);
	assert_non_null(
		strstr(stacks_status(got, sizeof(got)), "d  self 100 (24.9%)"));
	key("stacks", ACT_RIGHT, NULL, &r); /* the + is not a frame */
	assert_non_null(strstr(stacks_status(got, sizeof(got)), "d  self"));
	key("stacks", ACT_LEFT, NULL, &r);
	key("stacks", ACT_UP, NULL, &r);
	assert_non_null(strstr(stacks_status(got, sizeof(got)),
			       "b  self 0 (0.0%)  total 402 (100.0%)"));
	assert_int_equal(key("stacks", ACT_ENTER, NULL, &r), VIEW_HANDLED);
	golden_as("stacks-zoom", "stacks", 80, 24, true);
	assert_int_equal(key("stacks", ACT_BACK, NULL, &r), VIEW_HANDLED);
	render("stacks", 80, 24, true, got, sizeof(got));
	assert_null(strstr(got, "zoom:"));
	assert_int_equal(key("stacks", ACT_FILTER, NULL, &r), VIEW_HANDLED);
	assert_int_equal(r.kind, REQ_PROMPT);
	key("stacks", ACT_TEXT, "d", &r);
	golden_as("stacks-search", "stacks", 80, 24, true);
	assert_int_equal(key("stacks", ACT_BACK, NULL, &r), VIEW_HANDLED);
	assert_int_equal(key("stacks", ACT_BACK, NULL, &r), VIEW_IGNORED);
	key("stacks", ACT_TOTALS, NULL, &r); /* counts: 150 and 50 */
	render("stacks", 80, 24, true, got, sizeof(got));
	assert_non_null(strstr(got, "this interval"));
	assert_non_null(strstr(got, "d  self 50 (25.0%)  total 50 (25.0%)"));
}

/* S on a Top row asks for the Stacks view on its function; the view
 * highlights that function's frames, the cursor on the widest. */
static void test_stacks_from_top(void **state)
{
	static char got[65536];
	struct request r;

	(void)state;
	assert_int_equal(key("top", ACT_STACKS, NULL, &r), VIEW_HANDLED);
	assert_int_equal(r.kind, REQ_STACKS);
	assert_string_equal(r.text, "leaf");
	snprintf(model.stack_goto, sizeof(model.stack_goto), "c");
	model.stack_goto_seq++;
	render("stacks", 80, 24, true, got, sizeof(got));
	assert_non_null(strstr(got, " c: 1 frame, 74.6% of the samples"));
	assert_non_null(strstr(stacks_status(got, sizeof(got)), "c  self 300"));
}

/* Enter on a CPU-sample row opens its function's stacks, as S does. */
static void test_stacks_from_samples(void **state)
{
	struct request r;

	(void)state;
	use_samples(&stack_specs[0]);
	assert_int_equal(key("top", ACT_ENTER, NULL, &r), VIEW_HANDLED);
	assert_int_equal(r.kind, REQ_STACKS);
	assert_string_equal(r.text, "leaf");
	/* Top probes: a row of stack samples opens Stacks */
	model.frames_samples.id = -1;
	tick_all();
	key("top", ACT_END, NULL, &r);
	assert_int_equal(key("top", ACT_ENTER, NULL, &r), VIEW_HANDLED);
	assert_int_equal(r.kind, REQ_VIEW);
	assert_string_equal(r.view, "stacks");
}

/* Two stack aggregations: Tab shows the other; the box says which. */
static void test_stacks_switch(void **state)
{
	static struct spec other;
	static struct agg_row row;
	static const struct agg_row *rp = &row;
	static char got[65536];
	struct request r;

	(void)state;
	parse("fn:libc.so.6:write=sum(arg2, pystack)", &other);
	stack_row(&row, "main;save;write", 4096);
	row.sum_total = 4096 * 10;
	stack_specs[1] = stack_specs[2]; /* by id: 5, then 6 */
	stack_specs[2] = (struct agg_spec){
		.id = 6, .spec = &other, .nrows = 1, .rows = &rp
	};
	tick_all();
	render("stacks", 80, 24, true, got, sizeof(got));
	assert_non_null(strstr(got, "Stacks, profile:99=count(pystack)"));
	assert_non_null(strstr(got, "totals  1/2 Tab"));
	key("stacks", ACT_NEXT, NULL, &r);
	render("stacks", 80, 24, true, got, sizeof(got));
	assert_non_null(
		strstr(got, "Stacks, fn:libc.so.6:write=sum(arg2, pystack)"));
	assert_non_null(strstr(got, "totals  2/2 Tab"));
	assert_non_null(strstr(got, "total 40,960 (100.0%)")); /* bytes */
	assert_non_null(strstr(got, "save"));
}

/* A name wider than its frame is cut with a mark ("…", "~" in ASCII)
 * and the frame still closed by '|'. */
static void test_stacks_cut(void **state)
{
	static char got[65536];

	(void)state;
	stack_row(&stack_rows[1], "a;b;handle_request_and_write_the_response",
		  100);
	tick_all();
	render("stacks", 80, 24, true, got, sizeof(got));
	assert_non_null(strstr(got, "|handle_request_an…|+"));
	render("stacks", 80, 24, false, got, sizeof(got));
	assert_non_null(strstr(got, "|handle_request_an~|+"));
}

/* Histogram against a baseline: GC pauses of generation 0, now 34 in
 * 4096.. and 2 in 32768.. (36), then 10 in 4096.. and 10 in 262144..
 * (20): the row's line puts both p50s and p99s side by side, 4096..'s bar is
 * half both (the baseline's half) and half now's alone, 262144..'s the
 * baseline's alone. */
static void test_hist_baseline(void **state)
{
	static char got[65536];
	uint64_t b[PT_NBUCKETS] = { 0 };
	struct agg_row old = { .nkeys = 1, .count = 20, .total = 20, .b = b };
	struct basetab *t;
	struct request r;
	const char *at;

	(void)state;
	b[14] = 10;
	b[20] = 10;
	old.b_total = b;
	t = baseline_of(&pause_spec, &old, 1, 2);
	model.base = t;
	key("hist", ACT_RIGHT, NULL, &r); /* the GC pauses, generation 0 */
	render("hist", 100, 24, true, got, sizeof(got));
	assert_non_null(strstr(got, "count 36  avg 6.0µs  p50 4.1µs p99 33µs "
				    "| baseline p50 4.1µs p99 262µs"));
	assert_non_null(strstr(got, "█ both ▓ now ░ baseline"));
	at = strstr(got, "4.1µs |");
	assert_non_null(at);
	assert_true(strncmp(at, "4.1µs |████", 15) == 0);
	assert_non_null(strstr(at, "█▓▓"));
	at = strstr(got, "262µs |");
	assert_non_null(at);
	assert_true(strncmp(at + strlen("262µs |"), "░░░░", 12) == 0);
	assert_true(strstr(at, "\n") < strstr(at, "█") || !strstr(at, "█"));
	model.base = NULL;
	basetab_free(t);
}

/* Stacks against a baseline: a;b;c x100, a;b;d x300, x;y x4 (404
 * samples) then; now (setup_stacks) a;b;c x300, a;b;d x100 and two of
 * one sample (402). c's share grew by 49.9 points: the strongest red;
 * d's shrank by 49.4: the strongest blue; a's and b's grew by 1 - 400/404
 * (under a point): the palest red; all is the same. */
static void test_stacks_baseline(void **state)
{
	static char got[65536];
	static short pairs[120 * 30];
	struct agg_row old[3];
	struct basetab *t;
	const struct stacks *s = inst("stacks")->st;
	const struct {
		const char *name;
		enum draw_hue hue;
	} want[] = { { "c", HUE_GROW + 2 },
		     { "d", HUE_SHRINK + 2 },
		     { "a", HUE_GROW + 0 },
		     { "b", HUE_GROW + 0 },
		     { "all", HUE_SAME } };

	(void)state;
	stack_row(&old[0], "a;b;c", 100);
	stack_row(&old[1], "a;b;d", 300);
	stack_row(&old[2], "x;y", 4);
	t = baseline_of(&stack_spec, old, 3, 4);
	model.base = t;
	snprintf(model.base_what, sizeof(model.base_what), "old.ptr, 4.0 s");
	tick_all();
	render_pairs("stacks", 120, 30, true, got, sizeof(got), pairs);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct flame_cell *c =
			cell_named(s->f, s->cells, s->ncells, want[i].name);

		assert_non_null(c);
		/* the box's edge, the line over the graph */
		assert_int_equal(pairs[(2 + c->row) * 120 + 1 + c->x],
				 draw_hue_pair(want[i].hue));
		assert_int_not_equal(draw_hue_pair(want[i].hue), 0);
	}
	assert_non_null(strstr(got, "red grew, blue shrank against old.ptr"));
	assert_non_null(strstr(got, "baseline 100.0% (+0.0)")); /* all */
	model.base = NULL;
	tick_all();
	basetab_free(t);
}

static void test_stacks_golden(void **state)
{
	(void)state;
	golden("stacks", 80, 24);
	golden("stacks", 160, 40);
	golden_in("stacks", 80, 24, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_top_selects_and_sorts,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_top_keeps_places, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_top_title, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_top_samples, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hist_zoom, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hist_zoom_keys, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_probes_toggle, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_io_runtime, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_gc_labels, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_exited_rates, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_frames_why, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_probes_unrecorded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_log_scroll, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_top_every_agg, setup,
						teardown),
		cmocka_unit_test(test_fmt_si),
		cmocka_unit_test_setup_teardown(test_narrow_fields, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_golden, setup, teardown),
		cmocka_unit_test(test_flame_layout),
		cmocka_unit_test(test_flame_mods),
		cmocka_unit_test_setup_teardown(test_stacks_keys, setup_stacks,
						teardown_stacks),
		cmocka_unit_test_setup_teardown(test_stacks_from_top,
						setup_stacks, teardown_stacks),
		cmocka_unit_test_setup_teardown(test_stacks_from_samples,
						setup_stacks, teardown_stacks),
		cmocka_unit_test_setup_teardown(test_stacks_switch,
						setup_stacks, teardown_stacks),
		cmocka_unit_test_setup_teardown(test_stacks_cut, setup_stacks,
						teardown_stacks),
		cmocka_unit_test_setup_teardown(test_stacks_baseline,
						setup_stacks, teardown_stacks),
		cmocka_unit_test_setup_teardown(test_top_baseline, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hist_baseline, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stacks_golden,
						setup_stacks, teardown_stacks),
	};

	setlocale(LC_ALL, "C.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
