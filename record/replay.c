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

#include "replay_impl.h"

struct replay *replay_open(const char *path, char *why, size_t n)
{
	struct replay *rp = calloc(1, sizeof(*rp));

	if (!rp) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	rp->cur = -1;
	rp->probes_read = -1;
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

int replay_get_message(struct replay *rp, struct recread *r, double *when)
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
		err = replay_get_message(rp, r, &when);
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
		rp->has_final |= !err;
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

/* What replay_seek.c made of rp (its index, marks, messages and probe
 * lists), freed: the struct is replay.c's, so is its end. */
static void free_index(struct replay *rp)
{
	free(rp->offs);
	free(rp->elapsed);
	for (size_t i = 0; i < rp->nmsgs; i++)
		free(rp->msgs[i].text);
	free(rp->msgs);
	free(rp->pofs);
	recprobes_free(&rp->probes);
	for (size_t i = 0; i < rp->nmarks; i++)
		recmark_free(&rp->marks[i]);
	free(rp->marks);
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
	free_index(rp);
	free(rp);
}
