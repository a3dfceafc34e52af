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

/* The bytes of s that make its first line in w columns (a UTF-8
 * sequence is one column), cut after the last blank that fits if there
 * is one; all of s if it fits. At least one character. */
static size_t wrap_len(const char *s, int w)
{
	size_t i = 0, blank = 0;
	int cols = 0;

	while (s[i] && cols < w) {
		if (s[i] == ' ')
			blank = i + 1;
		i++;
		while ((s[i] & 0xc0) == 0x80)
			i++;
		cols++;
	}
	if (!s[i] || !blank || s[i] == ' ')
		return s[i] == ' ' ? i + 1 : i;
	return blank;
}

/* Messages from the newest-but-scrolled top, each wrapped to the box
 * with its continuation lines indented. */
static void log_draw(void *st, const struct model *m,
		     const struct view_env *env, struct rect r, bool focus)
{
	struct scroll *s = st;
	struct rect in = draw_box(r, "Messages", "Esc to go back", focus);
	size_t n = m->log.n;
	int y = in.y;

	(void)env;
	if (!n) {
		draw_text(in.y, in.x, in.w, STYLE_DIM, " no messages");
		return;
	}
	if (s->top >= n)
		s->top = n - 1;
	for (size_t i = s->top; i < n && y < in.y + in.h; i++) {
		const char *line = m->log.lines[i];
		int indent = 1;

		do {
			int w = in.w - indent - 1;
			size_t len = wrap_len(line, w > 0 ? w : 1);

			draw_fmt(y++, in.x, in.w, STYLE_NORMAL, "%*s%.*s",
				 indent, "", (int)len, line);
			line += len;
			indent = 3;
		} while (*line && y < in.y + in.h);
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
