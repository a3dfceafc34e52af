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
 * Under the budget a spec is attached in windows (engine/collect/budget.c): from
 * the moment it is parked its hits are dropped, starts and ends alike,
 * until it is attached again. A start before the gap whose end fell in
 * it would pair with a later end (a latency as long as the gap), and an
 * end whose start fell in it would pop an outer start. So a pair is made
 * only of a start and an end of one window: user space bumps the spec's
 * epoch (pt_epoch) when it parks the spec and when it attaches it again,
 * a stack keeps the epoch its starts were pushed in, and the first event
 * of a later epoch on that stack drops what it holds (their ends may
 * have gone by unseen). What the windows cut is counted apart (STAT_CUT):
 * those starts, and an end without a start of its window once the spec
 * has been parked (before, as ever, unmatched: its start came before the
 * spec was attached). Epochs only grow along a stack, so one epoch per
 * stack is enough. A spec the budget never parks stays in epoch 0 and
 * pairs as it always did.
 *
 * A start whose first instruction the kernel single-steps (a function
 * that begins with mov %edx,%edx, say) pays a second trap after its
 * time is taken, some 15 us here whose price the host's load moves by
 * a tenth and more: no calibrated constant takes it out of a 10 us
 * call. Where the next instruction is known and emulated, a second
 * probe there (PT_ACT_LAT_RESTAMP, engine/attach/attach.c) takes the
 * start's time again, once the step is done: a start's time is odd
 * (LAT_FRESH) until it has been taken again, so that a jump back to that
 * instruction later in the call leaves it.
 *
 * Part of probetop.bpf.c, included after agg.bpf.h.
 */

/* The low bit of a start's time: not taken again yet (lat_restamp()). */
#define LAT_FRESH 1ULL

/* A start's time: now, fresh. */
static __always_inline __u64 lat_stamp(void)
{
	return bpf_ktime_get_ns() | LAT_FRESH;
}

/* Spec's epoch now. The barrier keeps the read after handle()'s look at
 * pt_parked: user space bumps the epoch before it clears the bit, so an
 * event that saw the bit clear sees the new epoch. */
static __always_inline __u32 lat_epoch(__u32 spec)
{
	asm volatile("" ::: "memory");
	return *(volatile __u32 *)&pt_epoch[spec & (PT_MAX_SPECS - 1)];
}

/* A stack of spec (its epoch *have, its depth *depth, its floor *floor)
 * met in epoch now: if its starts are of an earlier window, drop them
 * all, counted as cut (those lost were counted as drops), and start it
 * over in epoch now. */
static __always_inline void lat_renew(__u32 spec, __u32 *have, __u32 *depth,
				      __u32 *floor, __u32 now)
{
	__u32 kept = *depth - *floor;

	if (*have == now)
		return;
	*have = now;
	if (!*depth)
		return;
	*depth = 0;
	*floor = 0;
	stat_add(spec, STAT_CUT, kept);
}

/*
 * A start pushed at depth d of a stack whose starts below *floor are
 * lost: the slot it takes. A stack keeps its newest PT_STACK_DEPTH
 * starts; a push past them loses the oldest kept one, counted as deep: a
 * start nested deeper than that, or one whose end never came (a
 * PostgreSQL statement that failed, a probe attached between them),
 * which would otherwise hold the stack full and every later start out.
 */
static __always_inline __u32 lat_slot_push(__u32 spec, __u32 d, __u32 *floor)
{
	if (d - *floor >= PT_STACK_DEPTH) {
		*floor = d + 1 - PT_STACK_DEPTH;
		stat_inc(spec, STAT_DEEP);
	}
	return d & (PT_STACK_DEPTH - 1);
}

/* A pop to depth d: whether its start is kept (else it was lost, and the
 * floor comes down to it). */
static __always_inline bool lat_slot_pop(__u32 d, __u32 *floor)
{
	if (d < *floor) {
		*floor = d;
		return false;
	}
	return true;
}

/* An end of spec without a start of its window, in epoch now. */
static __always_inline void lat_miss(__u32 spec, __u32 now)
{
	stat_inc(spec, now ? STAT_CUT : STAT_UNMATCHED);
}

