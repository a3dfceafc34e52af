// SPDX-License-Identifier: MIT
/*
 * top — the hottest frames: calls/s, total, average latency, function,
 * file:line (and PID and COMMAND for -b), sortable, filterable, zeroable.
 *
 * Rows come from the frames.calls spec of the picked probeset; without
 * one (a program with its own probes), from every spec a user attached
 * (count, sum, quantize, lquantize, latency), each row named by its probe
 * (and, but for count and latency, its aggregation) and key. AVG is the
 * mean latency of a latency spec and the mean value of the others that
 * have a value; P50 and P99, where the box is PCT_MIN_W wide, a latency
 * row's percentiles since attach (the frame's, for frames: PostgreSQL's
 * query latency). Rows are rebuilt when a
 * snapshot arrives or the sort/filter changes; the cursor follows the
 * selected key, not the line, so rows can move without losing it.
 *
 * The rows are built, named and ordered by top_rows.c (top_impl.h):
 * they keep their place from one refresh to the next.
 *
 * A row's rate and total each carry the engine's mark (enum agg_mark:
 * exact, ~ an estimate, >= a lower bound); the box's title says what
 * the rows on screen are, from the marks drawn and what they count
 * ("exact calls", "exact and ~ estimated calls", "CPU samples"); a
 * selected lower bound with an estimate beside it says it on the line
 * under the rows. Enter drills into a row: a call or latency row to its
 * histogram, a CPU-sample row (which times no call) to its function's
 * stacks, or a line saying why there is none.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "inert.h"
#include "rowcache.h"
#include "top_impl.h"
#include "view.h"

static const char *const COL_NAMES[NCOLS] = { "calls/s", "total", "avg",
					      "name" };

/* What the title calls the rows whose numbers carry each mark (enum
 * agg_mark, drawn by draw_mark()), and why they are so, or NULL: one
 * line per kind of mark. */
#define NMARKS (AGG_BOUND + 1)

static const struct {
	const char *adj;
	const char *why;
} MARKS[NMARKS] = {
	[AGG_EXACT] = { "exact", NULL },
	[AGG_ESTIMATE] = { "estimated", "sampled by the budget" },
	[AGG_BOUND] = { "lower-bound", "sampled, no estimate within 15%" },
};

#define PCT_MIN_W 110 /* P50 and P99 of latency rows from this width */

static bool any_pct(const struct top *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].p50[0])
			return true;
	return false;
}

static bool any_avg(const struct top *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].avg_kind != AVG_NONE)
			return true;
	return false;
}

/* Select the cursor's row; asks the console to remember it. */
static void select_cursor(struct top *t, struct request *req)
{
	if (!t->n)
		return;
	snprintf(t->sel, sizeof(t->sel), "%s", t->rows[t->cursor].text->key);
	t->sel_spec = t->rows[t->cursor].spec;
	req->kind = REQ_SELECT;
	req->id = t->sel_spec;
	snprintf(req->text, sizeof(req->text), "%s", t->sel);
}

static void top_close(void *st);

static void *top_open(void)
{
	struct top *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->sel_spec = -1;
	t->texts = rowcache_new(free);
	if (!t->texts) {
		top_close(t);
		return NULL;
	}
	return t;
}

static void top_close(void *st)
{
	struct top *t = st;

	if (!t)
		return;
	top_rows_free(t);
	free(t->gone);
	free(t);
}

static void top_tick(void *st, const struct model *m, struct request *req)
{
	struct top *t = st;

	top_rebuild(t, m);
	top_base_gone(t, m);
	if (t->n &&
	    (t->sel_spec < 0 || strcmp(t->rows[t->cursor].text->key, t->sel) ||
	     t->rows[t->cursor].spec != t->sel_spec))
		select_cursor(t, req);
}

