/* SPDX-License-Identifier: MIT */
/*
 * replay_impl — struct replay, private to replay.c (reading records in
 * order: the target, messages, intervals, the final summary) and
 * replay_seek.c (random access for the console: the index, the marks
 * kept). Calls go one way: replay_seek.c calls replay.c's replay_next()
 * and replay_get_message() through replay.h and here; replay.c frees
 * what replay_seek.c made in the struct (replay_free()).
 */
#ifndef PROBETOP_REPLAY_IMPL_H
#define PROBETOP_REPLAY_IMPL_H

#include "recdec.h"
#include "recfile.h"
#include "recmark.h"
#include "recprobes.h"
#include "replay.h"

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
	bool has_final; /* replay_index() or replay_next() met a final
			   summary */
	double start_wall; /* the target record's wall-clock start */
	/* replay_index()'s: where each interval's frame starts, its
	 * elapsed_s once read (0: not yet), the messages */
	uint64_t *offs;
	double *elapsed;
	size_t noffs, capoffs;
	struct replay_msg *msgs;
	size_t nmsgs, capmsgs;
	/* the probe lists ('P'): where each starts and how many intervals
	 * are before it; the one read (its index, -1: none) */
	struct replay_pofs {
		uint64_t at;
		size_t after;
	} * pofs;
	size_t npofs, cappofs;
	long probes_read;
	struct recprobes probes;
	/* replay_seek()'s: the interval dec holds (-1: none); the decoder's
	 * state after intervals K - 1, 2K - 1, ... (K = every), the bytes
	 * they take and may take */
	long cur;
	struct recmark *marks;
	size_t nmarks, capmarks, every, mark_bytes, mark_budget;
};

/* A message record's body r: its text into rp->message (the last one's
 * freed), its time into *when. 0, or -1 if the body is bad. */
int replay_get_message(struct replay *rp, struct recread *r, double *when);

#endif
