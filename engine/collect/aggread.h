/* SPDX-License-Identifier: MIT */
/*
 * aggread — reading the tracer's maps for agg (private to the agg modules,
 * see aggpriv.h): the key maps (batched), the solo and address slots, the
 * IO and process maps, the per-spec drop counters and the kernel's drops.
 * Values are summed over CPUs here; rows are updated through aggrows.
 */
#ifndef PROBETOP_AGGREAD_H
#define PROBETOP_AGGREAD_H

#include <stdint.h>

#include "agg.h"

struct agg;

/*
 * Walk the key maps of a live spec's width and kind (as they are when a
 * walk starts), batch by batch until the CLOCK_MONOTONIC second until has
 * passed (at least one batch a call), taking each entry into agg->walk
 * without changing a row a snapshot shows. 1 if there is more to walk
 * (call again), 0 when the walk is done (then aggread_rows()), or a
 * negative errno (a map could not be read; the walk is dropped).
 */
int aggread_walk(struct agg *agg, const struct tracer_maps *maps, double until);

/*
 * After a walk is done: add what it took to the rows, and read the IO
 * and process maps, the solo slots and the address slots into them.
 * 0 or a negative errno (a map could not be read).
 */
int aggread_rows(struct agg *agg, const struct tracer_maps *maps);

/*
 * as's drop, unmatched and cut counters from the stats map (tracer_stat()),
 * diffed against the last read; its drops are added to its
 * events. A counter that cannot be read leaves as as it was.
 */
void aggread_stats(struct agg *agg, struct agg_spec *as);

/* The kernel's lost IO and process records (kdrops map fd), summed over
 * CPUs, into snap with their maps' capacities and added to its drops. */
void aggread_kdrops(struct agg *agg, int fd, struct agg_snapshot *snap);

/* The keys the map of info's rows holds; 0 for a solo spec's slot. */
uint32_t aggread_capacity(const struct agg *agg,
			  const struct tracer_spec_info *info);

#endif
