/* SPDX-License-Identifier: MIT */
/*
 * forks — the breakpoints a process forked by the target inherits with
 * its copy of the target's text: uprobe_multi (see ulink.h) leaves them
 * there. pt_forked counts the target's forks, and each rescan takes the
 * breakpoints out of what it forked since. Called by tracer_new() and
 * rescan.c.
 */
#ifndef PROBETOP_FORKS_H
#define PROBETOP_FORKS_H

struct tracer;

/* TRACER_PID with uprobe_multi: attach pt_forked for tr's process.
 * Failure is logged: its forks then keep their breakpoints. */
void forks_start(struct tracer *tr);

/*
 * Once the target has forked (pt_forked counts it), take the
 * breakpoints of every site out of its new processes, object by object
 * (ulink_sweep()): with uprobe_multi nothing else would, and a forked
 * worker would trap at every probe it passes. A no-op without
 * forks_start().
 */
void forks_sweep(struct tracer *tr);

#endif
