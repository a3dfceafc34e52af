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
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "probetop.h"

char LICENSE[] SEC("license") = "GPL";

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
 * ro_sel does not name and then flips ro_sel; ro_epoch is bumped here
 * (pt_ro_exec, pt_dlmark) when they may have stopped being true.
 */
struct pt_ro ro_tables[2];
__u32 ro_sel;
__u32 ro_epoch;
__u32 ro_pid; /* the target whose exec bumps ro_epoch */

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
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PT_MAX_SPECS);
	__type(key, __u32);
	__type(value, struct pt_stat);
} stats SEC(".maps");

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
	STAT_UNMATCHED
};

static __always_inline void stat_inc(__u32 spec, enum stat_field f)
{
	struct pt_stat *st = bpf_map_lookup_elem(&stats, &spec);

	if (!st)
		return;
	if (f == STAT_FULL)
		st->drop_full++;
	else if (f == STAT_STR)
		st->drop_str++;
	else if (f == STAT_DEEP)
		st->drop_deep++;
	else
		st->unmatched++;
}

/*
 * One load from the context at a constant offset. Written as inline asm
 * because clang otherwise merges the switch below into a single load at a
 * computed offset, which the verifier rejects for the context pointer.
 */
#define CTX_LOAD(ctx, field)                                               \
	({                                                                 \
		__u64 __v;                                                 \
		asm volatile("%0 = *(u64 *)(%1 + %2)"                      \
			     : "=r"(__v)                                   \
			     : "r"(ctx), "i"(__builtin_offsetof(           \
						 struct pt_regs, field))); \
		__v;                                                       \
	})

static __always_inline __u64 reg_value(const struct pt_regs *ctx, __u8 reg)
{
	switch (reg) {
	case 0:
		return CTX_LOAD(ctx, ax);
	case 1:
		return CTX_LOAD(ctx, bx);
	case 2:
		return CTX_LOAD(ctx, cx);
	case 3:
		return CTX_LOAD(ctx, dx);
	case 4:
		return CTX_LOAD(ctx, si);
	case 5:
		return CTX_LOAD(ctx, di);
	case 6:
		return CTX_LOAD(ctx, bp);
	case 7:
		return CTX_LOAD(ctx, sp);
	case 8:
		return CTX_LOAD(ctx, r8);
	case 9:
		return CTX_LOAD(ctx, r9);
	case 10:
		return CTX_LOAD(ctx, r10);
	case 11:
		return CTX_LOAD(ctx, r11);
	case 12:
		return CTX_LOAD(ctx, r12);
	case 13:
		return CTX_LOAD(ctx, r13);
	case 14:
		return CTX_LOAD(ctx, r14);
	case 15:
		return CTX_LOAD(ctx, r15);
	case 16:
		return CTX_LOAD(ctx, ip);
	default:
		return 0;
	}
}

/* Truncate v to the argument's size and extend it by its signedness. */
static __always_inline __s64 extend(__u64 v, __u8 size, __u8 is_signed)
{
	switch (size) {
	case 1:
		return is_signed ? (__s64)(__s8)v : (__s64)(__u8)v;
	case 2:
		return is_signed ? (__s64)(__s16)v : (__s64)(__u16)v;
	case 4:
		return is_signed ? (__s64)(__s32)v : (__s64)(__u32)v;
	default:
		return (__s64)v;
	}
}

/* Fetch one argument; 0 or a negative error (memory not readable). */
static __always_inline int fetch(const struct pt_regs *ctx,
				 const struct pt_fetch *f, __s64 *out)
{
	__u64 v = 0, addr;

	switch (f->kind) {
	case PT_FETCH_CONST:
		v = f->disp;
		break;
	case PT_FETCH_REG:
		v = reg_value(ctx, f->reg) >> (f->shift & 63);
		break;
	case PT_FETCH_MEM:
		addr = f->disp;
		if (f->reg != PT_REG_NONE)
			addr += reg_value(ctx, f->reg);
		if (f->index != PT_REG_NONE)
			addr += reg_value(ctx, f->index) * f->scale;
		if (bpf_probe_read_user(&v, sizeof(v), (void *)addr) &&
		    bpf_probe_read_user(&v, f->size & 7 ? f->size & 7 : 1,
					(void *)addr))
			return -1;
		break;
	default:
		break;
	}
	*out = extend(v, f->size, f->is_signed);
	return 0;
}

