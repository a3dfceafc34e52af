/* SPDX-License-Identifier: MIT */
/*
 * view — the console's views, each a small table of callbacks.
 *
 * Keys become named actions through one table (keys_action(); the help
 * view prints the same table), so views and their tests deal in actions,
 * not escape sequences. A view's key() returns VIEW_HANDLED if it used
 * the action (else the console applies its global meaning) and may fill
 * in one request for the console. draw() paints the rectangle it is given
 * on stdscr from the model; tick() sees each new snapshot once (for
 * history such as sparklines).
 *
 * Views are registered in one list (views_all()); the console keeps one
 * state per view for the whole run, so the Dashboard can draw the Top,
 * Histogram, GC and IO views in panes with their own state.
 */
#ifndef PROBETOP_VIEW_H
#define PROBETOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

enum action {
	ACT_NONE,
	ACT_UP,
	ACT_DOWN,
	ACT_PGUP,
	ACT_PGDN,
	ACT_HOME,
	ACT_END,
	ACT_LEFT,
	ACT_RIGHT,
	ACT_ENTER,
	ACT_BACK, /* Esc */
	ACT_FILTER, /* / */
	ACT_SORT, /* s, F6: next sort column */
	ACT_SORT_PREV, /* < */
	ACT_SORT_NEXT, /* > */
	ACT_TOGGLE, /* space */
	ACT_ACTION, /* a: what to do with a probe */
	ACT_FUNCS, /* f: probes <-> function symbols */
	ACT_ZERO, /* z */
	ACT_COMPARE, /* c */
	ACT_PAUSE, /* p */
	ACT_FASTER, /* - : shorter interval */
	ACT_SLOWER, /* + */
	ACT_BUDGET, /* b: the next budget */
	ACT_SOURCE, /* x: Top frames from calls or from CPU samples */
	ACT_HELP, /* ?, F1 */
	ACT_LOG, /* l */
	ACT_QUIT, /* q, F10 */
	ACT_STACKS, /* S: Top's function in the Stacks view */
	ACT_TOTALS, /* t: Stacks: totals <-> this interval */
	ACT_NEXT, /* Tab: Stacks: the next stack aggregation */
	ACT_VIEW1, /* 1..7: Dash, Probes, Top, Hist, GC, IO, Stacks */
	ACT_VIEW2,
	ACT_VIEW3,
	ACT_VIEW4,
	ACT_VIEW5,
	ACT_VIEW6,
	ACT_VIEW7,
	ACT_YES, /* y: confirm */
	ACT_TEXT, /* the answer to a REQ_PROMPT (see key()'s text) */
	ACT_RESIZE,
};

enum {
	VIEW_IGNORED = 0,
	VIEW_HANDLED = 1
};

struct rect {
	int y, x, h, w;
};

struct view_ops;

/* Lets a view draw another one (the Dashboard's panes). */
struct view_env {
	void (*draw)(const struct view_env *env, const char *view,
		     const struct model *m, struct rect r, bool focus);
	void *ctx;
};

struct view_ops {
	const char *name; /* "top" */
	const char *title; /* "Top" */
	const char *keys_to; /* NULL, or the view that gets its keys
				(the Dashboard's go to Top) */
	void *(*open)(void); /* NULL on ENOMEM */
	void (*close)(void *st);
	/* may ask for something too (the Top view's first selection) */
	void (*tick)(void *st, const struct model *m, struct request *req);
	void (*draw)(void *st, const struct model *m,
		     const struct view_env *env, struct rect r, bool focus);
	/* text: ACT_TEXT's answer, else NULL */
	int (*key)(void *st, const struct model *m, enum action a,
		   const char *text, struct request *req);
	/* the specs whose numbers it draws, at most max into ids, how many
	 * (the budget counts them whole first); NULL: none of its own */
	size_t (*shows)(void *st, const struct model *m, int *ids, size_t max);
	const char *const *panes; /* the views it draws (NULL-ended), whose
				     specs it shows; or NULL */
};

/*
 * A list's cursor over n rows: Up/Down, PgUp/PgDn (10 rows), Home/End.
 * Returns false (cursor unchanged) for any other action.
 */
bool list_move(size_t *cursor, size_t n, enum action a);
/* The first row to draw so that cursor is one of `lines` visible rows. */
void list_scroll(size_t cursor, size_t *scroll, int lines);

/* Every view, NULL-terminated, in tab order. */
const struct view_ops *const *views_all(void);
const struct view_ops *views_find(const char *name);

/* The key table: the action for a curses key code, and, for the help
 * view, each binding's keys and meaning in order. */
enum action keys_action(int ch);
struct key_help {
	const char *keys;
	const char *what;
};
const struct key_help *keys_help(void); /* ends with {NULL, NULL} */

extern const struct view_ops view_dash, view_probes, view_top, view_hist,
	view_gc, view_io, view_stacks, view_help, view_log, view_picker;

#endif
