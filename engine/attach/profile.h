/* SPDX-License-Identifier: MIT */
/*
 * profile — profile:HZ: CPU-clock samples of the traced process.
 *
 * One software CPU-clock perf event per CPU, sampling HZ times a second
 * whatever runs there, each running pt_profile with the spec's one site
 * as BPF cookie; the site keeps the samples of the traced process (its
 * tgid: every thread, and after exec). A sample's keys are read from the
 * process (pyframe, pystack). Never sampled by the budget: HZ bounds
 * what it costs. The clocks restart at random moments, each at a rate
 * near HZ (tracer_profile_tick()), so that a target whose rhythm is in
 * step with HZ is sampled all through its cycle. Called by tracer.c
 * (tracer_add()).
 *
 * pt_profile is a program of its own type (perf_event), which the kernel
 * takes over a second to verify: the tracer loads the object without it,
 * and the first profile:HZ loads it alone, on the same maps.
 */
#ifndef PROBETOP_PROFILE_H
#define PROBETOP_PROFILE_H

struct tracer;
struct tspec;

/*
 * Attach spec id (ts, a profile:HZ spec) on every online CPU. 0, or a
 * negative errno (logged): -EINVAL for a target that is no one process
 * (-b), or when no CPU's event could be opened.
 */
int profile_attach(struct tracer *tr, struct tspec *ts, int id);

/* Close what the first profile_attach() loaded; after every link of
 * pt_profile is gone. */
void profile_free(struct tracer *tr);

#endif
