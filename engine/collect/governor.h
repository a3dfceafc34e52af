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
 * its hits per second while it was attached in the last slot times what
 * one hit costs (cost.h), in ns of CPU per second. Every probe of a spec
 * counts: a latency pair's start and end are two hits.
 *
 * The budget is a rate with a reserve (a token bucket): what tracing
 * spent below the budget is kept, up to GOV_BURST_S seconds' worth, and a
 * slot may spend it, so a short burst (an interpreter's start-up, a
 * collection) is counted whole while a lasting one is cut in the slot
 * after it began (or sooner: gov_room_ns()); what a slot spent over
 * its share is paid back by the next ones.
 *
 * Water-filling: the room of the next slot, less what cannot be sampled
 * (a spec another needs; the kernel-side programs are not the target's:
 * they run at tracepoints of every process, cost.h), is
 * shared so that every spec whose price is under a common level L is
 * attached all the time (exact), and each costlier one for L / price of
 * the slot (at least GOV_MIN_DUTY): the cheap stay exact, the costliest
 * are cut most. Preferred specs (those whose rows the user reads first:
 * Top's) share first, up to GOV_PREFER of the room, and the others what
 * they left: a flood of another role is cut before them.
 */
#ifndef PROBETOP_GOVERNOR_H
#define PROBETOP_GOVERNOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GOV_SLOT_S 0.2 /* duty-cycle period: five windows a second */
#define GOV_CHECK_S 0.02 /* a whole slot's spending looked at this often */
#define GOV_FIRST_S 0.02 /* the first slot, every spec attached */
#define GOV_MIN_DUTY 0.02 /* 2 ms of a slot: a rate is still measured */
#define GOV_BURST_S 1.0 /* the reserve: the budget of this long */
#define GOV_FULL 0.9 /* a duty above it is taken as 1 (no flapping) */
#define GOV_FLOOR 0.1 /* of the budget, for the cheap whatever is owed */
#define GOV_PREFER 0.8 /* of the room, the preferred specs' at most */

/* One spec in the slot that ended, by spec id. */
struct gov_in {
	bool live; /* a spec (else the rest is ignored, its state reset) */
	bool fixed; /* may not be sampled: its price is spent regardless */
	bool preferred; /* shares the room first (GOV_PREFER) */
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
	double level; /* the last slot's L of the others, ns/s; < 0:
			 nothing of theirs was cut */
	double reserve; /* ns of CPU kept for bursts (< 0: owed) */
	double room_ns; /* what the slot under way may spend (gov_room_ns) */
};

/* A fresh governor: every price unknown, the reserve full when the
 * first slot ends. */
void gov_init(struct gov *g);

/*
 * The slot that ended, slot_s long, measured in[0..n) (index: spec id;
 * n <= 256); budget_ns: ns of CPU a second tracing may take from the
 * target (< 0: no budget). Into
 * duty[0..n): the share of the next slot (GOV_SLOT_S) each spec is to be
 * attached, in [GOV_MIN_DUTY, 1] (1 for the fixed, and for every spec
 * without a budget). Returns how many specs got less than 1.
 */
size_t gov_slot(struct gov *g, const struct gov_in *in, size_t n, double slot_s,
		double budget_ns, double *duty);

/* What the slot gov_slot() began may spend (ns of CPU, every spec's
 * hits; < 0: no budget): when the specs attached whole spend more before
 * the slot ends, the caller cuts them there and then (a burst). */
double gov_room_ns(const struct gov *g);

#endif