/* The thread's stack for tag: its own, else (claim) a free one taken
 * for it in epoch; -1 if none. */
static __always_inline int tstack_find(struct pt_tstack *t, __u32 tag,
				       bool claim, __u32 epoch)
{
	for (int i = 0; i < PT_TASK_STACKS; i++)
		if (t->tag[i] == tag)
			return i;
	if (!claim)
		return -1;
	for (int i = 0; i < PT_TASK_STACKS; i++) {
		if (!t->depth[i]) {
			t->tag[i] = tag;
			t->epoch[i] = epoch;
			return i;
		}
	}
	return -1;
}

/* Push now for solo site s, in epoch, on the thread's own stack; false
 * if it has none for s (the caller uses the hash map). */
static __always_inline bool tstack_push(const struct pt_site *s, __u32 epoch)
{
	struct pt_tstack *t =
		bpf_task_storage_get(&tstacks, bpf_get_current_task_btf(), 0,
				     BPF_LOCAL_STORAGE_GET_F_CREATE);
	__u32 d;
	int i;

	if (!t)
		return false;
	i = tstack_find(t, s->tag, true, epoch) & (PT_TASK_STACKS - 1);
	if (t->tag[i] != s->tag)
		return false; /* none found */
	lat_renew(s->spec, &t->epoch[i], &t->depth[i], &t->floor[i], epoch);
	d = t->depth[i];
	t->ts[i][lat_slot_push(s->spec, d, &t->floor[i])] = lat_stamp();
	t->depth[i] = d + 1;
	return true;
}

/* Pop solo site s's newest start of epoch from the thread's own stack
 * into *t0 (0: too deep to have been kept); false if that stack has none
 * (look in the hash map). */
static __always_inline bool tstack_pop(const struct pt_site *s, __u32 epoch,
				       __u64 *t0)
{
	struct pt_tstack *t = bpf_task_storage_get(
		&tstacks, bpf_get_current_task_btf(), 0, 0);
	__u32 d;
	int i;

	if (!t)
		return false;
	i = tstack_find(t, s->tag, false, epoch) & (PT_TASK_STACKS - 1);
	if (t->tag[i] != s->tag)
		return false;
	lat_renew(s->spec, &t->epoch[i], &t->depth[i], &t->floor[i], epoch);
	if (!t->depth[i])
		return false;
	d = --t->depth[i];
	*t0 = lat_slot_pop(d, &t->floor[i]) ? t->ts[i][d & (PT_STACK_DEPTH - 1)]
					    : 0;
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

/* Push a start, in epoch, on the (thread, spec) stack of the hash map;
 * its keys as fill_key() fills them with the walkers walk. */
static __always_inline void lat_push(const struct pt_regs *ctx,
				     const struct pt_site *s, __u32 epoch,
				     const __u32 walk)
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
	lat_renew(s->spec, &st->epoch, &st->depth, &st->floor, epoch);
	d = st->depth;
	f = &st->f[lat_slot_push(s->spec, d, &st->floor)];
	st->depth = d + 1;
	if (s->solo) {
		f->ts = lat_stamp(); /* no key: nothing else to keep */
		return;
	}
	key_zero(&f->key, s->width);
	err = fill_key(ctx, s, &f->key, walk);
	if (err) {
		/* keep the frame so the end still pairs; mark it unusable */
		f->ts = 0;
		stat_inc(s->spec, err - 1);
		return;
	}
	f->ts = lat_stamp();
}

static __always_inline void lat_start(const struct pt_regs *ctx,
				      const struct pt_site *s, const __u32 walk)
{
	__u32 epoch = lat_epoch(s->spec);

	if (s->solo && tstack_push(s, epoch))
		return;
	lat_push(ctx, s, epoch, walk);
}

/* A pair's time raw ns less adj, what its probes add to it on average
 * (calibrated): 0 if that is all or more. */
static __always_inline __s64 lat_ns(__u64 raw, __u64 adj)
{
	return raw > adj ? (__s64)(raw - adj) : 0;
}

