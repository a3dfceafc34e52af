/* SPDX-License-Identifier: MIT */
/*
 * session — a traced target and what is attached to it, shared by
 * `trace` and the console.
 *
 * session_open() finds the target (-p PID, -b BINARY, or a command it
 * starts and holds before exec), loads the probesets, picks those named
 * by -P or, without -P and -e, those whose detect probes the target has,
 * parses every -e SPEC, and attaches it all. Errors are printed on stderr
 * (cli_error) before anything is drawn; the console calls it before curses
 * starts. Each attached spec remembers where it came from (a probeset
 * role, a -e, or the console), so views can find "the frames spec".
 *
 * Call order: session_open → [session_release for a command] → use →
 * session_close (detaches everything; a command never released exits
 * unrun).
 */
#ifndef PROBETOP_SESSION_H
#define PROBETOP_SESSION_H

#include <stdbool.h>
#include <sys/types.h>

#include "launch.h"
#include "agg.h"
#include "metrics.h"
#include "model.h"
#include "probeset.h"
#include "spec.h"
#include "tracer.h"

#define SESSION_MAX_ARGS 64
#define SESSION_MAX_SETS 16
#define SESSION_START_NICE 10 /* the start's priority, below probetop's */
#define SESSION_MAX_SPECS 256 /* = PT_MAX_SPECS */

struct session_args {
	pid_t pid;
	const char *binary;
	char **command;
	const char *specs[SESSION_MAX_ARGS]; /* -e */
	int nspecs;
	const char *sets[SESSION_MAX_SETS]; /* -P */
	int nsets;
	bool with_kernel; /* the io and process probesets as well, whatever
			     else is picked */
	bool quiet_command; /* the command's stdio to /dev/null */
	uint64_t aggsize; /* --aggsize; 0: the default */
	bool budget_given; /* --budget, else SESSION_BUDGET */
	double budget; /* % of one CPU; < 0: off */
	const char *listen; /* --listen [ADDR:]PORT, or NULL */
	const char *record; /* --record FILE, or NULL (recorder.h) */
	const char *baseline; /* --baseline OLD, or NULL (baseline.h) */
	/* what session_open() does now ("attaching -P python: 3/9"), for
	 * a screen that is up; NULL: not said */
	void (*progress)(void *ctx, const char *what);
	void *progress_ctx;
};

/* --budget's default: % of one CPU tracing may take from the targets */
#define SESSION_BUDGET 5.0

/* The budget a asks for: --budget's, or SESSION_BUDGET; < 0: off. */
double session_budget(const struct session_args *a);

/* getopt's codes for --aggsize SIZE and --budget PCT|off, which have no
 * short form */
#define SESSION_OPT_AGGSIZE 0x100
#define SESSION_OPT_BUDGET 0x101
#define SESSION_OPT_LISTEN 0x102 /* --listen [ADDR:]PORT (export.h) */
#define SESSION_OPT_RECORD 0x103 /* --record FILE (recorder.h) */
#define SESSION_OPT_BASELINE 0x104 /* --baseline OLD (baseline.h) */

/*
 * One command-line option of the target and what to trace, as trace and
 * the console share them: -p PID, -b BINARY, -e SPEC, -P PROBESET,
 * --aggsize SIZE (SESSION_OPT_AGGSIZE; arg is its argument), --budget
 * PCT|off (SESSION_OPT_BUDGET), --listen [ADDR:]PORT (SESSION_OPT_LISTEN,
 * checked here, served by export.h), --record FILE (SESSION_OPT_RECORD,
 * written by recorder.h), --baseline OLD (SESSION_OPT_BASELINE, read by
 * baseline.h). 0 when
 * taken, 1 when opt is not one of them, -1 on
 * a bad argument (said on stderr).
 */
int session_arg(struct session_args *a, int opt, const char *arg);

struct basetab;

/*
 * --baseline OLD read whole (baseline.h). NULL after saying why in one
 * line on stderr: call it before anything is attached (and curses is
 * up); the caller exits 2. A recording cut inside a record gives what
 * is before the cut, and note[0..n) the one line to say in Messages
 * ("" for a whole file).
 */
struct basetab *session_baseline(const char *path, char *note, size_t n);

