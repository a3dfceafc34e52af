// SPDX-License-Identifier: MIT
/*
 * stacks — the Stacks view: an aggregation keyed by a call stack
 * (pystack, ustack: a key part with is_stack) as an icicle graph, the
 * root ("all") on top, each frame as wide as its share of the samples.
 *
 * The tree and its layout are views/flame.c; this file picks the
 * aggregation, feeds the tree each snapshot, moves a cursor over the
 * laid-out cells and draws them. Counts are the totals since attach by
 * default, so the picture settles instead of flickering; t shows this
 * interval's instead. Rows that differ only in other key parts (another
 * key, the pid of -b) are summed into one stack; a sum() aggregation
 * weighs a stack by its summed value (bytes written, say), every other
 * one by its events.
 *
 * The cursor and the zoom are tree nodes, which keep their ids from one
 * refresh to the next (until another aggregation is shown): a frame the
 * cursor is on stays under it while the counts move.
 *
 * A native stack's frames come with their modules (agg_key_part.mods,
 * the engine's naming: python3.11, libc.so.6), and a frame takes its
 * module's hue: the hash of the module's name picks a hue of the
 * palette (draw_mod_hues()), the next free one if another module of
 * the graph has it, so that the first modules seen all differ; a
 * module keeps its hue as long as the graph (until another aggregation
 * is shown). The status line names the cursor's module. Names are not
 * changed: the graph shows what --folded prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "flame.h"
#include "inert.h"
#include "view.h"

#define MAX_ZOOMS 64
#define LAYOUT_ROWS 128 /* frames deeper are not laid out */
#define MAX_MODS 64 /* modules given a hue; later ones share by hash */

/* A module and the hue it was given (0..draw_mod_hues()). */
struct mod_hue {
	char name[64];
	int hue;
};

struct stacks {
	struct flame *f;
	int spec_id; /* shown, or -1 */
	int nspecs, at; /* stack-keyed specs, and which one is shown */
	bool interval; /* this interval's counts (t), else the totals */
	bool python; /* its stacks are Python's (pystack) */
	bool mixed; /* native and Python frames (mixstack) */
	uint32_t cursor;
	uint32_t zooms[MAX_ZOOMS]; /* the zoomed node last: Enter pushes */
	int nzooms;
	char search[64];
	bool exact; /* search is a function name from Top (S) */
	uint64_t match_sum;
	size_t match_nodes;
	unsigned goto_seq; /* the model's stack_goto_seq last applied */
	struct flame_cell *cells;
	size_t ncells, capcells;
	int width; /* of the last layout, 0 before the first draw */
	int scroll; /* the first layout row drawn */
	struct mod_hue mods[MAX_MODS]; /* in the order first drawn */
	int nmods;
};

/* The first key part of row that is a stack, or -1. */
static int stack_part(const struct agg_row *row)
{
	for (int i = 0; i < row->nkeys; i++)
		if (row->key[i].is_stack)
			return i;
	return -1;
}

/* Whether the rows of as are keyed by a stack (a pystack spec is even
 * before its first row). */
static bool is_stack_spec(const struct agg_spec *as)
{
	for (int i = 0; i < as->spec->nkeys; i++)
		if (spec_key_is_stack(&as->spec->keys[i]))
			return true;
	return as->nrows && stack_part(as->rows[0]) >= 0;
}

/* Whether the stacks of as are of kind (pystack, mixstack). */
static bool has_kind(const struct agg_spec *as, enum spec_key_kind kind)
{
	for (int i = 0; i < as->spec->nkeys; i++)
		if (as->spec->keys[i].kind == kind)
			return true;
	return false;
}

static bool is_python(const struct agg_spec *as)
{
	return has_kind(as, SPEC_KEY_PYSTACK);
}

/* Whether a mixstack frame is a Python one: "function (file:line)". */
static bool py_named(const char *name)
{
	size_t n = strlen(name);

	return n > 2 && name[n - 1] == ')' && strstr(name, " (");
}