/* Pop the newest start of s of epoch from the (thread, spec) stack of
 * the hash map and record the time since. */
static __always_inline void lat_pop(const struct pt_site *s, __u32 epoch,
				    __u64 now)
{
	struct pt_stack_key sk = {
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.spec = s->spec,
	};
	struct pt_stack *st = bpf_map_lookup_elem(&stacks, &sk);
	struct pt_frame *f;
	__u32 d;
	__s64 ns;

	if (!st) {
		lat_miss(s->spec, epoch);
		return;
	}
	lat_renew(s->spec, &st->epoch, &st->depth, &st->floor, epoch);
	if (!st->depth) {
		lat_miss(s->spec, epoch);
		return;
	}
	d = --st->depth;
	if (!lat_slot_pop(d, &st->floor))
		return; /* counted as deep when it was lost */
	f = &st->f[d & (PT_STACK_DEPTH - 1)];
	if (!f->ts)
		return; /* counted when it started */
	ns = lat_ns(now - (f->ts & ~LAT_FRESH), s->lat_adj);
	if (s->solo)
		solo_hist_add(s->spec, ns, lat_bucket(ns, s));
	else
		key_hist(&f->key, s->width, ns, lat_bucket(ns, s));
}

/* The time of solo site s's newest start on the thread's own stack, in
 * epoch; NULL if it has none there. */
static __always_inline __u64 *tstack_top(const struct pt_site *s, __u32 epoch)
{
	struct pt_tstack *t = bpf_task_storage_get(
		&tstacks, bpf_get_current_task_btf(), 0, 0);
	__u32 d;
	int i;

	if (!t)
		return NULL;
	i = tstack_find(t, s->tag, false, epoch) & (PT_TASK_STACKS - 1);
	if (t->tag[i] != s->tag || t->epoch[i] != epoch)
		return NULL;
	d = t->depth[i];
	if (!d || d - 1 < t->floor[i])
		return NULL;
	return &t->ts[i][(d - 1) & (PT_STACK_DEPTH - 1)];
}

/* The time of spec's newest start in epoch on the (thread, spec) stack
 * of the hash map; NULL if none. */
static __always_inline __u64 *stack_top(__u32 spec, __u32 epoch)
{
	struct pt_stack_key sk = {
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.spec = spec,
	};
	struct pt_stack *st = bpf_map_lookup_elem(&stacks, &sk);
	__u32 d;

	if (!st || st->epoch != epoch)
		return NULL;
	d = st->depth;
	if (!d || d - 1 < st->floor)
		return NULL;
	return &st->f[(d - 1) & (PT_STACK_DEPTH - 1)].ts;
}

/* Past a start that was single-stepped (PT_ACT_LAT_RESTAMP): its newest
 * start, if still fresh, takes its time now; if not (the call jumped
 * back here), this hit's price (s->lat_adj, as calibrated) is taken out
 * of it. One that was not kept (0: a key not read) stays so. */
static __always_inline void lat_restamp(const struct pt_site *s)
{
	__u32 epoch = lat_epoch(s->spec);
	__u64 *ts = s->solo ? tstack_top(s, epoch) : NULL;

	if (!ts)
		ts = stack_top(s->spec, epoch);
	if (!ts || !*ts)
		return;
	if (*ts & LAT_FRESH)
		*ts = bpf_ktime_get_ns() & ~LAT_FRESH;
	else
		*ts += s->lat_adj & ~LAT_FRESH;
}

/* The end of a latency pair: its time, less what the probes themselves
 * added to it (s->lat_adj: the start's trap after its timestamp, the
 * end's before its own, as calibrated), into its start's row; now: the
 * end's timestamp, taken as its program began. */
static __always_inline void lat_end(const struct pt_site *s, __u64 now)
{
	__u64 t0;
	__u32 epoch = lat_epoch(s->spec);
	__s64 ns;

	if (!s->solo || !tstack_pop(s, epoch, &t0)) {
		lat_pop(s, epoch, now);
		return;
	}
	if (!t0)
		return; /* lost (counted as deep), or a key not read */
	ns = lat_ns(now - (t0 & ~LAT_FRESH), s->lat_adj);
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
