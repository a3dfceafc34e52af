// SPDX-License-Identifier: MIT
/*
 * calib — the cost meter's calibration (cost.h's cost_calibrate_start() and
 * the prices it measures): what a uprobe hit costs on this machine by
 * the kind of instruction it replaces, what a return probe adds, and
 * what a latency pair's probes add to each time. Called once per
 * process, by the tracer at its first load.
 *
 * Each loop calls a function of probetop CALIB_CALLS times (one that is
 * single-stepped CALIB_CALLS_STEP), bare and
 * then with a program attached there (and with the statistics on),
 * timed with CLOCK_THREAD_CPUTIME_ID: the trap is system time of the
 * thread that hits it, as it is of a target. The best of CALIB_ROUNDS
 * rounds of each is kept (the least disturbed by the other work of the
 * machine).
 */
#include "cost.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cputime.h"
#include "log.h"
#include "proc.h"
#include "tracer.h"
#include "ulink.h"

#define CALIB_CALLS 1000
/* a single-stepped trap takes some 15 us: as many ms a round with a
 * tenth of the calls (1000 took 170 ms of a 290 ms calibration) */
#define CALIB_CALLS_STEP 100
#define CALIB_ROUNDS 5
#define CALIB_CAP_NS 1000

/*
 * The places the calibration probes, one of each kind (trapkind.h): a
 * nop, as at a USDT site, in cost_probe_site(); a push and a mov
 * (single-stepped out of line), each the first instruction of a
 * function of its own, as at a function's entry.
 */
extern const char cost_probe_nop[];
__attribute__((noinline)) void cost_probe_site(void)
{
	__asm__ volatile(".globl cost_probe_nop\n"
			 "cost_probe_nop: nop\n" ::
				 : "memory");
}

void cost_probe_push(void);
void cost_probe_step(void);
void cost_probe_ret(void); /* a push, for a return probe of its own */
void cost_probe_pair(void); /* two nops: a pair's start and its end */
/* a function of each kind for the pairs alone: a link the calibration
 * is done with lingers a while (detach_later()) */
void cost_lat_nop(void);
void cost_lat_push(void);
void cost_lat_step(void);
extern const char cost_probe_pair_end[];
__asm__(".text\n"
	".globl cost_probe_push\n"
	".type cost_probe_push, @function\n"
	"cost_probe_push:\n"
	"\tpush %rbp\n"
	"\tpop %rbp\n"
	"\tret\n"
	".size cost_probe_push, .-cost_probe_push\n"
	".globl cost_probe_step\n"
	".type cost_probe_step, @function\n"
	"cost_probe_step:\n"
	"\tmov %edx, %edx\n"
	"\tret\n"
	".size cost_probe_step, .-cost_probe_step\n"
	".globl cost_probe_ret\n"
	".type cost_probe_ret, @function\n"
	"cost_probe_ret:\n"
	"\tpush %rbp\n"
	"\tpop %rbp\n"
	"\tret\n"
	".size cost_probe_ret, .-cost_probe_ret\n"
	".globl cost_lat_nop\n"
	".type cost_lat_nop, @function\n"
	"cost_lat_nop:\n"
	"\tnop\n"
	"\tret\n"
	".size cost_lat_nop, .-cost_lat_nop\n"
	".globl cost_lat_push\n"
	".type cost_lat_push, @function\n"
	"cost_lat_push:\n"
	"\tpush %rbp\n"
	"\tpop %rbp\n"
	"\tret\n"
	".size cost_lat_push, .-cost_lat_push\n"
	".globl cost_lat_step\n"
	".type cost_lat_step, @function\n"
	"cost_lat_step:\n"
	"\tmov %edx, %edx\n"
	"\tret\n"
	".size cost_lat_step, .-cost_lat_step\n"
	".globl cost_probe_pair\n"
	".type cost_probe_pair, @function\n"
	"cost_probe_pair:\n"
	"\tnop\n"
	".globl cost_probe_pair_end\n"
	"cost_probe_pair_end:\n"
	"\tnop\n"
	"\tret\n"
	".size cost_probe_pair, .-cost_probe_pair\n");

/* ns of an empty program's hit, by enum trap_kind; the trampoline's trap
 * a return probe adds; < 0: not calibrated */
static double kind_ns[TRAP_KINDS] = { -1, -1, -1 };
static double ret_ns = -1;
static double stats_ns;
static double empty_run_ns; /* an empty program's run as the statistics
			       time it (their clock reads, in it) */
static struct trap_lat lat; /* all 0 until calibrated */

/* The calls a loop times of a function whose first instruction is of
 * kind k. */
static int calls_of(enum trap_kind k)
{
	return k == TRAP_STEP ? CALIB_CALLS_STEP : CALIB_CALLS;
}

