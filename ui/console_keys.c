// SPDX-License-Identifier: MIT
/*
 * console_keys — keys into actions: an answer typed at a prompt, an
 * action given to the current view (or the one it sends its keys to),
 * and what no view handles done here: quit, pause, the interval (+ -),
 * the budget (b), Top's source (x), the views by number, help, Messages,
 * back. A recording's keys (the time bar's) go to its source first. Called by console.c; calls console_requests.c and
 * console_screen.c.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "agg.h"
#include "cmd.h"
#include "console_impl.h"
#include "view.h"

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
		console_say(
			c,
			"no budget: every probe counted exactly, whatever it "
			"costs the target");
	else
		console_say(
			c,
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
		console_say(c, "Top frames: exact calls, from USDT probes");
		return;
	}
	console_say(c,
		    "calls: all would cost ~%.1f%% of a CPU; the %g%% budget "
		    "samples them: %s (b: exact)",
		    as->cost_pct / duty, c->m.budget_pct,
		    model_calls_bounded(&c->m) ? "≥ lower bounds"
					       : "~ estimates");
}

/* x: Top's frames from the exact calls or from the CPU samples, when
 * the target has both. */
static void switch_source(struct console *c)
{
	if (c->m.frames_calls.id < 0 || c->m.frames_samples.id < 0) {
		console_say(c, "x: Top's frames have one source here: %s",
			    c->m.frames_samples.id >= 0
				    ? "CPU samples (no USDT calls)"
			    : c->m.frames_calls.id >= 0
				    ? "exact calls (no sampling)"
				    : "none");
		return;
	}
	c->m.frames_by_samples = model_frames(&c->m) != &c->m.frames_samples;
	c->m.frames_chosen = true;
	if (c->m.frames_by_samples) {
		console_say(c, "Top frames: CPU samples, %% of one CPU");
		return;
	}
	calls_price(c);
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
			c->prev = console_view_index(c, "dash");
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
	console_carry_out(c, &r);
}

static void send_action(struct console *c, enum action a, const char *text)
{
	struct vstate *v = &c->views[c->cur];
	struct request r = { REQ_NONE };

	if (v->ops->keys_to)
		v = &c->views[console_view_index(c, v->ops->keys_to)];
	if (v->ops->key && v->ops->key(v->st, &c->m, a, text, &r)) {
		console_carry_out(c, &r);
		return;
	}
	global_action(c, a);
}

void console_prompt_key(struct console *c, int ch)
{
	size_t n = strlen(c->answer);

	if (ch == 27) {
		c->prompting = false;
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		c->prompting = false;
		if (c->prompt_src)
			c->src->answer(c, c->answer);
		else
			send_action(c, ACT_TEXT, c->answer);
	} else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n) {
		c->answer[n - 1] = '\0';
	} else if (ch >= 32 && ch < 127 && n + 1 < sizeof(c->answer)) {
		c->answer[n] = (char)ch;
		c->answer[n + 1] = '\0';
	}
}

void console_read_keys(struct console *c)
{
	int ch;

	nodelay(stdscr, TRUE);
	while ((ch = getch()) != ERR) {
		if (c->prompting) {
			console_prompt_key(c, ch);
			continue;
		}
		c->status[0] = '\0';
		if (ch == KEY_RESIZE || (c->src && c->src->key(c, ch)))
			continue;
		send_action(c, keys_action(ch), NULL);
	}
}
