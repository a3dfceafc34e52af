// SPDX-License-Identifier: MIT
/*
 * profile — profile:HZ on every CPU; see profile.h.
 */
#include "profile.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "cputime.h"
#include "lateload.h"
#include "siteprog.h"
#include "log.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "tracer_state.h"

/*
 * A clock that ticks every period ns in step with a target that does the
 * same every so many ms would sample it always at the same moment of its
 * cycle. So the clocks restart at random moments (gaps of PROF_GAP_S on
 * average, give or take half), each at a rate of HZ give or take
 * PROF_JITTER: no rhythm of the target stays in step for long, and
 * within a gap the clock drifts through the target's cycle. Each gap is
 * about one draw of the phase, so that a run's samples scatter as if
 * there were as many as its gaps: with gaps of 1 s, a 2 s CPython run
 * (work312.py: 2 ms asleep every 6 ms) read 0.79 to 1.14 of 99 a CPU
 * second over 10 runs, twice a Poisson count's spread, and trace_truth's
 * pyenv-3.12 check failed 1 run in about 10; with gaps of 0.2 s, 0.87 to
 * 1.08 (2026-12-06), and node's, Python's, PHP's and Java's 3:1 splits
 * hold at 74 to 77%. Within a gap a clock whose rate is near the
 * target's rhythm still samples it at about one moment of its cycle:
 * with gaps of 0.2 s and rates within 10%, trace_stacks' fixture (a
 * fifth of every 1/99 s) read 182 to 244 samples for 198 (272 once in
 * CI61), a spread of 22 by simulation against a Poisson count's 14;
 * with gaps of 0.1 s and rates within 20%, 15.6, while a steady target's
 * count spreads by 6 instead of 4 in 2 s. A restart
 * puts the next sample a whole period away, half a period later than it
 * would have come on average: the clocks run faster by 1 / (2 gap) so
 * that they sample HZ times a second on average (a spinning fixture:
 * 393 to 404 samples in 4 s at 99).
 */
#define PROF_GAP_S 0.1
#define PROF_GAP_PERIODS 8 /* a gap at least this many periods long */
#define PROF_JITTER 0.2

/* The average gap between restarts, for the slowest clock of tr. */
static double gap_s(const struct tracer *tr)
{
	double g = PROF_GAP_S;

	for (int id = 0; id < tr->nspecs; id++) {
		const struct tspec *ts = &tr->specs[id];
		int hz = ts->spec.probe[0].hz;

		if (ts->used && hz > 0 && (double)PROF_GAP_PERIODS / hz > g)
			g = (double)PROF_GAP_PERIODS / hz;
	}
	return g;
}

/* A period for a clock of hz samples a second, given the gaps: jitter in
 * [-1, 1] moves its rate by that many PROF_JITTERs. In ns. */
static uint64_t period_ns(int hz, double gap, double jitter)
{
	double f = (hz + 1 / (2 * gap)) * (1 + PROF_JITTER * jitter);

	return (uint64_t)(1e9 / f);
}

/* A CPU-clock event on cpu, one sample every period ns. fd or -errno. */
static int open_clock(int cpu, uint64_t period)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = period,
	};
	long fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

/* The profile programs by walker family (siteprog_family()). */
_Static_assert(SITEPROG_WALKS + 1 <= LATESET_MAX, "a set holds them all");
static const char *const PROF_PROGS[SITEPROG_WALKS + 1] = {
	"pt_prof",    "pt_prof_py",	"pt_prof_php",
	"pt_prof_rb", "pt_prof_native", "pt_profile",
};

/* The program ts's samples run, loaded at the first spec that needs it:
 * the walkers its keys need, none more. NULL with errno (logged). */
static struct bpf_program *profile_prog(struct tracer *tr,
					const struct tspec *ts)
{
	return lateset_get(tr, &tr->profs, siteprog_family(&ts->spec), false);
}

void profile_fds(const struct tracer *tr, int *fds)
{
	lateset_fds(&tr->profs, fds);
}

