/* SPDX-License-Identifier: MIT */
/*
 * session_impl — what the files of the session call across, private to
 * them: session.c (the order of session_open(), rescans, the end, the
 * options, what is said of a spec), session_target.c (the target) and
 * session_probesets.c (the probesets and the specs attached). Nothing
 * else includes it; struct session is session.h's.
 *
 * Calls go one way: session.c calls the two others, session_probesets.c
 * calls session_target.c, which calls neither.
 */
#ifndef PROBETOP_SESSION_IMPL_H
#define PROBETOP_SESSION_IMPL_H

#include <stdbool.h>

#include "probeset.h"
#include "session.h"

/* session_target.c ---------------------------------------------------- */

/* Open the target a names in s: -b's file, -p's process, or a command
 * started and held before exec; s->tr traces it. 0, or -1 said on
 * stderr (or logged). */
int session_open_target(struct session *s, const struct session_args *a);

/* s->env and s->argv: the target's environment and command line, for
 * session_unmet(); left NULL for -b, or where they cannot be read. */
void session_read_target_env(struct session *s, const struct session_args *a);

/* Whether the target meets n's requires; unknown (no environ) is "yes",
 * so nothing is said or attached on a guess. */
bool session_target_meets(const struct session *s, const struct ps_note *n);

/* session_probesets.c ------------------------------------------------- */

/* Say what session_open() does now through its args' progress hook (a
 * screen that is up); nothing outside session_open(). */
void session_progress(const struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Pick the probesets -P names (before the target is opened). 0, or -1
 * said on stderr for a name no probeset has. */
int session_pick_named(struct session *s, const struct session_args *a);

/* Pick every probeset (not picked yet) whose detect probes are there. */
void session_pick_detected(struct session *s);

/* Pick the builtin kernel probesets (io, process) not picked yet. */
void session_pick_kernel(struct session *s);

/* Attach one picked probeset: its specs, or what the kernel watches.
 * 0, or -1 said on stderr. */
int session_attach_set(struct session *s, const struct probeset *ps);

/* session_attach_set() of every picked probeset: 0, or -1 at the first
 * that fails. */
int session_attach_sets(struct session *s);

#endif
