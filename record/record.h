/* SPDX-License-Identifier: MIT */
/*
 * record — `--record FILE`: each interval's agg snapshot appended to a
 * recording as it goes (docs/record-format.md). The recording holds
 * what `trace --json` and `--folded` print (replay.h reads it back):
 * every spec with its numbers and marks, the rows that changed since
 * the last interval (their keys defined once, names in a string table
 * that grows as names appear), the IO, process and unwind rows, the
 * target, its probe list, and trace's messages.
 *
 * Call order: record_open(), record_target() once, then record_probes()
 * and record_interval() per snapshot, record_final() after the last one
 * if trace prints a final summary, record_message() at any time after
 * record_target(); record_free(). After a failed write (a full disk)
 * the file ends with its last whole record and every later call
 * returns the same error at once, writing nothing: the caller says it
 * once and goes on tracing.
 */
#ifndef PROBETOP_RECORD_H
#define PROBETOP_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "agg.h"

struct record;

/* What was traced (the 'T' record). */
struct record_target {
	int pid; /* the process traced, 0 for -b */
	const char *binary; /* -b's file, or "" */
	char *const *command; /* -- COMMAND's argv, NULL-terminated, or NULL */
	double interval_s;
	bool per_pid; /* -b: each row carries its pid */
	bool kernel; /* -P io or process: kernel_drops are shown */
};

/* Where a spec came from: its probeset, the section and the role there
 * (the views' words: frames, gc ...); all NULL for -e and the console's
 * own. */
struct record_origin {
	const char *probeset, *section, *role;
};

/* A USDT probe of the target (the 'P' record), as the Probes view
 * lists it. */
struct record_probe {
	const char *object; /* the ELF file's path */
	const char *provider, *name;
	const char *args; /* raw argument spec of its first location */
	unsigned int nargs;
	bool semaphore;
	size_t nlocs;
};

/* What the snapshot does not say, asked of the caller (ctx theirs) while
 * an interval is written; strings valid until the next call. */
struct record_names {
	/* the command line of pid (a per_pid target's rows); NULL: none */
	const char *(*command)(void *ctx, uint32_t pid);
	/* spec id's origin; NULL: none known */
	void (*origin)(void *ctx, int id, struct record_origin *o);
	void *ctx;
};

/*
 * Create path (mode 0600; an existing file is refused: EEXIST) and write
 * the file header. NULL with errno.
 */
struct record *record_open(const char *path);

/* 0, or a negative errno (the recording stopped; see above). */
int record_target(struct record *rec, const struct record_target *t);

/*
 * The target's probes v[0..n), in the Probes view's order, as one 'P'
 * record if they differ from those last written (the first call always
 * writes): a library loaded later adds probes. 0 or a negative errno.
 */
int record_probes(struct record *rec, const struct record_probe *v, size_t n);

/*
 * Append snap (agg_read()'s) as one record; names (NULL: none) says the
 * pids' commands and the specs' origins. 0 or a negative errno.
 */
int record_interval(struct record *rec, const struct agg_snapshot *snap,
		    const struct record_names *names);

/* After record_interval(snap): the final summary's rows (every row
 * counted since attach), in snap's order. 0 or a negative errno. */
int record_final(struct record *rec, const struct agg_snapshot *snap);

/* A message trace printed on stderr (without "probetop: "), with the
 * seconds since record_open(). 0 or a negative errno. */
int record_message(struct record *rec, const char *msg);

/* Bytes written so far (the file's size). */
uint64_t record_size(const struct record *rec);

/* Close the file; NULL is a no-op. */
void record_free(struct record *rec);

#endif
