// SPDX-License-Identifier: MIT
/*
 * console_replay — `probetop replay FILE`: the console on a recording.
 * The views are the live console's, fed by a source of their own
 * (struct console_source) that reads the recording's intervals
 * (record/replay.h) instead of the engine's maps, and a time bar under
 * them: the interval shown of how many, when it was recorded, paused or
 * playing and how fast, and a range's totals ([ and ]).
 *
 * The file is indexed at open (where each interval's record is; the
 * bodies are read when shown), and replay.h keeps the decoder's state
 * every few intervals, so stepping back reads a few records, not the
 * file. Reads only the file and the probesets (for the roles): no
 * target, no BPF, no root.
 */
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "console.h"
#include "console_impl.h"
#include "draw.h"
#include "inert.h"
#include "log.h"
#include "recrange.h"
#include "replay.h"
#include "replaymodel.h"

#define FAST 10 /* `0`: play at 10x */

struct play {
	struct replay *rp;
	struct replaymodel *rm;
	const char *path;
	size_t cur, n; /* the interval shown (from 0), of n */
	double seconds; /* what the shown snapshot covers */
	bool playing;
	int speed; /* 1 or FAST */
	double next_at; /* while playing: when to show the next interval */
	long mark_a, mark_b; /* [ and ]: intervals, -1: not marked */
	bool ranged; /* the views show the range's totals */
	bool bad; /* a record is corrupt (not only cut): exit status 1 */
	struct recrange_base base;
	struct recrange rg;
	char end[1024]; /* where the recording ends if cut or corrupt */
};

static struct play *play_of(struct console *c)
{
	return c->src->ctx;
}

/* "mm:ss" (h:mm:ss from an hour) of s seconds into buf. */
static const char *clock_text(double s, char *buf, size_t n)
{
	long t = s > 0 ? (long)s : 0;

	if (t >= 3600)
		snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60,
			 t % 60);
	else
		snprintf(buf, n, "%02ld:%02ld", t / 60, t % 60);
	return buf;
}

/* The model for what is shown, the row index made anew (a range and
 * its last interval may share a snapshot's address and number), and
 * the views ticked. */
static void show_now(struct console *c)
{
	model_index_free(c->m.index);
	c->m.index = model_index_new();
	console_refresh_model(c);
	console_tick_views(c);
}

/* A corrupt interval met while seeking: said, and the recording now
 * ends before it. */
static void corrupt(struct console *c, struct play *p, const char *why)
{
	snprintf(p->end, sizeof(p->end),
		 "%.400s: %.500s; the recording ends there", p->path, why);
	p->bad = true;
	console_say(c, "%s", p->end);
	p->n = replay_count(p->rp);
	p->playing = false;
}

/* The decoder at interval k (from 0; the last if past it), not shown
 * yet; false if it could not be read (then at the last one before it
 * that can be, or, if none, the console quits). */
static bool seek(struct console *c, struct play *p, size_t k)
{
	char why[512];

	p->ranged = false;
	if (k >= p->n)
		k = p->n - 1;
	if (replay_seek(p->rp, k, why, sizeof(why))) {
		corrupt(c, p, why);
		if (!p->n || replay_seek(p->rp, p->n - 1, why, sizeof(why))) {
			c->quit = true;
			return false;
		}
		k = p->n - 1;
	}
	p->cur = k;
	p->seconds = replay_seconds(p->rp, k);
	return true;
}

/* Show interval k: seek() and the views told. */
static bool show(struct console *c, struct play *p, size_t k)
{
	bool ok = seek(c, p, k);

	if (!c->quit)
		show_now(c);
	return ok;
}

/* The totals of the marked intervals, shown; else the interval the
 * decoder got to (a corrupt record: corrupt() said it), or the one shown
 * with a message. */
