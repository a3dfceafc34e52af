/* SPDX-License-Identifier: MIT */
/*
 * conmodel — fill the views' model (views/model.h) from the engine.
 *
 * The console calls conmodel_probes() once after attaching and after a
 * rescan found new objects (the list of probes and function symbols),
 * conmodel_update() after every snapshot (states, hits, roles, header),
 * and conmodel_procs() for the process picker. The model's pointers stay
 * valid until the next call of the same function or conmodel_free().
 */
#ifndef PROBETOP_CONMODEL_H
#define PROBETOP_CONMODEL_H

#include "model.h"
#include "session.h"

struct conmodel;

struct conmodel *conmodel_new(void);
void conmodel_free(struct conmodel *cm);

/* The probes and function symbols of the session's objects. 0 or -ENOMEM. */
int conmodel_probes(struct conmodel *cm, const struct session *s,
		    struct model *m);

/* Spec states, hits, roles and the header's numbers, after snap. */
void conmodel_update(struct conmodel *cm, struct session *s,
		     const struct agg_snapshot *snap, struct model *m);

/* Whether live spec id of s attaches probe p (a glob attaches several). */
bool conmodel_spec_covers(const struct session *s, int id,
			  const struct model_probe *p);

/*
 * The live specs that attach probe p, into ids[0..max); returns how
 * many. Specs attached only for another's needs (helpers) count only
 * when nothing else attaches it (removing the other removes them).
 */
int conmodel_probe_specs(const struct session *s, const struct model_probe *p,
			 int *ids, int max);

/* Every process with USDT probes, for the picker. 0 or -ENOMEM. */
int conmodel_procs(struct conmodel *cm, const struct ps_list *sets,
		   struct model *m);

#endif
