// SPDX-License-Identifier: MIT
/*
 * io — the target's IO from the kernel: per syscall class calls/s,
 * bytes/s, latency p50/p99 and errors, block requests, and sparklines of
 * bytes and calls per second over the last minute, and what the kernel
 * could not record; then the runtime's own IO, where its probeset has an
 * [io] section (PostgreSQL's buffer reads, relation file reads and
 * writes): one row per spec and key, its rate, total and p99; then the
 * processes and threads the target and its descendants start, exec and
 * end: a summary line, and where there is room one row per event and
 * name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "inert.h"
#include "view.h"

#define HISTORY 60
#define NARROW_W 36 /* a pane narrower than this drops the p99 column */

struct io {
	double bytes[HISTORY], calls[HISTORY];
	size_t n;
};

static void *io_open(void)
{
	return calloc(1, sizeof(struct io));
}

static void io_close(void *st)
{
	free(st);
}

static void io_tick(void *st, const struct model *m, struct request *req)
{
	struct io *v = st;
	double bytes = 0, calls = 0;

	(void)req;
	if (!m->io_on || !m->snap || m->snap_s <= 0)
		return;
	for (size_t i = 0; i < m->snap->nio; i++) {
		bytes += (double)m->snap->io[i].now.bytes;
		calls += (double)m->snap->io[i].now.calls;
	}
	if (v->n == HISTORY) {
		memmove(v->bytes, v->bytes + 1, sizeof(double) * (HISTORY - 1));
		memmove(v->calls, v->calls + 1, sizeof(double) * (HISTORY - 1));
		v->n--;
	}
	v->bytes[v->n] = bytes / m->snap_s;
	v->calls[v->n++] = calls / m->snap_s;
}

/* a log2 latency bucket's lower bound as text */
static const char *lat(const __u64 *b, double p, char *buf, size_t n)
{
	uint64_t v[PT_NBUCKETS];
	int at;

	for (int i = 0; i < PT_NBUCKETS; i++)
		v[i] = b[i];
	at = agg_percentile_bucket(v, PT_NBUCKETS, p);

	if (at < 0)
		return "-";
	return fmt_ns(at <= 1 ? 0 : (double)(1ull << (at - 2)), buf, n);
}

/* Into line (n bytes) the process events of this interval: "procs
 * fork 1/s  exec 1/s  exit 1/s  thread 0/s", or when not wide (a
 * Dashboard pane) "procs/s  fork 1  exec 1  exit 1  thread 0"; fields
 * for draw_fields(). */
static void proc_summary(const struct model *m, bool wide, char *line, size_t n)
{
	static const int SHOWN[] = { PT_PROC_FORK, PT_PROC_EXEC, PT_PROC_EXIT,
				     PT_PROC_THREAD };
	double s = m->snap_s > 0 ? m->snap_s : 1;
	char r[32];

	snprintf(line, n, "%s", wide ? "procs" : "procs/s");
	for (size_t k = 0; k < sizeof(SHOWN) / sizeof(SHOWN[0]); k++) {
		uint64_t c = 0;

		for (size_t i = 0; m->snap && i < m->snap->nproc; i++)
			if (m->snap->proc[i].event == SHOWN[k])
				c += m->snap->proc[i].now.count;
		snprintf(line + strlen(line), n - strlen(line), "  %s %s%s",
			 agg_proc_event_name(SHOWN[k]),
			 m->exited ? "ended"
				   : fmt_rate((double)c / s, r, sizeof(r)),
			 wide && !m->exited ? "/s" : "");
	}
}

/* One row per (event, code, name) from y while below end; not wide (a
 * Dashboard pane), the name comes before it is cut. */
static void draw_proc_rows(int y, int end, int x, int w, bool wide,
			   const struct model *m)
{
	if (y >= end)
		return;
	if (wide)
		draw_fmt(y++, x, w, STYLE_TITLE, " %-11s %5s %8s %9s %8s  %s",
			 "EVENT", "CODE", "/s", "TOTAL", "AVG LIFE", "NAME");
	else
		draw_fmt(y++, x, w, STYLE_TITLE, " %-7s %4s %7s  %s", "EVENT",
			 "CODE", "/s", "NAME");
	for (size_t i = 0; m->snap && i < m->snap->nproc && y < end; i++) {
		const struct agg_proc_row *p = &m->snap->proc[i];
		char code[16] = "", c[32], t[32], life[32] = "", name[256];

		if (!p->total.count)
			continue;
		if (p->event == PT_PROC_EXIT)
			snprintf(code, sizeof(code), "%d", p->code);
		if (p->total.ns)
			fmt_ns((double)p->total.ns / (double)p->total.count,
			       life, sizeof(life));
		model_rate(m, (double)p->now.count, c, sizeof(c));
		inert_str(name, sizeof(name), p->name);
		if (wide)
			draw_fmt(y++, x, w, STYLE_NORMAL,
				 " %-11s %5s %8s %9s %*s  %s",
				 agg_proc_event_name(p->event), code, c,
				 fmt_count(p->total.count, t, sizeof(t)),
				 fmt_w(life, 8), life, name);
		else
			draw_fmt(y++, x, w, STYLE_NORMAL, " %-7.7s %4s %7s  %s",
				 agg_proc_event_name(p->event), code, c, name);
	}
}

