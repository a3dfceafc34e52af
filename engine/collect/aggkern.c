// SPDX-License-Identifier: MIT
/*
 * aggkern — the rows the kernel keeps by itself: IO by process and class,
 * process events by process, event, code and name; see aggkern.h. They
 * are few: plain arrays, searched linearly.
 */
#include "aggkern.h"

#include <stdlib.h>
#include <string.h>

#include "aggpriv.h"

/* The IO row of k, added (zeroed) if new; NULL if out of memory. */
static struct agg_io_row *io_row(struct agg *agg, const struct pt_io_key *k)
{
	for (size_t i = 0; i < agg->nio; i++)
		if (agg->io[i].pid == k->pid && agg->io[i].cls == (int)k->cls)
			return &agg->io[i];
	if (agg->nio == agg->capio) {
		size_t cap = agg->capio ? agg->capio * 2 : 32;
		struct agg_io_row *io = realloc(agg->io, cap * sizeof(*io));

		if (!io)
			return NULL;
		agg->io = io;
		agg->capio = cap;
	}
	memset(&agg->io[agg->nio], 0, sizeof(agg->io[0]));
	agg->io[agg->nio].pid = k->pid;
	agg->io[agg->nio].cls = (int)k->cls;
	return &agg->io[agg->nio++];
}

/*
 * For values made only of 64-bit counters (struct pt_io_val,
 * struct pt_proc_val) of size bytes: sum the per-CPU copies in vals,
 * set *now to the sum minus *total and *total to the sum.
 */
_Static_assert(sizeof(struct pt_io_val) % sizeof(uint64_t) == 0 &&
		       sizeof(struct pt_proc_val) % sizeof(uint64_t) == 0,
	       "IO and process values are 64-bit counters");

static void counters_delta(const struct agg *agg, const void *vals, size_t size,
			   void *now, void *total)
{
	size_t nw = size / sizeof(uint64_t);
	uint64_t *n = now, *t = total;

	for (size_t w = 0; w < nw; w++) {
		uint64_t sum = 0;

		for (int c = 0; c < agg->ncpu; c++)
			sum += ((const uint64_t *)((const uint8_t *)vals +
						   c * agg_round8(size)))[w];
		n[w] = sum - t[w];
		t[w] = sum;
	}
}

void aggkern_io_entry(struct agg *agg, const void *key, const void *vals)
{
	struct agg_io_row *r = io_row(agg, key);

	if (r)
		counters_delta(agg, vals, sizeof(r->now), &r->now, &r->total);
}

/* The process row of k, added (zeroed) if new; NULL if out of memory. */
static struct agg_proc_row *proc_row(struct agg *agg,
				     const struct pt_proc_key *k)
{
	struct agg_proc_row *r;

	for (size_t i = 0; i < agg->nproc; i++) {
		r = &agg->proc[i];
		if (r->pid == k->pid && r->event == (int)k->event &&
		    r->code == k->code &&
		    !strncmp(r->name, k->name, sizeof(r->name)))
			return r;
	}
	if (agg->nproc == agg->capproc) {
		size_t cap = agg->capproc ? agg->capproc * 2 : 32;

		r = realloc(agg->proc, cap * sizeof(*r));
		if (!r)
			return NULL;
		agg->proc = r;
		agg->capproc = cap;
	}
	r = &agg->proc[agg->nproc++];
	memset(r, 0, sizeof(*r));
	r->pid = k->pid;
	r->event = (int)k->event;
	r->code = k->code;
	memcpy(r->name, k->name, sizeof(r->name));
	r->name[sizeof(r->name) - 1] = '\0';
	return r;
}

void aggkern_proc_entry(struct agg *agg, const void *key, const void *vals)
{
	struct agg_proc_row *r = proc_row(agg, key);

	if (r)
		counters_delta(agg, vals, sizeof(r->now), &r->now, &r->total);
}
