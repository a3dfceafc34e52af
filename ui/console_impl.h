/* SPDX-License-Identifier: MIT */
/*
 * console_impl — struct console, private to the files of the console:
 * console.c (the life cycle, the loop, picking a process),
 * console_keys.c (keys into actions), console_requests.c (the views'
 * requests carried out), console_screen.c (what the screen shows) and
 * console_replay.c (the console on a recording). Nothing else includes
 * it; console.h is the console's face.
 *
 * Calls go one way: console_replay.c calls console.c's setup and the
 * others, console.c calls the three others, console_keys.c calls
 * console_requests.c and console_screen.c, console_requests.c calls
 * console_screen.c, which calls none of them. The source of the
 * intervals (struct console_source) is called through its pointers.
 */
#ifndef PROBETOP_CONSOLE_IMPL_H
#define PROBETOP_CONSOLE_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "agg.h"
#include "log.h"
#include "session.h"
#include "view.h"

struct conmodel;
struct export;
struct recorder;

#define LOG_MAX 200
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

struct console;

/*
 * Where the intervals shown come from: the live tracer (c->src NULL:
 * c->s and c->agg, conmodel.h) or a recording (console_replay.c). The
 * views cannot tell them apart; the screen draws a recording's header
 * line and time bar, and the keys go to the source first.
 */
struct console_source {
	/* the model's data for what is shown (snapshot, roles, header) */
	void (*update)(struct console *c);
	/* curses key ch before the views (the time bar's); true if taken */
	bool (*key)(struct console *c, int ch);
	/* the answer to the prompt key() put up (c->prompt_src) */
	void (*answer)(struct console *c, const char *text);
	/* the header's first line (line 0) and the time bar on line y */
	void (*header)(struct console *c);
	void (*bar)(struct console *c, int y);
	void *ctx;
};

struct console {
	const struct console_source *src; /* NULL: the live tracer */
	struct session s;
	struct parked *parked;
	size_t nparked, parked_cap;
	unsigned int park_groups;
	struct agg *agg;
	struct export *ex; /* --listen, or NULL */
	struct recorder *rec; /* --record, or NULL */
	bool end_read; /* the target's end seen, and the maps read then */
	struct basetab *base; /* --baseline, or NULL (the model's base) */
	char base_note[600]; /* a cut baseline's line, for Messages */
	struct conmodel *cm;
	struct model m;
	struct vstate views[MAX_VIEWS];
	int nviews, cur, prev;
	char *log[LOG_MAX];
	size_t nlog;
	char status[256];
	char starting_what[160]; /* the target, on the starting screen */
	bool starting; /* the session is starting: messages held too */
	char said_why[sizeof(((struct model *)0)->frames_why)]; /* in Messages */
	double next_tick, last_read;
	double given_interval; /* -i, which bounds + and - if outside theirs */
	int sigfd, pidfd;
	bool prompting;
	bool prompt_src; /* the answer goes to src->answer() */
	char prompt[32], answer[64];
	bool quit;
	double duration_s, deadline; /* -d; 0: none */
};

/* console.c: the setup console_replay.c shares ----------------------- */

/* log.h's sink while the console runs: Messages and the status line
 * (and stderr until the screen is up). ctx: the console. */
void console_log_ring(enum log_level level, const char *msg, void *ctx);
/* The screen while the session starts (ctx: the console): what it does
 * now (session_args' progress). */
void console_starting(void *ctx, const char *what);

/* Restore the terminal on a crash signal. */
void console_catch_crashes(void);

/* One state per view; -ENOMEM. */
int console_open_views(struct console *c);

/* curses up, the model's utf8, color and row index set. */
void console_start_curses(struct console *c);

/* Each view's tick() on the model's new snapshot, and its requests
 * carried out. */
void console_tick_views(struct console *c);

/* curses down, log.h's sink back to stderr. */
void console_end_screen(void);

/* --baseline OLD read whole into c->base and the model, before the
 * screen and anything attached; -1 after saying why in one line (the
 * console exits 2). A cut OLD leaves its note in c->base_note. */
int console_open_baseline(struct console *c, const char *path);

/* The views, the model's index, the messages, the signalfd freed. */
void console_free_views(struct console *c);

/* console_screen.c ---------------------------------------------------- */

/* fmt on the status line (made inert) and in Messages (LOG_INFO). */
void console_say(struct console *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefer the specs the view on screen draws under the budget (live). */
#define CONSOLE_SHOWN_MAX 32
void console_prefer_shown(struct console *c);

/* The index in c->views of the view called name; 0 (the first) if none. */
int console_view_index(const struct console *c, const char *name);

/* Draw the screen: the current view between the header (the picker's
 * one line, else two) and the footer; a note alone on a screen under
 * 40x10. */
void console_redraw(struct console *c);

/* console_requests.c -------------------------------------------------- */

/* Carry out the request a view returned (attach, detach, show a view,
 * prompt...); the model is refreshed after those that change it. */
void console_carry_out(struct console *c, const struct request *r);

/* The model from the engine; a new reason for Top's missing frames goes
 * to Messages too. */
void console_refresh_model(struct console *c);

/* console_keys.c ------------------------------------------------------ */

/* Every key waiting on stdin: to the prompt while one is up, else as an
 * action to the current view, and to the console when the view does not
 * handle it. */
void console_read_keys(struct console *c);

/* Key ch while a prompt is up: Esc drops it, Enter sends the answer to
 * the current view (ACT_TEXT), Backspace and printable ASCII edit it. */
void console_prompt_key(struct console *c, int ch);

#endif