/* The rate and total of row r of spec as (bytes, for a role whose name
 * ends in "bytes"; its sum for sum(), else its count), into rate/total. */
static void runtime_values(const struct model *m, const struct agg_spec *as,
			   const struct ps_spec *role, const struct agg_row *r,
			   char *rate, char *total, size_t n)
{
	bool sum = as->spec->agg == SPEC_AGG_SUM;
	size_t len = strlen(role->name);
	bool bytes = len >= 5 && !strcmp(role->name + len - 5, "bytes");
	double now = sum ? (double)r->sum : (double)r->count;
	double all = sum ? (double)r->sum_total : (double)r->total;
	double s = m->snap_s > 0 ? m->snap_s : 1;

	if (bytes) {
		fmt_bytes(now / s, rate, n);
		fmt_bytes(all, total, n);
	} else {
		fmt_rate(now / s, rate, n);
		fmt_count((uint64_t)all, total, n);
	}
	if (m->exited)
		snprintf(rate, n, "ended");
}

/* How many of the runtime's [io] specs have counted. */
static int runtime_specs(const struct model *m)
{
	int n = 0;

	for (int k = 0; k < MODEL_IO_ROLES && m->io_roles[k].spec; k++) {
		const struct agg_spec *as = model_spec(m, m->io_roles[k].id);

		n += as && as->nrows && as->rows[0]->total;
	}
	return n;
}

/* The runtime's [io] specs from y while below end, a row per spec and
 * key that has counted, the busiest first, each spec an equal share of
 * the lines: NAME KEY /s TOTAL p99 (p99 for latency). The next free
 * line. */
static int draw_runtime(int y, int end, int x, int w, const struct model *m)
{
	const struct model_role *io = m->io_roles;
	const char *title =
		io[0].spec && io[0].ps
			? io[0].ps->sections[io[0].spec->section].title
			: "";
	int nspecs = runtime_specs(m), share;

	if (!io[0].spec || y >= end)
		return y;
	draw_fmt(y++, x, w, STYLE_TITLE, " %-13s %-20s %9s %9s %7s",
		 title[0] ? title : "RUNTIME IO", "KEY", "/s", "TOTAL", "p99");
	share = nspecs ? (end - y) / nspecs : 0;
	for (int k = 0; k < MODEL_IO_ROLES && io[k].spec && y < end; k++) {
		const struct agg_spec *as = model_spec(m, io[k].id);
		int shown = 0;

		for (size_t i = 0; as && i < as->nrows && y < end &&
				   (shown < share || !share);
		     i++) {
			const struct agg_row *r = as->rows[i];
			char key[256], rate[32], total[32], p99[32] = "";

			if (!r->total)
				continue;
			model_key_text(m, r, " ", key, sizeof(key));
			runtime_values(m, as, io[k].spec, r, rate, total,
				       sizeof(rate));
			if (as->spec->timed && r->b_total) {
				__u64 b[PT_NBUCKETS];

				for (int j = 0; j < PT_NBUCKETS; j++)
					b[j] = r->b_total[j];
				lat(b, 99, p99, sizeof(p99));
			}
			draw_fmt(y++, x, w, STYLE_NORMAL,
				 " %-13.13s %-20.20s %9s %9s %*s",
				 io[k].spec->name, key, rate, total,
				 fmt_w(p99, 7), p99);
			shown++;
		}
	}
	return y;
}

static void io_draw(void *st, const struct model *m, const struct view_env *env,
		    struct rect r, bool focus)
{
	struct io *v = st;
	struct rect in = draw_box(r, "IO", NULL, focus);
	int y = in.y;
	bool wide = in.w >= 60;
	char procs[160];
	int end = in.y + in.h; /* above the process summary */