/* Whether a spec of the snapshot keys its rows by a Python stack. */
static bool has_pystack(const struct model *m)
{
	for (size_t i = 0; m->snap && i < m->snap->nspecs; i++) {
		const struct spec *sp = m->snap->specs[i].spec;

		for (int k = 0; k < sp->nkeys; k++)
			if (sp->keys[k].kind == SPEC_KEY_PYSTACK ||
			    sp->keys[k].kind == SPEC_KEY_PHPSTACK ||
			    sp->keys[k].kind == SPEC_KEY_RBSTACK)
				return true;
	}
	return false;
}

/* Whether row is keyed by a call stack. */
static bool stack_row(const struct agg_row *row)
{
	for (int i = 0; i < row->nkeys; i++)
		if (row->key[i].is_stack)
			return true;
	return false;
}

/*
 * Enter on a CPU-sample row (a profile:HZ spec's): a sample times no
 * call, so there is no histogram. What belongs to it is where it was
 * sampled: a stack row's Stacks view; a Python frame's function there,
 * highlighted (as S); else a line saying why there is nothing to open.
 */
static void enter_samples(const struct top *t, const struct model *m,
			  struct request *req)
{
	const struct top_row *r = &t->rows[t->cursor];
	const struct agg_row *row = r->row;
	bool frame = row->nkeys >= 3 && row->key[0].is_str &&
		     row->key[1].is_str && !row->key[2].is_str;
	char fn[160];

	if (stack_row(row)) {
		req->kind = REQ_VIEW;
		req->view = "stacks";
		return;
	}
	if (frame)
		inert_str(fn, sizeof(fn), agg_key_text(&row->key[0]));
	if (frame && has_pystack(m)) {
		req->kind = REQ_STACKS;
		snprintf(req->text, sizeof(req->text), "%s", fn);
		return;
	}
	req->kind = REQ_SAY;
	snprintf(req->text, sizeof(req->text),
		 "%s%sCPU samples time no call, so no histogram; %s",
		 frame ? fn : "", frame ? ": " : "",
		 frame ? "its stacks need -e 'profile:99=count(pystack)'"
		       : "key samples by pystack or ustack for Stacks (7)");
}

static int top_key(void *st, const struct model *m, enum action a,
		   const char *text, struct request *req)
{
	struct top *t = st;

	if (list_move(&t->cursor, t->n, a)) {
		select_cursor(t, req);
		return VIEW_HANDLED;
	}
	switch (a) {
	case ACT_SORT:
	case ACT_SORT_NEXT:
		t->sort = (t->sort + 1) % NCOLS;
		t->unranked = true; /* a new order from scratch */
		break;
	case ACT_SORT_PREV:
		t->sort = (t->sort + NCOLS - 1) % NCOLS;
		t->unranked = true;
		break;
	case ACT_FILTER:
		req->kind = REQ_PROMPT;
		snprintf(req->text, sizeof(req->text), "filter: ");
		return VIEW_HANDLED;
	case ACT_TEXT:
		snprintf(t->filter, sizeof(t->filter), "%s", text ? text : "");
		t->cursor = 0;
		break;
	case ACT_BACK:
		if (!t->filter[0])
			return VIEW_IGNORED;
		t->filter[0] = '\0';
		break;
	case ACT_ZERO:
		top_zero_totals(t);
		break;
	case ACT_ENTER:
		if (!t->n)
			return VIEW_HANDLED;
		if (t->rows[t->cursor].samples) {
			enter_samples(t, m, req);
			return VIEW_HANDLED;
		}
		select_cursor(t, req);
		req->kind = REQ_VIEW;
		req->view = "hist";
		return VIEW_HANDLED;
	case ACT_STACKS:
		if (!t->n)
			return VIEW_IGNORED;
		req->kind = REQ_STACKS;
		snprintf(req->text, sizeof(req->text), "%s",
			 t->rows[t->cursor].text->name);
		return VIEW_HANDLED;
	default:
		return VIEW_IGNORED;
	}
	top_rebuild(t, m);
	return VIEW_HANDLED;
}

