// SPDX-License-Identifier: MIT
/*
 * probetop.bpf.c — the generic programs every probetop attachment runs.
 *
 * pt_usdt serves every USDT location and every function entry, pt_ret
 * every function return: the BPF cookie selects a struct pt_site (see
 * probetop.h) that says how to fetch the arguments at that location and
 * what to aggregate. Aggregates live in per-CPU hash maps, so the hot path
 * takes no atomic operation; user space sums the CPUs and diffs totals.
 * A spec without keys on one process (a solo site) needs no hash: its one
 * row is the spec's slot in a per-CPU array.
 * Anything that cannot be recorded is counted in the spec's stats.
 *
 * pt_sys_enter/pt_sys_exit and pt_rq_issue/pt_rq_complete (BTF
 * tracepoints) count the IO of the processes watched for IO; pt_fork,
 * pt_exec and pt_exit the processes and threads that the processes
 * watched for it start, exec and end. Both follow the descendants of a
 * watched process (pt_fork adds them to watched, pt_exit takes them out),
 * whose events count for it.
 *
 * One program, one skeleton: the concerns are headers included here, in
 * dependency order, so that every helper is inlined into the programs
 * (a second object linked by bpftool gen object would make them calls).
 * Each header says what it owns; this file keeps the per-event handler.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "probetop.h"
#include "phpshared.h"
#include "rbshared.h"
#include "v8shared.h"

char LICENSE[] SEC("license") = "GPL";

/* every map and global, and their shared accessors */
#include "maps.bpf.h"

/* the per-event path of pt_usdt and pt_ret */
#include "bucket.bpf.h"
#include "pyframe.bpf.h"
#include "phpframe.bpf.h"
#include "rbframe.bpf.h"
#include "unwind.bpf.h"
#include "stack.bpf.h"
#include "mixstack.bpf.h"
#include "sql.bpf.h"
#include "fetch.bpf.h"
#include "pidname.bpf.h"
#include "agg.bpf.h"
#include "latency.bpf.h"
#include "rostr.bpf.h"

/* Whether this run of spec programs shares the trap of the run just
 * before on this CPU (struct pt_lasthit). */
static __always_inline bool shares_trap(struct pt_regs *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id() & (PT_ONCPU_CPUS - 1);
	struct pt_lasthit *l = &lasthit[cpu];

	return l->tid == bpf_get_current_pid_tgid() &&
	       l->ip == PT_REGS_IP(ctx) &&
	       bpf_ktime_get_ns() - l->end < PT_SHARED_NS;
}

/* A run of spec programs ends (struct pt_lasthit). */
static __always_inline void run_ends(struct pt_regs *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id() & (PT_ONCPU_CPUS - 1);
	struct pt_lasthit *l = &lasthit[cpu];

	l->tid = bpf_get_current_pid_tgid();
	l->ip = PT_REGS_IP(ctx);
	l->end = bpf_ktime_get_ns();
}

/* One hit of a USDT location, function entry or return: do what the
 * site of the link's cookie says. walk, a constant: the walkers the
 * program has (enum pt_walk, fill_key()). */
static __always_inline int handle(struct pt_regs *ctx, const __u32 walk)
{
	__u32 idx = (__u32)bpf_get_attach_cookie(ctx);
	const struct pt_site *s = bpf_map_lookup_elem(&sites, &idx);
	struct pt_key *key;
	__u64 now;
	__u32 run;
	__s64 v = 0;
	int err;

	if (!s)
		return 0;
	/* a pair's end: its time taken before the statistics' work, as the
	 * calibration's end takes it first (cost_calibrate_start()) */
	now = s->action == PT_ACT_LAT_END ? bpf_ktime_get_ns() : 0;
	if (s->profile && s->pid && s->pid != bpf_get_current_pid_tgid() >> 32)
		return 0; /* a sample of another process */
	if (pt_count_hits) {
		__u32 sp = s->spec;

		if (sp >= PT_MAX_SPECS)
			return 0;
		if (!s->profile && shares_trap(ctx))
			stat_inc(sp, STAT_SHARED);
		if (pt_parked[sp / 64] & (1ULL << (sp % 64))) {
			stat_inc(sp, STAT_PARKED);
			return 0;
		}
		stat_inc(sp, STAT_HIT);
	}
	if (s->action == PT_ACT_LAT_START) {
		lat_start(ctx, s, walk);
		return 0;
	}
	if (s->action == PT_ACT_LAT_END) {
		lat_end(s, now);
		return 0;
	}
	if (s->action == PT_ACT_LAT_RESTAMP) {
		lat_restamp(s);
		return 0;
	}
	if (s->solo) {
		solo_handle(ctx, s);
		return 0;
	}
	if (s->aslot && aslot_count(ctx, s))
		return 0;
	run = s->profile ? 1 : 0;
	key = bpf_map_lookup_elem(&keybuf, &run);
	if (!key)
		return 0;
	key_zero(key, s->width);
	if (s->has_val && fetch(ctx, &s->val, &v)) {
		stat_inc(s->spec, STAT_STR);
		return 0;
	}
	err = fill_key(ctx, s, key, walk);
	if (err) {
		stat_inc(s->spec, err - 1);
		return 0;
	}
	if (s->action == PT_ACT_COUNT)
		key_count(key, s->width, v);
	else
		key_hist(key, s->width, v, val_bucket(v, s));
	return 0;
}

