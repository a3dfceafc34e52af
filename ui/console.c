// SPDX-License-Identifier: MIT
/*
 * console — the interactive screen: attach (or pick a process), then
 * refresh every interval until `q`.
 *
 * Order: everything that can fail with a message on stderr (arguments,
 * specs, probesets, the target, BPF) happens before curses starts. Then
 * messages go to an in-memory log (status line, `L` view), never to
 * stderr. One loop polls the keyboard, the signalfd (INT/TERM/HUP) and
 * the target's pidfd; each interval it rescans the target's mappings,
 * reads a snapshot, refreshes the model and lets the views tick. Views
 * ask for changes (attach, detach, zoom...) with requests that this file
 * carries out through the session. On any exit — a crash signal included
 * — the terminal is restored; links are file descriptors, so the kernel
 * detaches every probe when the process ends.
 */
#include "console.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "agg.h"
#include "cmd.h"
#include "conmodel.h"
#include "draw.h"
#include "export.h"
#include "inert.h"
#include "log.h"
#include "proc.h"
#include "session.h"
#include "view.h"

#define LOG_MAX 200
#define RESCAN_S 0.2
/* The longest walk of the maps between two reads of the keyboard
 * (agg_read_step()) */
#define READ_STEP_S 0.004
#define MAX_VIEWS 16

struct vstate {
	const struct view_ops *ops;
	void *st;
};

/* A spec switched off with a probe in Probes, kept under each probe it
 * attached (one group), so that Space on any of them brings it back once
 * and as it was (a -e spec's keys, a probeset's role), not a plain count. */
struct parked {
	char probe[SPEC_TEXT_MAX]; /* object:provider:name */
	char text[SPEC_TEXT_MAX];
	const struct probeset *ps;
	const struct ps_spec *role;
	unsigned int group;
};

struct console {
	struct session s;
	struct parked *parked;
	size_t nparked, parked_cap;
	unsigned int park_groups;
	struct agg *agg;
	struct export *ex; /* --listen, or NULL */
	struct conmodel *cm;
	struct model m;
	struct vstate views[MAX_VIEWS];
	int nviews, cur, prev;
	char *log[LOG_MAX];
	size_t nlog;
	char status[256];
	double next_tick, last_read;
	double given_interval; /* -i, which bounds + and - if outside theirs */
	int sigfd, pidfd;
	bool prompting;
	char prompt[32], answer[64];
	bool quit;
	double duration_s, deadline; /* -d; 0: none */
};

static volatile sig_atomic_t curses_up;

/* Messages: kept for the status line and `L`; before the screen is up
 * also on stderr, where they stay in order with the errors that would
 * keep it from coming up. */
static void log_to_ring(enum log_level level, const char *msg, void *ctx)
{
	struct console *c = ctx;

	if (!curses_up)
		fprintf(stderr, "probetop: %s\n", msg);
	if (c->nlog == LOG_MAX) {
		free(c->log[0]);
		memmove(c->log, c->log + 1, sizeof(c->log[0]) * (LOG_MAX - 1));
		c->nlog--;
	}
	c->log[c->nlog] = strdup(msg);
	if (c->log[c->nlog])
		c->nlog++;
	if (level <= LOG_WARN)
		snprintf(c->status, sizeof(c->status), "%s", msg);
	c->m.log.n = c->nlog;
	c->m.log.lines = (const char *const *)c->log;
}

