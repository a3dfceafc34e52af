// SPDX-License-Identifier: MIT
/*
 * agg — map totals to per-interval snapshots; see agg.h.
 *
 * A read runs in steps of their own modules, which share struct agg
 * through the private aggpriv.h: aggread walks the maps (batch lookups,
 * per-CPU values summed) and hands each entry to aggrows, whose rows keep
 * the totals seen last time and so turn them into this interval's values;
 * then the live specs are listed, aggorder drops the rows of removed specs
 * and groups and sorts the others, and aggread adds the drop counters.
 * This file holds the agg's lifetime and that order of steps.
 */
#include "agg.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aggorder.h"
#include "aggpriv.h"
#include "aggread.h"
#include "aggrows.h"
#include "budget.h"
#include "pyframe.h"
#include "cost.h"
#include "log.h"
#include "stackname.h"
#include "symbolize.h"

struct agg *agg_new(struct tracer *tr)
{
	struct agg *agg = calloc(1, sizeof(*agg));
	struct tracer_maps maps;
	struct cost_progs progs;
	size_t vsz;

	if (!agg)
		return NULL;
	agg->tr = tr;
	agg->ncpu = libbpf_num_possible_cpus();
	if (agg->ncpu < 1)
		agg->ncpu = 1;
	vsz = agg_round8(sizeof(struct pt_io_val));
	if (vsz < agg_round8(sizeof(struct pt_hist)))
		vsz = agg_round8(sizeof(struct pt_hist));
	agg->keys = malloc(AGG_BATCH * sizeof(struct pt_key));
	agg->vals = malloc(AGG_BATCH * vsz * (size_t)agg->ncpu);
	agg->specs = calloc(PT_MAX_SPECS, sizeof(*agg->specs));
	agg->sym = symbolizer_new(tracer_objcache(tr));
	tracer_maps(tr, &maps);
	agg->stacks = agg->sym ? stackname_new(maps.nstacks, maps.nmaps,
					       maps.nmaps_lost, agg->sym)
			       : NULL;
	agg->aprev = calloc((size_t)PT_MAX_SPECS * PT_ASLOTS * agg->ncpu,
			    sizeof(*agg->aprev));
	if (!agg->keys || !agg->vals || !agg->specs || !agg->sym ||
	    !agg->stacks || !agg->aprev) {
		agg_free(agg);
		errno = ENOMEM;
		return NULL;
	}
	tracer_cost_progs(tr, &progs);
	agg->cost = cost_new(&progs, tracer_target_pid(tr));
	agg->budget = agg->cost ? budget_new(tr, agg->cost, -1) : NULL;
	if (!agg->budget) {
		agg_free(agg);
		errno = ENOMEM;
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &agg->start);
	return agg;
}

void agg_free(struct agg *agg)
{
	if (!agg)
		return;
	for (size_t i = 0; i < agg->nrows; i++)
		aggrows_free_row(agg->rows[i]);
	free(agg->rows);
	free(agg->slots);
	free(agg->specs);
	free(agg->order);
	free(agg->io);
	free(agg->proc);
	stackname_free(agg->stacks);
	symbolizer_free(agg->sym);
	budget_free(agg->budget);
	cost_free(agg->cost);
	free(agg->keys);
	free(agg->vals);
	free(agg->aprev);
	free(agg);
}

void agg_tick(struct agg *agg)
{
	if (!agg)
		return;
	cost_tick(agg->cost);
	budget_tick(agg->budget);
	pyframe_drain(tracer_pyframe(agg->tr));
	stackname_drain(agg->stacks);
}

double agg_wake_s(const struct agg *agg)
{
	return budget_wake_s(agg->budget);
}

void agg_set_budget(struct agg *agg, double pct)
{
	budget_set(agg->budget, pct);
}

double agg_budget(const struct agg *agg)
{
	return budget_pct(agg->budget);
}

size_t agg_sampled(const struct agg *agg, int *costliest)
{
	return budget_sampled(agg->budget, costliest);
}

/* The cost meter prices the hits there were: events_total as counted,
 * without what estimate() added in earlier intervals. */
static void counted_totals(struct agg *agg, struct agg_snapshot *snap)
{
	for (size_t s = 0; s < snap->nspecs; s++) {
		struct agg_spec *as = &agg->specs[s];

		if (agg->est_gen[as->id] != as->info->gen)
			continue; /* new: nothing added */
		as->events_total -= agg->est_extra[as->id];
		snap->events_total -= agg->est_extra[as->id];
	}
}

