// SPDX-License-Identifier: MIT
/*
 * replaymodel — the views' model from a recording; see replaymodel.h.
 */
#include "replaymodel.h"

#include <stdlib.h>
#include <string.h>

#include "inert.h"
#include "session.h"

struct replaymodel {
	struct ps_list sets; /* the installed probesets, for the roles */
	bool have_sets;
	struct model_pidcmd *pidcmds;
	size_t npidcmds, cap;
	struct model_probe *probes; /* the recorded list, with its states */
	size_t capprobes;
	struct replay *rp; /* probes()'s, for recorded_spec() */
	const struct agg_snapshot *snap;
};

struct replaymodel *replaymodel_new(void)
{
	struct replaymodel *rm = calloc(1, sizeof(*rm));

	if (rm)
		rm->have_sets =
			!probesets_load(NULL, NULL, &rm->sets, NULL, NULL);
	return rm;
}

void replaymodel_free(struct replaymodel *rm)
{
	if (!rm)
		return;
	if (rm->have_sets)
		probesets_free(&rm->sets);
	free(rm->pidcmds);
	free(rm->probes);
	free(rm);
}

/* The probeset's spec of section.name that was recorded as text: the
 * alternative of that text, else the first. */
static const struct ps_spec *role_spec(const struct probeset *ps,
				       const char *section, const char *name,
				       const char *text)
{
	const struct ps_spec *first = probeset_spec(ps, section, name);

	for (const struct ps_spec *r = first; r; r = probeset_next_alt(ps, r))
		if (!strcmp(r->spec.text, text))
			return r;
	return first;
}

/* Spec i of snap as a role if it was one: its probeset's; false if it
 * was not a probeset's. */
static bool origin_role(struct replaymodel *rm, struct replay *rp,
			const struct agg_snapshot *snap, size_t i,
			struct record_origin *o, struct model_role *r)
{
	replay_origin(rp, i, o);
	if (!o->probeset[0])
		return false;
	*r = (struct model_role){ .id = snap->specs[i].id };
	r->ps = rm->have_sets ? probesets_find(&rm->sets, o->probeset) : NULL;
	if (r->ps)
		r->spec = role_spec(r->ps, o->section, o->role,
				    snap->specs[i].spec->text);
	return true;
}

/* The first spec recorded as section.name, or none (id -1). */
static struct model_role role(struct replaymodel *rm, struct replay *rp,
			      const struct agg_snapshot *snap,
			      const char *section, const char *name)
{
	struct model_role r = { .id = -1 };
	struct record_origin o;

	for (size_t i = 0; i < snap->nspecs; i++)
		if (origin_role(rm, rp, snap, i, &o, &r) &&
		    !strcmp(o.section, section) && !strcmp(o.role, name))
			return r;
	return (struct model_role){ .id = -1 };
}

/* The specs recorded from a probeset's [io] section, in order. */
static void io_roles(struct replaymodel *rm, struct replay *rp,
		     const struct agg_snapshot *snap, struct model *m)
{
	struct record_origin o;
	struct model_role r;
	int n = 0;

	for (size_t i = 0; i < snap->nspecs && n < MODEL_IO_ROLES; i++)
		if (origin_role(rm, rp, snap, i, &o, &r) &&
		    !strcmp(o.section, "io") && r.spec)
			m->io_roles[n++] = r;
	for (; n < MODEL_IO_ROLES; n++)
		m->io_roles[n] = (struct model_role){ .id = -1 };
}

/* -b: each pid with a row named by the command recorded for it. */
static void pidcmds(struct replaymodel *rm, struct replay *rp,
		    const struct agg_snapshot *snap, struct model *m)
{
	for (size_t i = 0; i < snap->nspecs; i++) {
		for (size_t k = 0; k < snap->specs[i].nrows; k++) {
			uint32_t pid = snap->specs[i].rows[k]->pid;
			size_t at =
				model_pidcmd_at(rm->pidcmds, rm->npidcmds, pid);
			struct model_pidcmd *v = rm->pidcmds;

			if (at < rm->npidcmds && v[at].pid == pid)
				continue;
			if (rm->npidcmds == rm->cap) {
				size_t cap = rm->cap ? 2 * rm->cap : 64;

				v = realloc(rm->pidcmds, cap * sizeof(*v));
				if (!v)
					return;
				rm->pidcmds = v;
				rm->cap = cap;
			}
			memmove(v + at + 1, v + at,
				(rm->npidcmds++ - at) * sizeof(*v));
			v[at].pid = pid;
			inert_str(v[at].cmd, sizeof(v[at].cmd),
				  replay_command(rp, pid));
		}
	}
	m->pidcmds = rm->pidcmds;
	m->npidcmds = rm->npidcmds;
}