void profile_defer(struct tracer *tr)
{
	lateset_defer(tr, &tr->profs, PROF_PROGS, SITEPROG_WALKS + 1);
}

void profile_free(struct tracer *tr)
{
	lateset_free(&tr->profs);
}

/* The spec's one site, in the sites map. 0 or a negative errno. */
static int profile_site(struct tracer *tr, struct tspec *ts, int id,
			uint32_t *idx)
{
	const struct site_argsrc src = { .profile = true };
	struct pt_site site;
	int err = site_build(&ts->info, &ts->info_typed, (uint32_t)tr->pid, id,
			     0, &src, &site);

	return err ? err : attach_site(tr, ts, &site, idx);
}

int profile_attach(struct tracer *tr, struct tspec *ts, int id)
{
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	struct bpf_program *prog;
	uint64_t period;
	uint32_t idx;

	if (tr->kind != TRACER_PID)
		return -EINVAL; /* one process's CPU clock: its caller says */
	prog = profile_prog(tr, ts);
	if (!prog)
		return -errno;
	err = profile_site(tr, ts, id, &idx);
	if (err)
		return err;
	ts->links = calloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof(*ts->links));
	if (!ts->links)
		return -ENOMEM;
	ts->lcap = (size_t)(ncpu > 0 ? ncpu : 1);
	period = period_ns(ts->spec.probe[0].hz, gap_s(tr), 0);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = idx);
		struct bpf_link *l;
		int fd = open_clock(cpu, period);

		if (fd < 0) {
			err = fd; /* an offline CPU */
			continue;
		}
		l = bpf_program__attach_perf_event_opts(prog, fd, &opts);
		if (!l) {
			err = -errno;
			close(fd);
			continue;
		}
		ts->links[ts->nlinks++] =
			(struct tlink){ .l = { -1, l }, .clock_fd = fd };
	}
	if (!ts->nlinks) {
		tr->sites.used[idx] = 0;
		log_msg(LOG_ERROR, "%s: cannot open a CPU-clock event: %s",
			ts->spec.text, strerror(-err));
		return err ? err : -EINVAL;
	}
	ts->info.nprobes = 1;
	ts->info.nsites = 1;
	ts->info.role_sites[0] = 1;
	ts->info.exact = true; /* HZ bounds its cost: never sampled */
	if (!tr->prof_due) {
		tr->prof_seed =
			(unsigned int)getpid() ^ (unsigned int)time(NULL);
		tr->prof_due = cputime_clock_s(CLOCK_MONOTONIC) + gap_s(tr);
	}
	return 0;
}

/* A number in [0, 1) from tr's seed. */
static double uniform(struct tracer *tr)
{
	return rand_r(&tr->prof_seed) / ((double)RAND_MAX + 1);
}

void tracer_profile_tick(struct tracer *tr)
{
	double now = cputime_clock_s(CLOCK_MONOTONIC), gap;
	bool any = false;

	if (!tr->prof_due || now < tr->prof_due)
		return;
	gap = gap_s(tr);
	for (int id = 0; id < tr->nspecs; id++) {
		struct tspec *ts = &tr->specs[id];

		if (!ts->used || ts->spec.probe[0].hz <= 0)
			continue;
		any = true;
		for (size_t i = 0; i < ts->nlinks; i++) {
			uint64_t p = period_ns(ts->spec.probe[0].hz, gap,
					       2 * uniform(tr) - 1);

			if (ioctl(ts->links[i].clock_fd, PERF_EVENT_IOC_PERIOD,
				  &p))
				log_msg(LOG_DEBUG, "%s: clock period: %s",
					ts->spec.text, strerror(errno));
		}
	}
	tr->prof_due = any ? now + gap * (0.5 + uniform(tr)) : 0;
}

double tracer_profile_wake_s(const struct tracer *tr)
{
	return tr->prof_due ? tr->prof_due : -1;
}