/* Every site's program: a USDT location, a function's entry and, attached
 * as a uretprobe, its return (the role is the link's, the action the
 * site's). One program, not one per role, so the kernel verifies it once.
 * Its keys are arguments, strings and statements: a spec with a frame or
 * stack key runs a pt_walk*, each loaded the first time a spec needs it
 * (engine/attach/siteprog.c), so that a session without one verifies no
 * walker (pt_usdt is a seventh of pt_walk's work), and one with Python's
 * frames only Python's walker. */
#define SITE_PROG(name, walk)          \
	SEC("uprobe")                  \
	int name(struct pt_regs *ctx)  \
	{                              \
		handle(ctx, walk);     \
		if (pt_count_hits)     \
			run_ends(ctx); \
		return 0;              \
	}

SITE_PROG(pt_usdt, 0)
SITE_PROG(pt_walk_py, PT_WALK_PY)
SITE_PROG(pt_walk_php, PT_WALK_PHP)
SITE_PROG(pt_walk_rb, PT_WALK_RB)
SITE_PROG(pt_walk_native, PT_WALK_NATIVE)
SITE_PROG(pt_walk, PT_WALK_ALL)

/* profile:HZ: a CPU-clock sample, on every CPU, of whatever runs there;
 * the site keeps the target's. Its registers are not an argument's. As
 * the sites' programs, one per family of walkers, each loaded at the
 * first profile:HZ spec whose keys need it (engine/attach/profile.c):
 * pt_prof with none, pt_profile with them all. */
#define PROFILE_PROG(name, walk)                            \
	SEC("perf_event")                                   \
	int name(struct bpf_perf_event_data *ctx)           \
	{                                                   \
		return handle((struct pt_regs *)ctx, walk); \
	}

PROFILE_PROG(pt_prof, 0)
PROFILE_PROG(pt_prof_py, PT_WALK_PY)
PROFILE_PROG(pt_prof_php, PT_WALK_PHP)
PROFILE_PROG(pt_prof_rb, PT_WALK_RB)
PROFILE_PROG(pt_prof_native, PT_WALK_NATIVE)
PROFILE_PROG(pt_profile, PT_WALK_ALL)

/* Whether t is a thread of the target: of process oncpu_pid, or of a
 * process running executable oncpu_ino (-b). */
static __always_inline bool oncpu_target(struct task_struct *t)
{
	struct inode *in;

	if (oncpu_pid)
		return t->tgid == oncpu_pid;
	if (!t->mm || !t->mm->exe_file)
		return false;
	in = t->mm->exe_file->f_inode;
	return in && in->i_ino == oncpu_ino && in->i_sb->s_dev == oncpu_dev;
}

/* The wait of thread next ending now, if it went to sleep (pt_oncpu
 * noted when): how long, 0 for none or one longer than PT_WAIT_MAX_NS. */
static __always_inline __u64 wait_ended(struct task_struct *next, __u64 now)
{
	__u32 tid = next->pid;
	__u64 *at = bpf_map_lookup_elem(&sleepers, &tid), d;

	if (!at)
		return 0;
	d = now > *at ? now - *at : 0;
	bpf_map_delete_elem(&sleepers, &tid);
	return d <= PT_WAIT_MAX_NS ? d : 0;
}

/* Whether thread t, on this CPU (cpu) since since, is a hitter: it ran
 * a spec's program there since (the CPU's last run, struct pt_lasthit,
 * is its), or before (hitters, where this notes it). */
