// SPDX-License-Identifier: MIT
/*
 * probes — every probe of the target, grouped by object and provider,
 * with arguments, semaphore, locations, state, live hits/s and what its
 * spec costs the target (COST, % of one CPU: engine/collect/cost.h).
 *
 * Space switches a probe off (every spec on it, which the console keeps)
 * or on (what it kept, else count()); `a` opens a menu that
 * builds a SPEC for it (count by an argument or string, quantize an
 * argument, latency to its paired probe); `f` lists function symbols
 * instead, for fn: probes; `/` searches. What a probeset knows about a
 * probe is said under the list: why it may be silent, what it costs, and
 * for a probe that is risky to enable, Space asks for `y` first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "inert.h"
#include "view.h"

#define MENU_MAX 32

struct menu_item {
	char label[96];
	char spec[SPEC_TEXT_MAX];
};

struct probes {
	bool funcs; /* showing function symbols */
	char search[64];
	size_t cursor, scroll;
	int confirm; /* probe index waiting for `y`, or -1 */
	bool menu_open;
	struct menu_item menu[MENU_MAX];
	int nmenu, menu_cur;
	size_t *idx; /* shown entries: probe or func indices */
	size_t n, cap;
};

static void *probes_open(void)
{
	struct probes *p = calloc(1, sizeof(*p));

	if (p)
		p->confirm = -1;
	return p;
}

static void probes_close(void *st)
{
	struct probes *p = st;

	if (p)
		free(p->idx);
	free(p);
}

static bool matches(const struct probes *p, const char *a, const char *b)
{
	char full[512];

	if (!p->search[0])
		return true;
	snprintf(full, sizeof(full), "%s:%s", a, b);
	return strstr(full, p->search) != NULL;
}

/* Recompute which entries are shown (search) */
static void refilter(struct probes *p, const struct model *m)
{
	size_t total = p->funcs ? m->nfuncs : m->nprobes;

	if (total > p->cap) {
		size_t *v = realloc(p->idx, total * sizeof(*v));

		if (!v)
			return;
		p->idx = v;
		p->cap = total;
	}
	p->n = 0;
	for (size_t i = 0; i < total; i++) {
		bool ok = p->funcs ? matches(p, m->funcs[i].object,
					     m->funcs[i].name)
				   : matches(p, m->probes[i].provider,
					     m->probes[i].name);
		if (ok)
			p->idx[p->n++] = i;
	}
	if (p->cursor >= p->n)
		p->cursor = p->n ? p->n - 1 : 0;
}

