// SPDX-License-Identifier: MIT
/*
 * stacks — the Stacks view: an aggregation keyed by a call stack
 * (pystack, ustack: a key part with is_stack) as an icicle graph, the
 * root ("all") on top, each frame as wide as its share of the samples.
 *
 * The tree and its layout are views/flame.c; this file picks the
 * aggregation, feeds the tree each snapshot and moves a cursor over the
 * laid-out cells; stacks_draw.c draws them. Counts are the totals since attach by
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

#include "stacks_impl.h"

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
bool stacks_py_named(const char *name)
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

uint32_t stacks_zoom(const struct stacks *s)
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

/* --baseline: the baseline's tree of spec as (its rows' stacks, by the
 * same weight as now's), made when another spec is shown. */
static void rebuild_base(struct stacks *s, const struct model *m,
			 const struct agg_spec *as)
{
	const struct basetab_spec *bs;

	if (!m->base || (!s->base && !(s->base = flame_new())))
		return;
	s->diff = true;
	if (as && s->base_spec == as->id)
		return;
	bs = as ? model_base_spec(m, as->id) : NULL;
	flame_reset(s->base);
	flame_begin(s->base);
	for (size_t i = 0; bs && i < bs->nrows; i++) {
		const struct agg_row *row = &bs->rows[i].row;
		int k = stack_part(row);
		uint64_t w = weight(s, as, row);

		if (k >= 0 && w)
			flame_add(s->base, agg_key_text(&row->key[k]), w);
	}
	flame_end(s->base);
	s->base_spec = as ? as->id : -1;
}

double stacks_base_share(const struct stacks *s, uint32_t id)
{
	uint64_t all = s->base ? flame_total(s->base, FLAME_ROOT) : 0;
	uint32_t path[FLAME_MAX_DEPTH + 1], at = FLAME_ROOT;
	int n = 0;

	if (!all)
		return 0;
	for (; id != FLAME_ROOT && id != FLAME_NIL && n <= FLAME_MAX_DEPTH;
	     id = flame_node(s->f, id)->parent)
		path[n++] = id;
	while (n-- > 0 && at != FLAME_NIL)
		at = flame_child(s->base, at, flame_name(s->f, path[n]));
	return at == FLAME_NIL ? 0
			       : (double)flame_total(s->base, at) / (double)all;
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
	rebuild_base(s, m, as);
}

/* Lay out the zoomed subtree s->width wide. */
void stacks_relayout(struct stacks *s)
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
	s->ncells = flame_layout(s->f, stacks_zoom(s), s->width, LAYOUT_ROWS,
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
int stacks_cursor_cell(struct stacks *s)
{
	for (uint32_t at = s->cursor; at != FLAME_NIL;) {
		int c = cell_of(s, at);

		if (c >= 0) {
			s->cursor = at;
			return c;
		}
		if (at == stacks_zoom(s))
			break;
		at = flame_node(s->f, at)->parent;
	}
	s->cursor = stacks_zoom(s);
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
void stacks_sync_goto(struct stacks *s, const struct model *m)
{
	if (m->stack_goto_seq == s->goto_seq)
		return;
	s->goto_seq = m->stack_goto_seq;
	snprintf(s->search, sizeof(s->search), "%s", m->stack_goto);
	s->exact = true;
	s->nzooms = 0;
	find_matches(s);
	stacks_relayout(s);
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
	s->spec_id = s->base_spec = -1;
	return s;
}

static void stacks_close(void *st)
{
	struct stacks *s = st;

	if (!s)
		return;
	flame_free(s->f);
	flame_free(s->base);
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
	int c = stacks_cursor_cell(s), to = -1;

	if (a != ACT_UP && a != ACT_DOWN && a != ACT_LEFT && a != ACT_RIGHT &&
	    a != ACT_HOME)
		return false;
	if (c < 0)
		return true;
	if (a == ACT_UP && s->cursor != stacks_zoom(s))
		s->cursor = flame_node(s->f, s->cursor)->parent;
	else if (a == ACT_HOME)
		s->cursor = stacks_zoom(s);
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

	stacks_sync_goto(s, m);
	stacks_relayout(s);
	if (move(s, a))
		return VIEW_HANDLED;
	switch (a) {
	case ACT_ENTER:
		if (stacks_cursor_cell(s) >= 0 && s->cursor != stacks_zoom(s) &&
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

/* The stack aggregation it draws. */
static size_t stacks_shows(void *st, const struct model *m, int *ids,
			   size_t max)
{
	const struct stacks *s = st;

	(void)m;
	if (s->spec_id < 0 || !max)
		return 0;
	ids[0] = s->spec_id;
	return 1;
}

const struct view_ops view_stacks = {
	.name = "stacks",
	.title = "Stacks",
	.open = stacks_open,
	.close = stacks_close,
	.tick = stacks_tick,
	.draw = stacks_draw,
	.key = stacks_key,
	.shows = stacks_shows,
};
