// SPDX-License-Identifier: MIT
/*
 * cost — the cost meter; see cost.h. Its calibration, what a trap costs
 * on this machine, is calib.c.
 */
#include "cost.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cputime.h"
#include "log.h"
#include "proc.h"
#include "tracer.h"

#define MIN_RUNS 32 /* runs in a window to take its average */
#define MAX_PIDS 4096 /* -b: processes whose CPU time is followed */

/* One program's statistics at the last look. */
struct prog_seen {
	uint64_t run_ns, runs;
};

struct pid_cpu {
	pid_t pid;
	uint64_t ticks; /* CPU ns at the last look; UINT64_MAX: none */
};

struct cost {
	struct cost_progs progs;
	pid_t target;
	int stats_fd; /* BPF_ENABLE_STATS while the window is open; -1 */
	bool window; /* open: the statistics are being counted */
	bool continuous; /* kernel.bpf_stats_enabled was 1: no window */
	bool unavailable; /* no statistics at all (said once) */
	double window_t0, window_s; /* the last window's start, length */
	struct prog_seen site_at[COST_SITE_PROGS], kernel_at[COST_PROGS_MAX],
		sys_at[2];
	uint64_t syscalls_at; /* the machine's syscalls the IO watch saw, at
				 the last fill */
	double sys_run_ns; /* its programs' run time per syscall */
	double site_ns; /* smoothed ns per run of the site programs (all
			   their runs' time over their runs); 0: none */
	double prog_ns[COST_SITE_PROGS]; /* ... of each; 0: none */
	struct agg_prog win[AGG_PROGS]; /* each program's in the last
					   window, by slot (prog_slot()) */
	struct agg_prog tot[AGG_PROGS]; /* ... in every window */
	double tot_stats_s; /* the windows' time */
	double kernel_ns_per_s; /* the kernel programs' run time per second */
	uint64_t kernel_runs_window; /* their runs in the last window */
	double last_t; /* monotonic time of the last cost_fill */
	struct rusage self_at;
	struct pid_cpu *pids; /* target's (one) or -b's processes, by pid */
	const struct cputime *cpu; /* -b: its executable's processes' */
	uint64_t cpu_at; /* ... CPU time at the last fill, ns */
	size_t npids;
	uint64_t boot_ticks_at; /* clock ticks since boot at the last fill */
	double start_t; /* cost_new() */
	double sum_ns, sum_kern_ns, sum_self_ns; /* since cost_new() */
	double sum_target_ns, sum_known_ns; /* of intervals with tns known */
	bool all_measured;
};

static double pid_delta(struct cost *c, pid_t pid);
static uint64_t boot_ticks(void);

_Static_assert(AGG_PROGS >= COST_SITE_PROGS + COST_PROGS_MAX + 2,
	       "a slot for every program the meter times");

/* The slot of site program i, kernel program i, syscall program i. */
#define SLOT_SITE(i) (i)
#define SLOT_KERNEL(i) (COST_SITE_PROGS + (i))
#define SLOT_SYS(i) (COST_SITE_PROGS + COST_PROGS_MAX + (i))

double cost_prog_ns(const struct cost *c, const struct tracer_spec_info *info)
{
	int i = info ? info->site_prog : -1;

	if (i >= 0 && i < COST_SITE_PROGS && c->prog_ns[i] > 0)
		return c->prog_ns[i];
	return c->site_ns > 0 ? c->site_ns : COST_EST_PROG_NS;
}

double cost_hit_ns(const struct cost *c, const struct tracer_spec_info *info)
{
	return cost_spec_trap_ns(info) + cost_prog_ns(c, info);
}

uint64_t cost_hits(const struct agg_spec *as, bool total)
{
	uint64_t events = total ? as->events_total : as->events;
	uint64_t drops = total ? as->drops_total : as->drops;
	uint64_t recorded = events > drops ? events - drops : 0;

	if (!as->spec || as->spec->agg != SPEC_AGG_LATENCY)
		return events;
	return 2 * recorded + drops +
	       (total ? as->unmatched_total : as->unmatched) +
	       (total ? as->cut_total : as->cut);
}

