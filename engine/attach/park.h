/* SPDX-License-Identifier: MIT */
/*
 * park — take a spec's uprobes out for a while and put them back: the
 * off and on of the budget's duty cycle (budget.h).
 *
 * Parked, a spec costs the target nothing: no breakpoint is left at its
 * locations, and the kernel has put their USDT semaphores back (to zero
 * when nothing else holds them), so a runtime that tests its semaphore
 * (CPython) skips the probe site entirely. Its sites, attachments, keys
 * and rows stay: unparking attaches the same locations again, one link
 * per former link (uprobe_multi: one per object and role).
 *
 * From the moment a spec is parked its hits are dropped by the BPF
 * programs (a bit in pt_parked), and once it is attached again they are
 * counted from the moment its caller says (park_resume()), so what it
 * counts matches the times the budget took, whatever the kernel's attach
 * and detach take (attaching several specs takes a grace period or more
 * each: the budget attaches them all, then starts their windows at one
 * moment). Each park and each attach begins
 * a new epoch of the spec (pt_epoch), so that its latency pairs are made
 * of a start and an end of one window (engine/bpf/latency.bpf.h).
 *
 * Closing a link has the kernel wait out a grace period (some 50 ms,
 * ulink.h), so parked links are closed by background threads: parking
 * returns at once, the breakpoints are gone before close() waits, and
 * the tracer's thread never blocks on it.
 *
 * Called by tracer.c (tracer_park(), and tracer_free(), which parks every
 * spec so that their links are closed side by side); uses tracer_state.h.
 */
#ifndef PROBETOP_PARK_H
#define PROBETOP_PARK_H

#include <stdbool.h>

struct tracer;
struct ulink;
struct tspec;

/* Park ts (a no-op if it is parked): its links handed to the closers
 * (never waiting for them). 0 or a negative errno (-ENOMEM: no closers,
 * -EAGAIN: their queue full; either way closed here, waiting). */
int park_spec(struct tracer *tr, struct tspec *ts);

/* Attach parked ts again (a no-op if it is not), its hits still dropped
 * until park_resume(). While the closers have not closed its links of
 * the last park (-b: every close of a link waits for the others') it
 * stays parked: -EBUSY, or with wait until they have. A link that cannot
 * be attached again (its mapping gone) stays out for good, logged once.
 * Returns the number of links attached. */
int park_unpark(struct tracer *tr, struct tspec *ts, bool wait);

/* Count ts's hits again from now: after park_unpark(), which leaves them
 * dropped. A no-op if ts is parked or counting. */
void park_resume(struct tracer *tr, struct tspec *ts);

/* ts is being removed (its links closed by the caller): its id may
 * serve another spec, which must not start parked, and starts in epoch
 * 0 (never parked). */
void park_forget(struct tracer *tr, struct tspec *ts);

/* Close l, one of tr's own uprobe links (empty: a no-op), by the
 * closers, side by side with the specs' links: each close waits out a
 * grace period; at once, waiting, if they cannot take it. l is empty
 * then; it is closed when park_free() returns. */
void park_close_link(struct tracer *tr, struct ulink *l);

/* Wait for the closers to close what they were given, and end them. */
void park_free(struct tracer *tr);

#endif
