/* SPDX-License-Identifier: MIT */
/*
 * flame — the call tree behind the Stacks view, and its icicle layout.
 * Pure: no curses, no model; unit-tested and benchmarked on its own.
 *
 * Stacks come as folded text, root first, frames joined by ';'
 * ("main;handle;parse"). They are merged into a tree rooted at a node
 * named "all": a frame is a node, identified by its parent and its name.
 * A frame may come with its module (the object it is in, from the
 * engine's naming: agg_key_part.mods), kept by the node that frame
 * made (a node is still its parent and its name: the first module seen
 * for it stays). Nodes live as long as the flame (until flame_reset()), so a node's id
 * is stable from one refresh to the next: the view's cursor and zoom are
 * node ids, and a frame that grows keeps its id and its place.
 *
 * A refresh is flame_begin(), flame_add() per stack, flame_end(). The
 * first flame_add() of a stack splits it into frames; later ones find
 * its leaf by the text's 64-bit hash and length (a collision would add
 * one stack's count to another's; at 10,000 stacks its odds are some
 * 1e-11), and flame_end() sums the subtrees in one pass over the nodes,
 * so a refresh costs a hash of each stack and two sweeps of the nodes
 * (counts are kept apart from the nodes for that). Children are kept
 * in name order (strcmp), so siblings never swap places as their
 * counts change.
 *
 * flame_layout() cuts a node's width among its children in proportion
 * to their totals (the parent's self time is the room left at the
 * right); children narrower than one cell are merged into one `+` cell
 * after the wide ones, so that they are never lost from view.
 */
#ifndef PROBETOP_FLAME_H
#define PROBETOP_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FLAME_NIL UINT32_MAX /* no node */
#define FLAME_MERGED (UINT32_MAX - 1) /* a layout cell of merged frames */
#define FLAME_ROOT 0u /* "all" */
#define FLAME_MAX_DEPTH \
	256 /* frames beyond are cut (the kernel keeps
			       far fewer) */

/* A node, read-only for callers; valid until the next flame call that
 * adds frames (flame_add) or flame_reset(). */
struct flame_node {
	uint32_t parent, child, next; /* first child, next sibling */
	uint32_t name; /* offset into the names (flame_name()) */
	uint32_t mod; /* its module's, or FLAME_NIL (flame_mod()) */
	uint32_t depth; /* 0 for the root */
};

/* One cell run of the layout: a node (or FLAME_MERGED: `+`) drawn at
 * row (0: the zoomed node), columns [x, x + w). */
struct flame_cell {
	uint32_t node;
	int row, x, w;
	uint64_t count; /* node's total, or the merged frames' sum */
};

struct flame;

/* An empty tree (the root only). NULL with errno on ENOMEM. */
struct flame *flame_new(void);
void flame_free(struct flame *f); /* NULL is a no-op */

/* Forget every node (another aggregation is shown): ids start over. */
void flame_reset(struct flame *f);

/* Start a refresh: every count is zero again. */
void flame_begin(struct flame *f);
/*
 * Add count samples to stack (folded text; "" counts at the root).
 * 0, or -ENOMEM (the stack is not counted).
 */
int flame_add(struct flame *f, const char *stack, uint64_t count);
/*
 * The same with the frames' modules: mods (or NULL) has as many parts
 * as stack, joined by ';' ("" for a frame of no known module). They
 * are kept for the nodes this call makes; a stack seen before keeps
 * what it had.
 */
int flame_add_mods(struct flame *f, const char *stack, const char *mods,
		   uint64_t count);
/* End a refresh: new siblings are put in name order. */
void flame_end(struct flame *f);

size_t flame_count(const struct flame *f); /* nodes, the root included */
const struct flame_node *flame_node(const struct flame *f, uint32_t id);
const char *flame_name(const struct flame *f, uint32_t id);
/* The module of node id's frame, "" if none is known. */
const char *flame_mod(const struct flame *f, uint32_t id);
/* The child of parent named name, or FLAME_NIL. */
uint32_t flame_child(const struct flame *f, uint32_t parent, const char *name);
/* This refresh's samples in the subtree of id (after flame_end()), and
 * those that end at id; 0 for an unknown id. */
uint64_t flame_total(const struct flame *f, uint32_t id);
uint64_t flame_self(const struct flame *f, uint32_t id);

/*
 * Lay out the subtree of zoom in width columns and at most rows rows
 * into out[0..cap): ordered by row, then x. Nodes without samples are
 * left out. Returns the cells written (cap bounds it: width * rows is
 * always enough).
 */
size_t flame_layout(const struct flame *f, uint32_t zoom, int width, int rows,
		    struct flame_cell *out, size_t cap);

/*
 * The samples in the subtree of zoom under frames whose name contains
 * pat (exact: equals it), each sample counted once (a match inside a
 * match adds nothing); *nodes gets the number of matching nodes.
 */
uint64_t flame_match_total(const struct flame *f, uint32_t zoom,
			   const char *pat, bool exact, size_t *nodes);
/* Whether node id's name matches pat (as flame_match_total()). */
bool flame_matches(const struct flame *f, uint32_t id, const char *pat,
		   bool exact);

#endif
