/* SPDX-License-Identifier: MIT */
/*
 * trace_out — the renderers of an agg snapshot for `probetop trace`:
 * DTrace-like text, one JSON object per line (trace_json.c), and folded
 * stacks (trace_folded.c) (docs/probetop.1).
 */
#ifndef PROBETOP_TRACE_OUT_H
#define PROBETOP_TRACE_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "agg.h"

struct basetab;

/* --baseline OLD: the baseline each row is held against, and the end of
 * the last interval printed (its rates' seconds start there). */
struct trace_base {
	struct basetab *t;
	const char *path; /* OLD, as given */
	char note[600]; /* where a cut OLD ends, or "" */
	double last_s; /* elapsed_s of the last interval printed */
};

/* --baseline path read whole into b (0), or -1 after one line saying why
 * not (the caller exits 2). trace and replay --json/--folded share it. */
int trace_base_open(struct trace_base *b, const char *path);

/* b's one line on stderr: OLD, its intervals and seconds, a cut. */
void trace_base_say(const struct trace_base *b);

/* What trace_base_open() read, freed; b may be unopened. */
void trace_base_close(struct trace_base *b);

struct trace_out {
	FILE *f;
	bool json;
	bool folded; /* --folded: stacks as flamegraph.pl reads them */
	bool per_pid; /* -b: every row carries its pid */
	/* names the pids of -b: a string valid until the next call */
	const char *(*command)(void *ctx, uint32_t pid);
	void *ctx;
	int pid; /* the target, 0 for -b */
	bool kernel; /* -P io or process: the kernel counts for the target */
	struct trace_base *base; /* --baseline, or NULL */
};

/*
 * Print one interval (final = false: interval values, rows that changed)
 * or the final summary (totals since attach, every row). With a
 * baseline, each row's rate is held against it (trace_impl.h).
 */
void trace_out_print(const struct trace_out *out,
		     const struct agg_snapshot *snap, bool final);

/*
 * --folded: each spec keyed by a stack as lines "root;...;leaf VALUE"
 * (VALUE its count, or its sum for sum()), the rows' other keys as the
 * outermost frames, under a "# interval N" or "# final" line and a
 * "# SPEC" line; a spec without a stack key says so in its "#" line.
 */
void trace_folded_print(const struct trace_out *out,
			const struct agg_snapshot *snap, bool final);

#endif