/* Frames keyed by one string (PostgreSQL's query text): its label,
 * upper-cased, names the name column, into buf; NULL for others. */
static const char *one_key_label(const struct model *m, char *buf, size_t n)
{
	const struct model_role *fr = model_frames(m);
	const char *label;
	size_t i;

	if (!fr || !fr->spec || !fr->ps || fr->spec->spec.nkeys != 1)
		return NULL;
	label = fr->ps->sections[fr->spec->section].labels[0];
	for (i = 0; label[i] && i + 1 < n; i++)
		buf[i] = (char)(label[i] >= 'a' && label[i] <= 'z'
					? label[i] - 'a' + 'A'
					: label[i]);
	buf[i] = '\0';
	return i ? buf : NULL;
}

static void heading(const struct top *t, const struct model *m, struct rect r,
		    int namew, int cmdw)
{
	char h[512], pid[80] = "", label[PS_NAME_MAX];
	const char *one =
		t->frames ? one_key_label(m, label, sizeof(label)) : NULL;
	const char *name = one ? one : t->frames ? "FUNCTION" : "PROBE";
	const char *where = one ? "" : t->frames ? "FILE:LINE" : "KEY";

	if (m->binary_mode)
		snprintf(pid, sizeof(pid), "%7s %-*s ", "PID", cmdw, "COMMAND");
	snprintf(h, sizeof(h), "%s%10s %11s%s%s%s  %-*s %s", pid,
		 t->hz ? "SAMPLES/s" : "CALLS/s", "TOTAL",
		 m->base ? "    DELTA/s  RATIO" : "",
		 t->avg_col ? (t->hz ? "    %CPU" : "     AVG") : "",
		 t->pct_col ? "     P50     P99" : "", namew, name, where);
	draw_text(r.y, r.x, r.w, STYLE_TITLE, h);
}

/* The COMMAND column's width (-b): CMD_W, or up to the longest command
 * (at most CMD_W_MAX) while the names and FILE:LINE still fit in what
 * is left of avail, so that a command's end shows where there is room
 * ("postgres: app shop [local] SELECT"). */
static int cmd_width(const struct top *t, int avail)
{
	int want = t->maxc < CMD_W ? CMD_W : t->maxc;
	int spare = avail - (t->maxn > 8 ? t->maxn : 8) -
		    (t->maxw ? 1 + (t->maxw > 9 ? t->maxw : 9) : 0);

	if (want > CMD_W_MAX)
		want = CMD_W_MAX;
	if (spare < 0)
		spare = 0;
	return want - CMD_W > spare ? CMD_W + spare : want;
}

/* The FUNCTION/PROBE column's width out of avail columns: the longest
 * name if the longest FILE:LINE/KEY still fits after it, else what leaves
 * room for that, but at least half of avail (and at least 8). */
static int name_width(const struct top *t, int avail)
{
	int maxn = t->maxn > 8 ? t->maxn : 8, maxw = t->maxw > 9 ? t->maxw : 9;
	int w = avail - 1 - maxw;

	if (w < avail / 2)
		w = avail / 2;
	if (w > maxn)
		w = maxn;
	return w < 8 ? 8 : w;
}

/* s in w columns: as is if it fits, else its end after a mark, so that
 * FILE:LINE keeps its line ("…orkload.py:64"). */
static const char *tail(const char *s, int w, char *buf, size_t n)
{
	int len = (int)strlen(s);

	if (w < 4 || len <= w)
		return s;
	snprintf(buf, n, "%s%s", draw_utf8() ? "\u2026" : "<",
		 s + len - (w - 1));
	return buf;
}

/* The columns s takes (UTF-8). */
static int width_of(const char *s)
{
	return (int)strlen(s) - fmt_w(s, 0);
}

/* The mark rate's (or total's) column draws for mark: none on a 0. */
static unsigned char mark_drawn(double v, unsigned char mark)
{
	return v > 0 && mark < NMARKS ? mark : AGG_EXACT;
}