/* The spec to show: the one shown if it is still there, else the first
 * stack-keyed one; sets s->nspecs and s->at. NULL if none. */
static const struct agg_spec *pick_spec(struct stacks *s, const struct model *m)
{
	const struct agg_spec *first = NULL, *shown = NULL;
	int k = 0;

	s->nspecs = 0;
	for (size_t i = 0; m->snap && i < m->snap->nspecs; i++) {
		const struct agg_spec *as = &m->snap->specs[i];

		if (!is_stack_spec(as))
			continue;
		if (!first)
			first = as;
		if (as->id == s->spec_id) {
			shown = as;
			s->at = k;
		}
		k++;
	}
	s->nspecs = k;
	if (!shown && first)
		s->at = 0;
	return shown ? shown : first;
}

/* The weight of a row: its sum for sum(), else its events. */
static uint64_t weight(const struct stacks *s, const struct agg_spec *as,
		       const struct agg_row *row)
{
	int64_t v;

	if (as->spec->agg != SPEC_AGG_SUM)
		return s->interval ? row->count : row->total;
	v = s->interval ? row->sum : row->sum_total;
	return v > 0 ? (uint64_t)v : 0;
}

static uint32_t zoom_of(const struct stacks *s)
{
	return s->nzooms ? s->zooms[s->nzooms - 1] : FLAME_ROOT;
}

static void forget_places(struct stacks *s)
{
	s->cursor = FLAME_ROOT;
	s->nzooms = 0;
	s->scroll = 0;
}

static void find_matches(struct stacks *s)
{
	s->match_sum = flame_match_total(s->f, FLAME_ROOT, s->search, s->exact,
					 &s->match_nodes);
}

/* The tree from the model's snapshot: the spec to show, its rows. */
static void rebuild(struct stacks *s, const struct model *m)
{
	const struct agg_spec *as = pick_spec(s, m);

	if (!as || as->id != s->spec_id) {
		flame_reset(s->f);
		forget_places(s);
		s->nmods = 0;
		s->spec_id = as ? as->id : -1;
	}
	flame_begin(s->f);
	s->python = as && is_python(as);
	s->mixed = as && has_kind(as, SPEC_KEY_MIXSTACK);
	for (size_t i = 0; as && i < as->nrows; i++) {
		const struct agg_row *row = as->rows[i];
		int k = stack_part(row);
		uint64_t w = weight(s, as, row);

		if (k >= 0 && w)
			flame_add_mods(s->f, agg_key_text(&row->key[k]),
				       row->key[k].mods, w);
	}
	flame_end(s->f);
	find_matches(s);
}

/* Lay out the zoomed subtree s->width wide. */
static void relayout(struct stacks *s)
{
	size_t cap = (size_t)(s->width > 0 ? s->width : 1) * LAYOUT_ROWS;

	if (cap > s->capcells) {
		struct flame_cell *v = realloc(s->cells, cap * sizeof(*v));

		if (!v) {
			s->ncells = 0;
			return;
		}
		s->cells = v;
		s->capcells = cap;
	}
	s->ncells = flame_layout(s->f, zoom_of(s), s->width, LAYOUT_ROWS,
				 s->cells, s->capcells);
}

/* The cell of node id in the layout, or -1. */
static int cell_of(const struct stacks *s, uint32_t id)
{
	for (size_t i = 0; i < s->ncells; i++)
		if (s->cells[i].node == id)
			return (int)i;
	return -1;
}

/* The cursor's cell; a cursor on a frame that is not drawn (too narrow,
 * no samples now) moves up to its nearest drawn ancestor. -1: nothing
 * is drawn. */
static int cursor_cell(struct stacks *s)
{
	for (uint32_t at = s->cursor; at != FLAME_NIL;) {
		int c = cell_of(s, at);

		if (c >= 0) {
			s->cursor = at;
			return c;
		}
		if (at == zoom_of(s))
			break;
		at = flame_node(s->f, at)->parent;
	}
	s->cursor = zoom_of(s);
	return s->ncells ? 0 : -1;
}

