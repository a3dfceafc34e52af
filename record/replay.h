/* SPDX-License-Identifier: MIT */
/*
 * replay — a recording (record.h, docs/record-format.md) read back, one
 * record at a time, as the agg snapshots trace had: each interval's,
 * and the final summary's, which `probetop replay` hands to trace's
 * renderers (ui/trace_out.h) as trace did live. Reads only the file.
 *
 * A snapshot of an interval holds the rows counted in it, of a final
 * summary those counted since attach, each in the order trace printed
 * them; a spec's other rows (idle in the interval) are not in it.
 */
#ifndef PROBETOP_REPLAY_H
#define PROBETOP_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"
#include "record.h"

struct replay;
struct recdec;

enum replay_event {
	REPLAY_TARGET, /* replay_target() is the target's */
	REPLAY_INTERVAL, /* replay_snapshot() is an interval's */
	REPLAY_FINAL, /* replay_snapshot() is the final summary */
	REPLAY_MESSAGE, /* replay_message() is a message of trace's */
	REPLAY_END, /* the file ends after a whole record */
	REPLAY_CUT, /* it ends inside one (what is before it stands) */
	REPLAY_BAD, /* a record is corrupt: nothing after it is read */
};

/*
 * Open a recording and check its header. NULL with a one-line reason in
 * why[0..n) ("not a probetop recording", a format this probetop does not
 * read, the open's error).
 */
struct replay *replay_open(const char *path, char *why, size_t n);

/*
 * Read the next record. For REPLAY_CUT and REPLAY_BAD a one-line reason
 * (where, what) in why[0..n); nothing more is read after them or END.
 * Probe lists (replay_probes() reads them) and records of types this
 * probetop does not know (a later minor version) are skipped.
 */
enum replay_event replay_next(struct replay *rp, char *why, size_t n);

/* What the target's record said (zeros before it). command is NULL
 * unless the recording launched a command. Valid until replay_free(). */
const struct record_target *replay_target(const struct replay *rp);

/* The last interval's or final summary's snapshot, valid until the next
 * replay_next(). */
const struct agg_snapshot *replay_snapshot(const struct replay *rp);

/* The last message record's text, valid until the next replay_next(). */
const char *replay_message(const struct replay *rp);

/* A pid's command as last recorded ("" if none), for per_pid rows. */
const char *replay_command(struct replay *rp, uint32_t pid);

/* Where spec i (0..nspecs) of the last snapshot came from ("" for
 * each part if from -e or the console); valid until the next
 * replay_next(). */
void replay_origin(const struct replay *rp, size_t i, struct record_origin *o);

/* Random access (the console's replay) ------------------------------ */

/* A message of trace's, as replay_index() found it. */
struct replay_msg {
	char *text;
	double at_s; /* seconds since the recording started */
	unsigned int after; /* intervals before it in the file */
};

/*
 * Instead of replay_next(): read the target record and every later
 * frame's head, noting where each interval's frame is (its body is read
 * only when replay_seek() wants it) and reading the messages. Returns
 * how the file ends: REPLAY_END, REPLAY_CUT (why says where) or
 * REPLAY_BAD (why; also for a file without a target record first), and
 * the intervals before the end stand.
 */
enum replay_event replay_index(struct replay *rp, char *why, size_t n);

/* Whether replay_index(), or replay_next() so far, met a final summary
 * (without one, the recording's end is missing: its writer killed, a
 * write failed). */
bool replay_has_final(const struct replay *rp);

/* Intervals replay_index() found (fewer after replay_seek() met a
 * corrupt one: those before it). */
size_t replay_count(const struct replay *rp);

/*
 * replay_snapshot() made interval k's (0 .. replay_count() - 1): read on
 * from where the reader is, or from the last state it kept (every few
 * intervals) before k. The first time past an interval reads every
 * record up to it (about 0.4 ms a record of 10,000 rows); after that,
 * at most those since the last state kept. 0, or -1 with a one-line reason (a corrupt body:
 * replay_count() is then k).
 */
int replay_seek(struct replay *rp, size_t k, char *why, size_t n);

/* The bytes the kept states may take (128 MiB unless set; at least one
 * is kept), and how many intervals apart they are now (16 at first,
 * doubled each time they would take more). */
void replay_mark_budget(struct replay *rp, size_t bytes);
size_t replay_mark_every(const struct replay *rp);

/* The length of interval k in seconds, after replay_seek(k). */
double replay_seconds(const struct replay *rp, size_t k);

/* Interval k's end in seconds since the start of tracing (the head of
 * its record read if replay_seek() has not read it: one record
 * uncompressed); 0 if it cannot be read. */
double replay_elapsed(struct replay *rp, size_t k);

/* The wall-clock time tracing started (seconds since the epoch). */
double replay_start_wall(const struct replay *rp);

/* replay_index()'s messages, in the file's order, into *n. */
const struct replay_msg *replay_messages(const struct replay *rp, size_t *n);

/*
 * The target's probes as the recording last listed them before the
 * interval replay_seek() read (a 'P' record, format 1.1), into *n; NULL
 * (and 0) if it holds none there (an older recording, or a list that
 * cannot be read). Valid until the next call or replay_free().
 */
const struct record_probe *replay_probes(struct replay *rp, size_t *n);

/* The decoder behind replay_snapshot(), for a range's totals
 * (recrange.h). */
struct recdec *replay_decoder(struct replay *rp);

/* Intervals read so far. */
unsigned int replay_intervals(const struct replay *rp);

void replay_free(struct replay *rp);

#endif