/* Fill key from the site's key fetches; false if a string failed. */
static __always_inline bool
fill_key(const struct pt_regs *ctx, const struct pt_site *s, struct pt_key *key)
{
	__s64 v, len;

	key->spec = s->spec;
	key->pid = s->pid ? s->pid : bpf_get_current_pid_tgid() >> 32;
#pragma unroll
	for (int i = 0; i < PT_MAX_KEYS; i++) {
		__u8 slot = s->key_slot[i];

		if (i >= s->nkeys)
			break;
		if (fetch(ctx, &s->key[i], &v))
			return false;
		if (s->key_kind[i] == PT_KEY_NUM) {
			key->num[slot & (PT_MAX_KEYS - 1)] = v;
		} else if (s->key_kind[i] == PT_KEY_STR) {
			if (bpf_probe_read_user_str(
				    key->str[slot & (PT_MAX_STRS - 1)],
				    PT_STR_LEN, (void *)v) < 0)
				return false;
		} else {
			if (fetch(ctx, &s->len[i], &len))
				return false;
			if (len < 0)
				len = 0;
			if (len > PT_STR_LEN - 1)
				len = PT_STR_LEN - 1;
			if (bpf_probe_read_user(
				    key->str[slot & (PT_MAX_STRS - 1)],
				    len & (PT_STR_LEN - 1), (void *)v))
				return false;
		}
	}
	return true;
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

static __always_inline __u32 log2_bucket(__s64 v, __u8 is_signed)
{
	if (is_signed && v < 0)
		return 0;
	if (v == 0)
		return 1;
	return 2 + log2_u64((__u64)v);
}

static __always_inline __u32 lin_bucket(__s64 v, const struct pt_site *s)
{
	__s64 step = s->lq_step > 0 ? s->lq_step : 1;

	if (v < s->lq_low)
		return 0;
	if ((__u64)(v - s->lq_low) / (__u64)step >= s->lq_nsteps)
		return 1 + s->lq_nsteps;
	return 1 + (__u64)(v - s->lq_low) / (__u64)step;
}

/* The bucket of v for a quantize or lquantize site. */
static __always_inline __u32 val_bucket(__s64 v, const struct pt_site *s)
{
	return s->action == PT_ACT_QUANTIZE ? log2_bucket(v, s->val.is_signed)
					    : lin_bucket(v, s);
}

/* A bucket number the verifier can see is in range. */
static __always_inline __u64 bucket_index(__u32 bucket)
{
	__u64 b = bucket;

	asm volatile("" : "+r"(b));
	if (b >= PT_NBUCKETS)
		b = PT_NBUCKETS - 1;
	return b;
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

/* Record the current process under pid in pid_names unless it is there:
 * its name and the start of its arguments (read from its own memory,
 * which a uprobe runs in). */
static __noinline void pid_name_note(__u32 pid)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct pt_pid_name n = {};
	__u64 start, len;

	if (bpf_map_lookup_elem(&pid_names, &pid))
		return;
	BPF_CORE_READ_STR_INTO(&n.comm, task, group_leader, comm);
	start = BPF_CORE_READ(task, mm, arg_start);
	len = BPF_CORE_READ(task, mm, arg_end) - start;
	if (len > PT_ARGS_LEN)
		len = PT_ARGS_LEN;
	if (start && !bpf_probe_read_user(n.args, len, (void *)start))
		n.args_len = len;
	bpf_map_update_elem(&pid_names, &pid, &n, BPF_NOEXIST);
}

/* lookup_or_init() for the key maps; a new key names its process. */
static __always_inline void *key_value(void *map, const struct pt_key *key,
				       const void *zero)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	pid_name_note(key->pid);
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

static __always_inline void hist_put(struct pt_hist *h, __s64 v, __u32 bucket)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (!h->count || v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	h->b[bucket_index(bucket)]++;
}

static __always_inline void hist_add(void *map, const struct pt_key *key,
				     __s64 v, __u32 bucket)
{
	struct pt_hist *h = key_value(map, key, &zero_hist);

	if (!h) {
		stat_inc(key->spec, STAT_FULL);
		return;
	}
	hist_put(h, v, bucket);
}

/* A solo site's histogram: its spec's slot (spec < PT_MAX_SPECS). */
static __always_inline void solo_hist_add(__u32 spec, __s64 v, __u32 bucket)
{
	struct pt_hist *h = bpf_map_lookup_elem(&solo_hists, &spec);

	if (h)
		hist_put(h, v, bucket);
}

static __always_inline void count_put(struct pt_count *c, __s64 v)
{
	c->count++;
	c->sum += v;
}

static __always_inline void count_add(void *map, const struct pt_key *key,
				      __s64 v)
{
	struct pt_count *c = key_value(map, key, &zero_count);

	if (!c) {
		stat_inc(key->spec, STAT_FULL);
		return;
	}
	count_put(c, v);
}

/* Zero the part of key that a spec of this width uses. */
static __always_inline void key_zero(struct pt_key *key, __u64 width)
{
	if (width == PT_KEY_NUMS)
		__builtin_memset(key, 0, sizeof(struct pt_nkey));
	else if (width == PT_KEY_STR1)
		__builtin_memset(key, 0, sizeof(struct pt_skey));
	else
		__builtin_memset(key, 0, sizeof(*key));
}

/* Count into the map of the key's width. */
static __always_inline void key_count(const struct pt_key *key, __u64 width,
				      __s64 v)
{
	if (width == PT_KEY_NUMS)
		count_add(&ncounts, key, v);
	else if (width == PT_KEY_STR1)
		count_add(&scounts, key, v);
	else
		count_add(&counts, key, v);
}

/* Add to the histogram in the map of the key's width. */
static __always_inline void key_hist(const struct pt_key *key, __u64 width,
				     __s64 v, __u32 bucket)
{
	if (width == PT_KEY_NUMS)
		hist_add(&nhists, key, v, bucket);
	else if (width == PT_KEY_STR1)
		hist_add(&shists, key, v, bucket);
	else
		hist_add(&hists, key, v, bucket);
}

/* The thread's stack for tag: its own, else (claim) a free one taken
 * for it; -1 if none. */
static __always_inline int tstack_find(struct pt_tstack *t, __u32 tag,
				       bool claim)
{
	for (int i = 0; i < PT_TASK_STACKS; i++)
		if (t->tag[i] == tag)
			return i;
	if (!claim)
		return -1;
	for (int i = 0; i < PT_TASK_STACKS; i++) {
		if (!t->depth[i]) {
			t->tag[i] = tag;
			return i;
		}
	}
	return -1;
}

/* Push now for solo site s on the thread's own stack; false if it has
 * none for s (the caller uses the hash map). */
static __always_inline bool tstack_push(const struct pt_site *s)
{
	struct pt_tstack *t =
		bpf_task_storage_get(&tstacks, bpf_get_current_task_btf(), 0,
				     BPF_LOCAL_STORAGE_GET_F_CREATE);
	__u32 d;
	int i;

	if (!t)
		return false;
	i = tstack_find(t, s->tag, true) & (PT_TASK_STACKS - 1);
	if (t->tag[i] != s->tag)
		return false; /* none found */
	d = t->depth[i];
	t->depth[i] = d + 1;
	if (d >= PT_STACK_DEPTH)
		stat_inc(s->spec, STAT_DEEP);
	else
		t->ts[i][d & (PT_STACK_DEPTH - 1)] = bpf_ktime_get_ns();
	return true;
}

/* Pop solo site s's newest start from the thread's own stack into *t0
 * (0: too deep to have been kept); false if that stack is empty (look in
 * the hash map). */
static __always_inline bool tstack_pop(const struct pt_site *s, __u64 *t0)
{
	struct pt_tstack *t = bpf_task_storage_get(
		&tstacks, bpf_get_current_task_btf(), 0, 0);
	__u32 d;
	int i;

	if (!t)
		return false;
	i = tstack_find(t, s->tag, false) & (PT_TASK_STACKS - 1);
	if (t->tag[i] != s->tag || !t->depth[i])
		return false;
	d = --t->depth[i];
	*t0 = d < PT_STACK_DEPTH ? t->ts[i][d & (PT_STACK_DEPTH - 1)] : 0;
	return true;
}

static __always_inline __u32 lat_bucket(__s64 ns, const struct pt_site *s)
{
	return s->lq_nsteps ? lin_bucket(ns, s) : log2_bucket(ns, 1);
}

/* Push a start on the (thread, spec) stack of the hash map. */
static __always_inline void lat_push(const struct pt_regs *ctx,
				     const struct pt_site *s)
{
	struct pt_stack_key sk = {
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.spec = s->spec,
	};
	struct pt_stack *st = lookup_or_init(&stacks, &sk, &zero_stack);
	struct pt_frame *f;
	__u32 d;

	if (!st) {
		stat_inc(s->spec, STAT_FULL);
		return;
	}
	d = st->depth;
	st->depth = d + 1;
	if (d >= PT_STACK_DEPTH) {
		stat_inc(s->spec, STAT_DEEP);
		return;
	}
	f = &st->f[d & (PT_STACK_DEPTH - 1)];
	if (s->solo) {
		f->ts = bpf_ktime_get_ns(); /* no key: nothing else to keep */
		return;
	}
	key_zero(&f->key, s->width);
	if (!fill_key(ctx, s, &f->key)) {
		/* keep the frame so the end still pairs; mark it unusable */
		f->ts = 0;
		stat_inc(s->spec, STAT_STR);
		return;
	}
	f->ts = bpf_ktime_get_ns();
}

static __always_inline void lat_start(const struct pt_regs *ctx,
				      const struct pt_site *s)
{
	if (s->solo && tstack_push(s))
		return;
	lat_push(ctx, s);
}

/* Pop the newest start of s from the (thread, spec) stack of the hash
 * map and record the time since. */
static __always_inline void lat_pop(const struct pt_site *s, __u64 now)
{
	struct pt_stack_key sk = {
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.spec = s->spec,
	};
	struct pt_stack *st = bpf_map_lookup_elem(&stacks, &sk);
	struct pt_frame *f;
	__u32 d;
	__s64 ns;

	if (!st || !st->depth) {
		stat_inc(s->spec, STAT_UNMATCHED);
		return;
	}
	d = --st->depth;
	if (d >= PT_STACK_DEPTH)
		return; /* counted as deep when it started */
	f = &st->f[d & (PT_STACK_DEPTH - 1)];
	if (!f->ts)
		return; /* counted when it started */
	ns = (__s64)(now - f->ts);
	if (s->solo)
		solo_hist_add(s->spec, ns, lat_bucket(ns, s));
	else
		key_hist(&f->key, s->width, ns, lat_bucket(ns, s));
}

static __always_inline void lat_end(const struct pt_site *s)
{
	__u64 now = bpf_ktime_get_ns(), t0;
	__s64 ns;

	if (!s->solo || !tstack_pop(s, &t0)) {
		lat_pop(s, now);
		return;
	}
	if (!t0)
		return; /* counted as deep when it started */
	ns = (__s64)(now - t0);
	solo_hist_add(s->spec, ns, lat_bucket(ns, s));
}

/* A solo site's event: no key to build, one array slot to update. */
static __always_inline void solo_handle(const struct pt_regs *ctx,
					const struct pt_site *s)
{
	struct pt_count *c;
	__u32 spec = s->spec;
	__s64 v = 0;

	if (s->has_val && fetch(ctx, &s->val, &v)) {
		stat_inc(spec, STAT_STR);
		return;
	}
	if (s->action != PT_ACT_COUNT) {
		solo_hist_add(spec, v, val_bucket(v, s));
		return;
	}
	c = bpf_map_lookup_elem(&solo_counts, &spec);
	if (c)
		count_put(c, v);
}

/* The generation of the valid range table if the PT_STR_LEN bytes at
 * addr lie in one of its ranges; 0 if not (or no table is valid). */
static __always_inline __u32 ro_gen(__u64 addr)
{
	const struct pt_ro *t = &ro_tables[ro_sel & 1];
	__u32 epoch = *(volatile const __u32 *)&t->epoch;
	__u32 lo = 0, hi = t->n, mid;

	if (epoch != ro_epoch || !hi || hi > PT_RO_RANGES)
		return 0;
	/* the last range starting at or below addr */
	for (int i = 0; i < 7 && hi - lo > 1; i++) {
		mid = (lo + hi) / 2;
		if (t->lo[mid & (PT_RO_RANGES - 1)] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	lo &= PT_RO_RANGES - 1;
	if (t->lo[lo] <= addr && addr + PT_STR_LEN <= t->hi[lo] &&
	    *(volatile const __u32 *)&t->epoch == epoch) /* not rewritten */
		return t->gen;
	return 0;
}

/*
 * Count an event of an aslot site in the slot of its string's address
 * (taking a free one, and reading the string, the first time); false if
 * the address is not in a read-only range or its slots are all taken by
 * other addresses: then the caller keys by the string itself.
 */
static __always_inline bool aslot_count(const struct pt_regs *ctx,
					const struct pt_site *s)
{
	__s64 addr, v = 0;
	struct pt_aslot *a;
	__u32 gen, h, idx;

	if (fetch(ctx, &s->key[0], &addr) || !addr)
		return false;
	gen = ro_gen((__u64)addr);
	if (!gen || (s->has_val && fetch(ctx, &s->val, &v)))
		return false;
	h = (__u32)(((__u64)addr * 0x9e3779b97f4a7c15ULL) >> 32);
	for (int i = 0; i < PT_ASLOT_PROBES; i++) {
		idx = s->spec * PT_ASLOTS + ((h + i) & (PT_ASLOTS - 1));
		a = bpf_map_lookup_elem(&aslots, &idx);
		if (!a)
			return false;
		if (a->addr == (__u64)addr && a->gen == gen) {
			count_put(&a->c, v);
			return true;
		}
		if (a->addr)
			continue;
		if (bpf_probe_read_user_str(a->str, PT_STR_LEN, (void *)addr) <
		    0)
			return false;
		a->addr = (__u64)addr;
		a->gen = gen;
		count_put(&a->c, v);
		return true;
	}
	return false;
}

static __always_inline int handle(struct pt_regs *ctx)
{
	__u32 idx = (__u32)bpf_get_attach_cookie(ctx);
	const struct pt_site *s = bpf_map_lookup_elem(&sites, &idx);
	struct pt_key key;
	__s64 v = 0;

	if (!s)
		return 0;
	if (s->action == PT_ACT_LAT_START) {
		lat_start(ctx, s);
		return 0;
	}
	if (s->action == PT_ACT_LAT_END) {
		lat_end(s);
		return 0;
	}
	if (s->solo) {
		solo_handle(ctx, s);
		return 0;
	}
	if (s->aslot && aslot_count(ctx, s))
		return 0;
	key_zero(&key, s->width);
	if ((s->has_val && fetch(ctx, &s->val, &v)) ||
	    !fill_key(ctx, s, &key)) {
		stat_inc(s->spec, STAT_STR);
		return 0;
	}
	if (s->action == PT_ACT_COUNT)
		key_count(&key, s->width, v);
	else
		key_hist(&key, s->width, v, val_bucket(v, s));
	return 0;
}

SEC("uprobe")
int pt_usdt(struct pt_regs *ctx)
{
	return handle(ctx);
}

SEC("uretprobe")
int pt_ret(struct pt_regs *ctx)
{
	return handle(ctx);
}

/* dlopen() hold ------------------------------------------------------- */

/* The process (tgid) that hit the dynamic linker's hook, for user space. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} dl_events SEC(".maps");

/*
 * Attached at the dynamic linker's _dl_debug_state, which it calls before
 * and after each change to the list of loaded objects (dlopen, dlclose,
 * start-up): stop the process and tell user space, which attaches to the
 * new mappings and sends SIGCONT. The stop happens before the process
 * runs another user instruction, so nothing in a new library is missed.
 * The SIGSTOP is raised before user space can see the event: the other
 * order let a fast SIGCONT (this program preempted by the woken reader)
 * come first, and the late SIGSTOP then stopped the target for good.
 * If the ring is full the process is not stopped (the periodic rescan
 * still finds the library, later).
 */
SEC("uprobe")
int pt_dlstop(struct pt_regs *ctx)
{
	__u32 *tgid = bpf_ringbuf_reserve(&dl_events, sizeof(*tgid), 0);

	if (!tgid)
		return 0;
	*tgid = bpf_get_current_pid_tgid() >> 32;
	bpf_send_signal(PT_SIGSTOP);
	bpf_ringbuf_submit(tgid, 0);
	return 0;
}

/* The dynamic linker is about to change, or changed, the loaded objects
 * of the target: its range table no longer holds (tracer's ro_refresh()
 * makes a new one). */
SEC("uprobe")
int pt_dlmark(struct pt_regs *ctx)
{
	__sync_fetch_and_add(&ro_epoch, 1);
	return 0;
}

/* The same for an exec of the target. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(pt_ro_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	if (ro_pid && BPF_CORE_READ(p, tgid) == ro_pid)
		__sync_fetch_and_add(&ro_epoch, 1);
	return 0;
}

/*
 * A process the one-process target forks inherits its breakpoints, and a
 * uprobe_multi link filtered to the target never removes them there
 * (only a perf-event uprobe's filter does, at the child's first hit):
 * count such forks, so that user space can sweep them away
 * (ulink_sweep()). A vfork child shares the target's memory, and a
 * thread is the target.
 */
__u32 fork_pid;
__u32 forks;

SEC("tp_btf/sched_process_fork")
int BPF_PROG(pt_forked, struct task_struct *parent, struct task_struct *child)
{
	if (fork_pid && BPF_CORE_READ(parent, tgid) == fork_pid &&
	    BPF_CORE_READ(child, tgid) != fork_pid &&
	    BPF_CORE_READ(child, mm) != BPF_CORE_READ(parent, mm))
		__sync_fetch_and_add(&forks, 1);
	return 0;
}

/* IO ------------------------------------------------------------------ */

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

/* Time an IO call or request from now, under k in io_start. */
static __always_inline void io_begin(__u64 k, __u32 cls, __u32 pid)
{
	struct pt_io_start st = {
		.ts = bpf_ktime_get_ns(),
		.cls = cls,
		.pid = pid,
	};

	if (bpf_map_update_elem(&io_start, &k, &st, BPF_ANY))
		kdrop(PT_KDROP_INFLIGHT);
}

static __always_inline void io_add(__u32 pid, __u32 cls, __s64 ret, __u64 ns)
{
	struct pt_io_key k = { .pid = pid, .cls = cls };
	struct pt_io_val *v = lookup_or_init(&io, &k, &zero_io);

	if (!v) {
		kdrop(PT_KDROP_IO);
		return;
	}
	v->calls++;
	if (ret < 0)
		v->errors++;
	else if (cls <= PT_IO_SEND || cls >= PT_IO_BLOCK_READ)
		v->bytes += ret;
	v->ns += ns;
	v->b[bucket_index(log2_bucket((__s64)ns, 1))]++;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(pt_sys_enter, struct pt_regs *regs, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 pid = watch_owner(pid_tgid >> 32, PT_WATCH_IO), nr = (__u32)id;
	__u32 *cls;

	if (!pid)
		return 0;
	cls = bpf_map_lookup_elem(&io_nr, &nr);
	if (cls && *cls)
		io_begin(pid_tgid, *cls - 1, pid);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(pt_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct pt_io_start *st = bpf_map_lookup_elem(&io_start, &pid_tgid);

	if (!st)
		return 0;
	io_add(st->pid, st->cls, ret, bpf_ktime_get_ns() - st->ts);
	bpf_map_delete_elem(&io_start, &pid_tgid);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(pt_rq_issue, struct request *rq)
{
	__u32 pid = watch_owner(bpf_get_current_pid_tgid() >> 32, PT_WATCH_IO);

	if (pid)
		io_begin((__u64)rq,
			 (rq->cmd_flags & 0xff) == 1 ? PT_IO_BLOCK_WRITE
						     : PT_IO_BLOCK_READ,
			 pid);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(pt_rq_complete, struct request *rq, int error,
	     unsigned int nr_bytes)
{
	__u64 k = (__u64)rq;
	struct pt_io_start *st = bpf_map_lookup_elem(&io_start, &k);

	if (!st)
		return 0;
	io_add(st->pid, st->cls, error ? -1 : (__s64)nr_bytes,
	       bpf_ktime_get_ns() - st->ts);
	bpf_map_delete_elem(&io_start, &k);
	return 0;
}

/* Processes ------------------------------------------------------------ */

/* Count one event of owner, named by the kernel string at name; life > 0
 * is the lifetime (ns) of what ended. */
static __always_inline void proc_add(__u32 owner, __u32 event, __s32 code,
				     const char *name, __u64 life)
{
	struct pt_proc_key k = { .pid = owner, .event = event, .code = code };
	struct pt_proc_val *v;

	if (name)
		bpf_probe_read_kernel_str(k.name, sizeof(k.name), name);
	v = lookup_or_init(&proc, &k, &zero_proc);
	if (!v) {
		kdrop(PT_KDROP_PROC);
		return;
	}
	v->count++;
	if (life) {
		v->ns += life;
		v->b[bucket_index(log2_bucket((__s64)life, 1))]++;
	}
}

/*
 * A watched process (or a descendant) starts a thread or a process: count
 * it (PT_WATCH_PROC), and follow a new process with the parent's owner and
 * bits. One that cannot be followed (watched full) is counted as lost
 * whatever is watched, so that IO not counted is never silent.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(pt_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	struct pt_watched *w = bpf_map_lookup_elem(&watched, &ptgid), kid;
	bool procs;

	if (!w)
		return 0;
	kid = *w;
	procs = kid.bits & PT_WATCH_PROC;
	if (ctgid == ptgid) {
		if (procs)
			proc_add(kid.owner, PT_PROC_THREAD, 0, parent->comm, 0);
		return 0;
	}
	if (procs)
		proc_add(kid.owner, PT_PROC_FORK, 0, parent->comm, 0);
	if (bpf_map_update_elem(&watched, &ctgid, &kid, BPF_ANY))
		proc_add(kid.owner, PT_PROC_LOST, 0, NULL, 0);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(pt_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 owner = watch_owner(BPF_CORE_READ(p, tgid), PT_WATCH_PROC);

	if (owner)
		proc_add(owner, PT_PROC_EXEC, 0, BPF_CORE_READ(bprm, filename),
			 0);
	return 0;
}

/*
 * Every task's exit. A thread other than the leader counts as
 * thread-exit; the last task of a process (signal->live reached 0) as the
 * exit of the process, with its status (or -signal) and lifetime; a
 * descendant is then no longer followed (a watched process itself stays
 * until user space lets it go).
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(pt_exit, struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	struct pt_watched *w = bpf_map_lookup_elem(&watched, &tgid);
	struct task_struct *leader;
	__u32 owner;
	bool last;
	__u64 now;
	int code;

	if (!w)
		return 0;
	owner = w->owner;
	last = !BPF_CORE_READ(p, signal, live.counter);
	if (!(w->bits & PT_WATCH_PROC))
		goto gone;
	now = bpf_ktime_get_ns();
	if (BPF_CORE_READ(p, pid) != tgid)
		proc_add(owner, PT_PROC_THREAD_EXIT, 0, p->comm,
			 now - BPF_CORE_READ(p, start_time));
	if (!last)
		return 0;
	leader = BPF_CORE_READ(p, group_leader);
	code = BPF_CORE_READ(p, exit_code);
	proc_add(owner, PT_PROC_EXIT, code & 0x7f ? -(code & 0x7f) : code >> 8,
		 leader->comm, now - BPF_CORE_READ(leader, start_time));
gone:
	if (owner != tgid && last)
		bpf_map_delete_elem(&watched, &tgid);
	return 0;
}
