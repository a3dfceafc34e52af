// SPDX-License-Identifier: MIT
/*
 * help and log — the key table as help (generated from keys_help(), so
 * it cannot drift from the bindings), and the messages probetop and
 * libbpf logged (never written to stderr while the screen is up), each
 * wrapped to the box.
 */
#include <stdlib.h>

#include "draw.h"
#include "view.h"

/* Messages: the first one shown, and whether the newest are (then top
 * follows them as messages come) */
struct scroll {
	size_t top;
	bool tail;
	int page; /* messages the last draw showed */
};

static void *scroll_open(void)
{
	struct scroll *s = calloc(1, sizeof(struct scroll));

	if (s)
		s->tail = true;
	return s;
}

static void scroll_close(void *st)
{
	free(st);
}

/* Up, Down, PgUp, PgDn by messages; Home the oldest, End the newest (and
 * follow them). log_draw() keeps top within the last page. */
static int scroll_key(void *st, const struct model *m, enum action a,
		      const char *text, struct request *req)
{
	struct scroll *s = st;
	size_t page = s->page > 1 ? (size_t)s->page - 1 : 1;

	(void)m;
	(void)text;
	(void)req;
	if (a == ACT_UP || a == ACT_PGUP) {
		size_t by = a == ACT_UP ? 1 : page;

		s->top = s->top > by ? s->top - by : 0;
	} else if (a == ACT_DOWN || a == ACT_PGDN) {
		s->top += a == ACT_DOWN ? 1 : page;
	} else if (a == ACT_HOME) {
		s->top = 0;
	} else if (a == ACT_END) {
		s->tail = true;
		return VIEW_HANDLED;
	} else {
		return VIEW_IGNORED;
	}
	s->tail = false;
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

/* The first message of the last page: the oldest from which all the
 * newer ones fit in h rows of a box w wide (the newest at least). */
static size_t last_top(const struct model_log *log, int w, int h)
{
	size_t i = log->n - 1;
	int used = draw_wrap_rows(w, 1, 3, log->lines[i]);

	while (i > 0) {
		used += draw_wrap_rows(w, 1, 3, log->lines[i - 1]);
		if (used > h)
			break;
		i--;
	}
	return i;
}

/* Messages, oldest first, from the scrolled top or so that the newest
 * end the box; each wrapped with its continuation lines indented. */
static void log_draw(void *st, const struct model *m,
		     const struct view_env *env, struct rect r, bool focus)
{
	struct scroll *s = st;
	struct rect in = draw_box(r, "Messages", "Esc to go back", focus);
	size_t n = m->log.n, last;
	int y = in.y;

	(void)env;
	if (!n) {
		draw_text(in.y, in.x, in.w, STYLE_DIM, " no messages");
		return;
	}
	last = last_top(&m->log, in.w, in.h);
	if (s->tail || s->top >= last) {
		s->top = last;
		s->tail = true;
	}
	s->page = 0;
	for (size_t i = s->top; i < n && y < in.y + in.h; i++) {
		y = draw_wrapped(y, in.y + in.h, in.x, in.w, STYLE_NORMAL, 1, 3,
				 m->log.lines[i]);
		s->page++;
	}
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
