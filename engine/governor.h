/* SPDX-License-Identifier: MIT */
/*
 * governor — how much of each slot each spec may be attached, so that
 * what tracing takes from the targets stays under a budget.
 *
 * Pure: no clock, no BPF. budget.c calls gov_slot() at the start of
 * every slot (GOV_SLOT_S) with what the slot that just ended measured,
 * and carries out the duties it returns.
 *
 * A spec's price is what it would cost if it were attached all the time:
 * its hits per second while it was attached times what one hit costs
 * (cost.h), in ns of CPU per second. The estimate rises at once (a
 * burst is cut in the next slot) and falls by GOV_DECAY a slot (a spec
 * that went quiet for a moment is not let free at once).
 *
 * Water-filling: the budget, less what cannot be sampled (latency pairs,
 * a spec another needs, the kernel-side programs), is shared so that
 * every spec whose price is under a common level L is attached all the
 * time (exact), and each costlier one for L / price of the slot (at
 * least GOV_MIN_DUTY): the cheap stay exact, the costliest are cut most.
 */
#ifndef PROBETOP_GOVERNOR_H
#define PROBETOP_GOVERNOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GOV_SLOT_S 0.1 /* duty-cycle period: ten windows a second */
#define GOV_FIRST_S 0.02 /* the first slot, every spec attached */
#define GOV_MIN_DUTY 0.02 /* 2 ms of a slot: a rate is still measured */
#define GOV_DECAY 0.8 /* a price's fall per slot, at most */
#define GOV_FULL 0.9 /* a duty above it is taken as 1 (no flapping) */

/* One spec in the slot that ended, by spec id. */
struct gov_in {
	bool live; /* a spec (else the rest is ignored, its state reset) */
	bool fixed; /* may not be sampled: its price is spent regardless */
	uint64_t hits; /* in the slot */
	double on_s; /* seconds it was attached in the slot */
	double hit_ns; /* ns of CPU one hit costs the target */
};

/* What the governor keeps per spec id. */
struct gov_spec {
	double price; /* ns of CPU per s if attached all the time */
	bool known; /* price measured at least once */
};

struct gov {
	struct gov_spec spec[256]; /* PT_MAX_SPECS */
	double level; /* the last slot's L, ns/s; < 0: nothing was cut */
};

/* A fresh governor: every price unknown. */
void gov_init(struct gov *g);

/*
 * The slot that ended measured in[0..n) (index: spec id; n <= 256) and
 * the kernel-side programs took kernel_ns/s; budget_ns: ns of CPU per
 * second tracing may take (< 0: no budget). Into duty[0..n): the share
 * of the next slot each spec is to be attached, in [GOV_MIN_DUTY, 1] (1
 * for the fixed, and for every spec without a budget). Returns how many
 * specs got less than 1.
 */
size_t gov_slot(struct gov *g, const struct gov_in *in, size_t n,
		double kernel_ns, double budget_ns, double *duty);

#endif
