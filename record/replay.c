// SPDX-License-Identifier: MIT
/*
 * replay — a recording's records read back in order; see replay.h. The
 * frames are recfile.c's, interval and final bodies recdec.c's; the
 * target and message records are read here.
 */
#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recdec.h"
#include "recfile.h"
#include "recmark.h"

/* replay_seek() keeps the decoder's state every REPLAY_MARK_EVERY
 * intervals, so that it reads at most that many to get to any one */
#define REPLAY_MARK_EVERY 16

struct replay {
	struct recfile_reader rd;
	struct recdec dec;
	struct record_target target;
	char *version, *binary, **argv;
	size_t argc;
	char *message;
	unsigned int intervals;
	bool interval_read; /* a final summary needs an interval before it */
	bool done; /* END, CUT or BAD returned: nothing more is read */
	double start_wall; /* the target record's wall-clock start */
	/* replay_index()'s: where each interval's frame starts, its
	 * elapsed_s once read (0: not yet), the messages */
	uint64_t *offs;
	double *elapsed;
	size_t noffs, capoffs;
	struct replay_msg *msgs;
	size_t nmsgs, capmsgs;
	/* replay_seek()'s: the interval the decoder holds (-1: none), and
	 * its state after intervals K - 1, 2K - 1, ... */
	long cur;
	struct recmark *marks;
	size_t nmarks, capmarks;
};

struct replay *replay_open(const char *path, char *why, size_t n)
{
	struct replay *rp = calloc(1, sizeof(*rp));

	if (!rp) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	rp->cur = -1;
	if (recfile_reader_open(&rp->rd, path, why, n)) {
		replay_free(rp);
		return NULL;
	}
	return rp;
}

/* A copy of a string the body holds; NULL if cut or out of memory. */
static char *get_strdup(struct recread *r)
{
	size_t len;
	const char *s = recread_str(r, &len);

	return s ? strndup(s, len) : NULL;
}

/* The target record (record.c's record_target()). */
static int get_target(struct replay *rp, struct recread *r)
{
	struct record_target *t = &rp->target;
	size_t argc;
	uint8_t flags;

	if (rp->version)
		return -1; /* a second one */
	rp->version = get_strdup(r);
	rp->start_wall = recread_f64(r);
	t->interval_s = recread_f64(r);
	t->pid = (int)recread_sv(r);
	rp->binary = get_strdup(r);
	t->binary = rp->binary;
	argc = recread_count(r, 1);
	if (argc) {
		rp->argv = calloc(argc + 1, sizeof(*rp->argv));
		rp->argc = rp->argv ? argc : 0;
		for (size_t i = 0; i < rp->argc; i++)
			rp->argv[i] = get_strdup(r);
		t->command = rp->argv;
	}
	flags = recread_u8(r);
	t->per_pid = flags & 1;
	t->kernel = flags & 2;
	if (!rp->version || !rp->binary || (argc && !rp->argv))
		return -1;
	for (size_t i = 0; i < argc; i++)
		if (!rp->argv[i])
			return -1;
	return r->bad ? -1 : 0;
}

static int get_message(struct replay *rp, struct recread *r, double *when)
{
	*when = recread_f64(r);
	free(rp->message);
	rp->message = get_strdup(r);
	return rp->message && !r->bad ? 0 : -1;
}

/* A whole frame's body as the event it is: REPLAY_BAD (with why set,
 * the frame's offset in it) if the body is not what its type says, -1
 * (to skip it) for a type this probetop does not know. */
static int frame_event(struct replay *rp, int type, struct recread *r,
		       uint64_t at, char *why, size_t n)
{
	char what[300] = "";
	int ev = -1, err = 0;
	double when;

	switch (type) {
	case RECFILE_TARGET:
		err = get_target(rp, r);
		ev = REPLAY_TARGET;
		break;
	case RECFILE_MESSAGE:
		err = get_message(rp, r, &when);
		ev = REPLAY_MESSAGE;
		break;
	case RECFILE_INTERVAL:
		err = recdec_interval(&rp->dec, r, what, sizeof(what));
		rp->intervals += !err;
		rp->interval_read = !err;
		ev = REPLAY_INTERVAL;
		break;
	case RECFILE_FINAL:
		err = !rp->interval_read ||
		      recdec_final(&rp->dec, r, what, sizeof(what));
		rp->interval_read = false;
		ev = REPLAY_FINAL;
		break;
	}
	if (!err)
		return ev;
	snprintf(why, n, "a bad record at byte %llu%s%s",
		 (unsigned long long)at, what[0] ? ": " : "", what);
	return REPLAY_BAD;
}

enum replay_event replay_next(struct replay *rp, char *why, size_t n)
{
	for (;;) {
		uint64_t at = rp->rd.at;
		enum recfile_status st;
		struct recread r;
		int type, ev;

		if (rp->done)
			return REPLAY_END;
		st = recfile_next(&rp->rd, &type, why, n);
		if (st != RECFILE_OK) {
			rp->done = true;
			return st == RECFILE_END   ? REPLAY_END
			       : st == RECFILE_CUT ? REPLAY_CUT
						   : REPLAY_BAD;
		}
		r = (struct recread){ .p = rp->rd.body.p,
				      .len = rp->rd.body.len };
		ev = frame_event(rp, type, &r, at, why, n);
		if (ev == REPLAY_BAD)
			rp->done = true;
		if (ev >= 0)
			return (enum replay_event)ev;
	}
}

/* Random access: the index, the marks, seeking ---------------------- */

/* Grow array *v of *cap items of size to hold want; false with no
 * memory. */