static void say(struct console *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(struct console *c, const char *fmt, ...)
{
	char raw[sizeof(c->status)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	inert_str(c->status, sizeof(c->status), raw);
	log_msg(LOG_INFO, "%s", raw);
}

/* A crash must not leave the terminal in raw mode. */
static void crash(int sig)
{
	if (curses_up)
		endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_crashes(void)
{
	static const int SIGS[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

	for (size_t i = 0; i < sizeof(SIGS) / sizeof(SIGS[0]); i++)
		signal(SIGS[i], crash);
}

static bool utf8_ok(void)
{
	const char *term = getenv("TERM");

	return !strcmp(nl_langinfo(CODESET), "UTF-8") && term &&
	       strncmp(term, "vt", 2) && strcmp(term, "linux");
}

static void start_curses(struct console *c)
{
	const char *nc = getenv("NO_COLOR");

	initscr();
	curses_up = 1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	c->m.utf8 = utf8_ok();
	c->m.color = !(nc && *nc);
	c->m.index = model_index_new(); /* NULL: rows found one by one */
	draw_init(c->m.color, c->m.utf8);
}

static int open_views(struct console *c)
{
	const struct view_ops *const *all = views_all();

	for (c->nviews = 0; all[c->nviews] && c->nviews < MAX_VIEWS;
	     c->nviews++) {
		c->views[c->nviews].ops = all[c->nviews];
		c->views[c->nviews].st = all[c->nviews]->open();
		if (!c->views[c->nviews].st)
			return -ENOMEM;
	}
	return 0;
}

static int view_index(const struct console *c, const char *name)
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
	struct vstate *v = &c->views[view_index(c, view)];

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

/* "  · overhead ≈ 3.1% cpu (12% of target) of 5%" (the budget), or the
 * longest shorter form that fits in w columns ("" before the first
 * interval). */
static void overhead_text(const struct model *m, int w, char *buf, size_t n)
{
	const struct agg_overhead *o = m->snap ? &m->snap->overhead : NULL;
	const char *sep = m->utf8 ? "\u00b7" : "-";
	const char *approx = m->utf8 ? "\u2248" : "~";
	char forms[5][80], budget[32];
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
	if (o->target_pct >= 0) {
		snprintf(forms[k++], sizeof(forms[0]),
			 " %s overhead %s %.1f%% cpu (%.0f%% of target)%s", sep,
			 approx, o->cpu_pct, o->target_pct, budget);
		snprintf(forms[k++], sizeof(forms[0]),
			 " %s overhead %s %.1f%% (%.0f%% of target)", sep,
			 approx, o->cpu_pct, o->target_pct);
	}
	snprintf(forms[k++], sizeof(forms[0]), " %s overhead %s %.1f%%%s", sep,
		 approx, o->cpu_pct, budget);
	snprintf(forms[k++], sizeof(forms[0]), " %s overhead %s %.1f%%", sep,
		 approx, o->cpu_pct);
	snprintf(forms[k++], sizeof(forms[0]), " %s %.1f%%", approx,
		 o->cpu_pct);
	for (int i = 0; i < k; i++) {
		if (text_cols(forms[i]) <= w) {
			snprintf(buf, n, "%s", forms[i]);
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

static void redraw(struct console *c)
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
	v->ops->draw(v->st, &c->m, &env,
		     (struct rect){ picker ? 1 : 2, 0, LINES - (picker ? 2 : 3),
				    COLS },
		     true);
	draw_footer(c);
	refresh();
}

/* Requests ------------------------------------------------------------ */

static void add_spec(struct console *c, const char *text,
		     const struct probeset *ps, const struct ps_spec *role)
{
	struct spec sp;
	char err[256], what[700], hint[700];
	int id;

	if (spec_parse(text, &sp, err, sizeof(err))) {
		say(c, "'%s': %s", text, err);
		return;
	}
	id = session_add(&c->s, &sp, ps, role);
	if (id < 0) {
		say(c, "cannot attach '%s': %s", text, strerror(-id));
		return;
	}
	session_waiting(tracer_spec_info(c->s.tr, id), what, sizeof(what));
	if (!what[0]) {
		say(c, "on: %s", text);
		return;
	}
	session_hint(&c->s, &sp, hint, sizeof(hint));
	say(c, "'%s': waiting, %s yet%s", text, what, hint);
}

static void add_role(struct console *c, const char *role)
{
	char section[PS_NAME_MAX];
	const char *dot = strchr(role, '.');

	if (!dot || (size_t)(dot - role) >= sizeof(section))
		return;
	snprintf(section, sizeof(section), "%.*s", (int)(dot - role), role);
	for (int i = 0; i < c->s.npicked; i++) {
		const struct ps_spec *r = session_pick_alt(
			&c->s, c->s.picked[i],
			probeset_spec(c->s.picked[i], section, dot + 1));

		if (r && session_role(&c->s, section, dot + 1) < 0) {
			add_spec(c, r->spec.text, c->s.picked[i], r);
			return;
		}
	}
}

static void replace_spec(struct console *c, int id, const char *text)
{
	const struct probeset *ps = c->s.specs[id].ps;
	const struct ps_spec *role = c->s.specs[id].role;
	struct spec sp;
	char err[256];

	if (spec_parse(text, &sp, err, sizeof(err))) {
		say(c, "'%s': %s", text, err);
		return;
	}
	session_remove(&c->s, id);
	add_spec(c, text, ps, role);
}

static void probe_name(const struct model_probe *p, char *buf, size_t n)
{
	snprintf(buf, n, "%s:%s:%s", p->object, p->provider, p->name);
}

/* Keep spec id under probe p in group; false when out of memory. */
static bool park(struct console *c, const struct model_probe *p, int id,
		 unsigned int group)
{
	struct parked *k;

	if (c->nparked == c->parked_cap) {
		size_t cap = c->parked_cap ? 2 * c->parked_cap : 16;
		struct parked *v = realloc(c->parked, cap * sizeof(*v));

		if (!v)
			return false;
		c->parked = v;
		c->parked_cap = cap;
	}
	k = &c->parked[c->nparked++];
	probe_name(p, k->probe, sizeof(k->probe));
	snprintf(k->text, sizeof(k->text), "%s",
		 tracer_spec_info(c->s.tr, id)->spec->text);
	k->ps = c->s.specs[id].ps;
	k->role = c->s.specs[id].role;
	k->group = group;
	return true;
}

/* Park spec id under p and every other probe it attaches, as one group;
 * false when out of memory. */
static bool park_spec(struct console *c, const struct model_probe *p, int id)
{
	unsigned int group = ++c->park_groups;

	if (!park(c, p, id, group))
		return false;
	for (size_t i = 0; i < c->m.nprobes; i++) {
		const struct model_probe *o = &c->m.probes[i];

		if (o != p && conmodel_spec_covers(&c->s, id, o) &&
		    !park(c, o, id, group))
			return false;
	}
	return true;
}

/* The number of probes other than p that one of the n specs ids attaches
 * (each counted once, however many of the specs cover it). */
static int others_covered(const struct console *c, const struct model_probe *p,
			  const int *ids, int n)
{
	int others = 0;

	for (size_t i = 0; i < c->m.nprobes; i++) {
		const struct model_probe *o = &c->m.probes[i];

		for (int j = 0; o != p && j < n; j++) {
			if (conmodel_spec_covers(&c->s, ids[j], o)) {
				others++;
				break;
			}
		}
	}
	return others;
}

/* Switch probe p off: detach every spec on it, keeping each in parked. */
static void probe_off(struct console *c, const struct model_probe *p)
{
	int ids[SESSION_MAX_SPECS];
	int n = conmodel_probe_specs(&c->s, p, ids, SESSION_MAX_SPECS);
	int others = others_covered(c, p, ids, n);

	for (int i = 0; i < n; i++) {
		if (!tracer_spec_info(c->s.tr, ids[i]))
			continue; /* went with a spec it was a helper of */
		if (!park_spec(c, p, ids[i])) {
			say(c, "out of memory");
			return;
		}
		session_remove(&c->s, ids[i]);
	}
	if (others)
		say(c,
		    "off: %s:%s and %d other probe%s the same spec%s attached "
		    "(Space on any brings %s back)",
		    p->provider, p->name, others, others == 1 ? "" : "s",
		    n == 1 ? "" : "s", n == 1 ? "it" : "them");
	else
		say(c, "off: %s:%s (%d spec%s; Space brings %s back)",
		    p->provider, p->name, n, n == 1 ? "" : "s",
		    n == 1 ? "it" : "them");
}

/* Drop every parked entry of group. */
static void unpark_group(struct console *c, unsigned int group)
{
	for (size_t i = 0; i < c->nparked;) {
		if (c->parked[i].group == group)
			c->parked[i] = c->parked[--c->nparked];
		else
			i++;
	}
}

/* Switch probe p on: what probe_off() kept of it, else a count. */
static void probe_on(struct console *c, const struct model_probe *p)
{
	char name[SPEC_TEXT_MAX], text[SPEC_TEXT_MAX + 16];
	bool any = false;

	probe_name(p, name, sizeof(name));
	for (size_t i = 0; i < c->nparked;) {
		struct parked k = c->parked[i];

		if (strcmp(k.probe, name)) {
			i++;
			continue;
		}
		unpark_group(c, k.group);
		add_spec(c, k.text, k.ps, k.role);
		any = true;
		i = 0; /* entries moved */
	}
	if (!any) {
		snprintf(text, sizeof(text), "%s=count()", name);
		add_spec(c, text, NULL, NULL);
	}
}

static void refresh_model(struct console *c)
{
	conmodel_update(c->cm, &c->s, c->m.snap, &c->m);
}

static void carry_out(struct console *c, const struct request *r)
{
	switch (r->kind) {
	case REQ_VIEW:
		c->prev = c->cur;
		c->cur = view_index(c, r->view);
		break;
	case REQ_BACK:
		c->cur = c->prev;
		break;
	case REQ_PROMPT:
		c->prompting = true;
		snprintf(c->prompt, sizeof(c->prompt), "%.31s", r->text);
		c->answer[0] = '\0';
		break;
	case REQ_ADD:
		add_spec(c, r->text, NULL, NULL);
		break;
	case REQ_REMOVE:
		session_remove(&c->s, r->id);
		say(c, "off: spec %d", r->id);
		break;
	case REQ_REPLACE:
		replace_spec(c, r->id, r->text);
		break;
	case REQ_PROBE_OFF:
	case REQ_PROBE_ON:
		if (r->id < 0 || (size_t)r->id >= c->m.nprobes)
			return;
		if (r->kind == REQ_PROBE_OFF)
			probe_off(c, &c->m.probes[r->id]);
		else
			probe_on(c, &c->m.probes[r->id]);
		break;
	case REQ_ROLE:
		add_role(c, r->text);
		break;
	case REQ_STACKS:
		snprintf(c->m.stack_goto, sizeof(c->m.stack_goto), "%s",
			 r->text);
		c->m.stack_goto_seq++;
		c->prev = c->cur;
		c->cur = view_index(c, "stacks");
		return;
	case REQ_SAY:
		say(c, "%s", r->text);
		return;
	case REQ_SELECT:
		c->m.sel_spec = r->id;
		snprintf(c->m.sel_key, sizeof(c->m.sel_key), "%s", r->text);
		return;
	case REQ_QUIT:
		c->quit = true;
		return;
	default:
		return;
	}
	refresh_model(c);
}

/* Keys ---------------------------------------------------------------- */

/* The interval after + (slower) or - on one of old seconds: doubled or
 * halved, within 0.25..60 s, or down (up) to the -i value given when that
 * is below (above) them. */
static double step_interval(double old, bool slower, double given)
{
	double v = slower ? old * 2 : old / 2;
	double lo = given < 0.25 ? given : 0.25, hi = given > 60 ? given : 60;

	return v < lo ? lo : v > hi ? hi : v;
}

/* b: the next budget of BUDGETS after the one on, then off, then the
 * first again. */
static void next_budget(struct console *c)
{
	static const double BUDGETS[] = { 1, 2, 5, 10, 25 };
	double now = agg_budget(c->agg), next = -1;

	for (size_t i = 0; i < sizeof(BUDGETS) / sizeof(BUDGETS[0]); i++) {
		if (now < 0 || BUDGETS[i] > now) {
			next = BUDGETS[i];
			break;
		}
	}
	agg_set_budget(c->agg, next);
	c->m.budget_pct = next;
	c->m.sampling[0] = '\0';
	if (next < 0)
		say(c, "no budget: every probe counted exactly, whatever it "
		       "costs the target");
	else
		say(c,
		    "budget %g%%: tracing may take %g%% of one CPU; the "
		    "costliest probes are sampled above it",
		    next, next);
}

/* Say what the calls Top now shows cost: all of them exactly takes
 * their spec's price (its cost over the share of the time the budget
 * attached it), and what the budget does about it. */
static void calls_price(struct console *c)
{
	const struct agg_spec *as = model_spec(&c->m, c->m.frames_calls.id);
	double duty = as && as->duty > 0 ? as->duty : 1;

	if (!as || !as->estimated) {
		say(c, "Top frames: exact calls, from USDT probes");
		return;
	}
	say(c,
	    "calls: all would cost ~%.1f%% of a CPU; the %g%% budget "
	    "samples them: %s (b: exact)",
	    as->cost_pct / duty, c->m.budget_pct,
	    model_calls_bounded(&c->m) ? "≥ lower bounds" : "~ estimates");
}

/* x: Top's frames from the exact calls or from the CPU samples, when
 * the target has both. */
static void switch_source(struct console *c)
{
	if (c->m.frames_calls.id < 0 || c->m.frames_samples.id < 0) {
		say(c, "x: Top's frames have one source here: %s",
		    c->m.frames_samples.id >= 0 ? "CPU samples (no USDT calls)"
		    : c->m.frames_calls.id >= 0 ? "exact calls (no sampling)"
						: "none");
		return;
	}
	c->m.frames_by_samples = model_frames(&c->m) != &c->m.frames_samples;
	c->m.frames_chosen = true;
	if (c->m.frames_by_samples) {
		say(c, "Top frames: CPU samples, %% of one CPU");
		return;
	}
	calls_price(c);
}

/* The footer's line on sampling: how much of the time the costliest
 * spec the budget samples is attached, the budget, and the spec; "" if
 * none. */
static void fill_sampling(struct console *c)
{
	const struct agg_snapshot *snap = c->m.snap;
	int costliest;
	size_t n = agg_sampled(c->agg, &costliest);
	char text[INERT_MAX_PER_BYTE * 96];

	c->m.sampling[0] = '\0';
	if (!snap || !n || costliest < 0)
		return;
	for (size_t i = 0; i < snap->nspecs; i++) {
		const struct agg_spec *as = &snap->specs[i];

		if (as->id != costliest)
			continue;
		inert_str(text, sizeof(text), as->spec->text);
		snprintf(c->m.sampling, sizeof(c->m.sampling),
			 "~ sampled %.0f%% of the time to stay under the %g%% "
			 "budget (b)%s: %.150s",
			 100.0 * as->duty, c->m.budget_pct,
			 n > 1 ? ", the costliest of them" : "", text);
	}
}

static void global_action(struct console *c, enum action a)
{
	struct request r = { .kind = REQ_VIEW };
	static const char *const BY_NUMBER[] = { "dash",  "probes", "top",
						 "hist",  "gc",	    "io",
						 "stacks" };

	switch (a) {
	case ACT_QUIT:
		c->quit = true;
		return;
	case ACT_PAUSE:
		c->m.paused = !c->m.paused;
		return;
	case ACT_FASTER:
	case ACT_SLOWER:
		c->m.interval_s = step_interval(
			c->m.interval_s, a == ACT_SLOWER, c->given_interval);
		c->next_tick = cli_now_s() + c->m.interval_s;
		return;
	case ACT_BUDGET:
		next_budget(c);
		return;
	case ACT_SOURCE:
		switch_source(c);
		return;
	case ACT_HELP:
		r.view = "help";
		break;
	case ACT_LOG:
		r.view = "log";
		break;
	case ACT_BACK:
		if (c->cur == c->prev)
			c->prev = view_index(c, "dash");
		r.kind = REQ_BACK;
		break;
	case ACT_VIEW1:
	case ACT_VIEW2:
	case ACT_VIEW3:
	case ACT_VIEW4:
	case ACT_VIEW5:
	case ACT_VIEW6:
	case ACT_VIEW7:
		r.view = BY_NUMBER[a - ACT_VIEW1];
		break;
	default:
		return;
	}
	carry_out(c, &r);
}

static void send_action(struct console *c, enum action a, const char *text)
{
	struct vstate *v = &c->views[c->cur];
	struct request r = { REQ_NONE };

	if (v->ops->keys_to)
		v = &c->views[view_index(c, v->ops->keys_to)];
	if (v->ops->key && v->ops->key(v->st, &c->m, a, text, &r)) {
		carry_out(c, &r);
		return;
	}
	global_action(c, a);
}

static void prompt_key(struct console *c, int ch)
{
	size_t n = strlen(c->answer);

	if (ch == 27) {
		c->prompting = false;
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		c->prompting = false;
		send_action(c, ACT_TEXT, c->answer);
	} else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n) {
		c->answer[n - 1] = '\0';
	} else if (ch >= 32 && ch < 127 && n + 1 < sizeof(c->answer)) {
		c->answer[n] = (char)ch;
		c->answer[n + 1] = '\0';
	}
}

static void read_keys(struct console *c)
{
	int ch;

	nodelay(stdscr, TRUE);
	while ((ch = getch()) != ERR) {
		if (c->prompting) {
			prompt_key(c, ch);
			continue;
		}
		c->status[0] = '\0';
		if (ch == KEY_RESIZE)
			continue;
		send_action(c, keys_action(ch), NULL);
	}
}

static void fill_target(struct console *c);

/* The loop ------------------------------------------------------------- */

/* Say in Messages why a spec, or the kernel's IO and process counting,
 * began to drop events: the interval in which a reason's total is all
 * new is its first. */
static void say_new_drops(const struct agg_snapshot *snap)
{
	char why[256];

	for (size_t i = 0; i < snap->nspecs; i++) {
		const struct agg_spec *as = &snap->specs[i];
		bool first = false;

		for (int r = 0; r < AGG_NDROPS; r++)
			first |= as->why[r] && as->why[r] == as->why_total[r];
		if (!first)
			continue;
		session_drops(as, false, why, sizeof(why));
		log_msg(LOG_WARN, "%s: %llu dropped: %s", as->spec->text,
			(unsigned long long)as->drops, why);
	}
	for (int k = 0; k < PT_KDROP_N; k++)
		if (snap->kdrops[k] &&
		    snap->kdrops[k] == snap->kdrops_total[k]) {
			session_kdrops(snap, false, why, sizeof(why));
			log_msg(LOG_WARN, "dropped by the kernel: %s", why);
			break;
		}
}

/* --listen: scrapes get snap from now on */
static void publish(struct console *c, const struct agg_snapshot *snap)
{
	struct metrics_src src;

	if (!c->ex || !snap)
		return;
	session_metrics_src(&c->s, snap, &src);
	if (export_publish(c->ex, &src))
		log_msg(LOG_WARN, "--listen: out of memory; serving the last "
				  "metrics");
}

/* Start an interval's read, unless paused or the target's end was read;
 * true if one is under way (read_step()). */
static bool tick_start(struct console *c)
{
	if (c->m.pid && !c->m.exited)
		fill_target(c); /* it may have exec()ed */
	return !c->m.paused && !(c->m.exited && c->m.snap);
}

/* The interval's snapshot is read (or could not be): show it. */
static void tick_end(struct console *c, const struct agg_snapshot *snap)
{
	c->m.snap = snap;
	if (c->m.snap)
		say_new_drops(c->m.snap);
	publish(c, c->m.snap);
	c->m.snap_s = cli_now_s() - c->last_read;
	c->last_read = cli_now_s();
	refresh_model(c);
	fill_sampling(c);
	for (int i = 0; i < c->nviews; i++) {
		struct request r = { REQ_NONE };

		if (c->views[i].ops->tick) {
			c->views[i].ops->tick(c->views[i].st, &c->m, &r);
			if (r.kind != REQ_NONE)
				carry_out(c, &r);
		}
	}
}

/* One step of the read under way (agg_read_step()), the views ticked if
 * it was the last; true then. */
static bool read_step(struct console *c)
{
	const struct agg_snapshot *snap = agg_read_step(c->agg, READ_STEP_S);

	if (!snap && errno == EAGAIN)
		return false;
	tick_end(c, snap);
	return true;
}

/* Attach to what the target mapped since (dlopen, exec); notice its end. */
static void rescan(struct console *c)
{
	const struct tracer_exec *exec;
	int n, sets;

	if (!c->m.pid || c->m.exited)
		return;
	n = session_rescan(&c->s, &sets, &exec);
	if (n == -ESRCH) {
		c->m.exited = true;
		return;
	}
	if (exec) {
		size_t k = tracer_mapped_probes(c->s.tr);

		say(c, "%d exec'd %s: attached %zu probe%s", (int)c->m.pid,
		    exec->path, k, k == 1 ? "" : "s");
	}
	if (sets) {
		char names[256] = "";

		for (int i = c->s.npicked - sets; i < c->s.npicked; i++)
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s",
				 names[0] ? ", " : "", c->s.picked[i]->name);
		say(c, "%s %s: %s probes appeared",
		    sets > 1 ? "probesets" : "probeset", names,
		    sets > 1 ? "their" : "its");
	} else if (n > 0 && !exec)
		say(c, "attached %d more locations in new mappings", n);
	if (n > 0 || sets || exec)
		conmodel_probes(c->cm, &c->s, &c->m);
}

/* When the loop must wake: the next interval (now while a read is under
 * way, read_step()), rescan, budget slot or -d deadline, whichever is
 * first. */
static double wake_at(const struct console *c, bool reading, double next_rescan)
{
	double wake = reading ? cli_now_s() : c->next_tick;

	if (!c->m.exited && next_rescan < wake)
		wake = next_rescan; /* rescans, the cost meter */
	if (!c->m.exited && agg_wake_s(c->agg) > 0 && agg_wake_s(c->agg) < wake)
		wake = agg_wake_s(c->agg); /* the budget's slots */
	if (c->deadline > 0 && c->deadline < wake)
		wake = c->deadline;
	return wake;
}

/*
 * Until q or a signal: poll the keyboard, the signals, the target's end
 * and the tracer's events; rescan every RESCAN_S; each interval read the
 * maps in steps of READ_STEP_S with the keyboard read between them, so
 * that a key waits for no more than a step (or the views' tick that ends
 * a read), however many keys the maps hold; redraw when something moved.
 */
static void run_loop(struct console *c)
{
	double next_rescan = cli_now_s() + RESCAN_S;
	bool reading = false;

	c->next_tick = cli_now_s() + c->m.interval_s;
	if (c->duration_s > 0)
		c->deadline = cli_now_s() + c->duration_s;
	redraw(c);
	while (!c->quit) {
		bool live = c->pidfd >= 0 && !c->m.exited;
		struct pollfd pfd[4] = {
			{ STDIN_FILENO, POLLIN, 0 },
			{ c->sigfd, POLLIN, 0 },
			{ live ? c->pidfd : -1, POLLIN, 0 },
			{ live ? tracer_event_fd(c->s.tr) : -1, POLLIN, 0 },
		};
		double now = cli_now_s(),
		       wake = wake_at(c, reading, next_rescan);
		bool show; /* something to redraw */

		if (c->deadline > 0 && now >= c->deadline)
			return; /* -d: the lunch-break fail-safe */
		poll(pfd, 4, now < wake ? (int)((wake - now) * 1000) + 1 : 0);
		if (pfd[1].revents)
			return; /* SIGINT, SIGTERM, SIGHUP */
		if (pfd[2].revents) {
			c->m.exited = true;
			c->m.snap = agg_read(c->agg); /* the last data */
			reading = false;
			publish(c, c->m.snap);
			refresh_model(c);
		}
		if (pfd[0].revents)
			read_keys(c);
		now = cli_now_s();
		agg_tick(c->agg); /* the budget's slots: cheap when not due */
		show = pfd[0].revents || pfd[2].revents || pfd[3].revents;
		if (now >= next_rescan || pfd[3].revents) {
			rescan(c);
			next_rescan = now + RESCAN_S;
			show = true;
		}
		if (!reading && now >= c->next_tick) {
			reading = tick_start(c);
			show |= !reading; /* paused: the header says so */
			c->next_tick += c->m.interval_s;
			if (c->next_tick < now)
				c->next_tick = now + c->m.interval_s;
		}
		if (reading && read_step(c)) {
			reading = false;
			show = true;
		}
		if (show)
			redraw(c);
	}
}

/* Picking a process ---------------------------------------------------- */

static pid_t pick_process(struct console *c)
{
	struct ps_list sets;
	pid_t pid = 0;

	if (probesets_load(NULL, NULL, &sets, NULL, NULL))
		return -1;
	if (conmodel_procs(c->cm, &sets, &c->m)) {
		probesets_free(&sets);
		return -1;
	}
	probesets_free(&sets);
	start_curses(c);
	c->cur = c->prev = view_index(c, "picker");
	while (!c->quit && pid <= 0) {
		struct pollfd pfd[2] = { { STDIN_FILENO, POLLIN, 0 },
					 { c->sigfd, POLLIN, 0 } };
		int ch;

		redraw(c);
		poll(pfd, 2, -1);
		if (pfd[1].revents)
			break;
		nodelay(stdscr, TRUE);
		while ((ch = getch()) != ERR && pid <= 0) {
			struct request r = { REQ_NONE };
			enum action a = keys_action(ch);

			if (c->prompting) {
				prompt_key(c, ch);
				continue;
			}
			if (c->views[c->cur].ops->key(c->views[c->cur].st,
						      &c->m, a, NULL, &r) &&
			    r.kind == REQ_SELECT)
				pid = r.id;
			else if (r.kind == REQ_PROMPT)
				carry_out(c, &r);
			else if (a == ACT_QUIT || a == ACT_BACK)
				c->quit = true;
		}
	}
	endwin();
	curses_up = 0;
	c->m.procs = NULL;
	c->m.nprocs = 0;
	return c->quit ? 0 : pid;
}

/* Setup and teardown --------------------------------------------------- */

static void fill_target(struct console *c)
{
	struct model *m = &c->m;
	char raw[sizeof(m->cmdline)];

	m->pid = (int)c->s.pid;
	m->binary_mode = c->s.binary[0] != '\0';
	if (m->binary_mode) {
		inert_str(m->target, sizeof(m->target), c->s.binary);
		return;
	}
	if (proc_comm(c->s.pid, raw, sizeof(raw)))
		snprintf(raw, sizeof(raw), "?");
	inert_str(m->target, sizeof(m->target), raw);
	proc_cmdline(c->s.pid, raw, sizeof(raw));
	/* the header shows 40 bytes: cut here, between escapes */
	inert_str(m->cmdline, 41, raw);
}

/* --listen: serve (the specs, nothing counted yet, until the first
 * interval) and say where in Messages and on the status line */
static int start_export(struct console *c, const char *listen)
{
	char err[512];

	c->ex = export_start(listen, err, sizeof(err));
	if (!c->ex) {
		cli_error("%s", err); /* before the screen: on stderr */
		return -1;
	}
	publish(c, agg_empty(c->agg));
	say(c, "serving metrics on %s", export_url(c->ex));
	return 0;
}

static void teardown(struct console *c)
{
	if (curses_up) {
		endwin();
		curses_up = 0;
	}
	log_set_sink(NULL, NULL);
	export_stop(c->ex);
	for (int i = 0; i < c->nviews; i++)
		if (c->views[i].st)
			c->views[i].ops->close(c->views[i].st);
	agg_free(c->agg);
	session_end_command(&c->s);
	session_close(&c->s);
	conmodel_free(c->cm);
	model_index_free(c->m.index);
	for (size_t i = 0; i < c->nlog; i++)
		free(c->log[i]);
	free(c->parked);
	if (c->pidfd >= 0)
		close(c->pidfd);
	if (c->sigfd >= 0)
		close(c->sigfd);
}

int console_run(struct session_args *a, double interval_s, double duration_s)
{
	struct console *c = calloc(1, sizeof(*c));
	int ret = 1;

	if (!c)
		return 1;
	c->sigfd = c->pidfd = -1;
	c->m.interval_s = c->given_interval = interval_s;
	c->duration_s = duration_s;
	c->m.sel_spec = -1;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cli_error("the console needs a terminal; for scripts use "
			  "probetop trace");
		free(c);
		return 2;
	}
	setlocale(LC_ALL, "");
	catch_crashes();
	c->sigfd = cli_signalfd();
	c->cm = conmodel_new();
	if (!c->cm || open_views(c))
		goto out;
	if (!a->pid && !a->binary && !a->command) {
		a->pid = pick_process(c);
		if (a->pid <= 0) {
			ret = a->pid < 0 ? 1 : 0;
			goto out;
		}
		c->quit = false;
	}
	a->with_kernel = !a->binary;
	a->quiet_command = true; /* the screen is ours */
	log_set_sink(log_to_ring, c); /* warnings from here on: on screen */
	ret = session_open(&c->s, a);
	if (ret)
		goto out;
	ret = 1;
	c->agg = agg_new(c->s.tr);
	if (!c->agg)
		goto out;
	agg_set_budget(c->agg, session_budget(a));
	c->m.budget_pct = session_budget(a);
	if (a->listen && start_export(c, a->listen))
		goto out;
	if (c->s.pid)
		c->pidfd = pidfd_open(c->s.pid, 0);
	if (session_release(&c->s) || conmodel_probes(c->cm, &c->s, &c->m))
		goto out;
	fill_target(c);
	c->last_read = cli_now_s();
	refresh_model(c);
	start_curses(c);
	c->cur = c->prev = view_index(c, "dash");
	run_loop(c);
	ret = 0;
out:
	teardown(c);
	free(c);
	return ret;
}
