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
 * ask for changes (attach, detach, zoom...) with requests that
 * console_requests.c carries out through the session. On any exit — a
 * crash signal included — the terminal is restored; links are file
 * descriptors, so the kernel detaches every probe when the process ends.
 *
 * This file owns the life cycle (setup, curses up and down, teardown),
 * the loop and picking a process. Keys are console_keys.c's, requests
 * console_requests.c's, the screen console_screen.c's; they share
 * struct console (console_impl.h) and none of them calls this file.
 * console_replay.c (the console on a recording) uses its setup and
 * teardown (console_start_curses() ...) and has a loop of its own.
 */
#include "console.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "agg.h"
#include "cmd.h"
#include "conmodel.h"
#include "console_impl.h"
#include "draw.h"
#include "export.h"
#include "inert.h"
#include "log.h"
#include "proc.h"
#include "basetab.h"
#include "recorder.h"
#include "session.h"
#include "view.h"

#define RESCAN_S 0.2
/* The longest walk of the maps between two reads of the keyboard
 * (agg_read_step()) */
#define READ_STEP_S 0.004

static volatile sig_atomic_t curses_up;

/* Messages: kept for the status line and `L`; before the screen is up
 * also on stderr, where they stay in order with the errors that would
 * keep it from coming up. */
void console_log_ring(enum log_level level, const char *msg, void *ctx)
{
	struct console *c = ctx;

	if (!curses_up || c->starting)
		cli_error("%s", msg); /* held while starting (cli_hold()) */
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

/* A crash must not leave the terminal in raw mode. */
static void crash(int sig)
{
	if (curses_up)
		endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

void console_catch_crashes(void)
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

void console_start_curses(struct console *c)
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

int console_open_views(struct console *c)
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

static void fill_target(struct console *c);

/* The loop ------------------------------------------------------------- */

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

/* recorder's say(): the recording's one failure, on the status line
 * and in Messages */
static void say_record(void *ctx, const char *msg)
{
	console_say(ctx, "%s", msg);
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

void console_tick_views(struct console *c)
{
	for (int i = 0; i < c->nviews; i++) {
		struct request r = { REQ_NONE };

		if (c->views[i].ops->tick) {
			c->views[i].ops->tick(c->views[i].st, &c->m, &r);
			if (r.kind != REQ_NONE)
				console_carry_out(c, &r);
		}
	}
}

/* The specs of the view on screen (its panes' too): the budget's first
 * (session_prefer()). Live only: a recording's are as recorded. */
void console_prefer_shown(struct console *c)
{
	const struct vstate *v = &c->views[c->cur];
	int ids[CONSOLE_SHOWN_MAX];
	size_t n = 0;

	if (c->src)
		return;
	if (v->ops->shows)
		n = v->ops->shows(v->st, &c->m, ids, CONSOLE_SHOWN_MAX);
	for (size_t p = 0; v->ops->panes && v->ops->panes[p]; p++) {
		const struct vstate *pv =
			&c->views[console_view_index(c, v->ops->panes[p])];

		if (pv->ops->shows)
			n += pv->ops->shows(pv->st, &c->m, ids + n,
					    CONSOLE_SHOWN_MAX - n);
	}
	session_prefer(&c->s, ids, n);
}

/* The interval's snapshot is read (or could not be): show it. */
static void tick_end(struct console *c, const struct agg_snapshot *snap)
{
	c->m.snap = snap;
	if (c->m.snap)
		say_new_drops(c->m.snap);
	if (snap && session_budget_io(&c->s, &snap->overhead, c->m.budget_pct))
		console_say(c,
			    "syscall IO off: it cost %.1f%% of one CPU machine-"
			    "wide (+%.2f us a syscall), over the %g%% budget; "
			    "-P io watches it anyway",
			    c->s.io_off_pct, c->s.io_off_syscall_ns / 1e3,
			    c->m.budget_pct);
	publish(c, c->m.snap);
	recorder_snapshot(c->rec, c->m.snap, false);
	c->m.snap_s = cli_now_s() - c->last_read;
	c->last_read = cli_now_s();
	console_refresh_model(c);
	fill_sampling(c);
	console_tick_views(c);
	console_prefer_shown(c);
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

		console_say(c, "%d exec'd %s: attached %zu probe%s",
			    (int)c->m.pid, exec->path, k, k == 1 ? "" : "s");
	}
	if (sets) {
		char names[256] = "";

		for (int i = c->s.npicked - sets; i < c->s.npicked; i++)
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s",
				 names[0] ? ", " : "", c->s.picked[i]->name);
		console_say(c, "%s %s: %s probes appeared",
			    sets > 1 ? "probesets" : "probeset", names,
			    sets > 1 ? "their" : "its");
	} else if (n > 0 && !exec)
		console_say(c, "attached %d more locations in new mappings", n);
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
	console_redraw(c);
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
			c->end_read = true;
			reading = false;
			publish(c, c->m.snap);
			recorder_snapshot(c->rec, c->m.snap, false);
			console_refresh_model(c);
		}
		if (pfd[0].revents)
			console_read_keys(c);
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
			console_redraw(c);
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
	console_start_curses(c);
	c->cur = c->prev = console_view_index(c, "picker");
	while (!c->quit && pid <= 0) {
		struct pollfd pfd[2] = { { STDIN_FILENO, POLLIN, 0 },
					 { c->sigfd, POLLIN, 0 } };
		int ch;

		console_redraw(c);
		poll(pfd, 2, -1);
		if (pfd[1].revents)
			break;
		nodelay(stdscr, TRUE);
		while ((ch = getch()) != ERR && pid <= 0) {
			struct request r = { REQ_NONE };
			enum action a = keys_action(ch);

			if (c->prompting) {
				console_prompt_key(c, ch);
				continue;
			}
			if (c->views[c->cur].ops->key(c->views[c->cur].st,
						      &c->m, a, NULL, &r) &&
			    r.kind == REQ_SELECT)
				pid = r.id;
			else if (r.kind == REQ_PROMPT)
				console_carry_out(c, &r);
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
	console_say(c, "serving metrics on %s", export_url(c->ex));
	return 0;
}

int console_open_baseline(struct console *c, const char *path)
{
	const char *slash = strrchr(path, '/');

	c->base = session_baseline(path, c->base_note, sizeof(c->base_note));
	if (!c->base)
		return -1;
	c->m.base = c->base;
	snprintf(c->m.base_what, sizeof(c->m.base_what), "%s, %.1f s%s",
		 slash ? slash + 1 : path, c->base->seconds,
		 c->base_note[0] ? ", cut" : "");
	return 0;
}

void console_end_screen(void)
{
	if (curses_up) {
		endwin();
		curses_up = 0;
	}
	log_set_sink(NULL, NULL);
}

void console_free_views(struct console *c)
{
	for (int i = 0; i < c->nviews; i++)
		if (c->views[i].st)
			c->views[i].ops->close(c->views[i].st);
	model_index_free(c->m.index);
	for (size_t i = 0; i < c->nlog; i++)
		free(c->log[i]);
	if (c->sigfd >= 0)
		close(c->sigfd);
}

/* A recording's last interval, from the last read to the end (q, a
 * signal, -d): read, so that what the target did in it is kept as trace
 * keeps it at SIGINT; none once the maps were read at the target's end
 * (nothing since; a rescan that found it gone read nothing). */
static void record_last(struct console *c)
{
	const struct agg_snapshot *snap;

	if (!c->rec || !c->agg || c->end_read)
		return;
	snap = agg_read(c->agg);
	if (!snap)
		return;
	c->m.snap = snap;
	recorder_snapshot(c->rec, snap, false);
}

static void teardown(struct console *c)
{
	console_end_screen();
	export_stop(c->ex);
	record_last(c);
	recorder_final(c->rec, c->m.snap);
	recorder_free(c->rec);
	basetab_free(c->base);
	agg_free(c->agg);
	session_end_command(&c->s);
	session_close(&c->s);
	conmodel_free(c->cm);
	free(c->parked);
	if (c->pidfd >= 0)
		close(c->pidfd);
	console_free_views(c);
}

/* Curses up at once, saying what the session does while it starts
 * (session_open(), calibration, the command's start); what is said on
 * stderr meanwhile is kept for after the screen (cli_hold()). */
static void start_screen(struct console *c, struct session_args *a)
{
	if (a->pid)
		snprintf(c->starting_what, sizeof(c->starting_what), "pid %d",
			 (int)a->pid);
	else if (a->binary)
		snprintf(c->starting_what, sizeof(c->starting_what), "-b %s",
			 a->binary);
	else
		snprintf(c->starting_what, sizeof(c->starting_what), "%s",
			 a->command[0]);
	c->starting = true;
	cli_hold();
	console_start_curses(c);
	a->progress = console_starting;
	a->progress_ctx = c;
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
	if (a->baseline && console_open_baseline(c, a->baseline)) {
		free(c);
		return 2;
	}
	if (a->record && !(c->rec = recorder_open(a->record))) {
		basetab_free(c->base);
		free(c);
		return 1;
	}
	setlocale(LC_ALL, "");
	console_catch_crashes();
	c->sigfd = cli_signalfd();
	c->cm = conmodel_new();
	if (!c->cm || console_open_views(c))
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
	log_set_sink(console_log_ring,
		     c); /* warnings from here on: on screen */
	if (c->base_note[0])
		console_say(c, "--baseline %s: cut: %s", a->baseline,
			    c->base_note);
	start_screen(c, a);
	ret = session_open(&c->s, a);
	if (ret)
		goto out;
	ret = 1;
	console_starting(c, "measuring what a probe costs here");
	c->agg = agg_new(c->s.tr);
	if (!c->agg)
		goto out;
	agg_set_budget(c->agg, session_budget(a));
	c->m.budget_pct = session_budget(a);
	if (a->listen && start_export(c, a->listen))
		goto out;
	recorder_start(c->rec, &c->s, a->command, interval_s, say_record, c);
	if (c->s.pid)
		c->pidfd = pidfd_open(c->s.pid, 0);
	if (a->command)
		console_starting(c, "starting the command");
	if (session_release(&c->s) || conmodel_probes(c->cm, &c->s, &c->m))
		goto out;
	c->starting = false;
	fill_target(c);
	c->last_read = cli_now_s();
	console_refresh_model(c);
	c->cur = c->prev = console_view_index(c, "dash");
	run_loop(c);
	ret = 0;
out:
	teardown(c);
	cli_release(); /* what was said while it started */
	free(c);
	return ret;
}