static bool room(void **v, size_t *cap, size_t want, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *p;

	if (want <= *cap)
		return true;
	while (c < want)
		c *= 2;
	p = realloc(*v, c * size);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

/* Interval frame at offset at, into the index. */
static int index_interval(struct replay *rp, uint64_t at)
{
	size_t cap = rp->capoffs;

	if (!room((void **)&rp->offs, &rp->capoffs, rp->noffs + 1,
		  sizeof(*rp->offs)) ||
	    !room((void **)&rp->elapsed, &cap, rp->noffs + 1,
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
	if (!room((void **)&rp->msgs, &rp->capmsgs, rp->nmsgs + 1,
		  sizeof(*rp->msgs)))
		return -1;
	r = (struct recread){ .p = rp->rd.body.p, .len = rp->rd.body.len };
	m = &rp->msgs[rp->nmsgs];
	if (get_message(rp, &r, &m->at_s))
		return -1;
	m->text = rp->message;
	m->after = (unsigned int)rp->noffs;
	rp->message = NULL;
	rp->nmsgs++;
	return 0;
}

enum replay_event replay_index(struct replay *rp, char *why, size_t n)
{
	enum replay_event ev = replay_next(rp, why, n);

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
		if (err) {
			snprintf(why, n, "a bad record at byte %llu",
				 (unsigned long long)at);
			return REPLAY_BAD;
		}
	}
}

/* Read interval i's frame into the decoder (which holds i - 1's state);
 * a mark kept if i ends a stretch of REPLAY_MARK_EVERY. */
static int read_interval(struct replay *rp, size_t i, char *why, size_t n)
{
	struct recread r;
	int type;

	if (recfile_seek(&rp->rd, rp->offs[i]) ||
	    recfile_next(&rp->rd, &type, why, n) != RECFILE_OK)
		return -1;
	r = (struct recread){ .p = rp->rd.body.p, .len = rp->rd.body.len };
	if (type != RECFILE_INTERVAL || recdec_interval(&rp->dec, &r, why, n))
		return -1;
	rp->cur = (long)i;
	rp->elapsed[i] = rp->dec.snap.elapsed_s;
	if ((i + 1) % REPLAY_MARK_EVERY ||
	    (i + 1) / REPLAY_MARK_EVERY != rp->nmarks + 1)
		return 0;
	if (!room((void **)&rp->marks, &rp->capmarks, rp->nmarks + 1,
		  sizeof(*rp->marks)))
		return 0; /* no mark: slower, not wrong */
	rp->marks[rp->nmarks] = (struct recmark){ 0 };
	if (!recmark_save(&rp->marks[rp->nmarks], &rp->dec))
		rp->nmarks++;
	return 0;
}

/* The decoder at the last mark before interval k (or at the start), if
 * that is nearer k than where it is. */
static int seek_mark(struct replay *rp, size_t k)
{
	static const struct recmark none;
	size_t j = k / REPLAY_MARK_EVERY; /* mark j - 1: after j*K - 1 */
	long at;

	if (j > rp->nmarks)
		j = rp->nmarks;
	at = (long)(j * REPLAY_MARK_EVERY) - 1;
	if (rp->cur < (long)k && rp->cur >= at)
		return 0; /* on from where it is */
	rp->cur = at;
	return recmark_restore(&rp->dec, j ? &rp->marks[j - 1] : &none);
}

int replay_seek(struct replay *rp, size_t k, char *why, size_t n)
{
	if (k >= rp->noffs) {
		snprintf(why, n, "no interval %zu", k + 1);
		return -1;
	}
	if (rp->cur == (long)k)
		return 0;
	if (seek_mark(rp, k)) {
		snprintf(why, n, "out of memory");
		rp->cur = -1;
		return -1;
	}
	while (rp->cur < (long)k) {
		size_t i = (size_t)(rp->cur + 1);
		char what[300];

		if (read_interval(rp, i, what, sizeof(what))) {
			snprintf(why, n, "a bad record at byte %llu: %s",
				 (unsigned long long)rp->offs[i], what);
			rp->noffs = i; /* nothing after it is shown */
			rp->cur = -1;
			return -1;
		}
	}
	return 0;
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

struct recdec *replay_decoder(struct replay *rp)
{
	return &rp->dec;
}

const struct record_target *replay_target(const struct replay *rp)
{
	return &rp->target;
}

const struct agg_snapshot *replay_snapshot(const struct replay *rp)
{
	return &rp->dec.snap;
}

const char *replay_message(const struct replay *rp)
{
	return rp->message ? rp->message : "";
}

const char *replay_command(struct replay *rp, uint32_t pid)
{
	uint32_t id;
	const char *s = NULL;

	if (rectab_map_get(&rp->dec.pidcmds, pid, &id))
		s = recdec_str(&rp->dec, id);
	return s ? s : "";
}

void replay_origin(const struct replay *rp, size_t i, struct record_origin *o)
{
	const struct recdec_spec *ds = &rp->dec.specs[i];

	*o = (struct record_origin){ ds->origin[0], ds->origin[1],
				     ds->origin[2] };
}

unsigned int replay_intervals(const struct replay *rp)
{
	return rp->intervals;
}

void replay_free(struct replay *rp)
{
	if (!rp)
		return;
	recfile_reader_close(&rp->rd);
	recdec_free(&rp->dec);
	free(rp->version);
	free(rp->binary);
	for (size_t i = 0; i < rp->argc; i++)
		free(rp->argv[i]);
	free(rp->argv);
	free(rp->message);
	free(rp->offs);
	free(rp->elapsed);
	for (size_t i = 0; i < rp->nmsgs; i++)
		free(rp->msgs[i].text);
	free(rp->msgs);
	for (size_t i = 0; i < rp->nmarks; i++)
		recmark_free(&rp->marks[i]);
	free(rp->marks);
	free(rp);
}
