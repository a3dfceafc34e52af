// SPDX-License-Identifier: MIT
/*
 * replay_seek — a recording's intervals in any order, for the console;
 * see replay.h (replay_index() on). The index is each interval
 * record's offset, found from the frames' heads alone. Each interval is
 * stored as differences from the one before, so an interval's rows are
 * the decoder's state after reading every interval up to it: the state
 * after every K-th interval is kept (a mark, recmark.h), and an
 * interval is read from the last mark before it, at most K records.
 * A decoder set back keeps the strings and rows it read (recdec.h), so
 * a mark of an interval before the furthest it read fits it again:
 * after one walk to the end, every interval is at most K records away.
 * Marks take up to REPLAY_MARK_BYTES (replay_mark_budget()); past that
 * every other one is dropped and K doubled.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_impl.h"

#define REPLAY_MARK_EVERY 16 /* K at first */
#define REPLAY_MARK_BYTES (128u << 20)

/* The index --------------------------------------------------------- */

/* Interval frame at offset at, into the index. */
static int index_interval(struct replay *rp, uint64_t at)
{
	size_t cap = rp->capoffs;

	if (!recdec_grow((void **)&rp->offs, &rp->capoffs, rp->noffs + 1,
			 sizeof(*rp->offs)) ||
	    !recdec_grow((void **)&rp->elapsed, &cap, rp->noffs + 1,
			 sizeof(*rp->elapsed)))
		return -1;
	rp->offs[rp->noffs] = at;
	rp->elapsed[rp->noffs++] = 0;
	return 0;
}

/* The message frame at offset at, read whole, into the index. */
static int index_message(struct replay *rp, uint64_t at, char *why, size_t n)
{
	struct replay_msg *m;
	struct recread r;
	int type;

	if (recfile_seek(&rp->rd, at) ||
	    recfile_next(&rp->rd, &type, why, n) != RECFILE_OK)
		return -1;
	if (!recdec_grow((void **)&rp->msgs, &rp->capmsgs, rp->nmsgs + 1,
			 sizeof(*rp->msgs)))
		return -1;
	r = (struct recread){ .p = rp->rd.body.p, .len = rp->rd.body.len };
	m = &rp->msgs[rp->nmsgs];
	if (replay_get_message(rp, &r, &m->at_s))
		return -1;
	m->text = rp->message;
	m->after = (unsigned int)rp->noffs;
	rp->message = NULL;
	rp->nmsgs++;
	return 0;
}

/* Probe list frame at offset at, into the index. */
static int index_probes(struct replay *rp, uint64_t at)
{
	if (!recdec_grow((void **)&rp->pofs, &rp->cappofs, rp->npofs + 1,
			 sizeof(*rp->pofs)))
		return -1;
	rp->pofs[rp->npofs++] = (struct replay_pofs){ at, rp->noffs };
	return 0;
}

enum replay_event replay_index(struct replay *rp, char *why, size_t n)
{
	enum replay_event ev = replay_next(rp, why, n);

	rp->cur = -1;
	rp->probes_read = -1;
	rp->every = REPLAY_MARK_EVERY;
	rp->mark_budget = REPLAY_MARK_BYTES;
	if (ev != REPLAY_TARGET) {
		if (ev == REPLAY_END || ev == REPLAY_INTERVAL)
			snprintf(why, n,
				 "no target record: nothing was recorded");
		return REPLAY_BAD;
	}
	for (;;) {
		uint64_t at;
		int type, err = 0;
		enum recfile_status st =
			recfile_skip(&rp->rd, &type, &at, why, n);

		if (st != RECFILE_OK)
			return st == RECFILE_END   ? REPLAY_END
			       : st == RECFILE_CUT ? REPLAY_CUT
						   : REPLAY_BAD;
		if (type == RECFILE_INTERVAL)
			err = index_interval(rp, at);
		else if (type == RECFILE_MESSAGE)
			err = index_message(rp, at, why, n);
		else if (type == RECFILE_PROBES)
			err = index_probes(rp, at);
		else if (type == RECFILE_FINAL)
			rp->has_final = true;
		if (err) {
			snprintf(why, n, "a bad record at byte %llu",
				 (unsigned long long)at);
			return REPLAY_BAD;
		}
	}
}

bool replay_has_final(const struct replay *rp)
{
	return rp->has_final;
}

/* The marks --------------------------------------------------------- */

/* Over the budget: every other mark dropped (those left are after
 * intervals 2K - 1, 4K - 1, ...), K doubled. */
static void thin_marks(struct replay *rp)
{
	size_t w = 0;

	rp->mark_bytes = 0;
	for (size_t j = 0; j < rp->nmarks; j++) {
		if (j % 2 == 0) {
			recmark_free(&rp->marks[j]);
			continue;
		}
		rp->marks[w] = rp->marks[j];
		rp->mark_bytes += recmark_bytes(&rp->marks[w++]);
	}
	rp->nmarks = w;
	rp->every *= 2;
}

/* d holds interval i: its state kept if i ends the next stretch of K. */
static void keep_mark(struct replay *rp, const struct recdec *d, size_t i)
{
	struct recmark *mk;

	if ((i + 1) % rp->every || (i + 1) / rp->every != rp->nmarks + 1 ||
	    !recdec_grow((void **)&rp->marks, &rp->capmarks, rp->nmarks + 1,
			 sizeof(*rp->marks)))
		return; /* not one, or no room: slower, not wrong */
	mk = &rp->marks[rp->nmarks];
	*mk = (struct recmark){ 0 };
	if (recmark_save(mk, d))
		return;
	rp->nmarks++;
	rp->mark_bytes += recmark_bytes(mk);
	while (rp->mark_bytes > rp->mark_budget && rp->nmarks > 1)
		thin_marks(rp);
}

