/* SPDX-License-Identifier: MIT */
/*
 * replaymodel — the views' model (views/model.h) from a recording
 * (record/replay.h), as conmodel.h fills it from the engine: the
 * snapshot shown, the probeset roles its specs had (each spec's recorded
 * origin, looked up in the probesets installed), the header's numbers,
 * -b's commands by pid, the target's probes as recorded (each on if a
 * recorded spec covers it, spec.h's spec_first_cover(), with its
 * events). What a recording does not hold (the target's CPU and memory,
 * the probesets' notes on its probes) is left empty. Reads only the file and
 * the probesets.
 */
#ifndef PROBETOP_REPLAYMODEL_H
#define PROBETOP_REPLAYMODEL_H

#include "model.h"
#include "replay.h"

struct replaymodel;

/* NULL when out of memory. Probesets that do not load leave their roles
 * without a probeset (the views then show plain specs). */
struct replaymodel *replaymodel_new(void);
void replaymodel_free(struct replaymodel *rm);

/*
 * Fill m for snap (rp's last snapshot, or a range of it: the same specs
 * in the same order), which covers seconds. The model's pointers stay
 * valid until the next call or replaymodel_free().
 */
void replaymodel_update(struct replaymodel *rm, struct replay *rp,
			const struct agg_snapshot *snap, double seconds,
			struct model *m);

#endif
