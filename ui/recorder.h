/* SPDX-License-Identifier: MIT */
/*
 * recorder — `--record FILE` as trace and the console share it: the
 * recording (record/record.h) opened before anything is attached, the
 * target written once the session is open, with its probe list
 * (session_probes(), written again before an interval when it changed:
 * a library loaded later), each interval's snapshot as it is read,
 * the final summary at the end, the messages said on the way
 * (cli_error()'s, through cli_tee()). The first failed write
 * (a full disk) is said once, through the caller's say(), and the
 * recording stops there; tracing goes on.
 *
 * Call order: recorder_open() (NULL for no --record), recorder_start()
 * once the session is open, recorder_snapshot() per interval (trace: the
 * last with final), recorder_final() (the console), recorder_free().
 */
#ifndef PROBETOP_RECORDER_H
#define PROBETOP_RECORDER_H

#include <stdbool.h>

#include "agg.h"

struct session;
struct recorder;

/*
 * Create path (record_open(): 0600, never over an existing file). NULL
 * after saying why on stderr ("--record PATH: File exists (...)"): call
 * it before curses is up; the caller exits 1.
 */
struct recorder *recorder_open(const char *path);

/*
 * The target of session s (command: -- COMMAND's argv, or NULL) and the
 * interval into the recording, and from now on cli_error()'s messages;
 * say(ctx, msg) is how the recording's one failure is said (trace:
 * stderr; the console: its status line). s must outlive rec. rec NULL:
 * nothing.
 */
void recorder_start(struct recorder *rec, struct session *s,
		    char *const *command, double interval_s,
		    void (*say)(void *ctx, const char *msg), void *ctx);

/* snap (agg_read()'s) as an interval, and with final the final summary
 * after it. rec NULL, or stopped: nothing. */
void recorder_snapshot(struct recorder *rec, const struct agg_snapshot *snap,
		       bool final);

/* The final summary of snap, the last recorder_snapshot()'s (the
 * console's, at its end). rec NULL, or stopped: nothing. */
void recorder_final(struct recorder *rec, const struct agg_snapshot *snap);

/* Stop tee-ing and close the file; NULL is a no-op. */
void recorder_free(struct recorder *rec);

#endif
