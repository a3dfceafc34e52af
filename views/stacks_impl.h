/* SPDX-License-Identifier: MIT */
/*
 * stacks_impl.h — the Stacks view's state, shared by its two halves:
 * stacks.c (the spec shown, the tree fed, the cursor and the keys) and
 * stacks_draw.c (the graph, its lines and their hues).
 */
#ifndef PROBETOP_STACKS_IMPL_H
#define PROBETOP_STACKS_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	struct flame *base; /* --baseline: its stacks of the spec shown, */
	int base_spec; /* which is this (-1: none yet) */
	bool diff; /* frames in differential hues (a baseline is there) */
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

/* Whether a mixstack frame is a Python one: "function (file:line)". */
bool stacks_py_named(const char *name);

/* The zoomed node (the root if none). */
uint32_t stacks_zoom(const struct stacks *s);

/* Node id's share of all samples in the baseline's tree (0 where the
 * baseline has no such path). */
double stacks_base_share(const struct stacks *s, uint32_t id);

/* Lay out the zoomed subtree s->width wide. */
void stacks_relayout(struct stacks *s);

/* The cursor's cell, or -1 (stacks.c says how it moves to a drawn one). */
int stacks_cursor_cell(struct stacks *s);

/* Show what Top asked for (S), if it asked since the last call. */
void stacks_sync_goto(struct stacks *s, const struct model *m);

/* view_ops.draw: the box, its lines and the graph. */
void stacks_draw(void *st, const struct model *m, const struct view_env *env,
		 struct rect r, bool focus);

#endif
