/* SPDX-License-Identifier: MIT */
/*
 * probeset — what a runtime's probes mean, as data.
 *
 * One INI file per runtime (read with inih). Example:
 *
 *   [probeset]
 *   name   = python
 *   title  = CPython
 *   detect = python:function__return        ; any of these present: picked
 *                                           ; (USDT probes, or fn:SYMBOL:
 *                                           ; an object has the symbol)
 *
 *   [frames]                                ; a role the views know
 *   calls    = python:function__return=count(str(arg1),str(arg0),arg2)
 *   latency  = python:function__entry..python:function__return=latency(...)
 *   labels   = function, file, line
 *   optional = latency                      ; not attached unless asked,
 *                                           ; or the target meets the
 *                                           ; requires of its probe
 *   needs.latency = python:line             ; attach this with it
 *   title    = ...                          ; the pane's title, where a
 *                                           ; view shows the role ([gc]
 *                                           ; of PostgreSQL: Checkpoints)
 *   empty    = ...                          ; why the role may count
 *                                           ; nothing on this runtime and
 *                                           ; what would fill it (Top
 *                                           ; and Dashboard say it)
 *
 *   [probe python:function__entry]          ; what to say about a probe
 *   silent = fires only when ...            ; why it may show nothing
 *   cost   = ...                            ; what enabling it costs
 *   unsafe = ...                            ; warn before enabling it
 *   requires = env:USE_ZEND_DTRACE=1, arg:-XX:+ExtendedDTraceProbes
 *                                           ; it fires only if the target
 *                                           ; has one of these (fnmatch
 *                                           ; on environ / argv entries)
 *
 *   [gc]                                    ; a key given more than once
 *   pause = fn:gc_collect_main=latency(arg1); lists alternatives: the
 *   pause = fn:collect=latency(arg1)        ; first whose probe the
 *                                           ; target has is attached
 *                                           ; (none: none)
 *
 * Every other section is a role of its own (gc, alloc, imports ...):
 * its keys other than labels/optional are named SPECs, checked with
 * spec_parse() at load time. [probeset] kernel = io or kernel = process
 * marks a set the kernel serves instead of USDT specs: the IO pane
 * (syscalls and block requests of the target), or the processes and
 * threads the target and its descendants fork, exec and end.
 *
 * Roles the views read: frames (calls, samples, latency), gc (pause,
 * collected), alloc (objects), io (any name: the IO pane's rows; a name
 * ending in "bytes" is shown as bytes). Others are listed in the Probes view and attached by
 * `trace -P NAME` like any spec.
 *
 * Files come from the installed directory (builtin) and then from
 * $XDG_CONFIG_HOME/probetop/probesets (user); a user file with the name
 * of a builtin one replaces it. A broken file is reported as
 * "FILE:LINE: what" and skipped; the others still load.
 */
#ifndef PROBETOP_PROBESET_H
#define PROBETOP_PROBESET_H

#include <stdbool.h>
#include <stddef.h>

#include "spec.h"

#define PS_FILE_MAX 65536
#define PS_NAME_MAX 32
#define PS_TEXT_MAX 200
#define PS_MAX_DETECT 4
#define PS_MAX_SECTIONS 12
#define PS_MAX_SPECS 24
#define PS_MAX_NOTES 12
#define PS_MAX_LABELS SPEC_MAX_KEYS
#define PS_MAX_REQUIRES 4

struct ps_section {
	char name[PS_NAME_MAX];
	char title[PS_NAME_MAX]; /* title = ...: what its pane is called
				    ("Checkpoints" for [gc]), or "" */
	char empty[PS_TEXT_MAX]; /* empty = ...: why it may count nothing
				    and what would fill it, or "" */
	int nlabels;
	char labels[PS_MAX_LABELS][PS_NAME_MAX];
};

struct ps_spec {
	int section; /* index into probeset.sections */
	char name[PS_NAME_MAX]; /* "calls", "pause" ... */
	bool optional; /* attached only when asked for */
	bool alt; /* an alternative to an earlier spec of its name */
	char needs[SPEC_NAME_MAX]; /* a probe to count with it, to raise its
				      semaphore (needs.NAME = PROBE), or "" */
	struct spec spec; /* parsed */
};

