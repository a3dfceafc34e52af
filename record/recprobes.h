/* SPDX-License-Identifier: MIT */
/*
 * recprobes — the target's probe list as a 'P' record's body and back
 * (docs/record-format.md): each probe's object, provider, name, argument
 * spec, argument count, semaphore and number of locations, strings
 * inline. For record.c (writing) and replay_seek.c (the list in force
 * at an interval). Nothing here reads or writes a file.
 */
#ifndef PROBETOP_RECPROBES_H
#define PROBETOP_RECPROBES_H

#include "recbuf.h"
#include "record.h"

/* A probe list read back: v[0..n), its strings owned. */
struct recprobes {
	struct record_probe *v;
	size_t n;
};

/* v[0..n) as a 'P' body, appended to b. */
void recprobes_put(struct recbuf *b, const struct record_probe *v, size_t n);

/* A 'P' body r into out (its last list freed first). 0, or -1 for a body
 * that does not hold what it should (out then empty). */
int recprobes_get(struct recprobes *out, struct recread *r);

void recprobes_free(struct recprobes *p);

#endif