static __always_inline bool hitter(struct task_struct *t, __u64 since,
				   __u32 cpu)
{
	struct pt_lasthit *l = &lasthit[cpu];
	__u32 tid = t->pid;
	__u8 one = 1;

	if (l->tid == ((__u64)t->tgid << 32 | t->pid) && l->end >= since) {
		bpf_map_update_elem(&hitters, &tid, &one, BPF_ANY);
		return true;
	}
	return bpf_map_lookup_elem(&hitters, &tid) != NULL;
}

/* What target thread prev, switched out now, ran in the stretch ending:
 * the more of the time since since (where this CPU saw it switched in,
 * or its first tick there: pt_oncpu_tick) and its own CPU clock's since it
 * was last switched out, no more than the time since last, this CPU's
 * last switch from or to the target (a switch in missed came after it).
 * Its own clock leaves out interrupts, and is unknown the first time (a
 * thread from before cputime_new()) or where its storage is busy. Notes
 * that clock for its next stretch. */
static __always_inline __u64 stretch(struct task_struct *prev, __u64 since,
				     __u64 last, __u64 now)
{
	__u64 *at = bpf_task_storage_get(&ran, prev, 0,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
	__u64 sum = prev->se.sum_exec_runtime, d = 0;

	if (since && now > since)
		d = now - since;
	if (at && *at && sum > *at + d)
		d = sum - *at;
	if (at)
		*at = sum;
	return d < now - last ? d : now - last;
}

/* A CPU switches tasks: if from or to a thread of the target, the
 * target's time on it, and the waits of its hitters (hitter()) that end
 * here (engine/collect/cputime.c reads them). A thread that leaves the
 * CPU not preempted and not runnable goes to sleep. One that leaves it
 * with a stretch of the target's under way is the target's, whatever
 * oncpu_target() says now: an exiting process has no executable left
 * to tell (its stretch, which cputime_ns() counted as it ran, lost:
 * the target's CPU time went back 1.2 ms as pgbench's backends
 * exited). */
SEC("tp_btf/sched_switch")
int BPF_PROG(pt_oncpu, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 cpu = bpf_get_smp_processor_id() & (PT_ONCPU_CPUS - 1);
	struct pt_oncpu *o = &oncpu[cpu];
	__u64 now, wait = 0, d;
	bool was, is;

	if (!oncpu_pid && !oncpu_ino)
		return 0;
	was = oncpu_target(prev);
	is = oncpu_target(next);
	if (!was && !is && !o->since)
		return 0;
	now = bpf_ktime_get_ns();
	if (was && !preempt && prev->__state && hitter(prev, o->since, cpu)) {
		__u32 tid = prev->pid;

		bpf_map_update_elem(&sleepers, &tid, &now, BPF_ANY);
	}
	if (is)
		wait = wait_ended(next, now);
	d = was || o->since ? stretch(prev, o->since, o->last, now) : 0;
	__sync_fetch_and_add(&o->seq, 1);
	o->ns += d;
	o->since = is ? now : 0;
	o->last = now;
	if (wait) {
		__u64 us = (wait + 500) / 1000; /* rounded: no bias */

		o->waits++;
		o->wait_ns += wait;
		o->wait_us2 += us * us;
	}
	__sync_fetch_and_add(&o->seq, 1);
	return 0;
}

/* A timer expires on this CPU (its scheduler's tick among them, every
 * few ms while a task runs): if the task it interrupts is the target's
 * and pt_oncpu missed its switch in (this kernel misses one now and then
 * when a CPU's tasks take turns), its stretch counts from now on. */
SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(pt_oncpu_tick)
{
	__u32 cpu = bpf_get_smp_processor_id() & (PT_ONCPU_CPUS - 1);
	struct pt_oncpu *o = &oncpu[cpu];

	if ((!oncpu_pid && !oncpu_ino) || o->since ||
	    !oncpu_target(bpf_get_current_task_btf()))
		return 0;
	__sync_val_compare_and_swap(&o->since, 0, bpf_ktime_get_ns());
	return 0;
}

/* the one-process target's dynamic linker, exec and fork */
#include "target.bpf.h"

/* the kernel's IO and process events of the processes watched */
#include "io.bpf.h"
#include "procevents.bpf.h"

/* the uprobe trap's calibration (engine/collect/cost.c) */
#include "calib.bpf.h"
