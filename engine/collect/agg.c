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
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aggorder.h"
#include "aggpriv.h"
#include "aggread.h"
#include "aggrows.h"
#include "budget.h"
#include "phpframe.h"
#include "pyframe.h"
#include "rbframe.h"
#include "cost.h"
#include "log.h"
#include "mixstack.h"
#include "stackname.h"
#include "symbolize.h"

/* Hits counted while the meter's window is open: which shared a trap
 * with another spec's, whatever the budget (off, it counts none). */
static void meter_hits(struct agg *agg)
{
	tracer_count_hits(agg->tr, TRACER_HITS_METER,
			  cost_in_window(agg->cost));
}

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
					       maps.nmaps_lost, agg->sym,
					       tracer_objcache(tr))
			       : NULL;
	if (agg->stacks)
		stackname_java(agg->stacks, tracer_jvmframe(tr));
	agg->mix = agg->stacks ? mixstack_new(maps.mixstacks, maps.pystacks,
					      agg->stacks, tracer_pyframe(tr))
			       : NULL;
	agg->aprev = calloc((size_t)PT_MAX_SPECS * PT_ASLOTS * agg->ncpu,
			    sizeof(*agg->aprev));
	if (!agg->keys || !agg->vals || !agg->specs || !agg->sym ||
	    !agg->stacks || !agg->mix || !agg->aprev) {
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
	cost_target_cpu(agg->cost, budget_cputime(agg->budget));
	meter_hits(agg);
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
	free(agg->order_next);
	free(agg->order_tmp[0]);
	free(agg->order_tmp[1]);
	free(agg->order_tmp[2]);
	free(agg->io);
	free(agg->proc);
	mixstack_free(agg->mix);
	stackname_free(agg->stacks);
	symbolizer_free(agg->sym);
	budget_free(agg->budget);
	if (agg->tr)
		tracer_count_hits(agg->tr, TRACER_HITS_METER, false);
	cost_free(agg->cost);
	free(agg->keys);
	free(agg->vals);
	free(agg->aprev);
	free(agg->walk.counts);
	free(agg->walk.hists);
	free(agg);
}

/* Take the names the kernel sent of what it saw first (Python code
 * objects, stacks), so that rows read next are named. */
static void take_names(struct agg *agg)
{
	pyframe_drain(tracer_pyframe(agg->tr));
	phpframe_drain(tracer_phpframe(agg->tr));
	rbframe_drain(tracer_rbframe(agg->tr));
	stackname_drain(agg->stacks);
}

void agg_tick(struct agg *agg)
{
	struct cost_progs progs;

	if (!agg)
		return;
	tracer_cost_progs(agg->tr, &progs); /* pt_profile loads late */
	cost_add_progs(agg->cost, &progs);
	cost_tick(agg->cost);
	meter_hits(agg);
	budget_tick(agg->budget);
	tracer_profile_tick(agg->tr);
	take_names(agg);
}