/* The widest frame (most samples) in a row below cell c within its
 * columns, or -1. */
static int below(const struct stacks *s, int c)
{
	const struct flame_cell *p = &s->cells[c];
	int best = -1;

	for (size_t i = (size_t)c + 1; i < s->ncells; i++) {
		const struct flame_cell *q = &s->cells[i];

		if (q->row > p->row + 1)
			break;
		if (q->row != p->row + 1 || q->node == FLAME_MERGED ||
		    q->x + q->w <= p->x || q->x >= p->x + p->w)
			continue;
		if (best < 0 || q->count > s->cells[best].count)
			best = (int)i;
	}
	return best;
}

/* The frame beside cell c in its row (dir -1: left, 1: right), or -1. */
static int beside(const struct stacks *s, int c, int dir)
{
	int row = s->cells[c].row;

	for (int i = c + dir; i >= 0 && (size_t)i < s->ncells; i += dir) {
		if (s->cells[i].row != row)
			return -1;
		if (s->cells[i].node != FLAME_MERGED)
			return i;
	}
	return -1;
}

/* The drawn frame that matches the search with the most samples. */
static void cursor_to_match(struct stacks *s)
{
	uint64_t best = 0;

	for (size_t i = 0; i < s->ncells; i++) {
		const struct flame_cell *c = &s->cells[i];

		if (c->node != FLAME_MERGED && c->count > best &&
		    flame_matches(s->f, c->node, s->search, s->exact)) {
			best = c->count;
			s->cursor = c->node;
		}
	}
}

/* Show what Top asked for (S): its function's frames highlighted, the
 * cursor on the widest of them, unzoomed. */
static void sync_goto(struct stacks *s, const struct model *m)
{
	if (m->stack_goto_seq == s->goto_seq)
		return;
	s->goto_seq = m->stack_goto_seq;
	snprintf(s->search, sizeof(s->search), "%s", m->stack_goto);
	s->exact = true;
	s->nzooms = 0;
	find_matches(s);
	relayout(s);
	cursor_to_match(s);
}

static void *stacks_open(void)
{
	struct stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->f = flame_new();
	if (!s->f) {
		free(s);
		return NULL;
	}
	s->spec_id = -1;
	return s;
}

static void stacks_close(void *st)
{
	struct stacks *s = st;

	if (!s)
		return;
	flame_free(s->f);
	free(s->cells);
	free(s);
}

static void stacks_tick(void *st, const struct model *m, struct request *req)
{
	(void)req;
	rebuild(st, m);
}

/* Up, Down, Left, Right, Home over the drawn frames; false for other
 * actions. */
static bool move(struct stacks *s, enum action a)
{
	int c = cursor_cell(s), to = -1;

	if (a != ACT_UP && a != ACT_DOWN && a != ACT_LEFT && a != ACT_RIGHT &&
	    a != ACT_HOME)
		return false;
	if (c < 0)
		return true;
	if (a == ACT_UP && s->cursor != zoom_of(s))
		s->cursor = flame_node(s->f, s->cursor)->parent;
	else if (a == ACT_HOME)
		s->cursor = zoom_of(s);
	else if (a == ACT_DOWN)
		to = below(s, c);
	else if (a == ACT_LEFT || a == ACT_RIGHT)
		to = beside(s, c, a == ACT_LEFT ? -1 : 1);
	if (to >= 0)
		s->cursor = s->cells[to].node;
	return true;
}

/* Tab: show the stack-keyed spec after the one shown (the first after
 * the last). */
static void next_spec(struct stacks *s, const struct model *m)
{
	int want = s->nspecs ? (s->at + 1) % s->nspecs : 0, k = 0;

	for (size_t i = 0; m->snap && i < m->snap->nspecs; i++) {
		const struct agg_spec *as = &m->snap->specs[i];

		if (is_stack_spec(as) && k++ == want)
			s->spec_id = as->id;
	}
}

