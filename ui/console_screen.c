// SPDX-License-Identifier: MIT
/*
 * console_screen — what the console's screen shows: the current view in
 * its frame (the two header lines; the footer with the prompt, the
 * status line or the keys), a recording's header line and time bar (its
 * source's), a view drawing another (the Dashboard's panes), and
 * console_say(), which writes the status line. Called by
 * console.c, console_keys.c and console_requests.c; calls none of them.
 */
#include <curses.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "agg.h"
#include "console_impl.h"
#include "draw.h"
#include "inert.h"
#include "log.h"
#include "view.h"

void console_say(struct console *c, const char *fmt, ...)
{
	char raw[sizeof(c->status)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	inert_str(c->status, sizeof(c->status), raw);
	log_msg(LOG_INFO, "%s", raw);
}

int console_view_index(const struct console *c, const char *name)
{
	for (int i = 0; i < c->nviews; i++)
		if (!strcmp(c->views[i].ops->name, name))
			return i;
	return 0;
}

static void env_draw(const struct view_env *env, const char *view,
		     const struct model *m, struct rect r, bool focus)
{
	struct console *c = env->ctx;
	struct vstate *v = &c->views[console_view_index(c, view)];

	v->ops->draw(v->st, m, env, r, focus);
}

/* The two header lines ------------------------------------------------ */

/* Columns s takes on the screen (UTF-8: one per character). */
static int text_cols(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* " · overhead ≈ 3.1% cpu (12% of target, 2.0% machine-wide), budget 5%
 * · probetop 0.4%" (the kernel-side watches' cost, every process's, apart
 * from the target's share; probetop's own CPU, by its own clock), or the
 * longest shorter form that fits in w columns ("" before the first
 * interval). */
static void overhead_text(const struct model *m, int w, char *buf, size_t n)
{
	const struct agg_overhead *o = m->snap ? &m->snap->overhead : NULL;
	const char *sep = m->utf8 ? "\u00b7" : "-";
	const char *approx = m->utf8 ? "\u2248" : "~";
	char forms[9][140], budget[32], self[40];
	int k = 0;

	buf[0] = 0;
	if (!o)
		return;
	if (m->budget_pct >= 0)
		snprintf(budget, sizeof(budget), ", budget %g%%%s",
			 m->budget_pct,
			 agg_over_budget(o, m->budget_pct) ? " EXCEEDED" : "");
	else
		snprintf(budget, sizeof(budget), ", no budget");
	snprintf(self, sizeof(self), " %s probetop %.1f%%", sep, o->self_pct);
	if (o->target_pct >= 0 && o->kernel_pct >= 0.05)
		snprintf(forms[k++], sizeof(forms[0]),
			 " %s overhead %s %.1f%% cpu (%.0f%% of target, %.1f%% "
			 "machine-wide)%s%s",
			 sep, approx, o->cpu_pct, o->target_pct, o->kernel_pct,
			 budget, self);
	if (o->target_pct >= 0) {
		snprintf(forms[k++], sizeof(forms[0]),
			 " %s overhead %s %.1f%% cpu (%.0f%% of target)%s%s",
			 sep, approx, o->cpu_pct, o->target_pct, budget, self);
		snprintf(forms[k++], sizeof(forms[0]),
			 " %s overhead %s %.1f%% cpu (%.0f%% of target)%s", sep,
			 approx, o->cpu_pct, o->target_pct, budget);
		snprintf(forms[k++], sizeof(forms[0]),
			 " %s overhead %s %.1f%% (%.0f%% of target)", sep,
			 approx, o->cpu_pct, o->target_pct);
	}
	if (o->target_pct < 0 && o->kernel_pct >= 0.05)
		snprintf(forms[k++], sizeof(forms[0]),
			 " %s overhead %s %.1f%% cpu (%.1f%% machine-wide)%s%s",
			 sep, approx, o->cpu_pct, o->kernel_pct, budget, self);
	snprintf(forms[k++], sizeof(forms[0]), " %s overhead %s %.1f%%%s%s",
		 sep, approx, o->cpu_pct, budget, self);
	snprintf(forms[k++], sizeof(forms[0]), " %s overhead %s %.1f%%%s", sep,
		 approx, o->cpu_pct, budget);
	snprintf(forms[k++], sizeof(forms[0]), " %s overhead %s %.1f%%", sep,
		 approx, o->cpu_pct);
	snprintf(forms[k++], sizeof(forms[0]), " %s %.1f%%", approx,
		 o->cpu_pct);
	for (int i = 0; i < k; i++) {
		if (text_cols(forms[i]) <= w) {
			size_t len = strnlen(forms[i], n - 1);

			memcpy(buf, forms[i], len);
			buf[len] = '\0';
			return;
		}
	}
}

static void draw_header(struct console *c)
{
	const struct model *m = &c->m;
	const char *sep = m->utf8 ? "\u00b7" : "-";
	char rss[32], ev[32], cpu[32] = "", up[32] = "";
	char line[160], over[400];
	const char *state = m->exited	? "exited"
			    : m->paused ? "paused"
					: "live";
	const char *dot = m->utf8 ? "\u25cf " : "";

	if (m->pid) {
		snprintf(cpu, sizeof(cpu), "cpu %.0f%%", m->cpu_pct);
		snprintf(up, sizeof(up), "up %d:%02d", (int)(m->uptime_s / 60),
			 (int)fmod(m->uptime_s, 60));
		draw_fmt(0, 0, COLS, STYLE_HEADER,
			 " probetop  pid %d %s %.40s   %s  rss %s   %s   %s%s  "
			 "%gs",
			 m->pid, m->target, m->cmdline, cpu,
			 fmt_bytes((double)m->rss_bytes, rss, sizeof(rss)), up,
			 dot, state, m->interval_s);
	} else {
		draw_fmt(0, 0, COLS, STYLE_HEADER,
			 " probetop  -b %s (every process running it)   %s%s  "
			 "%gs",
			 m->target, dot, state, m->interval_s);
	}
	snprintf(line, sizeof(line),
		 " %zu probes (%zu on) %s %s%s ev/s %s drops %llu",
		 m->probes_total, m->probes_on, sep,
		 m->snap && m->events_s > 0 ? draw_mark(m->snap->events_mark)
					    : "",
		 fmt_rate(m->events_s, ev, sizeof(ev)), sep,
		 (unsigned long long)m->drops_total);
	overhead_text(m, COLS - 9 - text_cols(line), over, sizeof(over));
	draw_fmt(1, 0, COLS - 9, m->drops_total ? STYLE_WARN : STYLE_NORMAL,
		 "%s%s", line, over);
	draw_text(1, COLS - 9, 9, STYLE_DIM, " F1 help");
}

static void draw_footer(struct console *c)
{
	/* the widest that fits; "q quit" stays on the narrowest */
	static const char *const KEYS[] = {
		" 1 Dash  2 Probes  3 Top  4 Hist  5 GC  6 IO  7 Stacks   / "
		"filter  s sort  space toggle  q quit",
		" 1 Dash 2 Probes 3 Top 4 Hist 5 GC 6 IO 7 Stacks  / filter  "
		"s sort  space toggle  q quit",
		" 1-7 views  / filter  s sort  space toggle  q quit",
		" 1-7 views  / filter  q quit",
	};
	size_t k = 0;
	int y = LINES - 1;

	if (c->prompting) {
		draw_fmt(y, 0, COLS, STYLE_NORMAL, " %s%s_", c->prompt,
			 c->answer);
	} else if (c->m.exited) {
		draw_fmt(y, 0, COLS, STYLE_WARN,
			 " the target has exited: the data is its last; q "
			 "quits");
	} else if (c->status[0]) {
		draw_fmt(y, 0, COLS, STYLE_WARN, " %s", c->status);
	} else if (c->m.sampling[0]) {
		draw_fmt(y, 0, COLS, STYLE_WARN, " %s", c->m.sampling);
	} else {
		while (k + 1 < sizeof(KEYS) / sizeof(KEYS[0]) &&
		       (int)strlen(KEYS[k]) > COLS)
			k++;
		draw_text(y, 0, COLS, STYLE_DIM, KEYS[k]);
	}
}

void console_starting(void *ctx, const char *what)
{
	struct console *c = ctx;

	erase();
	draw_fmt(0, 0, COLS, STYLE_HEADER, " probetop  %s", c->starting_what);
	draw_fmt(2, 2, COLS - 2, STYLE_NORMAL, "starting: %s%s", what,
		 c->m.utf8 ? "\u2026" : "...");
	draw_text(LINES - 1, 0, COLS, STYLE_DIM,
		  " the first interval's numbers follow once every probe "
		  "is attached");
	refresh();
}

void console_redraw(struct console *c)
{
	struct view_env env = { env_draw, c };
	struct vstate *v = &c->views[c->cur];
	bool picker = !strcmp(v->ops->name, "picker");

	erase();
	if (LINES < 10 || COLS < 40) {
		mvaddstr(0, 0, "probetop: the terminal is too small");
		refresh();
		return;
	}
	if (!picker)
		draw_header(c);
	else
		draw_text(0, 0, COLS, STYLE_HEADER,
			  " probetop  pick a process to attach to");
	if (c->src)
		c->src->header(c); /* over the live one's first line */
	v->ops->draw(v->st, &c->m, &env,
		     (struct rect){ picker ? 1 : 2, 0,
				    LINES - (picker ? 2 : 3) - !!c->src, COLS },
		     true);
	if (c->src)
		c->src->bar(c, LINES - 2);
	draw_footer(c);
	refresh();
}
