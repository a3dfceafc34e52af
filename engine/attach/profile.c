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
#include <sys/syscall.h>
#include <unistd.h>

#include "attach.h"
#include "log.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "tracer_state.h"

/* A CPU-clock event on cpu, hz samples a second. fd or -errno. */
static int open_clock(int cpu, int hz)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = (unsigned long long)hz,
		.freq = 1,
	};
	long fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
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
	uint32_t idx;

	if (tr->kind != TRACER_PID)
		return -EINVAL; /* one process's CPU clock: its caller says */
	err = profile_site(tr, ts, id, &idx);
	if (err)
		return err;
	ts->links = calloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof(*ts->links));
	if (!ts->links)
		return -ENOMEM;
	ts->lcap = (size_t)(ncpu > 0 ? ncpu : 1);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = idx);
		struct bpf_link *l;
		int fd = open_clock(cpu, ts->spec.probe[0].hz);

		if (fd < 0) {
			err = fd; /* an offline CPU */
			continue;
		}
		l = bpf_program__attach_perf_event_opts(
			tr->skel->progs.pt_profile, fd, &opts);
		if (!l) {
			err = -errno;
			close(fd);
			continue;
		}
		ts->links[ts->nlinks++] = (struct tlink){ .l = { -1, l } };
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
	return 0;
}