static int stacks_key(void *st, const struct model *m, enum action a,
		      const char *text, struct request *req)
{
	struct stacks *s = st;

	sync_goto(s, m);
	relayout(s);
	if (move(s, a))
		return VIEW_HANDLED;
	switch (a) {
	case ACT_ENTER:
		if (cursor_cell(s) >= 0 && s->cursor != zoom_of(s) &&
		    s->nzooms < MAX_ZOOMS)
			s->zooms[s->nzooms++] = s->cursor;
		s->scroll = 0;
		break;
	case ACT_BACK:
		if (s->nzooms)
			s->nzooms--;
		else if (s->search[0])
			s->search[0] = '\0';
		else
			return VIEW_IGNORED;
		s->scroll = 0;
		break;
	case ACT_FILTER:
		req->kind = REQ_PROMPT;
		snprintf(req->text, sizeof(req->text), "search: ");
		break;
	case ACT_TEXT:
		snprintf(s->search, sizeof(s->search), "%s", text ? text : "");
		s->exact = false;
		find_matches(s);
		cursor_to_match(s);
		break;
	case ACT_TOTALS:
		s->interval = !s->interval;
		rebuild(s, m);
		break;
	case ACT_NEXT:
		next_spec(s, m);
		rebuild(s, m);
		break;
	case ACT_ACTION: /* no stacks yet: sample the ones that fit */
		if (s->spec_id >= 0 || !m->stack_spec)
			return VIEW_IGNORED;
		req->kind = REQ_ADD;
		snprintf(req->text, sizeof(req->text), "%s", m->stack_spec);
		break;
	default:
		return VIEW_IGNORED;
	}
	return VIEW_HANDLED;
}

/* Drawing --------------------------------------------------------------- */