/* Which marks the rows on screen, lines from t->scroll, draw: a bit per
 * enum agg_mark; *samples whether there are rows and all are CPU
 * samples. */
static unsigned marks_shown(const struct top *t, int lines, bool *samples)
{
	unsigned set = 0;

	*samples = true;
	for (int i = 0; i < lines && t->scroll + (size_t)i < t->n; i++) {
		const struct top_row *r = &t->rows[t->scroll + (size_t)i];

		set |= 1u << mark_drawn(r->rate, r->mark);
		set |= 1u << mark_drawn((double)r->total, r->mark_total);
		*samples = *samples && r->samples;
	}
	*samples = *samples && (set || t->hz);
	return set;
}

/*
 * The box's title into out: "Top frames" or "Top probes", then what the
 * rows on screen are from their marks (a set of enum agg_mark bits) and
 * what they count, "exact calls", "exact and ~ estimated calls", "CPU
 * samples"; with why (long) the reasons in brackets, "(sampled by the
 * budget)"; then the filter.
 */
static void title_text(const struct top *t, unsigned marks, bool samples,
		       bool why, char *out, size_t n)
{
	const char *noun = samples ? "CPU samples" : t->frames ? "calls" : "";
	int nmarks = __builtin_popcount(marks), nwhy = 0, k = 0;
	size_t o = fmt_put(out, n, 0, t->frames ? "Top frames" : "Top probes");
	char words[160] = "", whys[160] = "";
	size_t w = 0, y = 0;

	for (int i = 0; i < NMARKS; i++)
		nwhy += (marks >> i & 1) && MARKS[i].why;
	for (int i = 0; i < NMARKS; i++) {
		const char *sym = draw_mark((unsigned char)i);

		if (!(marks >> i & 1))
			continue;
		if (k++)
			w = fmt_put(words, sizeof(words), w,
				    k == nmarks ? " and " : ", ");
		if (*sym) {
			w = fmt_put(words, sizeof(words), w, sym);
			w = fmt_put(words, sizeof(words), w, " ");
		}
		w = fmt_put(words, sizeof(words), w, MARKS[i].adj);
		if (!MARKS[i].why)
			continue;
		y = fmt_put(whys, sizeof(whys), y, y ? "; " : " (");
		if (nwhy > 1) {
			y = fmt_put(whys, sizeof(whys), y, sym);
			y = fmt_put(whys, sizeof(whys), y, ": ");
		}
		y = fmt_put(whys, sizeof(whys), y, MARKS[i].why);
	}
	if (marks == 1u << AGG_EXACT && samples)
		words[0] = '\0'; /* samples: a count, not a claim of time */
	if (y)
		fmt_put(whys, sizeof(whys), y, ")");
	if (words[0] || noun[0]) {
		o = fmt_put(out, n, o, ", ");
		o = fmt_put(out, n, o, words);
		o = fmt_put(out, n, o, words[0] && noun[0] ? " " : "");
		o = fmt_put(out, n, o, noun);
	}
	if (why)
		o = fmt_put(out, n, o, whys);
	if (t->filter[0]) {
		o = fmt_put(out, n, o, " /");
		fmt_put(out, n, o, t->filter);
	}
}

/* num, with its mark before it (draw_mark()) */
static const char *approx(char *buf, size_t n, unsigned char mark,
			  const char *num)
{
	snprintf(buf, n, "%s%s", draw_mark(mark), num);
	return buf;
}

/* The lines the baseline's gone keys take of lines: none without
 * them, else a heading and a line each, in at most a third of them (at
 * least two). */
static int gone_lines(const struct top *t, int lines)
{
	int most = lines / 3 > 2 ? lines / 3 : 2;

	if (!t->ngone || lines < 4)
		return 0;
	return t->ngone + 1 < (size_t)most ? (int)t->ngone + 1 : most;
}

