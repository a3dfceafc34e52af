// SPDX-License-Identifier: MIT
/*
 * dash — the default screen once attached: Top frames and the selected
 * row's histogram on the left, GC and IO on the right, as in DESIGN.md.
 * It draws the other views in panes (their own state, so sort, filter and
 * selection are the same as on their full screens); its keys go to Top.
 */
#include <stdlib.h>

#include "view.h"

static void *dash_open(void)
{
	static int token;

	return &token; /* no state of its own */
}

static void dash_close(void *st)
{
	(void)st;
}

/* Its panes, in the order dash_draw() lays them out. */
static const char *const PANES[] = { "top", "hist", "gc", "io", NULL };

static void dash_draw(void *st, const struct model *m,
		      const struct view_env *env, struct rect r, bool focus)
{
	int right = r.w >= 100 ? r.w * 2 / 5 : r.w * 7 / 20;
	int left = r.w - right;
	int hist_h = r.h * 2 / 5, gc_h = r.h / 2;

	(void)st;
	if (hist_h < 6)
		hist_h = r.h >= 14 ? 6 : 0;
	env->draw(env, PANES[0], m,
		  (struct rect){ r.y, r.x, r.h - hist_h, left }, focus);
	if (hist_h)
		env->draw(
			env, PANES[1], m,
			(struct rect){ r.y + r.h - hist_h, r.x, hist_h, left },
			false);
	env->draw(env, PANES[2], m,
		  (struct rect){ r.y, r.x + left, gc_h, right }, false);
	env->draw(env, PANES[3], m,
		  (struct rect){ r.y + gc_h, r.x + left, r.h - gc_h, right },
		  false);
}

const struct view_ops view_dash = {
	.name = "dash",
	.title = "Dash",
	.keys_to = "top",
	.open = dash_open,
	.close = dash_close,
	.draw = dash_draw,
	.panes = PANES,
};