double cost_pct(double ns, double seconds)
{
	return seconds > 0 ? ns / (seconds * 1e9) * 100.0 : 0;
}

double cost_share(double cost_ns, double target_ns)
{
	return target_ns > 0 ? cost_ns / target_ns * 100.0 : -1;
}

double cost_spec_ns(uint64_t hits, double trap, double prog_ns, double shared)
{
	return (double)hits * (trap * (1 - shared) + prog_ns);
}

/* Program fd's statistics into out; its name into name[16] if not
 * NULL. */
static int prog_info(int fd, struct prog_seen *out, char *name)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	out->run_ns = info.run_time_ns;
	out->runs = info.run_cnt;
	if (name)
		memcpy(name, info.name, sizeof(info.name));
	return 0;
}

static int prog_stats(int fd, struct prog_seen *out)
{
	return prog_info(fd, out, NULL);
}

/* Program fd's runs and run time since at, into window slot (and its
 * total); -1 if it cannot be read (not loaded). */
static int prog_delta(struct cost *c, int fd, const struct prog_seen *at,
		      int slot, struct prog_seen *d)
{
	struct prog_seen now;
	struct agg_prog *w = &c->win[slot], *t = &c->tot[slot];

	if (prog_info(fd, &now, w->name))
		return -1;
	memcpy(t->name, w->name, sizeof(t->name));
	d->run_ns = now.run_ns - at->run_ns;
	d->runs = now.runs - at->runs;
	w->runs = d->runs;
	w->ns = d->run_ns;
	t->runs += d->runs;
	t->ns += d->run_ns;
	return 0;
}

/* The smoothed average of ns over runs, less less a run, into *avg (if
 * runs are enough; at least 1 ns). The statistics time a program with
 * two clock reads inside it, and the calibration's trap holds an empty
 * program's run: less is what they time of that (cost_empty_run_ns()),
 * some 40 ns here, which priced every nop trap 12-17% over its cost. */
static void smooth(double *avg, uint64_t ns, uint64_t runs, double less)
{
	double a;

	if (runs < MIN_RUNS)
		return;
	a = fmax((double)ns / (double)runs - less, 1);
	*avg = *avg > 0 ? (*avg + a) / 2 : a;
}

static bool sysctl_stats_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	int v = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v == 1;
}

/* Take every program's statistics as the start of a window. */
static void mark_all(struct cost *c)
{
	for (int i = 0; i < COST_SITE_PROGS; i++)
		if (prog_stats(c->progs.site[i], &c->site_at[i]))
			c->site_at[i] = (struct prog_seen){ 0 };
	for (size_t i = 0; i < c->progs.nkernel; i++)
		if (prog_stats(c->progs.kernel[i], &c->kernel_at[i]))
			c->kernel_at[i] = (struct prog_seen){ 0 };
	for (int i = 0; i < 2; i++)
		if (prog_stats(c->progs.sys[i], &c->sys_at[i]))
			c->sys_at[i] = (struct prog_seen){ 0 };
}

/* The syscall programs' run time per syscall over the window. */
static void close_sys(struct cost *c)
{
	struct prog_seen d;
	uint64_t runs = 0, ns = 0;

	for (int i = 0; i < 2; i++) {
		if (prog_delta(c, c->progs.sys[i], &c->sys_at[i], SLOT_SYS(i),
			       &d))
			continue;
		ns += d.run_ns;
		if (i == 0)
			runs = d.runs;
	}
	if (runs >= MIN_RUNS)
		c->sys_run_ns = (double)ns / (double)runs;
}

/* The machine's syscalls the IO watch saw so far. */
static uint64_t syscalls_seen(const struct cost *c)
{
	uint64_t n = 0;

	for (int i = 0; c->progs.syscalls && i < PT_ONCPU_CPUS; i++)
		n += c->progs.syscalls[i];
	return n;
}