/* FNV-1a of s */
static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The module hue of mod (not ""): the one it was given, else its hash's
 * in the palette, or the next one no module of the graph has yet (all
 * taken, or MAX_MODS modules: the hash's). */
static enum draw_hue mod_hue(struct stacks *s, const char *mod)
{
	int n = draw_mod_hues(),
	    want = (int)((str_hash(mod) >> 7) % (unsigned)n);
	bool used[DRAW_MOD_HUES_MAX] = { false };
	struct mod_hue *m;

	for (int i = 0; i < s->nmods; i++) {
		if (!strcmp(s->mods[i].name, mod))
			return (enum draw_hue)(HUE_MOD + s->mods[i].hue);
		if (s->mods[i].hue < n)
			used[s->mods[i].hue] = true;
	}
	if (s->nmods == MAX_MODS)
		return (enum draw_hue)(HUE_MOD + want);
	for (int k = 0; k < n; k++)
		if (!used[(want + k) % n]) {
			want = (want + k) % n;
			break;
		}
	m = &s->mods[s->nmods++];
	snprintf(m->name, sizeof(m->name), "%s", mod);
	m->hue = want;
	return (enum draw_hue)(HUE_MOD + want);
}

/* The hue of a frame: its module's; a Python frame's, or a native one's
 * of no known module, in two shades by the name, so that neighbours
 * differ. */
static enum draw_hue hue_of(struct stacks *s, uint32_t id)
{
	const char *name = flame_name(s->f, id), *mod = flame_mod(s->f, id);
	uint64_t h = str_hash(name);

	if (id == FLAME_ROOT || !strcmp(name, "...") || !strcmp(name, "?") ||
	    !strncmp(name, "[python:", 8)) /* a mixstack's note */
		return HUE_OTHER;
	if (mod[0])
		return mod_hue(s, mod);
	if (s->python || (s->mixed && py_named(name)))
		return (h >> 7) & 1 ? HUE_PY_B : HUE_PY_A;
	return (h >> 7) & 1 ? HUE_NATIVE_B : HUE_NATIVE_A;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* Append " all > a > b", the frames from the root to id, at line[o]
 * (n bytes); the new end. */
static size_t path_put(const struct stacks *s, uint32_t id, char *line,
		       size_t n, size_t o)
{
	const struct flame_node *nd = flame_node(s->f, id);

	if (nd->parent != FLAME_NIL) {
		o = path_put(s, nd->parent, line, n, o);
		o = fmt_put(line, n, o, " >");
	}
	o = fmt_put(line, n, o, " ");
	return inert_put(line, n, o, flame_name(s->f, id));
}

/* The line over the graph: the zoom's path and the search's share, or
 * the keys. */
static void info_line(const struct stacks *s, struct rect in)
{
	char line[1024], name[256];
	size_t o = 0;
	uint64_t all = flame_total(s->f, FLAME_ROOT);

	line[0] = '\0';
	if (s->nzooms) {
		o = fmt_put(line, sizeof(line), o, " zoom:");
		o = path_put(s, zoom_of(s), line, sizeof(line), o);
		o = fmt_put(line, sizeof(line), o, " (Esc out)");
	}
	if (s->search[0]) {
		snprintf(line + o, sizeof(line) - o,
			 " %s%s: %zu frame%s, %.1f%% of the samples",
			 s->exact ? "" : "/",
			 inert_str(name, sizeof(name), s->search),
			 s->match_nodes, s->match_nodes == 1 ? "" : "s",
			 pct(s->match_sum, all));
	}
	if (!line[0])
		snprintf(line, sizeof(line),
			 " Enter zoom  Esc out  / search  t totals/interval%s",
			 s->nspecs > 1 ? "  Tab next" : "");
	draw_text(in.y, in.x, in.w, STYLE_DIM, line);
}

/* Where the frame named name is, from the frames Top shows (function,
 * file, line), if exactly one of them has that name: "app.py:12". */
static void where_of(const struct model *m, const char *name, char *out,
		     size_t n)
{
	const struct model_role *fr = model_frames(m);
	const struct agg_spec *as = fr ? model_spec(m, fr->id) : NULL;
	const struct agg_row *hit = NULL;

	out[0] = '\0';
	for (size_t i = 0; as && i < as->nrows; i++) {
		const struct agg_row *r = as->rows[i];

		if (r->nkeys < 3 || !r->key[0].is_str || !r->key[1].is_str ||
		    r->key[2].is_str || strcmp(r->key[0].str, name))
			continue;
		if (hit && (strcmp(hit->key[1].str, r->key[1].str) ||
			    hit->key[2].num != r->key[2].num))
			return; /* two functions of that name */
		hit = r;
	}
	if (hit) {
		const char *file = strrchr(hit->key[1].str, '/');
		size_t o =
			inert_put(out, n, 0, file ? file + 1 : hit->key[1].str);

		o = fmt_put(out, n, o, ":");
		fmt_put_num(out, n, o, (uint64_t)hit->key[2].num, false);
	}
}

/* The status line: the frame under the cursor, its module ("in
 * libc.so.6") where known. */
static void status_line(const struct stacks *s, const struct model *m, int y,
			struct rect in)
{
	uint64_t sf = flame_self(s->f, s->cursor),
		 t = flame_total(s->f, s->cursor);
	uint64_t all = flame_total(s->f, FLAME_ROOT);
	char name[256], where[200], mod[200], self[32], tot[32];
	size_t o = 0;

	inert_str(name, sizeof(name), flame_name(s->f, s->cursor));
	where_of(m, flame_name(s->f, s->cursor), where, sizeof(where));
	mod[0] = '\0';
	if (flame_mod(s->f, s->cursor)[0]) {
		o = fmt_put(mod, sizeof(mod), o, " in ");
		inert_put(mod, sizeof(mod), o, flame_mod(s->f, s->cursor));
	}
	draw_fmt(y, in.x, in.w, STYLE_TITLE,
		 " %s%s%s%s  self %s (%.1f%%)  total %s (%.1f%%)", name, mod,
		 where[0] ? "  " : "", where, fmt_count(sf, self, sizeof(self)),
		 pct(sf, all), fmt_count(t, tot, sizeof(tot)), pct(t, all));
}

/* The graph's rows [s->scroll, s->scroll + rows) at y. */
static void draw_cells(struct stacks *s, int y, int x, int rows, bool focus)
{
	char name[512];

	for (size_t i = 0; i < s->ncells; i++) {
		const struct flame_cell *c = &s->cells[i];
		unsigned fl = 0;

		if (c->row < s->scroll || c->row >= s->scroll + rows)
			continue;
		if (c->node == FLAME_MERGED) {
			draw_frame(y + c->row - s->scroll, x + c->x, c->w,
				   HUE_OTHER,
				   FRAME_PLUS | (s->search[0] ? FRAME_DIM : 0),
				   "");
			continue;
		}
		if (focus && c->node == s->cursor)
			fl |= FRAME_CURSOR;
		if (s->search[0])
			fl |= flame_matches(s->f, c->node, s->search, s->exact)
				      ? FRAME_MATCH
				      : FRAME_DIM;
		inert_str(name, sizeof(name), flame_name(s->f, c->node));
		draw_frame(y + c->row - s->scroll, x + c->x, c->w,
			   hue_of(s, c->node), fl, name);
	}
}

/* What the box says when there is no graph, into buf. */
static const char *empty_text(const struct stacks *s, const struct model *m,
			      char *buf, size_t n)
{
	if (!m->snap)
		return "  waiting for the first interval";
	if (s->spec_id < 0 && m->stack_spec) {
		snprintf(buf, n,
			 "  no aggregation keyed by a stack: a adds '%s' (%s "
			 "stacks, sampled 99 times a second)",
			 m->stack_spec,
			 strstr(m->stack_spec, "pystack") ? "Python"
							  : "native");
		return buf;
	}
	if (s->spec_id < 0)
		return "  no aggregation keyed by a stack";
	if (s->nzooms)
		return "  no samples under the zoomed frame (Esc out)";
	return s->interval ? "  no samples this interval (t: totals)"
			   : "  no samples yet";
}

static void stacks_draw(void *st, const struct model *m,
			const struct view_env *env, struct rect r, bool focus)
{
	struct stacks *s = st;
	const struct agg_spec *as = model_spec(m, s->spec_id);
	char title[SPEC_TEXT_MAX * INERT_MAX_PER_BYTE + 16], note[64];
	struct rect in;
	int rows, c;
	size_t o;

	(void)env;
	o = fmt_put(title, sizeof(title), 0, "Stacks");
	if (as) {
		o = fmt_put(title, sizeof(title), o, ", ");
		inert_put(title, sizeof(title), o, as->spec->text);
	}
	o = fmt_put(note, sizeof(note), 0,
		    s->interval ? "this interval" : "totals");
	if (s->nspecs > 1)
		snprintf(note + o, sizeof(note) - o, "  %d/%d Tab", s->at + 1,
			 s->nspecs);
	in = draw_box(r, title, note, focus);
	if (in.h < 3 || in.w < 4)
		return;
	s->width = in.w;
	sync_goto(s, m);
	relayout(s);
	info_line(s, in);
	rows = in.h - 2;
	c = cursor_cell(s);
	if (c < 0) {
		char why[160];

		draw_text(in.y + 1, in.x, in.w, STYLE_DIM,
			  empty_text(s, m, why, sizeof(why)));
		return;
	}
	if (s->cells[c].row < s->scroll)
		s->scroll = s->cells[c].row;
	else if (s->cells[c].row >= s->scroll + rows)
		s->scroll = s->cells[c].row - rows + 1;
	draw_cells(s, in.y + 1, in.x, rows, focus);
	status_line(s, m, in.y + in.h - 1, in);
}

const struct view_ops view_stacks = {
	.name = "stacks",
	.title = "Stacks",
	.open = stacks_open,
	.close = stacks_close,
	.tick = stacks_tick,
	.draw = stacks_draw,
	.key = stacks_key,
};
