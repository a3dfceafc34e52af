/* SPDX-License-Identifier: MIT */
/*
 * model — everything a view may read, and everything it may ask for.
 *
 * The console (ui/console.c) owns a struct model and refills it once per
 * interval from the engine: the snapshot agg made, the target's probes
 * and their state, the header's numbers. Views read it and never change
 * it; what they want done (toggle a probe, zoom a histogram, switch view)
 * they hand back as a struct request, which the console carries out with
 * the engine. So views link neither libbpf nor the tracer, and tests can
 * drive them with a model made by hand.
 */
#ifndef PROBETOP_MODEL_H
#define PROBETOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"
#include "basetab.h"
#include "probeset.h"
#include "spec.h"

/* One USDT probe of the target, as the Probes view lists it. */
struct model_probe {
	const char *object; /* path of the ELF file */
	const char *provider, *name;
	const char *args; /* raw argument spec of the first location */
	int nargs;
	bool semaphore;
	size_t nlocs;
	int spec_id; /* a live spec that attaches it, or -1 */
	bool console_spec; /* spec_id was attached from the Probes view */
	uint64_t hits, hits_total; /* of spec_id: this interval, since on */
	const struct ps_note *note; /* what a probeset says about it */
	bool unmet; /* the target lacks what note->requires: it will not fire */
};

/* A function symbol, for fn: probes (the Probes view's `f`). */
struct model_func {
	const char *object;
	const char *name;
	int spec_id; /* live fn: count spec, or -1 */
	uint64_t hits, hits_total;
};

/* A process the picker offers. */
struct model_proc {
	int pid;
	char comm[32];
	char user[32];
	char runtime[32]; /* the probeset that knows it, or "" */
	size_t nprobes;
	char cmdline[160];
};

/* A process of -b with its command line as first seen (kept after it
 * exits, so that its rows stay named). */
struct model_pidcmd {
	uint32_t pid;
	char cmd[64];
};

/* What a probeset role resolves to right now: its spec id (or -1). */
struct model_role {
	int id;
	const struct probeset *ps;
	const struct ps_spec *spec; /* NULL if no picked probeset has it */
};

#define MODEL_IO_ROLES 8

struct model_log {
	size_t n; /* lines, oldest first */
	const char *const *lines;
};

struct model {
	/* header */
	int pid; /* 0 when tracing a binary */
	char target[256]; /* comm, or the binary's path */
	char cmdline[256];
	double cpu_pct, uptime_s;
	uint64_t rss_bytes;
	size_t probes_on, probes_total;
	double events_s;
	uint64_t drops_total;
	double interval_s; /* the refresh interval asked for */
	bool paused;
	bool exited; /* the target has gone; data is the last seen */
	bool recorded; /* a recording (probetop replay): what is traced
			  cannot change */
	bool no_probe_list; /* a recording without the target's probe list
			       (format 1.0): Probes has none to show */
	bool binary_mode; /* keys carry a pid */
	bool utf8; /* may draw UTF-8 bars and sparklines */
	bool color;

	/* data */
	const struct agg_snapshot *snap; /* NULL before the first interval */
	double snap_s; /* length of that interval in seconds */
	size_t nprobes;
	const struct model_probe *probes; /* by object, provider, name */
	size_t nfuncs;
	const struct model_func *funcs;
	size_t nprocs;
	const struct model_proc *procs; /* picker only */
	const struct model_pidcmd *pidcmds; /* -b: by pid, ascending */
	size_t npidcmds;
	struct model_role frames_samples; /* frames.samples: profile:HZ */
	bool frames_by_samples; /* Top shows the samples though there are
				   calls (x) */
	bool frames_chosen; /* x chose the source; else model_frames()
			       picks the samples while the budget leaves the
			       calls only lower bounds */
	struct model_role frames_calls, frames_latency, gc_pause, gc_collected,
		alloc;
	struct model_role io_roles[MODEL_IO_ROLES]; /* a probeset's [io]
						       specs (a runtime's own IO:
						       PostgreSQL's buffer and
						       relation reads), for the IO
						       pane; spec NULL past the last */
	bool io_on;
	/* the budget turned the default IO watch off (io_off): what it cost
	 * every process, % of one CPU and ns a syscall */
	bool io_off;
	double io_off_pct, io_off_syscall_ns;
	bool proc_on; /* the kernel counts the processes the target starts */
	char kernel_lost[256]; /* what of it the kernel lost since attach,
				  and why; "" if nothing */
	struct model_log log;
	const char *status; /* last message worth showing, or NULL */
	double budget_pct; /* what tracing may take, % of one CPU; < 0: none */
	char sampling[256]; /* which specs the budget samples, and why; "" */
	char frames_why[PS_TEXT_MAX + 200]; /* why Top has no frames of the
					       target's runtime, and what
					       would fill it; "" */
	bool frames_why_any; /* say it over Top's other rows too (else only
				when Top is empty) */
	bool frames_why_over; /* say it over Top's frames too (they are
				 there, unnamed) */
	const char *stack_spec; /* the stack sampler that fits the target:
				   Stacks' a adds it */