static void show_range(struct console *c, struct play *p)
{
	size_t a = (size_t)(p->mark_a < p->mark_b ? p->mark_a : p->mark_b);
	size_t b = (size_t)(p->mark_a < p->mark_b ? p->mark_b : p->mark_a);
	double before = 0;
	bool ok = true;

	recrange_base_clear(&p->base);
	if (a) { /* the totals before it */
		ok = seek(c, p, a - 1);
		before = replay_elapsed(p->rp, a - 1);
		if (ok && recrange_base(&p->base, replay_decoder(p->rp))) {
			console_say(c, "no memory for the range");
			ok = false;
		}
	}
	ok = ok && seek(c, p, b) && p->cur == b;
	if (ok && recrange_make(&p->rg, &p->base, replay_decoder(p->rp))) {
		console_say(c, "no memory for the range");
		ok = false;
	}
	if (!ok) {
		show(c, p, p->cur);
		return;
	}
	p->ranged = true;
	p->playing = false;
	p->seconds = replay_elapsed(p->rp, b) - before;
	show_now(c);
	console_say(c,
		    "range: intervals %zu to %zu (%.1f s): their totals; "
		    "Esc: back to one interval",
		    a + 1, b + 1, p->seconds);
}

/* The first interval that ends at or after t seconds from the start
 * (the last if none): a guess by the interval's length, then moved. */
static size_t interval_at(struct console *c, struct play *p, double t)
{
	double every = replay_target(p->rp)->interval_s;
	size_t k = every > 0 && t / every >= 1 ? (size_t)(t / every) - 1 : 0;

	if (!seek(c, p, k))
		return p->cur;
	while (p->cur + 1 < p->n && replay_elapsed(p->rp, p->cur) < t &&
	       seek(c, p, p->cur + 1))
		;
	while (p->cur > 0 && seek(c, p, p->cur - 1) &&
	       replay_elapsed(p->rp, p->cur) >= t)
		;
	if (replay_elapsed(p->rp, p->cur) < t && p->cur + 1 < p->n)
		return p->cur + 1;
	return p->cur;
}

/* g's answer: [h:]mm:ss or seconds from the start. */
static void answer(struct console *c, const char *text)
{
	struct play *p = play_of(c);
	double part[3];
	int n = sscanf(text, "%lf:%lf:%lf", &part[0], &part[1], &part[2]);
	double t = n == 1   ? part[0]
		   : n == 2 ? part[0] * 60 + part[1]
		   : n == 3 ? part[0] * 3600 + part[1] * 60 + part[2]
			    : -1;
	char when[32];

	c->prompt_src = false;
	if (t < 0) {
		console_say(c,
			    "g: '%s' is not a time: give mm:ss from the "
			    "start",
			    text);
		return;
	}
	show(c, p, interval_at(c, p, t));
	console_say(
		c, "at %s: interval %zu",
		clock_text(replay_elapsed(p->rp, p->cur), when, sizeof(when)),
		p->cur + 1);
}

/* Space, p, 1 and 0: play (at speed) or pause. */
static void play(struct console *c, struct play *p, bool on, int speed)
{
	p->playing = on;
	p->speed = speed;
	if (on && p->cur + 1 >= p->n) {
		p->playing = false;
		console_say(c, "the end of the recording: Home goes to its "
			       "start");
		return;
	}
	p->next_at = cli_now_s() + p->seconds / speed;
}

/* [ or ]: mark the interval shown; both marked: the range shown. */
static void mark(struct console *c, struct play *p, bool end)
{
	*(end ? &p->mark_b : &p->mark_a) = (long)p->cur;
	if (p->mark_a >= 0 && p->mark_b >= 0) {
		show_range(c, p);
		return;
	}
	console_say(c, "range %s at interval %zu; %s at another",
		    end ? "ends" : "starts", p->cur + 1, end ? "[" : "]");
}

/* The time bar's keys (help.c lists them); false for the others. */
static bool key(struct console *c, int ch)
{
	struct play *p = play_of(c);

	switch (ch) {
	case ' ':
	case 'p':
		play(c, p, !p->playing, p->speed);
		return true;
	case '1':
	case '0':
		play(c, p, true, ch == '1' ? 1 : FAST);
		return true;
	case KEY_LEFT:
	case ',':
		show(c, p, p->cur ? p->cur - 1 : 0);
		return true;
	case KEY_RIGHT:
	case '.':
		show(c, p, p->cur + 1);
		return true;
	case KEY_HOME:
	case KEY_END:
		show(c, p, ch == KEY_HOME ? 0 : p->n - 1);
		return true;
	case 'g':
		c->prompting = c->prompt_src = true;
		snprintf(c->prompt, sizeof(c->prompt), "go to (mm:ss): ");
		c->answer[0] = '\0';
		return true;
	case '[':
	case ']':
		mark(c, p, ch == ']');
		return true;
	case 27:
		if (p->mark_a < 0 && p->mark_b < 0 && !p->ranged)
			return false; /* the views' Esc */
		p->mark_a = p->mark_b = -1;
		show(c, p, p->cur);
		console_say(c, "range cleared");
		return true;
	case '+':
	case '-':
	case 'b':
		console_say(c,
			    "a recording: its interval and budget are as "
			    "recorded; 1 and 0 play at 1x and %dx",
			    FAST);
		return true;
	default:
		return false;
	}
}