static void open_window(struct cost *c)
{
	c->continuous = sysctl_stats_on();
	if (!c->continuous && !c->unavailable) {
		c->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (c->stats_fd < 0) {
			c->unavailable = true;
			log_msg(LOG_WARN,
				"cost: no BPF run-time statistics (%s): "
				"taking %.0f ns a program run",
				strerror(errno), COST_EST_PROG_NS);
		}
	}
	if (c->continuous || c->stats_fd >= 0) {
		mark_all(c);
		c->window = true;
		c->window_t0 = cputime_clock_s(CLOCK_MONOTONIC);
	}
}

/* Read the statistics since the window opened and close it. */
static void close_window(struct cost *c)
{
	uint64_t site_ns = 0, site_runs = 0, kern_ns = 0, kern_runs = 0;
	struct prog_seen d;

	if (!c->window)
		return;
	c->window_s = cputime_clock_s(CLOCK_MONOTONIC) - c->window_t0;
	c->tot_stats_s += c->window_s;
	memset(c->win, 0, sizeof(c->win));
	for (int i = 0; i < COST_SITE_PROGS; i++) {
		if (prog_delta(c, c->progs.site[i], &c->site_at[i],
			       SLOT_SITE(i), &d))
			continue;
		site_ns += d.run_ns;
		site_runs += d.runs;
		smooth(&c->prog_ns[i], d.run_ns, d.runs, cost_empty_run_ns());
	}
	for (size_t i = 0; i < c->progs.nkernel; i++) {
		if (prog_delta(c, c->progs.kernel[i], &c->kernel_at[i],
			       SLOT_KERNEL((int)i), &d))
			continue;
		kern_ns += d.run_ns;
		kern_runs += d.runs;
	}
	close_sys(c);
	if (c->stats_fd >= 0)
		close(c->stats_fd);
	c->stats_fd = -1;
	c->window = false;
	smooth(&c->site_ns, site_ns, site_runs, cost_empty_run_ns());
	c->kernel_ns_per_s =
		c->window_s > 0 ? (double)kern_ns / c->window_s : 0;
	c->kernel_runs_window = c->continuous ? 0 : kern_runs;
}

struct cost *cost_new(const struct cost_progs *progs, pid_t target)
{
	struct cost *c = calloc(1, sizeof(*c));

	cost_calibrate_wait(); /* the prices, and no calibration link left */
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	c->progs = *progs;
	c->target = target;
	c->stats_fd = -1;
	c->last_t = c->start_t = cputime_clock_s(CLOCK_MONOTONIC);
	c->all_measured = true;
	getrusage(RUSAGE_SELF, &c->self_at);
	if (target > 0)
		pid_delta(c, target); /* the base of the first interval */
	c->boot_ticks_at = boot_ticks();
	open_window(c);
	return c;
}

void cost_add_progs(struct cost *c, const struct cost_progs *progs)
{
	if (!c->progs.syscalls && progs->syscalls)
		c->syscalls_at = 0; /* the counters start with the watch */
	c->progs.syscall_ns = progs->syscall_ns;
	c->progs.syscalls = progs->syscalls;
	for (int i = 0; i < COST_SITE_PROGS; i++) {
		if (c->progs.site[i] >= 0 || progs->site[i] < 0)
			continue; /* counted, or not loaded yet */
		c->progs.site[i] = progs->site[i];
		if (!c->window || prog_stats(c->progs.site[i], &c->site_at[i]))
			c->site_at[i] = (struct prog_seen){ 0 };
	}
	for (size_t i = 0; i < progs->nkernel; i++) {
		int fd = progs->kernel[i];
		size_t k = 0;

		while (k < c->progs.nkernel && c->progs.kernel[k] != fd)
			k++;
		if (k < c->progs.nkernel || k >= COST_PROGS_MAX)
			continue;
		c->progs.kernel[k] = fd;
		c->progs.nkernel++;
		if (!c->window || prog_stats(fd, &c->kernel_at[k]))
			c->kernel_at[k] = (struct prog_seen){ 0 };
	}
}