	(void)env;
	if (in.h < 1)
		return;
	if (m->proc_on) {
		proc_summary(m, wide, procs, sizeof(procs));
		end -= draw_fields_rows(in.w, 1, 1, procs);
	}
	if (!m->io_on && m->io_off) {
		/* the budget turned the default watch off: say what it cost */
		draw_fmt(y++, in.x, in.w, STYLE_DIM,
			 " syscall IO off: it cost %.1f%% of one CPU",
			 m->io_off_pct);
		draw_fmt(y++, in.x, in.w, STYLE_DIM,
			 " machine-wide (+%.2f %s a syscall of",
			 m->io_off_syscall_ns / 1e3,
			 m->utf8 ? "\u00b5s" : "us");
		draw_text(y++, in.x, in.w, STYLE_DIM,
			  " every process), over the budget:");
		draw_text(y++, in.x, in.w, STYLE_DIM,
			  " -P io (or --budget off) watches it");
		y = draw_runtime(y, end, in.x, in.w, m);
		if (m->proc_on)
			draw_fields(y, in.y + in.h, in.x, in.w, STYLE_NORMAL, 1,
				    1, procs);
		return;
	}
	if (!m->io_on) {
		draw_text(y++, in.x, in.w, STYLE_DIM,
			  m->binary_mode ? " no syscall IO with -b: use -p PID"
					 : " syscall IO is off (-P io)");
		y = draw_runtime(y, end, in.x, in.w, m);
		if (m->proc_on)
			draw_fields(y, in.y + in.h, in.x, in.w, STYLE_NORMAL, 1,
				    1, procs);
		return;
	}
	if (wide)
		draw_fmt(y++, in.x, in.w, STYLE_TITLE,
			 " %-11s %9s %9s %8s %8s %7s", "CLASS", "CALLS/s",
			 "BYTES/s", "p50", "p99", "ERR/s");
	else if (in.w >= NARROW_W)
		draw_fmt(y++, in.x, in.w, STYLE_TITLE, " %-11s%8s %9s %6s",
			 "CLASS", "CALLS/s", "BYTES/s", "p99");
	else
		draw_fmt(y++, in.x, in.w, STYLE_TITLE, " %-8s%8s %8s", "CLASS",
			 "CALLS/s", "BYTES/s");
	for (size_t i = 0; m->snap && i < m->snap->nio && y < end - 1; i++) {
		const struct agg_io_row *io = &m->snap->io[i];
		double s = m->snap_s > 0 ? m->snap_s : 1;
		char c[32], b[32], p50[32], p99[32], e[32];

		if (!io->total.calls)
			continue;
		model_rate(m, (double)io->now.calls, c, sizeof(c));
		if (m->exited)
			snprintf(b, sizeof(b), "ended");
		else
			fmt_bytes((double)io->now.bytes / s, b, sizeof(b));
		lat(io->total.b, 50, p50, sizeof(p50));
		lat(io->total.b, 99, p99, sizeof(p99));
		if (wide)
			draw_fmt(y++, in.x, in.w, STYLE_NORMAL,
				 " %-11s %9s %9s %*s %*s %7s",
				 agg_io_class_name(io->cls), c, b,
				 fmt_w(p50, 8), p50, fmt_w(p99, 8), p99,
				 model_rate(m, (double)io->now.errors, e,
					    sizeof(e)));
		else if (in.w >= NARROW_W)
			draw_fmt(y++, in.x, in.w, STYLE_NORMAL,
				 " %-11.11s%8s %9s %*s",
				 agg_io_class_name(io->cls), c, b,
				 fmt_w(p99, 6), p99);
		else
			draw_fmt(y++, in.x, in.w, STYLE_NORMAL,
				 " %-8.8s%8s %8s", agg_io_class_name(io->cls),
				 c, b);
	}
	if (y == in.y + 1)
		draw_text(y++, in.x, in.w, STYLE_DIM, " no IO yet");
	y = draw_runtime(y, end - 2, in.x, in.w, m);
	if (y < end) {
		draw_text(y, in.x, 7, STYLE_NORMAL, " bytes ");
		draw_spark(y++, in.x + 7, in.w - 7, v->bytes, v->n);
	}
	if (y < end) {
		draw_text(y, in.x, 7, STYLE_NORMAL, " calls ");
		draw_spark(y++, in.x + 7, in.w - 7, v->calls, v->n);
	}
	if (m->kernel_lost[0] && y < end)
		draw_fmt(y++, in.x, in.w, STYLE_WARN, " lost  %s",
			 m->kernel_lost);
	if (!m->proc_on)
		return;
	if (y < in.y + in.h)
		y = draw_fields(y, in.y + in.h, in.x, in.w, STYLE_NORMAL, 1, 1,
				procs);
	draw_proc_rows(y, in.y + in.h, in.x, in.w, wide, m);
}

/* Its probesets' [io] specs (the kernel's own IO it counts apart). */
static size_t io_shows(void *st, const struct model *m, int *ids, size_t max)
{
	size_t n = 0;

	(void)st;
	for (int i = 0; i < MODEL_IO_ROLES && m->io_roles[i].id >= 0 && n < max;
	     i++)
		ids[n++] = m->io_roles[i].id;
	return n;
}

const struct view_ops view_io = {
	.name = "io",
	.title = "IO",
	.open = io_open,
	.close = io_close,
	.tick = io_tick,
	.draw = io_draw,
	.shows = io_shows,
};
