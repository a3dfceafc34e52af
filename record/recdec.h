/* SPDX-License-Identifier: MIT */
/*
 * recdec — the body of an interval record into the snapshot it was
 * (docs/record-format.md), for replay.c: what recenc.c wrote, read in
 * the same order. It keeps what the file has said so far (the string
 * table, every row's key and totals, each pid's command) and the
 * snapshot of the last interval, whose pointers stay valid until the
 * next body is read (the key texts until recdec_free()).
 */
#ifndef PROBETOP_RECDEC_H
#define PROBETOP_RECDEC_H

#include "agg.h"
#include "recbuf.h"
#include "rectab.h"

struct recdec_row {
	struct agg_row row; /* key texts point into the string table */
	int spec_id; /* the spec it belongs to */
	int64_t text_id; /* ... by its text's string, when the row was made
			    (an id a later spec took has rows of its own) */
	uint64_t *b, *b_total; /* a histogram's, PT_NBUCKETS; NULL: none */
};

/* A spec of the snapshot: parsed once from its text, and the rows the
 * snapshot shows (by index while a body is read, then as pointers). */
struct recdec_spec {
	int64_t text_id; /* the string its spec was parsed from; -1: none */
	struct spec spec;
	struct tracer_spec_info info;
	const char *origin[3]; /* probeset, section, role ("": none) */
	uint32_t *idx;
	const struct agg_row **rows;
	size_t n, cap, caprows;
};

struct recdec {
	char **strs;
	size_t nstrs, capstrs;
	struct recdec_row *rows;
	size_t nrows, caprows;
	/* Strings and rows read so far, also those past nstrs and nrows
	 * when the decoder was set back (recmark.h): kept as they were, so
	 * that pointers to them stay valid, and found again (not made anew)
	 * when the same records are read again. */
	size_t keptstrs, keptrows;
	struct recdec_spec *specs;
	struct agg_spec *as;
	size_t capspecs;
	struct agg_io_row *io;
	struct agg_proc_row *proc;
	size_t capio, capproc;
	struct rectab_map pidcmds; /* pid -> string id of its command */
	struct agg_snapshot snap;
};

/*
 * Read an interval record's body r into d->snap (its rows: those counted
 * in the interval). 0, or -1 with a one-line reason in why[0..n) for a
 * body that does not hold what it should.
 */
int recdec_interval(struct recdec *d, struct recread *r, char *why, size_t n);

/* Read a final record's body into d->snap, made the final summary (its
 * rows: those counted since attach). 0, or -1 with a reason. */
int recdec_final(struct recdec *d, struct recread *r, char *why, size_t n);

/* String id's text, or NULL if the table has no such id. */
const char *recdec_str(const struct recdec *d, uint64_t id);

void recdec_free(struct recdec *d);

/* Grow array *v of *cap items of size (doubling, from 16) to hold want;
 * false with no memory (*v as it was). */
bool recdec_grow(void **v, size_t *cap, size_t want, size_t size);

#endif