static void update_model(struct console *c)
{
	struct play *p = play_of(c);

	replaymodel_update(p->rm, p->rp,
			   p->ranged ? &p->rg.snap : replay_snapshot(p->rp),
			   p->seconds, &c->m);
}

/* The header's first line: the file, what it traced, when. */
static void header(struct console *c)
{
	struct play *p = play_of(c);
	const struct record_target *t = replay_target(p->rp);
	time_t start = (time_t)replay_start_wall(p->rp);
	char what[300], when[64], file[200];
	struct tm tm;

	if (t->command && t->command[0])
		snprintf(what, sizeof(what), "pid %d: %s", t->pid,
			 t->command[0]);
	else if (t->binary[0])
		snprintf(what, sizeof(what), "-b %s", t->binary);
	else
		snprintf(what, sizeof(what), "pid %d", t->pid);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S",
		 localtime_r(&start, &tm));
	inert_str(file, sizeof(file), p->path);
	draw_fmt(0, 0, COLS, STYLE_HEADER,
		 " probetop  replay %s   %.120s   recorded %s   %gs", file,
		 what, when, t->interval_s);
}

/* The time bar: playing or paused, the interval, when, the range. */
static void bar(struct console *c, int y)
{
	struct play *p = play_of(c);
	double at = replay_elapsed(p->rp, p->cur);
	time_t wall = (time_t)(replay_start_wall(p->rp) + at);
	char state[32], clock[32], total[32], when[32], range[96] = "";
	struct tm tm;

	if (p->playing)
		snprintf(state, sizeof(state), "%s %dx",
			 c->m.utf8 ? "\u25b6" : ">", p->speed);
	else
		snprintf(state, sizeof(state), "%s paused",
			 c->m.utf8 ? "\u2016" : "||");
	strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&wall, &tm));
	if (p->ranged)
		snprintf(range, sizeof(range),
			 "   range %ld-%ld: totals of %.1f s",
			 (p->mark_a < p->mark_b ? p->mark_a : p->mark_b) + 1,
			 (p->mark_a < p->mark_b ? p->mark_b : p->mark_a) + 1,
			 p->seconds);
	else if (p->mark_a >= 0 || p->mark_b >= 0)
		snprintf(range, sizeof(range), "   range from %ld ...",
			 (p->mark_a >= 0 ? p->mark_a : p->mark_b) + 1);
	draw_fmt(y, 0, COLS, p->ranged ? STYLE_TITLE : STYLE_HEADER,
		 " %s  interval %zu of %zu  %s  %s / %s%s%s   , . step  "
		 "[ ] range  g go to",
		 state, p->cur + 1, p->n, when,
		 clock_text(at, clock, sizeof(clock)),
		 clock_text(replay_elapsed(p->rp, p->n - 1), total,
			    sizeof(total)),
		 p->end[0] ? " (cut)" : "", range);
}

static const struct console_source SOURCE = {
	.update = update_model,
	.key = key,
	.answer = answer,
	.header = header,
	.bar = bar,
};

/* While playing: the next interval when its time has come, or the
 * end. */
static void play_tick(struct console *c, struct play *p)
{
	if (!p->playing || cli_now_s() < p->next_at)
		return;
	if (p->cur + 1 >= p->n || !show(c, p, p->cur + 1)) {
		p->playing = false;
		console_say(c, "the end of the recording");
		return;
	}
	p->next_at = cli_now_s() + p->seconds / p->speed;
}