/* Make the rows of each spec the budget sampled this interval estimates
 * (their events too), and say which specs are estimated. */
static void estimate(struct agg *agg, struct agg_snapshot *snap, double secs)
{
	struct budget_est est[PT_MAX_SPECS];

	budget_interval(agg->budget, est, PT_MAX_SPECS);
	snap->budget_pct = budget_pct(agg->budget);
	snap->sampled = 0;
	for (size_t s = 0; s < snap->nspecs; s++) {
		struct agg_spec *as = &agg->specs[s];
		const struct budget_est *e = &est[as->id];
		int id = as->id;

		if (agg->est_gen[id] != as->info->gen) {
			agg->est_gen[id] = as->info->gen;
			agg->est_total[id] = false;
			agg->est_extra[id] = 0;
			agg->on_s[id] = agg->live_s[id] = 0;
		}
		/* back to the rows' totals (counted_totals() took it out) */
		as->events_total += agg->est_extra[id];
		snap->events_total += agg->est_extra[id];
		as->duty = e->duty;
		as->estimated = e->estimated;
		agg->est_total[id] |= e->estimated;
		as->estimated_total = agg->est_total[id];
		agg->on_s[id] += e->duty * secs;
		agg->live_s[id] += secs;
		as->duty_total = agg->live_s[id] > 0
					 ? agg->on_s[id] / agg->live_s[id]
					 : 1;
		snap->sampled += e->estimated;
		if (!e->estimated)
			continue;
		snap->events -= as->events;
		snap->events_total -= as->events_total;
		agg->est_extra[id] -= as->events; /* less the counted ones */
		as->events = as->drops;
		as->events_total = as->drops_total;
		for (size_t i = 0; i < as->nrows; i++) {
			struct arow *r =
				(struct arow *)((char *)as->rows[i] -
						offsetof(struct arow, row));

			aggrows_scale(r, e->factor);
			as->events += r->row.count;
			as->events_total += r->row.total;
		}
		agg->est_extra[id] += as->events;
		snap->events += as->events;
		snap->events_total += as->events_total;
	}
}

const struct agg_snapshot *agg_read(struct agg *agg)
{
	struct agg_snapshot *snap = &agg->snap;
	struct tracer_maps maps;
	struct timespec now;
	double was;
	int err;

	tracer_maps(agg->tr, &maps);
	pyframe_drain(tracer_pyframe(agg->tr)); /* name what is new first */
	err = aggread_rows(agg, &maps);
	if (err) {
		log_msg(LOG_ERROR, "cannot read the BPF maps: %s",
			strerror(-err));
		errno = -err;
		return NULL;
	}
	snap->nspecs = 0;
	for (int id = 0; id < tracer_nspecs(agg->tr); id++) {
		const struct tracer_spec_info *info =
			tracer_spec_info(agg->tr, id);

		if (!info)
			continue;
		agg->specs[snap->nspecs++] = (struct agg_spec){
			.id = id,
			.spec = info->spec,
			.info = info,
			.capacity = aggread_capacity(agg, info),
		};
	}
	if (aggorder_rows(agg)) {
		errno = ENOMEM;
		return NULL;
	}
	snap->events = snap->events_total = snap->drops = snap->drops_total = 0;
	for (size_t s = 0; s < snap->nspecs; s++) {
		struct agg_spec *as = &agg->specs[s];

		aggread_stats(agg, as);
		snap->events += as->events;
		snap->events_total += as->events_total;
		snap->drops += as->drops;
		snap->drops_total += as->drops_total;
	}
	aggread_kdrops(agg, maps.kdrops, snap);
	counted_totals(agg, snap);
	aggorder_io(agg->io, agg->nio);
	snap->specs = agg->specs;
	snap->io = agg->io;
	snap->nio = agg->nio;
	aggorder_proc(agg->proc, agg->nproc);
	snap->proc = agg->proc;
	snap->nproc = agg->nproc;
	cost_fill(agg->cost, snap, agg->specs);
	snap->interval = ++agg->interval;
	clock_gettime(CLOCK_MONOTONIC, &now);
	was = snap->elapsed_s;
	snap->elapsed_s = (double)(now.tv_sec - agg->start.tv_sec) +
			  (double)(now.tv_nsec - agg->start.tv_nsec) / 1e9;
	/* after the cost, which counts the hits there were */
	estimate(agg, snap, snap->elapsed_s - was);
	return snap;
}
