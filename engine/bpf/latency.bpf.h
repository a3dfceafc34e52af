// SPDX-License-Identifier: MIT
/*
 * latency.bpf.h — latency pairs (PT_ACT_LAT_START/END): a start pushes
 * the time (and the key) on a stack, the matching end pops it and records
 * the time since in a histogram. A solo site uses the thread's own stacks
 * in task storage (tstacks) while it has one free for the site's tag;
 * otherwise, and for keyed sites, the stack is the (thread, spec) entry
 * of the stacks hash map. Too deep, unmatched, or a key not read: counted
 * in the spec's stats.
 *
 * A thread's entries in stacks are freed when it exits (pt_lat_exit):
 * the thread notes each one in its task storage (owned) when the entry
 * is made, which is off the per-event path (later starts find the entry),
 * and the exit deletes the ones noted. So the map holds (live thread,
 * spec) pairs only, however many threads come and go, and a start left
 * open by a thread that died never pairs with a thread that reuses its
 * tid. tstacks needs none of this: the kernel frees task storage with
 * the task.
 *
 * Part of probetop.bpf.c, included after agg.bpf.h.
 */

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

/* The new, empty stack sk of the current thread, noted in its owned
 * bits first (so that its exit frees it); NULL if the map is full or
 * the thread's storage cannot be had. */
static __always_inline struct pt_stack *stack_new(const struct pt_stack_key *sk)
{
	struct pt_owned *o =
		bpf_task_storage_get(&owned, bpf_get_current_task_btf(), 0,
				     BPF_LOCAL_STORAGE_GET_F_CREATE);
	__u32 spec = sk->spec & (PT_MAX_SPECS - 1);

	if (!o)
		return NULL;
	o->spec[spec / 64] |= 1ULL << (spec % 64);
	bpf_map_update_elem(&stacks, sk, &zero_stack, BPF_NOEXIST);
	return bpf_map_lookup_elem(&stacks, sk);
}

/* Push a start on the (thread, spec) stack of the hash map. */
static __always_inline void lat_push(const struct pt_regs *ctx,
				     const struct pt_site *s)
{
	struct pt_stack_key sk = {
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.spec = s->spec,
	};
	struct pt_stack *st = bpf_map_lookup_elem(&stacks, &sk);
	struct pt_frame *f;
	__u32 d;
	int err;

	if (!st)
		st = stack_new(&sk);
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
	err = fill_key(ctx, s, &f->key);
	if (err) {
		/* keep the frame so the end still pairs; mark it unusable */
		f->ts = 0;
		stat_inc(s->spec, err - 1);
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

/*
 * Every task's exit: delete the entries of stacks that the exiting
 * thread noted in its owned bits (none for a thread that never made one:
 * then this is one task-storage lookup). Attached with the first latency
 * spec (tracer.c), kept until the tracer is freed.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(pt_lat_exit, struct task_struct *p)
{
	struct pt_owned *o = bpf_task_storage_get(&owned, p, 0, 0);
	struct pt_stack_key sk = { .tid = p->pid };

	if (!o)
		return 0;
	for (int w = 0; w < PT_MAX_SPECS / 64; w++) {
		__u64 bits = o->spec[w];

		for (int b = 0; b < 64 && bits; b++, bits >>= 1) {
			if (!(bits & 1))
				continue;
			sk.spec = w * 64 + b;
			bpf_map_delete_elem(&stacks, &sk);
		}
	}
	return 0;
}