/* Interval i's record into d (which holds i - 1's state), a mark kept
 * if it is due. 0, or -1 with why. */
static int decode(struct replay *rp, struct recdec *d, size_t i, char *why,
		  size_t n)
{
	struct recread r;
	int type;

	if (recfile_seek(&rp->rd, rp->offs[i]) ||
	    recfile_next(&rp->rd, &type, why, n) != RECFILE_OK)
		return -1;
	r = (struct recread){ .p = rp->rd.body.p, .len = rp->rd.body.len };
	if (type != RECFILE_INTERVAL || recdec_interval(d, &r, why, n))
		return -1;
	rp->elapsed[i] = d->snap.elapsed_s;
	keep_mark(rp, d, i);
	return 0;
}

/* Decoder d, which holds interval *at, at the last mark before interval
 * k (or at the start), unless it is nearer k already. */
static int to_mark(struct replay *rp, struct recdec *d, long *at, size_t k)
{
	static const struct recmark none;
	size_t j = k / rp->every; /* mark j - 1: after j*K - 1 */
	long from;

	if (j > rp->nmarks)
		j = rp->nmarks;
	while (j && !recmark_fits(&rp->marks[j - 1], d))
		j--;
	from = (long)(j * rp->every) - 1;
	if (*at < (long)k && *at >= from)
		return 0; /* on from where it is */
	*at = from;
	return recmark_restore(d, j ? &rp->marks[j - 1] : &none);
}

/* Seeking ------------------------------------------------------------ */

int replay_seek(struct replay *rp, size_t k, char *why, size_t n)
{
	if (k >= rp->noffs) {
		snprintf(why, n, "no interval %zu", k + 1);
		return -1;
	}
	if (rp->cur == (long)k)
		return 0;
	if (to_mark(rp, &rp->dec, &rp->cur, k)) {
		snprintf(why, n, "out of memory");
		rp->cur = -1;
		return -1;
	}
	while (rp->cur < (long)k) {
		size_t i = (size_t)(rp->cur + 1);
		char what[300];

		if (decode(rp, &rp->dec, i, what, sizeof(what))) {
			snprintf(why, n, "a bad record at byte %llu: %s",
				 (unsigned long long)rp->offs[i], what);
			rp->noffs = i; /* nothing after it is shown */
			rp->cur = -1;
			return -1;
		}
		rp->cur = (long)i;
	}
	return 0;
}

void replay_mark_budget(struct replay *rp, size_t bytes)
{
	rp->mark_budget = bytes;
}

size_t replay_mark_every(const struct replay *rp)
{
	return rp->every;
}

size_t replay_count(const struct replay *rp)
{
	return rp->noffs;
}

double replay_seconds(const struct replay *rp, size_t k)
{
	if (k >= rp->noffs || rp->cur < 0)
		return 0;
	return rp->elapsed[k] - (k ? rp->elapsed[k - 1] : 0);
}

/* Interval k's elapsed_s from the head of its body, its rows not read
 * (0 if the record cannot be read: replay_seek() will say why). */
static double peek_elapsed(struct replay *rp, size_t k)
{
	struct recread r;
	char why[256];
	int type;

	if (recfile_seek(&rp->rd, rp->offs[k]) ||
	    recfile_next(&rp->rd, &type, why, sizeof(why)) != RECFILE_OK ||
	    type != RECFILE_INTERVAL)
		return 0;
	r = (struct recread){ .p = rp->rd.body.p, .len = rp->rd.body.len };
	recread_uv(&r); /* the interval's number */
	return r.bad ? 0 : recread_f64(&r);
}

double replay_elapsed(struct replay *rp, size_t k)
{
	if (k >= rp->noffs)
		return 0;
	if (rp->elapsed[k] <= 0)
		rp->elapsed[k] = peek_elapsed(rp, k);
	return rp->elapsed[k];
}

double replay_start_wall(const struct replay *rp)
{
	return rp->start_wall;
}

const struct replay_msg *replay_messages(const struct replay *rp, size_t *n)
{
	*n = rp->nmsgs;
	return rp->msgs;
}

/* The index of the last probe list before interval k's record, or -1. */
static long probes_before(const struct replay *rp, size_t k)
{
	long j = -1;

	for (size_t i = 0; i < rp->npofs && rp->pofs[i].after <= k; i++)
		j = (long)i;
	return j;
}

/* Probe list j of the index into rp->probes; 0 or -1. */
static int read_probes(struct replay *rp, long j)
{
	char why[256];
	struct recread r;
	int type;

	rp->probes_read = -1;
	recprobes_free(&rp->probes);
	if (recfile_seek(&rp->rd, rp->pofs[j].at) ||
	    recfile_next(&rp->rd, &type, why, sizeof(why)) != RECFILE_OK ||
	    type != RECFILE_PROBES)
		return -1;
	r = (struct recread){ .p = rp->rd.body.p, .len = rp->rd.body.len };
	if (recprobes_get(&rp->probes, &r))
		return -1;
	rp->probes_read = j;
	return 0;
}

const struct record_probe *replay_probes(struct replay *rp, size_t *n)
{
	long j = rp->cur < 0 ? -1 : probes_before(rp, (size_t)rp->cur);

	*n = 0;
	if (j < 0 || (j != rp->probes_read && read_probes(rp, j)))
		return NULL;
	*n = rp->probes.n;
	return rp->probes.v;
}

struct recdec *replay_decoder(struct replay *rp)
{
	return &rp->dec;
}
