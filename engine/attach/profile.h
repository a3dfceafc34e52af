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
 * The samples' programs are of their own type (perf_event), one per
 * family of walkers as the sites' are (siteprog.h): pt_prof with none,
 * pt_prof_py, _php, _rb, _native, pt_profile with them all. The tracer
 * loads the object without them (profile_defer()), and the first
 * profile:HZ spec whose keys need one loads it alone, on the same maps:
 * count(pystack) verifies Python's walker only (pt_profile took the
 * kernel some 0.2 s).
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

/* Before tr's object loads: no profile program with it. */
void profile_defer(struct tracer *tr);

/* The profile programs loaded: their fds into fds[0..SITEPROG_WALKS]
 * (-1 for one not loaded). */
void profile_fds(const struct tracer *tr, int *fds);

/* Close what profile_attach() loaded; after every link of theirs is
 * gone. */
void profile_free(struct tracer *tr);

#endif
