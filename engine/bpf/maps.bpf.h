// SPDX-License-Identifier: MIT
/*
 * maps.bpf.h — the state of probetop.bpf.c: every map and global
 * variable the skeleton (probetop.skel.h) shows user space, in the order
 * it shows them, and the few accessors every concern below shares:
 * lookup_or_init() and the zeroed templates of new entries, stat_inc()
 * (a spec's drops), kdrop() (the kernel IO and process counting's
 * drops) and watch_owner() (whose IO and process events these are).
 * Value and key types are in probetop.h, shared with user space.
 *
 * Part of probetop.bpf.c, included once, first.
 */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PT_MAX_SITES);
	__type(key, __u32);
	__type(value, struct pt_site);
} sites SEC(".maps");

/*
 * The key maps are preallocated: an entry allocated when its key first
 * appears (BPF_F_NO_PREALLOC) comes from a per-CPU cache the kernel
 * refills later, so a burst of new keys (a runtime's start-up) found it
 * empty and lost records (seen: 100 new keys in a tight loop).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, PT_COUNT_ENTRIES);
	__type(key, struct pt_key);
	__type(value, struct pt_count);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, PT_HIST_ENTRIES);
	__type(key, struct pt_key);
	__type(value, struct pt_hist);
} hists SEC(".maps");

/* the same for specs with one string key (struct pt_skey) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, PT_COUNT_ENTRIES);
	__type(key, struct pt_skey);
	__type(value, struct pt_count);
} scounts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, PT_HIST_ENTRIES);
	__type(key, struct pt_skey);
	__type(value, struct pt_hist);
} shists SEC(".maps");

/* and for specs without string keys (struct pt_nkey) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, PT_COUNT_ENTRIES);
	__type(key, struct pt_nkey);
	__type(value, struct pt_count);
} ncounts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, PT_HIST_ENTRIES);
	__type(key, struct pt_nkey);
	__type(value, struct pt_hist);
} nhists SEC(".maps");

/*
 * Specs without keys on a one-process target (site->solo): their key
 * would be (spec, pid) with the pid fixed, so a per-CPU array slot per
 * spec does, and the event costs no hashing.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PT_MAX_SPECS);
	__type(key, __u32);
	__type(value, struct pt_count);
} solo_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PT_MAX_SPECS);
	__type(key, __u32);
	__type(value, struct pt_hist);
} solo_hists SEC(".maps");

/* Address slots (struct pt_aslot) of the specs with site->aslot. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PT_MAX_SPECS *PT_ASLOTS);
	__type(key, __u32);
	__type(value, struct pt_aslot);
} aslots SEC(".maps");

/*
 * The one-process target's read-only ranges: user space fills the table
 * ro_sel does not name and then flips ro_sel; ro_epoch is bumped
 * (target.bpf.h: pt_ro_exec, pt_dlmark) when they may have stopped being
 * true.
 */
struct pt_ro ro_tables[2];
__u32 ro_sel;
__u32 ro_epoch;
__u32 ro_pid; /* the target whose exec bumps ro_epoch */
__u32 fork_pid; /* the target whose forks pt_forked counts */
__u32 forks;
__u32 exec_pid; /* the target whose exec()s pt_execstop counts */
__u32 exec_hold; /* and stops (a launched command) */
__u32 execs;
__u32 pt_count_hits; /* count every hit in stats (a budget is on) */
/* specs parked by the budget (bit id): their uprobes are on their way
 * out (engine/attach/park.c); a hit in between is neither counted nor kept */
__u64 pt_parked[PT_MAX_SPECS / 64];
/* the target's CPU time by CPU (pt_oncpu, engine/collect/cputime.c); oncpu_pid:
 * the target's tgid, 0 for none; else with oncpu_ino the processes whose
 * executable is that inode of device oncpu_dev (the kernel's dev_t) */
__u32 oncpu_pid;
__u64 oncpu_ino;
__u32 oncpu_dev;
struct pt_oncpu oncpu[PT_ONCPU_CPUS];
/* when each of the target's threads (by tid) went to sleep (pt_oncpu) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PT_SLEEPERS);
	__type(key, __u32);
	__type(value, __u64);
} sleepers SEC(".maps");
/* each of the target's threads' own CPU clock (se.sum_exec_runtime) when
 * pt_oncpu last switched it out: a stretch whose switch in pt_oncpu never
 * saw (this kernel misses one now and then when a CPU's tasks take turns:
 * 4 in a 5 s run beside a busy loop) still counts, from the kernel's
 * clock, at its end */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} ran SEC(".maps");
