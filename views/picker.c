// SPDX-License-Identifier: MIT
/*
 * picker — the processes that have probes (comm, pid, user, probes,
 * runtime), filterable; Enter asks the console to attach to one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "view.h"

struct picker {
	char filter[64];
	size_t cursor, scroll;
};

static void *picker_open(void)
{
	return calloc(1, sizeof(struct picker));
}

static void picker_close(void *st)
{
	free(st);
}

static bool shown(const struct picker *p, const struct model_proc *pr)
{
	char pid[16];

	if (!p->filter[0])
		return true;
	snprintf(pid, sizeof(pid), "%d", pr->pid);
	return strstr(pr->comm, p->filter) || strstr(pr->cmdline, p->filter) ||
	       strstr(pr->runtime, p->filter) || !strcmp(pid, p->filter);
}

/* the index into m->procs of the n-th shown process, or -1 */
static long nth(const struct picker *p, const struct model *m, size_t n)
{
	for (size_t i = 0; i < m->nprocs; i++)
		if (shown(p, &m->procs[i]) && n-- == 0)
			return (long)i;
	return -1;
}

static size_t count(const struct picker *p, const struct model *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nprocs; i++)
		n += shown(p, &m->procs[i]);
	return n;
}

static int picker_key(void *st, const struct model *m, enum action a,
		      const char *text, struct request *req)
{
	struct picker *p = st;
	size_t n = count(p, m);
	long i;

	if (list_move(&p->cursor, n, a))
		return VIEW_HANDLED;
	switch (a) {
	case ACT_FILTER:
		req->kind = REQ_PROMPT;
		snprintf(req->text, sizeof(req->text), "filter: ");
		break;
	case ACT_TEXT:
		snprintf(p->filter, sizeof(p->filter), "%s", text ? text : "");
		p->cursor = 0;
		break;
	case ACT_BACK:
		if (!p->filter[0])
			return VIEW_IGNORED;
		p->filter[0] = '\0';
		break;
	case ACT_ENTER:
		i = nth(p, m, p->cursor);
		if (i >= 0) {
			req->kind = REQ_SELECT; /* the console attaches */
			req->id = m->procs[i].pid;
		}
		break;
	default:
		return VIEW_IGNORED;
	}
	return VIEW_HANDLED;
}

static void picker_draw(void *st, const struct model *m,
			const struct view_env *env, struct rect r, bool focus)
{
	struct picker *p = st;
	char title[96];
	struct rect in;
	size_t n = count(p, m);
	int lines;

	(void)env;
	snprintf(title, sizeof(title), "Processes with probes%s%s",
		 p->filter[0] ? " /" : "", p->filter);
	in = draw_box(r, title, "Enter attaches", focus);
	if (in.h < 2)
		return;
	draw_text(in.y, in.x, in.w, STYLE_TITLE,
		  "     PID USER       COMM             PROBES RUNTIME    "
		  "COMMAND");
	if (!n) {
		draw_text(in.y + 1, in.x, in.w, STYLE_DIM,
			  m->nprocs ? "  nothing matches the filter"
				    : "  no running process has USDT probes");
		return;
	}
	if (p->cursor >= n)
		p->cursor = n - 1;
	lines = in.h - 1;
	list_scroll(p->cursor, &p->scroll, lines);
	for (int k = 0; k < lines && p->scroll + (size_t)k < n; k++) {
		const struct model_proc *pr =
			&m->procs[nth(p, m, p->scroll + (size_t)k)];

		draw_fmt(in.y + 1 + k, in.x, in.w,
			 focus && p->scroll + (size_t)k == p->cursor
				 ? STYLE_SELECTED
				 : STYLE_NORMAL,
			 " %7d %-10.10s %-16.16s %6zu %-10.10s %s", pr->pid,
			 pr->user, pr->comm, pr->nprobes,
			 pr->runtime[0] ? pr->runtime : "-", pr->cmdline);
	}
}

const struct view_ops view_picker = {
	.name = "picker",
	.title = "Processes",
	.open = picker_open,
	.close = picker_close,
	.draw = picker_draw,
	.key = picker_key,
};
