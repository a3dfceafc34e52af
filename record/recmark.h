/* SPDX-License-Identifier: MIT */
/*
 * recmark — a decoder's state (recdec.h) kept and put back: what a
 * recording has said up to an interval (how many strings and rows, every
 * row's totals and each pid's command), so that replay.c can step back
 * by going to the last mark before an interval and reading forward from
 * there, instead of from the file's start. Strings and rows are only
 * ever added, so a mark keeps their counts, not copies.
 */
#ifndef PROBETOP_RECMARK_H
#define PROBETOP_RECMARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "recdec.h"

/* A row's numbers that its next record adds to (the rest it sets). */
struct recmark_row {
	uint64_t total;
	int64_t sum_total, min, max;
	const uint64_t *b_total; /* a histogram's buckets, or NULL */
};

/* A row with more than a count: a sum, min and max or buckets (kept
 * apart, so that a count row takes 8 bytes a mark). */
struct recmark_ext {
	uint32_t row;
	uint32_t b; /* its buckets at b_total + b * PT_NBUCKETS; ~0: none */
	int64_t sum_total, min, max;
};

struct recmark {
	size_t nstrs, nrows;
	uint64_t *total; /* nrows */
	struct recmark_ext *ext; /* by row */
	size_t next;
	uint64_t *b_total; /* PT_NBUCKETS each */
	size_t nb; /* numbers in b_total */
	struct rectab_map pidcmds;
};

/* d's state into mk (emptied first). 0 or -ENOMEM (mk then empty). */
int recmark_save(struct recmark *mk, const struct recdec *d);

/* Whether d can be put in mk's state: it has read (at some time) the
 * strings and rows mk counts. A mark d saved, or one of an interval
 * before the furthest d read, fits. */
bool recmark_fits(const struct recmark *mk, const struct recdec *d);

/*
 * Put d in the state mk was saved from (of the same file; d saved it,
 * or has read as far since: recmark_fits()): the strings and rows read
 * after it are set aside (kept, recdec.h), the others' totals set.
 * d's snapshot is not one until the next body is read. A zeroed mk is
 * the state before the first record. 0, -EINVAL (it does not fit) or
 * -ENOMEM.
 */
int recmark_restore(struct recdec *d, const struct recmark *mk);

/* The totals of row i as of the mark into *out; false (zeros) for a row
 * defined since. */
bool recmark_row(const struct recmark *mk, size_t i, struct recmark_row *out);

/* Bytes the mark takes (the replay's budget for marks). */
size_t recmark_bytes(const struct recmark *mk);

void recmark_free(struct recmark *mk);

#endif