void cost_free(struct cost *c)
{
	if (!c)
		return;
	if (c->stats_fd >= 0)
		close(c->stats_fd);
	free(c->pids);
	free(c);
}

bool cost_in_window(const struct cost *c)
{
	return c && c->window;
}

void cost_tick(struct cost *c)
{
	if (c && c->window && !c->continuous &&
	    cputime_clock_s(CLOCK_MONOTONIC) - c->window_t0 >= COST_WINDOW_S)
		close_window(c);
}

static double tv_ns(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e9 + (double)tv->tv_usec * 1e3;
}

/* probetop's CPU ns since the last call. */
static double self_ns(struct cost *c)
{
	struct rusage ru;
	double ns;

	getrusage(RUSAGE_SELF, &ru);
	ns = tv_ns(&ru.ru_utime) + tv_ns(&ru.ru_stime) -
	     tv_ns(&c->self_at.ru_utime) - tv_ns(&c->self_at.ru_stime);
	c->self_at = ru;
	return ns;
}

static struct pid_cpu *find_pid(struct cost *c, pid_t pid, bool add)
{
	struct pid_cpu *p;

	for (size_t i = 0; i < c->npids; i++)
		if (c->pids[i].pid == pid)
			return &c->pids[i];
	if (!add || c->npids >= MAX_PIDS)
		return NULL;
	p = realloc(c->pids, (c->npids + 1) * sizeof(*p));
	if (!p)
		return NULL;
	c->pids = p;
	p = &c->pids[c->npids++];
	*p = (struct pid_cpu){ .pid = pid, .ticks = UINT64_MAX };
	return p;
}

/* The CPU ns pid used since the last look, or -1 if not known (first
 * seen now, but started before the last fill; gone; a thread ended). */
static double pid_delta(struct cost *c, pid_t pid)
{
	struct pid_cpu *p = find_pid(c, pid, true);
	struct proc_usage u;
	uint64_t ns;
	double d = -1;

	if (!p || proc_cpu_ns(pid, &ns))
		return -1;
	if (p->ticks != UINT64_MAX && ns >= p->ticks)
		d = (double)(ns - p->ticks);
	else if (p->ticks == UINT64_MAX && c->boot_ticks_at &&
		 !proc_usage(pid, &u) && u.start_ticks >= c->boot_ticks_at)
		d = (double)ns; /* started within the interval */
	p->ticks = ns;
	return d;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

void cost_target_cpu(struct cost *c, const struct cputime *cpu)
{
	c->cpu = c->target > 0 ? NULL : cpu;
	c->cpu_at = cputime_ns(c->cpu);
}

/* The targets' CPU ns over the interval, or -1 if not known: the
 * target's, or (-b) its executable's processes' (cost_target_cpu()),
 * else that of each process whose rows moved. */
static double target_ns(struct cost *c, const struct agg_snapshot *snap)
{
	double tick_ns = 1, sum = 0, d;
	pid_t *pids = NULL;
	size_t n = 0, cap = 0;
	bool known = false;
	uint64_t now;

	if (c->target > 0) {
		d = pid_delta(c, c->target);
		return d >= 0 ? d * tick_ns : -1;
	}
	if (c->cpu) {
		now = cputime_ns(c->cpu);
		d = now > c->cpu_at ? (double)(now - c->cpu_at) : 0;
		c->cpu_at = now;
		return d;
	}
	for (size_t s = 0; s < snap->nspecs; s++) {
		const struct agg_spec *as = &snap->specs[s];

		for (size_t r = 0; r < as->nrows && as->rows[r]->count; r++) {
			if (n == cap) {
				pid_t *p = realloc(pids,
						   (cap * 2 + 64) * sizeof(*p));

				if (!p)
					break;
				pids = p;
				cap = cap * 2 + 64;
			}
			pids[n++] = (pid_t)as->rows[r]->pid;
		}
	}
	if (n)
		qsort(pids, n, sizeof(*pids), cmp_pid);
	for (size_t i = 0; i < n; i++) {
		if (i && pids[i] == pids[i - 1])
			continue;
		d = pid_delta(c, pids[i]);
		if (d >= 0) {
			sum += d;
			known = true;
		}
	}
	free(pids);
	return known ? sum * tick_ns : -1;
}

/* Clock ticks since boot (for "started within the interval"). */
static uint64_t boot_ticks(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * (uint64_t)sysconf(_SC_CLK_TCK) +
	       (uint64_t)ts.tv_nsec /
		       (1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK));
}