	/* the row the Top view has selected, for Histogram and Dashboard */
	int sel_spec; /* -1: none */
	char sel_key[SPEC_TEXT_MAX];

	/* the function Top's S asked the Stacks view for, and a number
	 * that changes with each ask */
	char stack_goto[SPEC_TEXT_MAX];
	unsigned stack_goto_seq;

	/* --baseline OLD: what the rows are held against (NULL: none), and
	 * what it is ("OLD, 12.0 s"), for the views' titles */
	const struct basetab *base;
	char base_what[300];

	/* model_find_row()'s index of one spec's rows by key, made once a
	 * snapshot (owned: model_index_free()); NULL: it looks row by row */
	struct model_index *index;
};

enum request_kind {
	REQ_NONE,
	REQ_VIEW, /* switch to view `view` */
	REQ_BACK, /* to the previous view */
	REQ_PROMPT, /* ask for a line of text; the answer comes as
		       ACT_TEXT to the same view */
	REQ_ADD, /* attach spec text */
	REQ_REMOVE, /* detach spec id */
	REQ_REPLACE, /* detach id, attach text in its place */
	REQ_PROBE_OFF, /* detach every spec on probes[id], and keep them */
	REQ_PROBE_ON, /* attach what REQ_PROBE_OFF kept of probes[id], else
			 a count of it */
	REQ_ROLE, /* attach probeset role `text` ("frames.latency") */
	REQ_SELECT, /* the Top row: sel_spec = id, sel_key = text */
	REQ_STACKS, /* the Stacks view, on function `text` (stack_goto) */
	REQ_SAY, /* show `text`, one line, on the status line */
	REQ_QUIT,
};

struct request {
	enum request_kind kind;
	int id;
	char text[SPEC_TEXT_MAX];
	const char *view; /* REQ_VIEW */
};

/* n events of the interval as a rate ("1.2k") into buf, or "ended" once
 * the target has exited: nothing is going on per second any more. */
const char *model_rate(const struct model *m, double n, char *buf, size_t len);

/* The baseline's aggregation of the snapshot's spec id, or NULL (no
 * baseline, or the spec is not in it). */
const struct basetab_spec *model_base_spec(const struct model *m, int id);

/* Find the snapshot's spec id, or NULL. */
const struct agg_spec *model_spec(const struct model *m, int id);

/* The frames Top shows: the exact calls (frames.calls) if the target has
 * them and x did not ask for the samples, else the CPU samples
 * (frames.samples); NULL for none. Until x chooses, the samples where
 * there are both and the budget leaves the calls no estimate it can
 * promise (model_calls_bounded()). */
const struct model_role *model_frames(const struct model *m);

/* Whether the calls' rows this interval are lower bounds, not counts
 * or estimates: the budget samples them and the hottest cannot be
 * estimated within its promise. */
bool model_calls_bounded(const struct model *m);

/* A row's key as text: parts joined by sep, strings inert (inert.h),
 * numbers in decimal, a pid first in binary mode ("4242 leaf"). */
void model_key_text(const struct model *m, const struct agg_row *row,
		    const char *sep, char *out, size_t n);

/* The command line of -b's process pid, "" if unknown. */
const char *model_pid_cmd(const struct model *m, uint32_t pid);
/* Where pid is, or would go, in v[0..n) (ascending by pid). */
size_t model_pidcmd_at(const struct model_pidcmd *v, size_t n, uint32_t pid);

/* The row of spec id whose key text (sep " ") is key, or NULL. The
 * first call for a spec in a snapshot indexes its rows (n log n); the
 * next are a binary search. */
const struct agg_row *model_find_row(const struct model *m, int id,
				     const char *key);

/* An empty index for model.index, or NULL (out of memory: nothing is
 * found). */
struct model_index *model_index_new(void);

/* Free model_find_row()'s index. NULL is a no-op. */
void model_index_free(struct model_index *ix);

#endif