struct ps_note {
	char probe[SPEC_NAME_MAX]; /* provider:name, globs allowed */
	char silent[PS_TEXT_MAX]; /* why it may not fire, or "" */
	char cost[PS_TEXT_MAX]; /* what enabling it costs, or "" */
	char unsafe[PS_TEXT_MAX]; /* why enabling it is risky, or "" */
	int nrequires; /* alternatives: any one is enough; 0: none */
	char requires[PS_MAX_REQUIRES][PS_NAME_MAX + 32]; /* "env:..." */
	char requires_shown[PS_TEXT_MAX]; /* "USE_ZEND_DTRACE=1", "A or B" */
};

enum ps_kernel {
	PS_KERNEL_NONE, /* USDT specs */
	PS_KERNEL_IO,
	PS_KERNEL_PROCESS,
};

/* "io", "process", or NULL for PS_KERNEL_NONE */
const char *probeset_kernel_name(enum ps_kernel k);

struct probeset {
	char name[PS_NAME_MAX];
	char title[64];
	char path[4096]; /* the file it came from */
	bool user; /* from the user's directory */
	enum ps_kernel kernel; /* kernel = io / process */
	int ndetect;
	struct spec_probe detect[PS_MAX_DETECT];
	char detect_text[PS_MAX_DETECT][SPEC_NAME_MAX];
	int nsections;
	struct ps_section sections[PS_MAX_SECTIONS];
	int nspecs;
	struct ps_spec specs[PS_MAX_SPECS];
	int nnotes;
	struct ps_note notes[PS_MAX_NOTES];
	/* [frames] named_by = (as requires =): what a process is started
	 * with for its frames to be named (nrequires 0: nothing), and
	 * unnamed = what is said where it was not ("" if nothing) */
	struct ps_note named_by;
	char unnamed[PS_TEXT_MAX];
};

struct ps_list {
	size_t n;
	struct probeset **sets; /* sorted by name */
};

/* Called once per broken file with "FILE:LINE: what" (or "FILE: what"). */
typedef void (*ps_error_fn)(const char *msg, void *ctx);

/*
 * Parse the text of a probeset into *out; name is what errors and
 * out->path show. Returns 0, or -EINVAL with "NAME:LINE: what" (or
 * "NAME: what") in err[0..n).
 */
int probeset_parse(const char *name, const char *text, struct probeset *out,
		   char *err, size_t n);

/*
 * Parse one probeset file (at most PS_FILE_MAX bytes) into *out. Returns 0, or -EINVAL with the
 * reason in err[0..n) as "FILE:LINE: what", or a negative errno from
 * opening it (err says so too).
 */
int probeset_load_file(const char *path, struct probeset *out, char *err,
		       size_t n);

/*
 * Load every *.ini of the builtin directory, then of the user's (which
 * override by name). builtin_dir may be NULL for the default (see
 * probeset_builtin_dir()); user_dir NULL for $XDG_CONFIG_HOME/probetop/
 * probesets (or ~/.config/...). Broken files go to on_error and are
 * skipped. Returns 0 or -ENOMEM; free with probesets_free().
 */
int probesets_load(const char *builtin_dir, const char *user_dir,
		   struct ps_list *out, ps_error_fn on_error, void *ctx);
void probesets_free(struct ps_list *list);

/* The probeset called name, or NULL. */
const struct probeset *probesets_find(const struct ps_list *list,
				      const char *name);

/* The directory the builtin probesets are read from: the installed one,
 * or the source tree's when running from a build directory. */
const char *probeset_builtin_dir(void);

/* The section called name in ps (-1 if none), and the spec name of that
 * section (NULL if none). */
int probeset_section(const struct probeset *ps, const char *name);
const struct ps_spec *probeset_spec(const struct probeset *ps,
				    const char *section, const char *name);

/* The next alternative to spec r (the next spec of its section and
 * name), or NULL. */
const struct ps_spec *probeset_next_alt(const struct probeset *ps,
					const struct ps_spec *r);

/* The note of the first [probe P] whose glob matches provider:name. */
const struct ps_note *probeset_note(const struct probeset *ps,
				    const char *provider, const char *name);

/*
 * Whether a process meets the note's requires (true when it has none):
 * env and argv are the NUL-separated contents of /proc/PID/environ and
 * /proc/PID/cmdline, of envlen and argvlen bytes.
 */
bool probeset_note_met(const struct ps_note *n, const char *env, size_t envlen,
		       const char *argv, size_t argvlen);

#endif