/* Rows drawn from t->scroll in lines. */
static int rows_shown(const struct top *t, int lines)
{
	size_t left = t->n > t->scroll ? t->n - t->scroll : 0;

	return lines < 0 ? 0 : left < (size_t)lines ? (int)left : lines;
}

/* The selected row's total, if a lower bound with an estimate beside it
 * (agg_row.guess_total), as the line under the rows says it; NULL if
 * not. */
static const char *guess_line(const struct top *t, bool focus, char *buf,
			      size_t n)
{
	const struct top_row *row =
		t->cursor < t->n ? &t->rows[t->cursor] : NULL;
	char tot[32], est[32];

	if (!focus || !row || row->mark_total != AGG_BOUND ||
	    row->row->guess_total <= 0)
		return NULL;
	snprintf(buf, n,
		 "  %s: %s%s in total, ~%s give or take %.0f%% (too few in "
		 "the budget's windows to promise 15%%)",
		 row->text->name, agg_mark_sign(AGG_BOUND, draw_utf8()),
		 fmt_count(row->total, tot, sizeof(tot)),
		 fmt_count((uint64_t)llround(row->row->guess_total), est,
			   sizeof(est)),
		 row->row->guess_err_total * 100);
	return buf;
}

static void top_draw(void *st, const struct model *m,
		     const struct view_env *env, struct rect r, bool focus)
{
	struct top *t = st;
	char note[64], title[512], guess[256];
	const char *gl = guess_line(t, focus, guess, sizeof(guess));
	struct rect in;
	int namew, lines, avail, cmdw;
	unsigned marks;
	bool samples;
	int why, head, gone, y0;

	(void)env;
	snprintf(note, sizeof(note), "%s %s",
		 t->hz && t->sort == COL_RATE ? "samples/s"
					      : COL_NAMES[t->sort],
		 draw_utf8() ? "\u25bc" : "v");
	/* why there are no frames, wrapped in up to 3 rows: in place of the
	 * rows, or over them */
	why = 0;
	if (m->frames_why[0] &&
	    (!t->n || (!t->frames && m->frames_why_any) || m->frames_why_over))
		why = draw_wrap_rows(r.w - 2, 2, 4, m->frames_why);
	why = why > 3 ? 3 : why;
	head = m->base ? 1 : 0; /* the line saying what the baseline is */
	/* the box's, less the heading, and what the gone keys take */
	lines = r.h - 3 - (t->n ? why : 0) - head - (gl ? 1 : 0);
	gone = gone_lines(t, lines);
	lines -= gone;
	if (lines > 0)
		list_scroll(t->cursor, &t->scroll, lines);
	marks = marks_shown(t, lines, &samples);
	/* the reasons if they fit beside the note (draw_box()) */
	title_text(t, marks, samples, true, title, sizeof(title));
	if (width_of(title) + width_of(note) + 4 >= r.w - 4)
		title_text(t, marks, samples, false, title, sizeof(title));
	in = draw_box(r, title, note, focus);
	if (in.h < 2)
		return;
	t->avg_col = in.w >= 90 || any_avg(t);
	t->pct_col = in.w >= PCT_MIN_W && any_pct(t);
	avail = in.w - (t->avg_col ? 33 : 25) - (t->pct_col ? 16 : 0) -
		(m->base ? BASE_COLS : 0);
	cmdw = m->binary_mode ? cmd_width(t, avail - 9 - CMD_W) : 0;
	if (m->binary_mode)
		avail -= 9 + cmdw; /* "%7u %-*s " */
	namew = name_width(t, avail);
	heading(t, m, in, namew, cmdw);
	if (head)
		draw_fmt(in.y + 1, in.x, in.w, STYLE_DIM,
			 "  against the baseline %s: DELTA/s and RATIO are "
			 "each rate's against the key's rate there",
			 m->base_what);
	y0 = in.y + 1 + head;
	if (why)
		draw_wrapped(y0, y0 + why, in.x, in.w, STYLE_WARN, 2, 4,
			     m->frames_why);
	if (t->n)
		y0 += why;
	top_base_draw_gone(t, m, in, y0 + rows_shown(t, lines),
			   in.y + in.h - y0 - rows_shown(t, lines) -
				   (gl ? 1 : 0));
	if (!t->n && !why && !t->ngone) {
		draw_text(
			y0, in.x, in.w, STYLE_DIM,
			!m->snap       ? "  waiting for the first interval"
			: t->filter[0] ? "  no row matches the filter"
			: t->frames
				? "  no calls yet"
				: "  nothing counted yet: switch probes on in "
				  "Probes (2)");
	}
	if (!t->n)
		return;
	if (gl && lines > 0)
		draw_text(in.y + in.h - 1, in.x, in.w, STYLE_DIM, gl);
	for (int i = 0; i < lines && t->scroll + (size_t)i < t->n; i++) {
		const struct top_row *row = &t->rows[t->scroll + (size_t)i];
		char rate[32], tot[32], v[32] = "-", avg[40] = "", pid[64] = "";
		char pct[40] = "";
		char erate[34], etot[34], vs[40];
		char wh[200], cmd[CMD_W_MAX + 1], num[16];

		if (row->avg_kind == AVG_PCT)
			snprintf(v, sizeof(v), "%.1f%%", row->avg);
		else if (row->avg_kind == AVG_NS)
			fmt_ns(row->avg, v, sizeof(v));
		else if (row->avg_kind == AVG_VALUE)
			fmt_si(row->avg, v, sizeof(v));
		if (t->avg_col)
			snprintf(avg, sizeof(avg), " %*s", fmt_w(v, 7), v);
		if (t->pct_col)
			snprintf(pct, sizeof(pct), " %*s %*s",
				 fmt_w(row->p50[0] ? row->p50 : "-", 7),
				 row->p50[0] ? row->p50 : "-",
				 fmt_w(row->p99[0] ? row->p99 : "-", 7),
				 row->p99[0] ? row->p99 : "-");
		if (m->binary_mode)
			snprintf(pid, sizeof(pid), "%7s %-*.*s ",
				 agg_pid_text(row->row->pid, num, sizeof(num)),
				 cmdw, cmdw,
				 inert_str(cmd, sizeof(cmd),
					   model_pid_cmd(m, row->row->pid)));
		top_base_cols(m, row, vs, sizeof(vs));
		draw_fmt(y0 + i, in.x, in.w,
			 focus && t->scroll + (size_t)i == t->cursor
				 ? STYLE_SELECTED
				 : STYLE_NORMAL,
			 "%s%10s %11s%s%s%s  %-*.*s %s", pid,
			 approx(erate, sizeof(erate),
				row->rate > 0 && !m->exited ? row->mark
							    : AGG_EXACT,
				m->exited ? "ended"
					  : fmt_rate(row->rate, rate,
						     sizeof(rate))),
			 approx(etot, sizeof(etot),
				row->total > 0 ? row->mark_total : AGG_EXACT,
				fmt_count(row->total, tot, sizeof(tot))),
			 vs, avg, pct, namew,
			 row->text->where[0] ? namew : in.w, row->text->name,
			 t->frames ? tail(row->text->where, avail - namew - 1,
					  wh, sizeof(wh))
				   : row->text->where);
	}
}

/* Its frames' spec: calls or CPU samples. */
static size_t top_shows(void *st, const struct model *m, int *ids, size_t max)
{
	const struct model_role *f = model_frames(m);

	(void)st;
	if (!f || f->id < 0 || !max)
		return 0;
	ids[0] = f->id;
	return 1;
}

const struct view_ops view_top = {
	.name = "top",
	.title = "Top",
	.open = top_open,
	.close = top_close,
	.tick = top_tick,
	.draw = top_draw,
	.key = top_key,
	.shows = top_shows,
};