static void probes_tick(void *st, const struct model *m, struct request *req)
{
	(void)req;
	refilter(st, m);
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void add_item(struct probes *p, const char *label, const char *fmt,
		     const struct model_probe *pr, const char *tail)
{
	struct menu_item *it;

	if (p->nmenu == MENU_MAX)
		return;
	it = &p->menu[p->nmenu++];
	snprintf(it->label, sizeof(it->label), "%s", label);
	snprintf(it->spec, sizeof(it->spec), fmt, pr->object, pr->provider,
		 pr->name, tail);
}

/* The end probe that pairs with name: __entry -> __return, ... */
static const struct model_probe *pair_of(const struct model *m,
					 const struct model_probe *a)
{
	static const char *const PAIRS[][2] = {
		{ "__entry", "__return" }, { "__start", "__done" },
		{ "__start", "__end" },	   { "__begin", "__end" },
		{ "-entry", "-return" },   { "-start", "-done" },
	};
	char want[256];

	for (size_t k = 0; k < sizeof(PAIRS) / sizeof(PAIRS[0]); k++) {
		size_t ln = strlen(a->name), ls = strlen(PAIRS[k][0]);

		if (ln <= ls || strcmp(a->name + ln - ls, PAIRS[k][0]))
			continue;
		snprintf(want, sizeof(want), "%.*s%s", (int)(ln - ls), a->name,
			 PAIRS[k][1]);
		for (size_t i = 0; i < m->nprobes; i++)
			if (!strcmp(m->probes[i].provider, a->provider) &&
			    !strcmp(m->probes[i].name, want) &&
			    !strcmp(m->probes[i].object, a->object))
				return &m->probes[i];
	}
	return NULL;
}

static void build_menu(struct probes *p, const struct model *m,
		       const struct model_probe *pr)
{
	const struct model_probe *end = pair_of(m, pr);
	char label[96], tail[64];

	p->nmenu = 0;
	p->menu_cur = 0;
	add_item(p, "count", "%s:%s:%s=count()%s", pr, "");
	for (int a = 0; a < pr->nargs && a < 12; a++) {
		snprintf(label, sizeof(label), "count by arg%d", a);
		snprintf(tail, sizeof(tail), "=count(arg%d)", a);
		add_item(p, label, "%s:%s:%s%s", pr, tail);
		snprintf(label, sizeof(label), "count by str(arg%d)", a);
		snprintf(tail, sizeof(tail), "=count(str(arg%d))", a);
		add_item(p, label, "%s:%s:%s%s", pr, tail);
		snprintf(label, sizeof(label), "quantize arg%d", a);
		snprintf(tail, sizeof(tail), "=quantize(arg%d)", a);
		add_item(p, label, "%s:%s:%s%s", pr, tail);
	}
	if (end && p->nmenu < MENU_MAX) {
		struct menu_item *it = &p->menu[p->nmenu++];

		inert_put(
			it->label, sizeof(it->label),
			fmt_put(it->label, sizeof(it->label), 0, "latency to "),
			end->name);
		snprintf(it->spec, sizeof(it->spec),
			 "%s:%s:%s..%s:%s:%s=latency()", pr->object,
			 pr->provider, pr->name, end->object, end->provider,
			 end->name);
	}
	p->menu_open = true;
}

static int menu_key(struct probes *p, enum action a, struct request *req)
{
	switch (a) {
	case ACT_UP:
		if (p->menu_cur > 0)
			p->menu_cur--;
		break;
	case ACT_DOWN:
		if (p->menu_cur + 1 < p->nmenu)
			p->menu_cur++;
		break;
	case ACT_ENTER:
		req->kind = REQ_ADD;
		snprintf(req->text, sizeof(req->text), "%s",
			 p->menu[p->menu_cur].spec);
		p->menu_open = false;
		break;
	case ACT_BACK:
	case ACT_ACTION:
		p->menu_open = false;
		break;
	default:
		break;
	}
	return VIEW_HANDLED;
}

static int toggle(struct probes *p, const struct model *m, bool confirmed,
		  struct request *req)
{
	size_t i;

	if (!p->n)
		return VIEW_HANDLED;
	i = p->idx[p->cursor];
	if (p->funcs) {
		const struct model_func *f = &m->funcs[i];

		if (f->spec_id >= 0) {
			req->kind = REQ_REMOVE;
			req->id = f->spec_id;
		} else {
			req->kind = REQ_ADD;
			snprintf(req->text, sizeof(req->text),
				 "fn:%s:%s=count()", f->object, f->name);
		}
		return VIEW_HANDLED;
	}
	if (m->probes[i].spec_id >= 0) {
		req->kind = REQ_PROBE_OFF;
		req->id = (int)i;
		return VIEW_HANDLED;
	}
	if (m->probes[i].note && m->probes[i].note->unsafe[0] && !confirmed) {
		p->confirm = (int)i;
		return VIEW_HANDLED;
	}
	p->confirm = -1;
	req->kind = REQ_PROBE_ON;
	req->id = (int)i;
	return VIEW_HANDLED;
}

static int probes_key(void *st, const struct model *m, enum action a,
		      const char *text, struct request *req)
{
	struct probes *p = st;

	if (p->menu_open)
		return menu_key(p, a, req);
	if (p->confirm >= 0 && a != ACT_YES)
		p->confirm = -1;
	if (list_move(&p->cursor, p->n, a))
		return VIEW_HANDLED;
	switch (a) {
	case ACT_TOGGLE:
		return toggle(p, m, false, req);
	case ACT_YES:
		if (p->confirm < 0 || !p->n ||
		    p->idx[p->cursor] != (size_t)p->confirm)
			return VIEW_IGNORED;
		return toggle(p, m, true, req);
	case ACT_ACTION:
		if (!p->funcs && p->n)
			build_menu(p, m, &m->probes[p->idx[p->cursor]]);
		return VIEW_HANDLED;
	case ACT_FUNCS:
		p->funcs = !p->funcs;
		p->cursor = p->scroll = 0;
		refilter(p, m);
		return VIEW_HANDLED;
	case ACT_FILTER:
		req->kind = REQ_PROMPT;
		snprintf(req->text, sizeof(req->text), "search: ");
		return VIEW_HANDLED;
	case ACT_TEXT:
		snprintf(p->search, sizeof(p->search), "%s", text ? text : "");
		p->cursor = p->scroll = 0;
		refilter(p, m);
		return VIEW_HANDLED;
	case ACT_BACK:
		if (!p->search[0])
			return VIEW_IGNORED;
		p->search[0] = '\0';
		refilter(p, m);
		return VIEW_HANDLED;
	default:
		return VIEW_IGNORED;
	}
}

static const char *state_of(const struct model_probe *pr)
{
	if (pr->spec_id < 0)
		return "off";
	return pr->hits_total ? "ON" : "silent";
}

static void draw_probe(const struct model *m, const struct model_probe *pr,
		       int y, struct rect in, bool sel)
{
	char name[160], rate[32], hits[40] = "", cost[16] = "", obj[17],
				  args[512];
	const struct agg_spec *as = NULL;
	size_t o;
	enum draw_style st = sel	       ? STYLE_SELECTED
			     : pr->spec_id < 0 ? STYLE_NORMAL
			     : !pr->hits_total ? STYLE_WARN
					       : STYLE_BAR;

	o = inert_put(name, sizeof(name), 0, pr->provider);
	o = fmt_put(name, sizeof(name), o, ":");
	inert_put(name, sizeof(name), o, pr->name);
	if (pr->spec_id >= 0) {
		as = model_spec(m, pr->spec_id);
		model_rate(m, (double)pr->hits, rate, sizeof(rate));
		snprintf(hits, sizeof(hits), "%s%s",
			 as && pr->hits && !m->exited
				 ? draw_mark(as->events_mark)
				 : "",
			 rate);
	}
	if (as) /* its spec's: % of one CPU taken from the target */
		snprintf(cost, sizeof(cost), "%.1f%%", as->cost_pct);
	draw_fmt(y, in.x, in.w, st, " %-6s %-34s %3s %4zu %9s %6s  %-16s %s",
		 state_of(pr), name, pr->semaphore ? "sem" : "-", pr->nlocs,
		 hits, cost, inert_str(obj, sizeof(obj), base(pr->object)),
		 inert_str(args, sizeof(args), pr->args));
}

static void draw_func(const struct model *m, const struct model_func *f, int y,
		      struct rect in, bool sel)
{
	char hits[32] = "", name[256], obj[256];

	if (f->spec_id >= 0)
		model_rate(m, (double)f->hits, hits, sizeof(hits));
	draw_fmt(y, in.x, in.w, sel ? STYLE_SELECTED : STYLE_NORMAL,
		 " %-6s %-44s %9s  %s", f->spec_id >= 0 ? "ON" : "off",
		 inert_str(name, sizeof(name), f->name), hits,
		 inert_str(obj, sizeof(obj), base(f->object)));
}

/* The line under the list: what is known about the cursor's probe */
static void draw_note(const struct probes *p, const struct model *m, int y,
		      struct rect in)
{
	const struct model_probe *pr;
	char obj[1024];

	if (p->funcs || !p->n)
		return;
	pr = &m->probes[p->idx[p->cursor]];
	if (p->confirm >= 0) {
		draw_fmt(y, in.x, in.w, STYLE_WARN,
			 " y: switch it on anyway (any other key: no). %s",
			 pr->note->unsafe);
		return;
	}
	if (pr->unmet)
		draw_fmt(y, in.x, in.w, STYLE_WARN,
			 " will not fire: this process was started without %s."
			 " %s",
			 pr->note->requires_shown, pr->note->silent);
	else if (pr->note && pr->note->silent[0] && pr->note->nrequires == 0 &&
		 (pr->spec_id < 0 || !pr->hits_total))
		draw_fmt(y, in.x, in.w, STYLE_WARN, " %s", pr->note->silent);
	else if (pr->note && pr->note->unsafe[0])
		draw_fmt(y, in.x, in.w, STYLE_WARN, " risky: %s",
			 pr->note->unsafe);
	else if (pr->note && pr->note->cost[0])
		draw_fmt(y, in.x, in.w, STYLE_DIM, " cost: %s", pr->note->cost);
	else
		draw_fmt(y, in.x, in.w, STYLE_DIM, " %s",
			 inert_str(obj, sizeof(obj), pr->object));
}

static void draw_menu(const struct probes *p, struct rect in)
{
	int h = p->nmenu + 2 < in.h ? p->nmenu + 2 : in.h;
	int w = in.w < 64 ? in.w : 64;
	struct rect box = { in.y + 1, in.x + (in.w - w) / 2, h, w };
	struct rect mi = draw_box(box, "what to do with it", "Enter Esc", true);
	int first = p->menu_cur >= mi.h ? p->menu_cur - mi.h + 1 : 0;

	for (int i = 0; i < mi.h && first + i < p->nmenu; i++)
		draw_fmt(mi.y + i, mi.x, mi.w,
			 first + i == p->menu_cur ? STYLE_SELECTED
						  : STYLE_NORMAL,
			 " %s", p->menu[first + i].label);
}

static void probes_draw(void *st, const struct model *m,
			const struct view_env *env, struct rect r, bool focus)
{
	struct probes *p = st;
	char title[128], note[64];
	struct rect in;
	int lines;

	(void)env;
	if (p->n == 0 && !p->search[0])
		refilter(p, m);
	snprintf(title, sizeof(title), "%s%s%s",
		 p->funcs ? "Functions (fn:)" : "Probes",
		 p->search[0] ? " /" : "", p->search);
	snprintf(note, sizeof(note), "%zu of %zu", p->n,
		 p->funcs ? m->nfuncs : m->nprobes);
	in = draw_box(r, title, note, focus);
	if (in.h < 3)
		return;
	draw_text(
		in.y, in.x, in.w, STYLE_TITLE,
		p->funcs
			? " STATE  FUNCTION                                    "
			  "  HITS/s  OBJECT"
			: " STATE  PROVIDER:NAME                      SEM "
			  "LOCS    HITS/s   COST  OBJECT           ARGS");
	lines = in.h - 2;
	if (!p->n) {
		draw_text(in.y + 1, in.x, in.w, STYLE_DIM,
			  p->funcs     ? "  no function symbols"
			  : m->nprobes ? "  nothing matches the search"
			  : m->no_probe_list
				  ? "  this recording holds no probe list "
				    "(written before format 1.1)"
				  : "  this process has no USDT probes "
				    "(built without them?); try f for "
				    "function probes");
		return;
	}
	list_scroll(p->cursor, &p->scroll, lines);
	for (int i = 0; i < lines && p->scroll + (size_t)i < p->n; i++) {
		size_t k = p->idx[p->scroll + (size_t)i];
		bool sel = focus && p->scroll + (size_t)i == p->cursor;

		if (p->funcs) {
			draw_func(m, &m->funcs[k], in.y + 1 + i, in, sel);
			continue;
		}
		draw_probe(m, &m->probes[k], in.y + 1 + i, in, sel);
	}
	draw_note(p, m, in.y + in.h - 1, in);
	if (p->menu_open)
		draw_menu(p, in);
}

const struct view_ops view_probes = {
	.name = "probes",
	.title = "Probes",
	.open = probes_open,
	.close = probes_close,
	.tick = probes_tick,
	.draw = probes_draw,
	.key = probes_key,
};
