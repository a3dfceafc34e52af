// SPDX-License-Identifier: MIT
/*
 * help and log — the key table as help (generated from keys_help(), so
 * it cannot drift from the bindings), and the messages probetop and
 * libbpf logged while the screen was up (never written to stderr then).
 */
#include <stdlib.h>

#include "draw.h"
#include "view.h"

struct scroll {
	size_t top;
};

static void *scroll_open(void)
{
	return calloc(1, sizeof(struct scroll));
}

static void scroll_close(void *st)
{
	free(st);
}

static int scroll_key(void *st, const struct model *m, enum action a,
		      const char *text, struct request *req)
{
	struct scroll *s = st;

	(void)m;
	(void)text;
	(void)req;
	if (a == ACT_UP && s->top)
		s->top--;
	else if (a == ACT_DOWN)
		s->top++;
	else if (a == ACT_HOME)
		s->top = 0;
	else
		return VIEW_IGNORED;
	return VIEW_HANDLED;
}

static void help_draw(void *st, const struct model *m,
		      const struct view_env *env, struct rect r, bool focus)
{
	const struct key_help *k = keys_help();
	struct rect in = draw_box(r, "Help", "Esc to go back", focus);
	int y = in.y;

	(void)st;
	(void)m;
	(void)env;
	for (; k->keys && y < in.y + in.h; k++, y++)
		draw_fmt(y, in.x, in.w, STYLE_NORMAL, " %-14s %s", k->keys,
			 k->what);
	if (y + 1 < in.y + in.h)
		draw_text(y + 1, in.x, in.w, STYLE_DIM,
			  " Probes: ON counts, silent = on but no hit yet "
			  "(the line under the list says why when known)");
}

static void log_draw(void *st, const struct model *m,
		     const struct view_env *env, struct rect r, bool focus)
{
	struct scroll *s = st;
	struct rect in = draw_box(r, "Messages", "Esc to go back", focus);
	size_t n = m->log.n;

	(void)env;
	if (!n) {
		draw_text(in.y, in.x, in.w, STYLE_DIM, " no messages");
		return;
	}
	if (s->top >= n)
		s->top = n - 1;
	for (int i = 0; i < in.h && s->top + (size_t)i < n; i++)
		draw_fmt(in.y + i, in.x, in.w, STYLE_NORMAL, " %s",
			 m->log.lines[s->top + (size_t)i]);
}

const struct view_ops view_help = {
	.name = "help",
	.title = "Help",
	.open = scroll_open,
	.close = scroll_close,
	.draw = help_draw,
};

const struct view_ops view_log = {
	.name = "log",
	.title = "Messages",
	.open = scroll_open,
	.close = scroll_close,
	.draw = log_draw,
	.key = scroll_key,
};