/* the target's threads (by tid) that ran a spec's program while the budget
 * counts hits (pt_oncpu): only their waits tell whether the hits slowed
 * the target (a JVM's GC and compiler threads wait at paces of their own) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PT_SLEEPERS);
	__type(key, __u32);
	__type(value, __u8);
} hitters SEC(".maps");
/* the last spec run on each CPU (struct pt_lasthit) */
struct pt_lasthit lasthit[PT_ONCPU_CPUS];
/* Every syscall of the machine while the IO watch is on, by CPU (the
 * cost meter prices each: engine/collect/cost.h). A plain increment: one
 * lost to a preemption now and then is nothing to a price. */
__u64 syscalls_seen[PT_ONCPU_CPUS];
/* each spec's epoch: 0 while the budget has never parked it, bumped when
 * it parks it and when it attaches it again (engine/attach/park.c), so that a
 * latency pair is only made of a start and an end of one window
 * (latency.bpf.h) */
__u32 pt_epoch[PT_MAX_SPECS];

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_STACK_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct pt_stack_key);
	__type(value, struct pt_stack);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct pt_tstack);
} tstacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct pt_owned);
} owned SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PT_MAX_SPECS);
	__type(key, __u32);
	__type(value, struct pt_stat);
} stats SEC(".maps");

/* The key a hit builds (probetop.bpf.c's handle()), here rather than on
 * the stack, which a uprobe program shares with every function it calls:
 * 512 bytes in all, the global ones counted too where the kernel gives
 * uprobe programs no private stack. By kind of run: 0 a probe's, 1 a
 * profile sample's (which may interrupt one on its CPU). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct pt_key);
} keybuf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_IO_PIDS + PT_PROC_KIDS);
	__type(key, __u32); /* tgid */
	__type(value, struct pt_watched);
} watched SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, PT_PROC_ENTRIES);
	__type(key, struct pt_proc_key);
	__type(value, struct pt_proc_val);
} proc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PT_IO_NR_MAX);
	__type(key, __u32);
	__type(value, __u32);
} io_nr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_IO_INFLIGHT);
	__type(key, __u64); /* tid, or a request's address */
	__type(value, struct pt_io_start);
} io_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PT_KDROP_N);
	__type(key, __u32);
	__type(value, __u64);
} kdrops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, PT_IO_ENTRIES);
	__type(key, struct pt_io_key);
	__type(value, struct pt_io_val);
} io SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PT_PID_NAMES);
	__type(key, __u32); /* tgid */
	__type(value, struct pt_pid_name);
} pid_names SEC(".maps");

/* The process (tgid) that hit the dynamic linker's hook or exec()ed, held
 * stopped for user space. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} dl_events SEC(".maps");

/* zeroed templates for new map entries */
static const struct pt_count zero_count;
static const struct pt_hist zero_hist;
static const struct pt_stack zero_stack;
static const struct pt_io_val zero_io;
static const struct pt_proc_val zero_proc;

enum stat_field {
	STAT_FULL,
	STAT_STR,
	STAT_DEEP,
	STAT_UNMATCHED,
	STAT_HIT,
	STAT_PARKED,
	STAT_PY,
	STAT_CUT,
	STAT_SHARED
};

static __always_inline void stat_add(__u32 spec, enum stat_field f, __u64 n)
{
	struct pt_stat *st = bpf_map_lookup_elem(&stats, &spec);

	if (!st)
		return;
	if (f == STAT_FULL)
		st->drop_full += n;
	else if (f == STAT_STR)
		st->drop_str += n;
	else if (f == STAT_DEEP)
		st->drop_deep += n;
	else if (f == STAT_HIT)
		st->hits += n;
	else if (f == STAT_PARKED)
		st->parked += n;
	else if (f == STAT_PY)
		st->drop_py += n;
	else if (f == STAT_CUT)
		st->cut += n;
	else if (f == STAT_SHARED)
		st->shared += n;
	else
		st->unmatched += n;
}

static __always_inline void stat_inc(__u32 spec, enum stat_field f)
{
	stat_add(spec, f, 1);
}

/* The value of key in a hash map, created from zero if new; NULL when
 * the map is full. */
static __always_inline void *lookup_or_init(void *map, const void *key,
					    const void *zero)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

/* The process tgid's events of kind what count for (itself, or the
 * watched process it descends from), or 0. */
static __always_inline __u32 watch_owner(__u32 tgid, __u8 what)
{
	struct pt_watched *w = bpf_map_lookup_elem(&watched, &tgid);

	return w && (w->bits & what) ? w->owner : 0;
}

/* One record of the kernel's IO or process counting lost, for why. */
static __always_inline void kdrop(enum pt_kdrop why)
{
	__u32 k = why;
	__u64 *n = bpf_map_lookup_elem(&kdrops, &k);

	if (n)
		(*n)++;
}
