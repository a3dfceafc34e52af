// SPDX-License-Identifier: MIT
/*
 * keys — the one table from keys to actions; the help view prints it.
 * top/htop habits: arrows and j/k move, Enter drills down, Esc goes back.
 */
#include <curses.h>

#include "view.h"

struct binding {
	int ch;
	enum action a;
};

static const struct binding BINDINGS[] = {
	{ KEY_UP, ACT_UP },
	{ 'k', ACT_UP },
	{ KEY_DOWN, ACT_DOWN },
	{ 'j', ACT_DOWN },
	{ KEY_PPAGE, ACT_PGUP },
	{ KEY_NPAGE, ACT_PGDN },
	{ KEY_HOME, ACT_HOME },
	{ 'g', ACT_HOME },
	{ KEY_END, ACT_END },
	{ 'G', ACT_END },
	{ KEY_LEFT, ACT_LEFT },
	{ 'h', ACT_LEFT },
	{ KEY_RIGHT, ACT_RIGHT },
	{ 'l', ACT_RIGHT },
	{ '\n', ACT_ENTER },
	{ '\r', ACT_ENTER },
	{ KEY_ENTER, ACT_ENTER },
	{ 27, ACT_BACK },
	{ KEY_BACKSPACE, ACT_BACK },
	{ '/', ACT_FILTER },
	{ 's', ACT_SORT },
	{ KEY_F(6), ACT_SORT },
	{ '<', ACT_SORT_PREV },
	{ '>', ACT_SORT_NEXT },
	{ ' ', ACT_TOGGLE },
	{ 'a', ACT_ACTION },
	{ 'f', ACT_FUNCS },
	{ 'z', ACT_ZERO },
	{ 'c', ACT_COMPARE },
	{ 'p', ACT_PAUSE },
	{ '-', ACT_FASTER },
	{ '+', ACT_SLOWER },
	{ '=', ACT_SLOWER },
	{ 'b', ACT_BUDGET },
	{ 'x', ACT_SOURCE },
	{ '?', ACT_HELP },
	{ KEY_F(1), ACT_HELP },
	{ 'L', ACT_LOG },
	{ 'q', ACT_QUIT },
	{ KEY_F(10), ACT_QUIT },
	{ '1', ACT_VIEW1 },
	{ '2', ACT_VIEW2 },
	{ '3', ACT_VIEW3 },
	{ '4', ACT_VIEW4 },
	{ '5', ACT_VIEW5 },
	{ '6', ACT_VIEW6 },
	{ '7', ACT_VIEW7 },
	{ 'S', ACT_STACKS },
	{ 't', ACT_TOTALS },
	{ '\t', ACT_NEXT },
	{ 'y', ACT_YES },
	{ KEY_RESIZE, ACT_RESIZE },
};

static const struct key_help HELP[] = {
	{ "1 2 3 4 5 6 7",
	  "Dashboard, Probes, Top, Histogram, GC, IO, Stacks" },
	{ "Up Down j k", "move the cursor (PgUp PgDn Home End g G)" },
	{ "Enter", "drill down: Top row -> histogram or stacks, bucket -> "
		   "zoom" },
	{ "Esc", "back: zoom out, leave a view, cancel a prompt" },
	{ "/", "filter rows (Top), search probes (Probes), frames (Stacks)" },
	{ "s F6 < >", "next sort column, sort column left / right" },
	{ "Space", "Probes: off, or on again with the specs it had" },
	{ "a", "Probes: choose what to do with the probe (count, by "
	       "string, quantize, latency); Stacks: sample the stacks" },
	{ "f", "Probes: function symbols (fn: probes) <-> USDT probes" },
	{ "Left Right", "Histogram: previous / next histogram" },
	{ "c", "Histogram: compare with the Top row selected before" },
	{ "z", "Top: zero the totals" },
	{ "S", "Top: its function in Stacks (callers above, callees "
	       "below)" },
	{ "arrows hjkl", "Stacks: parent, child, siblings (Enter zoom, Esc "
			 "out)" },
	{ "t Tab", "Stacks: totals <-> this interval; the next stack "
		   "aggregation" },
	{ "p", "pause / resume the refresh" },
	{ "+ -", "longer / shorter refresh interval" },
	{ "b", "budget 1 2 5 10 25% of one CPU, off; ~: sampled, estimated" },
	{ "x", "Top frames: exact calls (USDT) <-> CPU samples (profile)" },
	{ "L", "messages (libbpf and probetop)" },
	{ "? F1", "this help" },
	{ "q F10", "quit: detach every probe and exit" },
	{ "Space 1 0", "replay: play / pause (p too); play at 1x, at 10x" },
	{ ", . <- ->", "replay: an interval back / forth; Home End: the first, "
		       "the last (views: h l G)" },
	{ "g [ ] Esc", "replay: go to mm:ss; mark a range's ends: its "
		       "totals; Esc clears it" },
	{ NULL, NULL },
};

enum action keys_action(int ch)
{
	for (size_t i = 0; i < sizeof(BINDINGS) / sizeof(BINDINGS[0]); i++)
		if (BINDINGS[i].ch == ch)
			return BINDINGS[i].a;
	return ACT_NONE;
}

const struct key_help *keys_help(void)
{
	return HELP;
}
