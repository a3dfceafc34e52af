// SPDX-License-Identifier: MIT
/*
 * stacks_draw — the Stacks view's drawing (see stacks.c): the box, the
 * line over the graph (the zoom's path, the search's share), the graph's
 * cells in their modules' hues, and the status line under it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stacks_impl.h"

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

/* A frame's share of all samples now less its share in the baseline
 * (difffolded's comparison: the totals of runs of different lengths
 * normalised). */
static double share_diff(const struct stacks *s, uint32_t id)
{
	uint64_t all = flame_total(s->f, FLAME_ROOT);
	double now = all ? (double)flame_total(s->f, id) / (double)all : 0;

	return now - stacks_base_share(s, id);
}

/* The differential hue of a frame (--baseline): about the same within
 * DIFF_SAME of all samples; else grown or shrunk, a little (under 1%
 * of all), more (under 10%) or much. */
#define DIFF_SAME 0.001
static enum draw_hue diff_hue(const struct stacks *s, uint32_t id)
{
	double d = share_diff(s, id), a = fabs(d);
	int k = a < 0.01 ? 0 : a < 0.1 ? 1 : 2;

	if (a < DIFF_SAME)
		return HUE_SAME;
	return (enum draw_hue)((d > 0 ? HUE_GROW : HUE_SHRINK) + k);
}

/* The hue of a frame: with a baseline, its growth's; else its module's;
 * a Python frame's, or a native one's of no known module, in two shades
 * by the name, so that neighbours differ. */
static enum draw_hue hue_of(struct stacks *s, uint32_t id)
{
	const char *name = flame_name(s->f, id), *mod = flame_mod(s->f, id);
	uint64_t h = str_hash(name);

	if (s->diff)
		return diff_hue(s, id);

	if (id == FLAME_ROOT || !strcmp(name, "...") || !strcmp(name, "?") ||
	    !strncmp(name, "[python:", 8)) /* a mixstack's note */
		return HUE_OTHER;
	if (mod[0])
		return mod_hue(s, mod);
	if (s->python || (s->mixed && stacks_py_named(name)))
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
		o = path_put(s, stacks_zoom(s), line, sizeof(line), o);
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
		    r->key[2].is_str || strcmp(agg_key_text(&r->key[0]), name))
			continue;
		if (hit && (strcmp(agg_key_text(&hit->key[1]),
				   agg_key_text(&r->key[1])) ||
			    hit->key[2].num != r->key[2].num))
			return; /* two functions of that name */
		hit = r;
	}
	if (hit) {
		const char *file = strrchr(agg_key_text(&hit->key[1]), '/');
		size_t o =
			inert_put(out, n, 0,
				  file ? file + 1 : agg_key_text(&hit->key[1]));

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
	char name[256], where[200], mod[200], self[32], tot[32], base[400] = "";
	size_t o = 0;

	inert_str(name, sizeof(name), flame_name(s->f, s->cursor));
	where_of(m, flame_name(s->f, s->cursor), where, sizeof(where));
	mod[0] = '\0';
	if (flame_mod(s->f, s->cursor)[0]) {
		o = fmt_put(mod, sizeof(mod), o, " in ");
		inert_put(mod, sizeof(mod), o, flame_mod(s->f, s->cursor));
	}
	if (s->diff) /* the share then, and the legend */
		snprintf(base, sizeof(base),
			 "  baseline %.1f%% (%+.1f)  red grew, blue shrank "
			 "against %s",
			 100 * stacks_base_share(s, s->cursor),
			 100 * share_diff(s, s->cursor), m->base_what);
	draw_fmt(y, in.x, in.w, STYLE_TITLE,
		 " %s%s%s%s  self %s (%.1f%%)  total %s (%.1f%%)%s", name, mod,
		 where[0] ? "  " : "", where, fmt_count(sf, self, sizeof(self)),
		 pct(sf, all), fmt_count(t, tot, sizeof(tot)), pct(t, all),
		 base);
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

void stacks_draw(void *st, const struct model *m, const struct view_env *env,
		 struct rect r, bool focus)
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
	stacks_sync_goto(s, m);
	stacks_relayout(s);
	info_line(s, in);
	rows = in.h - 2;
	c = stacks_cursor_cell(s);
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