/* CPU ns of the best of CALIB_ROUNDS loops of calls calls of fn. */
static double best_loop_ns(void (*fn)(void), int calls)
{
	double best = -1;

	for (int r = 0; r < CALIB_ROUNDS; r++) {
		double t0 = cputime_clock_s(CLOCK_THREAD_CPUTIME_ID), t;

		for (int i = 0; i < calls; i++)
			fn();
		t = (cputime_clock_s(CLOCK_THREAD_CPUTIME_ID) - t0) * 1e9;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

/* The file and file offset of addr in probetop's mappings. */
static int probe_site_place(const void *site, char *path, size_t n,
			    uint64_t *offset)
{
	struct proc_maps maps = { 0 };
	uint64_t addr = (uint64_t)(uintptr_t)site;
	int err = proc_maps_read(getpid(), &maps);

	if (err)
		return err;
	err = -ENOENT;
	for (size_t i = 0; i < maps.n; i++) {
		const struct proc_map *m = &maps.maps[i];

		if (addr >= m->start && addr < m->end) {
			snprintf(path, n, "%s", m->path);
			*offset = addr - m->start + m->offset;
			err = 0;
			break;
		}
	}
	proc_maps_free(&maps);
	return err;
}

/* The calibration's links, detached together at its end: each detach
 * waits for the kernel's grace period, some 200 ms here, and a dozen of
 * them one after another made every start 2 s longer. */
#define CALIB_LINKS 16
static struct ulink done_links[CALIB_LINKS];
static size_t ndone;

/* Keep *l to be detached by detach_all(); *l is none after. */
static void detach_later(struct ulink *l)
{
	if (ndone < CALIB_LINKS)
		done_links[ndone++] = *l;
	else
		ulink_detach(l);
	*l = (struct ulink){ -1, NULL };
}

/* Detach one link kept (a thread's start routine). */
static void *detach_one(void *arg)
{
	ulink_detach(arg);
	return NULL;
}

/* Detach the links detach_later() kept, each by a thread of its own so
 * that their grace periods overlap (one's length in all, not a dozen),
 * and return when all are gone: the tracer's links are then its specs'
 * alone, as a user counting them in fdinfo expects. */
static void detach_all(void)
{
	pthread_t t[CALIB_LINKS];
	bool started[CALIB_LINKS];

	for (size_t i = 0; i < ndone; i++)
		started[i] = !pthread_create(&t[i], NULL, detach_one,
					     &done_links[i]);
	for (size_t i = 0; i < ndone; i++) {
		if (started[i])
			pthread_join(t[i], NULL);
		else
			ulink_detach(&done_links[i]);
	}
	ndone = 0;
}

/* Attach prog at site (a return probe if ret) into *l. 0 or a negative
 * errno. */
static int attach_at(struct bpf_program *prog, bool multi, const void *site,
		     bool ret, struct ulink *l)
{
	char path[4096];
	uint64_t offset;
	int err = probe_site_place(site, path, sizeof(path), &offset);

	return err ? err
		   : ulink_attach(prog, multi, getpid(), path, offset, 0, 0,
				  ret, l);
}

/* prog's information (its statistics) into *info; zeros if none. */
static void prog_info(struct bpf_program *prog, struct bpf_prog_info *info)
{
	__u32 len = sizeof(*info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), info, &len))
		memset(info, 0, sizeof(*info));
}

/* What one call of fn costs more with prog attached at site (a return
 * probe if ret), ns, at least 0; with_stats (if not NULL): the same with
 * the run-time statistics on, or -1. A negative errno if it cannot be
 * attached. Its link is kept for detach_all(): fn is no other
 * measurement's. */
static double time_hit(struct bpf_program *prog, bool multi, void (*fn)(void),
		       const void *site, bool ret, int calls,
		       double *with_stats)
{
	struct ulink l = { -1, NULL };
	double bare = best_loop_ns(fn, calls), probed;
	int err = attach_at(prog, multi, site, ret, &l), fd;

	if (err)
		return err;
	probed = best_loop_ns(fn, calls);
	if (with_stats) {
		struct bpf_prog_info a = { 0 }, b = { 0 };

		*with_stats = -1;
		fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (fd >= 0) {
			prog_info(prog, &a);
			*with_stats = best_loop_ns(fn, calls);
			prog_info(prog, &b);
			close(fd);
			if (b.run_cnt > a.run_cnt)
				empty_run_ns = (double)(b.run_time_ns -
							a.run_time_ns) /
					       (double)(b.run_cnt - a.run_cnt);
		}
	}
	detach_later(&l);
	if (with_stats && *with_stats >= 0)
		*with_stats = *with_stats > probed
				      ? (*with_stats - probed) / calls
				      : 0;
	return probed > bare ? (probed - bare) / calls : 0;
}

