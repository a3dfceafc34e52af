// SPDX-License-Identifier: MIT
/*
 * bench_stacks — what the Stacks view costs the console: a snapshot of
 * N distinct synthetic stacks (pystack rows, 8 to 32 frames from a
 * shared vocabulary, Zipf-like counts) fed to the view as the console
 * does each interval (tick: the tree updated), then drawn (draw: the
 * layout and the cells, and curses writing the screen to /dev/null).
 * Times are the process's CPU time (CLOCK_PROCESS_CPUTIME_ID), the
 * console's own CPU, per refresh; the first tick (every stack split
 * into frames) is reported apart.
 *
 * usage: bench_stacks [NSTACKS [REFRESHES]]   (10000, 200)
 * Prints one line per terminal size; tests/bench/stacks.sh runs it.
 */
#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "draw.h"
#include "flame.h"
#include "view.h"

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A stack of 8..32 frames: at each depth one of 6 callees, named by
 * (depth, choice), so that stacks share their roots as real ones do. */
static char *make_stack(unsigned *seed)
{
	int depth = 8 + (int)(rand_r(seed) % 25);
	char *s = malloc((size_t)depth * 40 + 1);
	size_t o = 0;
	unsigned path = 0;

	for (int d = 0; d < depth; d++) {
		path = path * 6 + (unsigned)(rand_r(seed) % 6);
		o += (size_t)sprintf(s + o, "%smod%02u.handler_%u",
				     d ? ";" : "", path % 97,
				     (path * 2654435761u) % 1000);
	}
	return s;
}

struct bench {
	struct spec spec;
	struct agg_row *rows;
	const struct agg_row **ptrs;
	struct agg_spec as;
	struct agg_snapshot snap;
	struct model m;
	size_t n;
};

/* n distinct stacks in b's snapshot. */
static int build(struct bench *b, size_t n)
{
	char err[128];
	unsigned seed = 42;

	if (spec_parse("profile:99=count(pystack)", &b->spec, err, sizeof(err)))
		return -1;
	b->rows = calloc(n, sizeof(*b->rows));
	b->ptrs = calloc(n, sizeof(*b->ptrs));
	if (!b->rows || !b->ptrs)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct agg_row *r = &b->rows[i];

		r->nkeys = 1;
		r->key[0].is_str = r->key[0].is_stack = true;
		r->key[0].text = make_stack(&seed);
		r->count = 1 + 1000 / (i + 1);
		r->total = r->count * 10;
		b->ptrs[i] = r;
	}
	b->n = n;
	b->as = (struct agg_spec){
		.id = 1, .spec = &b->spec, .nrows = n, .rows = b->ptrs
	};
	b->snap = (struct agg_snapshot){ .interval = 1,
					 .nspecs = 1,
					 .specs = &b->as };
	b->m = (struct model){ .snap = &b->snap,
			       .snap_s = 1,
			       .interval_s = 1,
			       .frames_calls = { .id = -1 },
			       .frames_samples = { .id = -1 },
			       .frames_latency = { .id = -1 },
			       .gc_pause = { .id = -1 },
			       .gc_collected = { .id = -1 },
			       .alloc = { .id = -1 },
			       .sel_spec = -1 };
	return 0;
}

/* The next interval: every row counted again. */
static void next_interval(struct bench *b)
{
	for (size_t i = 0; i < b->n; i++)
		b->rows[i].total += b->rows[i].count;
	b->snap.interval++;
}

/* The frames (tree nodes) b's stacks make. */
static size_t tree_nodes(const struct bench *b)
{
	struct flame *f = flame_new();
	size_t n;

	if (!f)
		return 0;
	flame_begin(f);
	for (size_t i = 0; i < b->n; i++)
		flame_add(f, b->rows[i].key[0].text, 1);
	flame_end(f);
	n = flame_count(f);
	flame_free(f);
	return n;
}

/* refreshes of tick + draw at w x h; prints the medians and p99. */
static void run(struct bench *b, int w, int h, int refreshes)
{
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	const struct view_ops *v = &view_stacks;
	void *st = v->open();
	double *tick = calloc((size_t)refreshes, sizeof(double));
	double *all = calloc((size_t)refreshes, sizeof(double));
	double *draw = calloc((size_t)refreshes, sizeof(double));
	double first, t0;
	struct request req;
	SCREEN *scr;

	setenv("TERM", "xterm-256color", 1);
	scr = newterm(NULL, out, in);
	resizeterm(h, w);
	draw_init(true, true);
	t0 = cpu_ms();
	v->tick(st, &b->m, &req);
	first = cpu_ms() - t0;
	for (int i = 0; i < refreshes; i++) {
		double t1, t2, t3;

		next_interval(b);
		t1 = cpu_ms();
		v->tick(st, &b->m, &req);
		t2 = cpu_ms();
		erase();
		v->draw(st, &b->m, NULL, (struct rect){ 2, 0, h - 3, w }, true);
		refresh();
		t3 = cpu_ms();
		/* a key's redraw: no new snapshot */
		v->key(st, &b->m, i % 8 < 4 ? ACT_DOWN : ACT_UP, NULL, &req);
		erase();
		v->draw(st, &b->m, NULL, (struct rect){ 2, 0, h - 3, w }, true);
		refresh();
		draw[i] = cpu_ms() - t3;
		tick[i] = t2 - t1;
		all[i] = t3 - t1;
	}
	endwin();
	delscreen(scr);
	qsort(tick, (size_t)refreshes, sizeof(double), cmp_double);
	qsort(all, (size_t)refreshes, sizeof(double), cmp_double);
	qsort(draw, (size_t)refreshes, sizeof(double), cmp_double);
	printf("%dx%d: %zu stacks: first tick %.2f ms; per refresh (tree "
	       "update + draw) median %.2f ms, p99 %.2f ms (tree %.2f ms); "
	       "redraw on a key median %.2f ms\n",
	       w, h, b->n, first, all[refreshes / 2], all[refreshes * 99 / 100],
	       tick[refreshes / 2], draw[refreshes / 2]);
	v->close(st);
	free(tick);
	free(all);
	free(draw);
	fclose(out);
	fclose(in);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
	int refreshes = argc > 2 ? atoi(argv[2]) : 200;
	struct bench b = { 0 };

	setlocale(LC_ALL, "C.UTF-8");
	if (refreshes < 1 || build(&b, n)) {
		fprintf(stderr, "bench_stacks: cannot build the stacks\n");
		return 1;
	}
	printf("%zu stacks, %zu frames in the tree\n", n, tree_nodes(&b));
	run(&b, 80, 24, refreshes);
	run(&b, 200, 60, refreshes);
	return 0;
}