/* The programs of slots (those with a name: read once at least) into
 * o's list. */
static void progs_out(const struct agg_prog *slots, struct agg_overhead *o)
{
	o->nprogs = 0;
	for (int i = 0; i < AGG_PROGS; i++)
		if (slots[i].name[0])
			o->progs[o->nprogs++] = slots[i];
}

void cost_fill(struct cost *c, struct agg_snapshot *snap,
	       struct agg_spec *specs)
{
	double t = cputime_clock_s(CLOCK_MONOTONIC), secs = t - c->last_t;
	double all = t - c->start_t;
	double stats, specs_ns = 0, kern_ns, tns, sns, frac = 0, per_sys;
	uint64_t syscalls;

	if (c->window)
		close_window(c);
	if (!c->continuous && secs > 0 && c->window_s > 0)
		frac = c->window_s < secs ? c->window_s / secs : 1;
	stats = frac * cost_stats_ns();
	for (size_t s = 0; s < snap->nspecs; s++) {
		double trap = cost_spec_trap_ns(specs[s].info);
		double per_hit = cost_prog_ns(c, specs[s].info) + stats;
		double ns = cost_spec_ns(cost_hits(&specs[s], false), trap,
					 per_hit, specs[s].shared);

		specs[s].cost_pct = cost_pct(ns, secs);
		specs[s].cost_pct_total =
			cost_pct(cost_spec_ns(cost_hits(&specs[s], true), trap,
					      per_hit, specs[s].shared_total),
				 all);
		specs_ns += ns;
	}
	per_sys = c->progs.syscall_ns > 0 ? c->progs.syscall_ns : c->sys_run_ns;
	syscalls = syscalls_seen(c);
	kern_ns = c->kernel_ns_per_s * secs +
		  (double)c->kernel_runs_window * cost_stats_ns() +
		  (double)(syscalls - c->syscalls_at) * per_sys;
	c->syscalls_at = syscalls;
	tns = target_ns(c, snap);
	sns = self_ns(c);
	snap->overhead = (struct agg_overhead){
		.cpu_pct = cost_pct(specs_ns + kern_ns, secs),
		.kernel_pct = cost_pct(kern_ns, secs),
		.target_pct = cost_share(specs_ns, tns),
		.self_pct = cost_pct(sns, secs),
		.syscall_ns = c->progs.syscall_ns > 0 ? per_sys : 0,
		.measured = !c->unavailable,
		.stats_s = c->window_s,
	};
	progs_out(c->win, &snap->overhead);
	c->sum_ns += specs_ns + kern_ns;
	c->sum_kern_ns += kern_ns;
	c->sum_self_ns += sns;
	if (tns >= 0) {
		c->sum_target_ns += tns;
		c->sum_known_ns += specs_ns;
	}
	c->all_measured &= snap->overhead.measured;
	snap->overhead_total = (struct agg_overhead){
		.cpu_pct = cost_pct(c->sum_ns, all),
		.kernel_pct = cost_pct(c->sum_kern_ns, all),
		.target_pct = cost_share(c->sum_known_ns, c->sum_target_ns),
		.self_pct = cost_pct(c->sum_self_ns, all),
		.syscall_ns = snap->overhead.syscall_ns,
		.measured = c->all_measured,
		.stats_s = c->tot_stats_s,
	};
	progs_out(c->tot, &snap->overhead_total);
	c->last_t = t;
	c->boot_ticks_at = boot_ticks();
	open_window(c);
}