/* The median of CALIB_ROUNDS rounds' mean time of calls calls of
 * fn, each timed by p's pair (a round the machine disturbed moves its
 * mean by microseconds: the median leaves it out); -1 if none timed. */
static double median_round(const struct cost_calib *p, void (*fn)(void),
			   int calls)
{
	double m[CALIB_ROUNDS];
	int n = 0;

	for (int r = 0; r < CALIB_ROUNDS; r++) {
		*p->n = *p->sum = 0;
		for (int i = 0; i < calls; i++)
			fn();
		if (*p->n)
			m[n++] = (double)*p->sum / (double)*p->n;
	}
	for (int i = 1; i < n; i++) /* insertion sort: five */
		for (int j = i; j > 0 && m[j - 1] > m[j]; j--) {
			double t = m[j];

			m[j] = m[j - 1];
			m[j - 1] = t;
		}
	return n ? m[n / 2] : -1;
}

/* What the pair p->in at start, p->out at end (a return probe if ret)
 * measures of fn, which takes no time: what its probes add to a time on
 * average (median_round()). Their least is well below it where a trap
 * is single-stepped (14.3 against 15.4-16.4 us here, with a tail past
 * 20), and a target's calls pay the mean. Times over twice the least of
 * calls first ones and CALIB_CAP_NS are left out (the thread
 * preempted or interrupted: one such ms in 5,000 would add 200 ns). -1
 * if they cannot be attached. Its links are kept for detach_all(). */
static double time_pair(const struct cost_calib *p, void (*fn)(void),
			const void *start, const void *end, bool ret, int calls)
{
	struct ulink in = { -1, NULL }, out = { -1, NULL };
	double mean = -1;

	if (!attach_at(p->in, p->multi, start, false, &in) &&
	    !attach_at(p->out, p->multi, end, ret, &out)) {
		*p->t0 = *p->min = *p->cap = 0;
		for (int i = 0; i < calls; i++)
			fn();
		*p->cap = 2 * *p->min + CALIB_CAP_NS;
		mean = median_round(p, fn, calls);
	}
	detach_later(&in);
	detach_later(&out);
	return mean;
}

/* What a pair's probes add to each time (struct trap_lat), by the kind
 * of its start, and with an end at a nop. */
static void calibrate_lat(const struct cost_calib *p)
{
	void (*const fns[TRAP_KINDS])(void) = { cost_lat_nop, cost_lat_push,
						cost_lat_step };
	double nops;

	for (int k = 0; k < TRAP_KINDS; k++) {
		double ns = time_pair(p, fns[k], (const void *)fns[k],
				      (const void *)fns[k], true,
				      calls_of((enum trap_kind)k));

		lat.to_ret[k] = ns > 0 ? ns : 0;
	}
	nops = time_pair(p, cost_probe_pair, (const void *)cost_probe_pair,
			 cost_probe_pair_end, false, CALIB_CALLS);
	if (nops >= 0 && lat.to_ret[TRAP_NOP] > 0)
		lat.uprobe_end = nops - lat.to_ret[TRAP_NOP];
}

/* Measure everything (cost_calibrate_start()'s work, in its thread):
 * 0 or a negative errno; it logs nothing (the sink is the main
 * thread's: said_prices() says what it found). */
static int calibrate(const struct cost_calib *p)
{
	struct bpf_program *prog = p->empty;
	bool multi = p->multi;
	double with_stats, push_ret;

	kind_ns[TRAP_NOP] =
		time_hit(prog, multi, cost_probe_site, cost_probe_nop, false,
			 CALIB_CALLS, &with_stats);
	if (kind_ns[TRAP_NOP] < 0) {
		int err = (int)kind_ns[TRAP_NOP];

		for (int k = 0; k < TRAP_KINDS; k++)
			kind_ns[k] = COST_EST_TRAP_NS;
		ret_ns = COST_EST_TRAP_NS;
		return err;
	}
	if (with_stats > 0)
		stats_ns = with_stats;
	kind_ns[TRAP_PUSH] = time_hit(prog, multi, cost_probe_push,
				      (const void *)cost_probe_push, false,
				      CALIB_CALLS, NULL);
	kind_ns[TRAP_STEP] = time_hit(prog, multi, cost_probe_step,
				      (const void *)cost_probe_step, false,
				      calls_of(TRAP_STEP), NULL);
	push_ret =
		time_hit(prog, multi, cost_probe_ret,
			 (const void *)cost_probe_ret, true, CALIB_CALLS, NULL);
	/* one that could not be measured: priced as the dearest known */
	if (kind_ns[TRAP_PUSH] < 0)
		kind_ns[TRAP_PUSH] = kind_ns[TRAP_NOP];
	if (kind_ns[TRAP_STEP] < 0)
		kind_ns[TRAP_STEP] = fmax(kind_ns[TRAP_PUSH], COST_EST_STEP_NS);
	ret_ns = push_ret >= 0 ? fmax(push_ret - kind_ns[TRAP_PUSH], 0)
			       : COST_EST_TRAP_NS;
	calibrate_lat(p);
	detach_all();
	return 0;
}