/* Until q or a signal: keys, and the next interval while playing. */
static void run(struct console *c, struct play *p)
{
	console_redraw(c);
	while (!c->quit) {
		struct pollfd pfd[2] = { { STDIN_FILENO, POLLIN, 0 },
					 { c->sigfd, POLLIN, 0 } };
		double now = cli_now_s();
		int wait = !p->playing ? -1
			   : p->next_at > now
				   ? (int)((p->next_at - now) * 1000) + 1
				   : 0;

		poll(pfd, 2, wait);
		if (pfd[1].revents)
			return;
		if (pfd[0].revents)
			console_read_keys(c);
		play_tick(c, p);
		console_redraw(c);
	}
}

/* The recording's own messages into Messages, with when they were
 * said, then where it ends if it is cut. */
static void say_recorded(struct console *c, struct play *p)
{
	size_t n;
	const struct replay_msg *m = replay_messages(p->rp, &n);
	char when[32], text[1024];

	log_msg(LOG_INFO,
		"replay %s: %zu intervals; a recording keeps the "
		"specs' numbers, not the target's probe list",
		p->path, p->n);
	for (size_t i = 0; i < n; i++) {
		inert_str(text, sizeof(text), m[i].text);
		log_msg(LOG_INFO, "[%s, after interval %u] %s",
			clock_text(m[i].at_s, when, sizeof(when)), m[i].after,
			text);
	}
	if (p->end[0])
		console_say(c, "%s", p->end);
}

/* Open and index the file: 0, or 1 with one line on stderr. */
static int open_file(struct play *p)
{
	char why[512];
	enum replay_event ev;

	p->rp = replay_open(p->path, why, sizeof(why));
	if (!p->rp) {
		cli_error("%s: %s", p->path, why);
		return 1;
	}
	ev = replay_index(p->rp, why, sizeof(why));
	p->n = replay_count(p->rp);
	if (ev == REPLAY_BAD && !p->n) {
		cli_error("%s: %s", p->path, why);
		return 1;
	}
	if (!p->n) {
		cli_error("%s: no interval was recorded", p->path);
		return 1;
	}
	p->bad = ev == REPLAY_BAD;
	if (ev != REPLAY_END)
		snprintf(p->end, sizeof(p->end),
			 "%.400s: %.500s: the recording ends there, after "
			 "interval "
			 "%zu",
			 p->path, why, p->n);
	else if (!replay_has_final(p->rp))
		snprintf(p->end, sizeof(p->end),
			 "%.400s: no final summary: the recording ends after "
			 "interval %zu, what came after is missing",
			 p->path, p->n);
	return 0;
}

int console_replay(const char *path, const char *baseline)
{
	struct play p = { .path = path, .speed = 1, .mark_a = -1, .mark_b = -1 };
	struct console_source src = SOURCE;
	struct console *c;
	int ret = 1;

	if (open_file(&p)) {
		replay_free(p.rp);
		return 1;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cli_error("the console needs a terminal; for scripts use "
			  "probetop replay --json");
		replay_free(p.rp);
		return 2;
	}
	c = calloc(1, sizeof(*c));
	p.rm = replaymodel_new();
	if (!c || !p.rm)
		goto out;
	if (baseline && console_open_baseline(c, baseline)) {
		ret = 2;
		goto out;
	}
	src.ctx = &p;
	c->src = &src;
	c->sigfd = c->pidfd = -1;
	c->m.sel_spec = -1;
	setlocale(LC_ALL, "");
	console_catch_crashes();
	c->sigfd = cli_signalfd();
	if (console_open_views(c))
		goto out;
	log_set_sink(console_log_ring, c);
	c->cur = c->prev = console_view_index(c, "dash");
	console_start_curses(c);
	say_recorded(c, &p);
	if (c->base_note[0])
		console_say(c, "--baseline %s: cut: %s", baseline,
			    c->base_note);
	if (show(c, &p, 0))
		run(c, &p);
	ret = p.bad; /* corrupt: said again after the screen, as --json */
out:
	console_end_screen();
	if (ret && p.end[0])
		cli_error("%s", p.end);
	if (c) {
		console_free_views(c);
		basetab_free(c->base);
		free(c);
	}
	recrange_free(&p.rg);
	recrange_base_clear(&p.base);
	replaymodel_free(p.rm);
	replay_free(p.rp);
	return ret;
}
