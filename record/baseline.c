// SPDX-License-Identifier: MIT
/*
 * baseline — a recording summed into a basetab; see baseline.h. The
 * final summary is not added: its rows are the intervals' again.
 */
#include "baseline.h"

#include <stdio.h>

#include "replay.h"

/* Every interval of rp into t until the file ends: 0; -1 with why set
 * (corrupt, out of memory); note set for a cut. */
static int sum_all(struct replay *rp, struct basetab *t, char *why, size_t n,
		   char *note, size_t nn)
{
	char what[512];

	for (;;) {
		enum replay_event ev = replay_next(rp, what, sizeof(what));
		const struct agg_snapshot *snap = replay_snapshot(rp);

		switch (ev) {
		case REPLAY_INTERVAL:
			for (size_t s = 0; s < snap->nspecs; s++)
				if (basetab_add(t, &snap->specs[s])) {
					snprintf(why, n, "out of memory");
					return -1;
				}
			t->seconds = snap->elapsed_s;
			t->intervals++;
			break;
		case REPLAY_CUT:
			snprintf(note, nn, "%s; read up to interval %u", what,
				 t->intervals);
			return 0;
		case REPLAY_BAD:
			snprintf(why, n, "%s", what);
			return -1;
		case REPLAY_END:
			return 0;
		default:
			break;
		}
	}
}

struct basetab *baseline_load(const char *path, char *why, size_t n, char *note,
			      size_t nn)
{
	struct replay *rp = replay_open(path, why, n);
	struct basetab *t = rp ? basetab_new() : NULL;
	int err;

	note[0] = '\0';
	if (!rp)
		return NULL;
	if (!t) {
		snprintf(why, n, "out of memory");
		replay_free(rp);
		return NULL;
	}
	err = sum_all(rp, t, why, n, note, nn);
	replay_free(rp);
	if (!err && (!t->intervals || t->seconds <= 0)) {
		snprintf(why, n, "the recording holds no interval");
		err = -1;
	}
	if (err) {
		basetab_free(t);
		return NULL;
	}
	return t;
}