/* Where an attached spec came from. */
struct session_spec {
	bool used;
	const struct probeset *ps; /* NULL: -e or the console */
	const struct ps_spec *role; /* the probeset's entry, or NULL */
	bool helper; /* attached for another spec's needs.NAME */
	int helper_id; /* the spec attached for this one's needs, or -1 */
};

struct session {
	struct tracer *tr;
	pid_t pid; /* 0 for -b */
	char binary[4096]; /* -b: the file's path */
	bool launched;
	int nice; /* probetop's priority before session_open() lowered it
		     (SESSION_START_NICE): a launched command's */
	unsigned int execs_said; /* exec()s of the target said so far */
	struct launch l;
	struct ps_list sets; /* every loadable probeset */
	const struct probeset *picked[SESSION_MAX_SETS];
	int npicked;
	bool io; /* the kernel counts the target's IO */
	bool io_default; /* ... by the console's default, not -P io: the
			    budget may turn it off (session_budget_io()) */
	bool io_off; /* ... and did: */
	double io_off_pct, io_off_syscall_ns; /* what it cost the machine */
	bool proc; /* ... and the processes it starts */
	const struct session_args *opening; /* during session_open() only:
					       its progress hook */
	bool detecting; /* no -P, no -e: probesets are picked by detection,
			   also later, as libraries appear */
	unsigned int detected_gen; /* tracer_objects_gen() at the last
				      detection: none again until it moves
				      (a symbol search of every object) */
	struct session_spec specs[SESSION_MAX_SPECS];
	char *env, *argv; /* the target's environ and cmdline, NUL-separated
			     (a command's: ours and its argv); NULL for -b */
	size_t envlen, argvlen;
	struct model_pidcmd *pidcmds; /* -b: processes named, by pid */
	size_t npidcmds, cappidcmds;
	char pidcmd_spare[sizeof(((struct model_pidcmd *)0)->cmd)];
};

/*
 * Open the target and attach everything a asks for. Returns 0, or 2 for
 * a usage error (bad spec, unknown probeset) or 1 for another error,
 * each already reported on stderr. On error the session is closed.
 */
int session_open(struct session *s, const struct session_args *a);

/* Let a launched command run (after the caller is ready). 0 or 1. */
int session_release(struct session *s);

/* End a launched command that still runs: SIGTERM, and SIGKILL if it is
 * not gone after a second (the console's commands have no terminal to
 * be stopped from). A no-op for -p, -b, or a command that has exited. */
void session_end_command(struct session *s);

/* The IO watch the console's defaults picked costs the machine o (an
 * interval's overhead) over the budget pct (% of one CPU; < 0: none):
 * turn it off, say what it cost in s, and return true; false (nothing
 * done) otherwise, or when the user asked for it (-P io). */
bool session_budget_io(struct session *s, const struct agg_overhead *o,
		       double pct);

/* Detach everything and free; safe on a closed or zeroed session. */
void session_close(struct session *s);

/*
 * Attach one spec now, recording where it came from (ps and role may be
 * NULL). With role->needs set, the needed probe is attached too. Returns
 * the tracer's id or a negative errno: session_strerror() says why.
 * profile:HZ under -b is -EDOM (it samples one process), a PHP or Ruby
 * frame key under -b -EXDEV (it reads one process's interpreter).
 */
int session_add(struct session *s, const struct spec *spec,
		const struct probeset *ps, const struct ps_spec *role);

/* Whether the target is started so that ps's frames are named (its
 * [frames] named_by = is met, or it has none, or the target's
 * environment is unknown), or its runtime's own tables name them
 * however it was started (tracer_jit_named()). */
bool session_frames_named(const struct session *s, const struct probeset *ps);

/* The budget's first: the probeset's primary specs (its frames, Top's
 * rows) and ids[0..n), the specs of the view on screen; every other
 * spec no longer. */
void session_prefer(struct session *s, const int *ids, size_t n);

/* Why session_add() returned err (negative), in words for one line. */
const char *session_strerror(int err);

/*
 * Attach to what the target mapped since the last call (tracer_rescan),
 * pick and attach the probesets detected in it when detecting, then let
 * a target held in its dynamic linker go on. Returns the number of new
 * locations or -ESRCH once the target has gone; *new_sets: probesets
 * picked now (the last *new_sets of picked[]); *exec: the target's new
 * program when it exec()ed since the last call (a command's own first
 * exec is not one), else NULL; valid until the next call.
 */