/* spec_first_cover()'s spec i: snap's, the user's own unless it was
 * recorded as a probeset's */
static const struct spec *recorded_spec(void *ctx, int i, bool *own)
{
	const struct replaymodel *rm = ctx;
	struct record_origin o;

	replay_origin(rm->rp, (size_t)i, &o);
	*own = !o.probeset[0];
	return rm->snap->specs[i].spec;
}

/* The recorded probe list in force at the interval shown, each probe
 * on if a recorded spec covers it (as conmodel.c says it live), with
 * that spec's events. A recording without one lists no probes and
 * counts its specs as the probes on. */
static void probes(struct replaymodel *rm, struct replay *rp,
		   const struct agg_snapshot *snap, struct model *m)
{
	size_t n;
	const struct record_probe *v = replay_probes(rp, &n);

	m->nprobes = m->probes_on = 0;
	m->probes = NULL;
	m->no_probe_list = !v;
	if (v && n > rm->capprobes) {
		struct model_probe *grown =
			realloc(rm->probes, n * sizeof(*grown));

		if (grown) {
			rm->probes = grown;
			rm->capprobes = n;
		}
	}
	if (!v || n > rm->capprobes) {
		m->probes_total = m->probes_on = snap->nspecs;
		return;
	}
	rm->rp = rp;
	rm->snap = snap;
	for (size_t i = 0; i < n; i++) {
		struct model_probe *p = &rm->probes[i];
		int k;

		*p = (struct model_probe){
			.object = v[i].object,
			.provider = v[i].provider,
			.name = v[i].name,
			.args = v[i].args,
			.nargs = (int)v[i].nargs,
			.semaphore = v[i].semaphore,
			.nlocs = v[i].nlocs,
		};
		k = spec_first_cover((int)snap->nspecs, recorded_spec, rm,
				     p->object, p->provider, p->name, false,
				     &p->console_spec);
		p->spec_id = k < 0 ? -1 : snap->specs[k].id;
		if (k >= 0) {
			p->hits = snap->specs[k].events;
			p->hits_total = snap->specs[k].events_total;
		}
		m->probes_on += k >= 0;
	}
	m->probes = rm->probes;
	m->nprobes = m->probes_total = n;
}

void replaymodel_update(struct replaymodel *rm, struct replay *rp,
			const struct agg_snapshot *snap, double seconds,
			struct model *m)
{
	const struct record_target *t = replay_target(rp);

	m->snap = snap;
	m->snap_s = seconds;
	m->pid = t->pid;
	m->binary_mode = t->per_pid;
	m->recorded = true;
	m->interval_s = t->interval_s;
	probes(rm, rp, snap, m);
	m->events_s = seconds > 0 ? (double)snap->events / seconds : 0;
	m->drops_total = snap->drops_total;
	m->budget_pct = snap->budget_pct;
	session_kdrops(snap, true, m->kernel_lost, sizeof(m->kernel_lost));
	m->frames_calls = role(rm, rp, snap, "frames", "calls");
	m->frames_samples = role(rm, rp, snap, "frames", "samples");
	m->frames_latency = role(rm, rp, snap, "frames", "latency");
	m->gc_pause = role(rm, rp, snap, "gc", "pause");
	m->gc_collected = role(rm, rp, snap, "gc", "collected");
	m->alloc = role(rm, rp, snap, "alloc", "objects");
	io_roles(rm, rp, snap, m);
	m->io_on = m->proc_on = t->kernel;
	m->stack_spec = "profile:99=count(ustack)";
	if (t->per_pid)
		pidcmds(rm, rp, snap, m);
}