double agg_wake_s(const struct agg *agg)
{
	double b = budget_wake_s(agg->budget),
	       p = tracer_profile_wake_s(agg->tr);

	return b < 0 || (p >= 0 && p < b) ? p : b;
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

/* A spec's events stand for what e says: this interval's and, since
 * attach, the estimate ev_est with variance ev_var, kept per spec id;
 * drops are counted, not estimated. Returns this interval's lower bound
 * of its events. */
static uint64_t estimate_events(struct agg *agg, struct agg_spec *as,
				const struct budget_est *e)
{
	double now = (double)(as->events - as->drops), est, sys, var, lo;
	int id = as->id;

	budget_row(e, now, &est, &sys, &var, &lo);
	agg->ev_est[id] += est;
	agg->ev_sys[id] += sys;
	agg->ev_var[id] += var;
	agg->ev_lo[id] += lo;
	as->events_mark = (unsigned char)agg_mark_of(est, sys, var);
	if (as->events_mark == AGG_ESTIMATE)
		as->events = as->drops + (uint64_t)(est + 0.5);
	else if (as->events_mark == AGG_BOUND)
		as->events = as->drops + (uint64_t)lo;
	as->events_mark_total = (unsigned char)agg_mark_of(
		agg->ev_est[id], agg->ev_sys[id], agg->ev_var[id]);
	if (as->events_mark_total == AGG_ESTIMATE)
		as->events_total =
			as->drops_total + (uint64_t)(agg->ev_est[id] + 0.5);
	else if (as->events_mark_total == AGG_BOUND)
		as->events_total = as->drops_total + (uint64_t)agg->ev_lo[id];
	return as->drops + (uint64_t)lo;
}

/* End the read: each row and spec shows what the budget says its counts
 * stand for (exact, estimated or a lower bound), and which specs were
 * sampled. The cost meter has priced the hits as counted before. */
static void estimate(struct agg *agg, struct agg_snapshot *snap, double secs)
{
	struct budget_est est[PT_MAX_SPECS];
	uint64_t raw = 0, raw_total = 0; /* lower bounds */

	budget_interval(agg->budget, est, PT_MAX_SPECS);
	snap->budget_pct = budget_pct(agg->budget);
	snap->sampled = 0;

	snap->events = snap->events_total = 0;
	snap->events_mark = snap->events_mark_total = AGG_EXACT;
	agg->shown = false;
	for (size_t s = 0; s < snap->nspecs; s++) {
		struct agg_spec *as = &agg->specs[s];
		const struct budget_est *e = &est[as->id];
		int id = as->id;

		if (agg->est_gen[id] != as->info->gen) {
			agg->est_gen[id] = as->info->gen;
			agg->est_total[id] = false;
			agg->ev_est[id] = agg->ev_sys[id] = agg->ev_var[id] = 0;
			agg->ev_lo[id] = 0;
			agg->on_s[id] = agg->live_s[id] = 0;
		}
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
		for (size_t i = 0; i < as->nrows; i++) {
			if (i + AGG_AHEAD < as->nrows)
				aggrows_prefetch(
					arow_of(as->rows[i + AGG_AHEAD]));
			agg->shown |= aggrows_show(
				arow_of(as->rows[i]),
				arow_of(as->rows[i])->stamp == agg->interval,
				e);
		}
		/* the lower bounds add up to one; estimates may not */
		raw += estimate_events(agg, as, e);
		raw_total += as->drops_total + (uint64_t)agg->ev_lo[id];
		snap->events += as->events;
		snap->events_total += as->events_total;
		if (as->events_mark > snap->events_mark)
			snap->events_mark = as->events_mark;
		if (as->events_mark_total > snap->events_mark_total)
			snap->events_mark_total = as->events_mark_total;
	}
	if (snap->events_mark == AGG_BOUND)
		snap->events = raw;
	if (snap->events_mark_total == AGG_BOUND)
		snap->events_total = raw_total;
}

/* The live specs into snap, without rows or counts yet. */
static void list_specs(struct agg *agg, struct agg_snapshot *snap)
{
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
			.duty = 1,
			.duty_total = 1,
		};
	}
	snap->specs = agg->specs;
}

const struct agg_snapshot *agg_empty(struct agg *agg)
{
	struct agg_snapshot *snap = &agg->snap;

	if (agg->interval)
		return snap;
	list_specs(agg, snap);
	snap->budget_pct = budget_pct(agg->budget);
	return snap;
}

const struct agg_snapshot *agg_read(struct agg *agg)
{
	return agg_read_step(agg, INFINITY);
}

/* The CLOCK_MONOTONIC second now. */
static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const struct agg_snapshot *agg_read_step(struct agg *agg, double step_s)
{
	struct agg_snapshot *snap = &agg->snap;
	struct tracer_maps maps;
	struct timespec now;
	double was;
	int err;

	tracer_maps(agg->tr, &maps);
	if (!agg->walk.on) /* name what is new first */
		take_names(agg);
	err = aggread_walk(agg, &maps, mono_s() + step_s);
	if (err > 0) {
		errno = EAGAIN;
		return NULL;
	}
	if (!err) {
		for (size_t i = 0; i < agg->nrows && agg->shown; i++) {
			if (i + AGG_AHEAD < agg->nrows)
				aggrows_prefetch(agg->rows[i + AGG_AHEAD]);
			aggrows_raw(agg->rows[i]);
		}
		err = aggread_rows(agg, &maps);
	}
	if (err) {
		log_msg(LOG_ERROR, "cannot read the BPF maps: %s",
			strerror(-err));
		errno = -err;
		return NULL;
	}
	list_specs(agg, snap);
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
	tracer_unwind(agg->tr, &snap->unwind);
	aggorder_io(agg->io, agg->nio);
	snap->specs = agg->specs;
	snap->io = agg->io;
	snap->nio = agg->nio;
	aggorder_proc(agg->proc, agg->nproc);
	snap->proc = agg->proc;
	snap->nproc = agg->nproc;
	cost_fill(agg->cost, snap, agg->specs);
	meter_hits(agg);
	snap->interval = ++agg->interval;
	clock_gettime(CLOCK_MONOTONIC, &now);
	was = snap->elapsed_s;
	snap->elapsed_s = (double)(now.tv_sec - agg->start.tv_sec) +
			  (double)(now.tv_nsec - agg->start.tv_nsec) / 1e9;
	/* after the cost, which counts the hits there were */
	estimate(agg, snap, snap->elapsed_s - was);
	return snap;
}