int session_rescan(struct session *s, int *new_sets,
		   const struct tracer_exec **exec);

/*
 * For a spec that attached nowhere: " (did you mean PROBE?)" naming the
 * known probe or function nearest to one of its probes (nearest.h), for
 * the end of a message; "" if nothing is close.
 */
void session_hint(const struct session *s, const struct spec *spec, char *out,
		  size_t len);

/*
 * What a live spec (its tracer_spec_info) still waits for, to start a
 * sentence: "no probe matches", or for a pair with only one half
 * attached "python:gc_done matches nothing"; "" if it waits for nothing.
 */
void session_waiting(const struct tracer_spec_info *info, char *out,
		     size_t len);

/*
 * Why the spec has dropped events (total: since attach, else in this
 * interval), for "(N dropped: ...)": "88 map full at 609 keys, raise
 * --aggsize; 2 unreadable strings; 1 nested over 32 deep", the reasons
 * it had; "" if it dropped nothing.
 */
void session_drops(const struct agg_spec *as, bool total, char *out,
		   size_t len);

/*
 * What the kernel's IO and process counting lost (total: since attach,
 * else in this interval), for "(N dropped by the kernel: ...)": "20 IO
 * calls, in-flight table full at 445; 8 process events, map full at 64
 * keys; raise --aggsize"; "" if it lost nothing.
 */
void session_kdrops(const struct agg_snapshot *snap, bool total, char *out,
		    size_t len);

/*
 * -b: what to call process pid, as first seen: the base name of its
 * program, then its arguments ("sdt_target -w2"), from /proc, else (it
 * has exited) as the kernel saw it when it first made a key
 * (tracer_pid_name()), else "(exited)". Named once and kept in
 * s->pidcmds (SESSION_PIDCMDS of them; a later pid is named anew each
 * time). Valid until the next call.
 */
#define SESSION_PIDCMDS 4096
const char *session_pid_command(struct session *s, uint32_t pid);

/*
 * What metrics.h renders of snap for s: each spec's probeset role and its
 * labels, and with -b each pid's command (session_pid_command()). The
 * callbacks use s; valid while s and snap are.
 */
void session_metrics_src(struct session *s, const struct agg_snapshot *snap,
			 struct metrics_src *src);

/* Detach spec id (and the helper it needed). 0 or -ENOENT. */
int session_remove(struct session *s, int id);

/* Of probeset spec r (of ps) and its alternatives (a role given more
 * than once), the first the target can serve: it has its probe, and its
 * keys can be read (Python frames: tracer_py_readable()); NULL if none. */
const struct ps_spec *session_pick_alt(const struct session *s,
				       const struct probeset *ps,
				       const struct ps_spec *r);

/* The id of the live spec attached for probeset role SECTION.NAME in any
 * picked probeset, or -1. */
int session_role(const struct session *s, const char *section,
		 const char *name);

/* The note the first loaded probeset that has one says on provider:name
 * (globs in [probe P] sections), or NULL. */
const struct ps_note *session_note(const struct session *s,
				   const char *provider, const char *name);

/*
 * session_note() on provider:name when the target lacks
 * what it requires (an environment variable, a command-line flag), so
 * the probe will not fire; NULL otherwise (also for -b).
 */
const struct ps_note *session_unmet(const struct session *s,
				    const char *provider, const char *name);

/*
 * The USDT probes of the session's objects as the Probes view lists them
 * and a recording keeps them: the executable's objects first, each
 * object's by provider and name; spec_id -1, no hits, no notes (at
 * most SESSION_MAX_OBJECTS objects). *out
 * (free() it; its strings valid while the tracer's catalogs are) and
 * *n. 0 or -ENOMEM.
 */
#define SESSION_MAX_OBJECTS 1024
int session_probes(const struct session *s, struct model_probe **out,
		   size_t *n);

/* Say on stderr, once per note, which attached probes will not fire in
 * the target and what it was started without, and which probes of -e
 * specs may stay silent and why (the probesets' notes). */
void session_warn_unmet(const struct session *s);

#endif
