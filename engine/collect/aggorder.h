/* SPDX-License-Identifier: MIT */
/*
 * aggorder — the order of agg's snapshot (private to the agg modules, see
 * aggpriv.h): each live spec's rows grouped in agg->order and sorted by
 * this interval's count, then the total, descending; the IO rows by pid
 * and class; the process rows by pid, event, then total descending.
 * Comparators compare, never subtract.
 */
#ifndef PROBETOP_AGGORDER_H
#define PROBETOP_AGGORDER_H

#include <stddef.h>

#include "agg.h"

struct agg;

/*
 * Free the rows of removed specs (and of reused slots), then point each
 * of agg->specs[0..snap.nspecs) at its rows, sorted, and add them up into
 * its events. The last interval's order is kept when no row came, went
 * or changed in this interval and the one before; else it is mended:
 * kept if still in order, or the rows that came or moved sorted and
 * merged into it. 0 or -ENOMEM.
 */
int aggorder_rows(struct agg *agg);

/* Sort io[0..n) by pid, then class. */
void aggorder_io(struct agg_io_row *io, size_t n);

/* Sort proc[0..n) by pid, event, then total count descending. */
void aggorder_proc(struct agg_proc_row *proc, size_t n);

#endif