/* The calibration under way in a thread of its own, and its result. */
static pthread_t calib_thread;
static bool calib_running, calib_done;
static struct cost_calib calib_args;
static int calib_err;

static void *calib_main(void *arg)
{
	calib_err = calibrate(arg);
	return NULL;
}

/* Say what the calibration found, once it has (the main thread's). */
static void said_prices(double ms)
{
	if (calib_err) {
		log_msg(LOG_WARN,
			"cost: cannot calibrate the uprobe trap (%s); "
			"taking %.0f ns a hit",
			strerror(-calib_err), COST_EST_TRAP_NS);
		return;
	}
	log_msg(LOG_DEBUG,
		"cost: a hit costs %.0f ns at a nop, %.0f at a push, %.0f "
		"single-stepped, and a return probe %.0f more; a pair adds "
		"%.0f, %.0f, %.0f ns to a function's time by its start, "
		"%+.0f for an end at a nop; the statistics time an empty "
		"program's run at %.0f ns (calibrated, %.0f ms waited); "
		"prices known to %.0f%%",
		kind_ns[TRAP_NOP], kind_ns[TRAP_PUSH], kind_ns[TRAP_STEP],
		ret_ns, lat.to_ret[TRAP_NOP], lat.to_ret[TRAP_PUSH],
		lat.to_ret[TRAP_STEP], lat.uprobe_end, empty_run_ns, ms,
		100 * cost_price_err());
}

void cost_calibrate_start(const struct cost_calib *p)
{
	if (calib_running || calib_done)
		return;
	calib_args = *p;
	if (!pthread_create(&calib_thread, NULL, calib_main, &calib_args)) {
		calib_running = true;
		return;
	}
	calib_err = calibrate(p); /* here, then */
	calib_done = true;
	said_prices(0);
}

void cost_calibrate_wait(void)
{
	double t;

	if (!calib_running)
		return;
	t = cputime_clock_s(CLOCK_MONOTONIC);
	pthread_join(calib_thread, NULL);
	calib_running = false;
	calib_done = true;
	said_prices(1e3 * (cputime_clock_s(CLOCK_MONOTONIC) - t));
}

const struct trap_lat *cost_trap_lat(void)
{
	cost_calibrate_wait();
	return &lat;
}

double cost_trap_ns(void)
{
	cost_calibrate_wait();
	return kind_ns[TRAP_NOP] >= 0 ? kind_ns[TRAP_NOP] : COST_EST_TRAP_NS;
}

double cost_kind_ns(enum trap_kind k)
{
	cost_calibrate_wait();
	return k >= 0 && k < TRAP_KINDS && kind_ns[k] >= 0 ? kind_ns[k]
							   : COST_EST_TRAP_NS;
}

double cost_price_err(void)
{
	return cost_trap_ns() >= COST_DEAR_NS ? COST_PRICE_ERR_DEAR
					      : COST_PRICE_ERR;
}

double cost_ret_ns(void)
{
	cost_calibrate_wait();
	return ret_ns >= 0 ? ret_ns : COST_EST_TRAP_NS;
}

/* A role's trap, its set of kinds: the dearest of them, and the
 * trampoline if return probes; the nop's if it has none (a profile
 * sample's or a spec not attached yet). */
static double role_trap_ns(unsigned int kinds)
{
	double ns = -1;

	for (int k = 0; k < TRAP_KINDS; k++)
		if (kinds & (1u << k))
			ns = fmax(ns, cost_kind_ns((enum trap_kind)k));
	if (ns < 0)
		ns = cost_trap_ns();
	return ns + (kinds & TRAP_RET_BIT ? cost_ret_ns() : 0);
}

double cost_spec_trap_ns(const struct tracer_spec_info *info)
{
	if (!info)
		return cost_trap_ns();
	if (info->role_sites[1] && info->nrestamps) /* a third probe */
		return (role_trap_ns(info->trap_kinds[0]) +
			role_trap_ns(info->restamp_kinds) +
			role_trap_ns(info->trap_kinds[1])) /
		       3;
	if (info->role_sites[1]) /* a pair: a hit is either half */
		return (role_trap_ns(info->trap_kinds[0]) +
			role_trap_ns(info->trap_kinds[1])) /
		       2;
	return role_trap_ns(info->trap_kinds[0]);
}

double cost_stats_ns(void)
{
	cost_calibrate_wait();
	return stats_ns;
}

double cost_empty_run_ns(void)
{
	cost_calibrate_wait();
	return empty_run_ns;
}
