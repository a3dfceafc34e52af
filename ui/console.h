/* SPDX-License-Identifier: MIT */
/*
 * console — the interactive screen (probetop [-p PID | -b BINARY |
 * -- COMMAND] [-P SET]... [-e SPEC]...). Without a target it opens the
 * process picker first. Returns the exit status; errors before the screen
 * starts are printed on stderr. a->with_io is set here (the IO pane is on
 * for a process).
 */
#ifndef PROBETOP_CONSOLE_H
#define PROBETOP_CONSOLE_H

#include "session.h"

/* duration_s > 0: detach and exit after that long (the fail-safe -d) */
int console_run(struct session_args *a, double interval_s, double duration_s);

/*
 * probetop replay FILE: the console on a recording (trace --record, the
 * console's --record), with a time bar; reads only the file. Returns the
 * exit status: 0 at q, also for a file cut inside a record (what is
 * before the cut replays); 1 for a file that is not a recording or holds
 * no interval (one line on stderr, before the screen), or with a corrupt
 * record (what is before it replays; at q the same line as on the status
 * line, on stderr); 2 without a terminal, or for a baseline (OLD, or
 * NULL: --baseline, as the live console's) that cannot be read.
 */
int console_replay(const char *path, const char *baseline);

#endif
