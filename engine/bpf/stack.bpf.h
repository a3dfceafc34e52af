// SPDX-License-Identifier: MIT
/*
 * stack.bpf.h — the native stacks of the thread at a probe (ustack and
 * kstack keys).
 *
 * The kernel walks the stack (frame pointers in user space, its own
 * unwinder in the kernel) with bpf_get_stack() into a per-CPU scratch
 * buffer one frame longer than a key keeps, so that a deeper stack is
 * known to be cut. The stack's id is a hash of its addresses; the stack
 * is kept in `nstacks` by that id the first time it is seen, and user
 * space names it once (engine/stackname.c). Unlike the kernel's stack
 * trace map, two stacks never share an id slot: a full map drops the
 * event (counted), it never overwrites a stack already named.
 *
 * Part of probetop.bpf.c, included before fetch.bpf.h (fill_key()).
 */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_STACKS);
	__type(key, __u64);
	__type(value, struct pt_stack_ips);
} nstacks SEC(".maps");

/* A stack being read, per CPU: one for uprobes, one for profile samples,
 * which may interrupt a uprobe's program on the same CPU. */
struct stack_scratch {
	struct pt_stack_ips st;
	__u64 extra; /* bpf_get_stack() writes one frame more: cut or not */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct stack_scratch);
} stackscratch SEC(".maps");

/* FNV-1a over a stack's frames, for bpf_loop(). */
struct stack_hash {
	const struct pt_stack_ips *st;
	__u64 h;
};

static long stack_hash_step(__u32 i, void *data)
{
	struct stack_hash *sh = data;

	if (i >= sh->st->depth) /* (bpf_loop() keeps i < PT_STACK_FRAMES:
				   the mask below is for the verifier) */
		return 1;
	sh->h = (sh->h ^ sh->st->ip[i & (PT_STACK_FRAMES - 1)]) *
		0x100000001b3ULL;
	return 0;
}

/*
 * The id of the stack in scratch slot `which` (kernel: a kernel stack;
 * the id differs from a user stack of the same addresses), the stack
 * kept in `nstacks` if new. Never 0; 1 when `nstacks` is full. A global
 * function: verified once, whatever calls it.
 */
__noinline __u64 stack_store(__u32 which, __u32 kernel)
{
	struct stack_scratch *sc = bpf_map_lookup_elem(&stackscratch, &which);
	struct stack_hash sh;
	__u64 id;

	if (!sc)
		return 1;
	sh.st = &sc->st;
	sh.h = 0xcbf29ce484222325ULL ^ sc->st.depth ^ ((__u64)kernel << 63);
	bpf_loop(PT_STACK_FRAMES, stack_hash_step, &sh, 0);
	id = sh.h > 1 ? sh.h : sh.h + 2;
	if (!bpf_map_lookup_elem(&nstacks, &id) &&
	    bpf_map_update_elem(&nstacks, &id, &sc->st, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&nstacks, &id))
		return 1;
	return id;
}

/* The id of the current thread's user (or kernel) stack at ctx, as
 * stack_store(); sample: ctx is a profile sample (its own scratch);
 * entry: ctx is at a function's first instruction, which has not made
 * its frame yet: the frame walk would miss its caller, whose return
 * address is then read from the stack pointer and put second. */
static __always_inline __u64 stack_key(const void *ctx, __u32 sample,
				       bool kernel, bool entry)
{
	struct stack_scratch *sc = bpf_map_lookup_elem(&stackscratch, &sample);
	__u64 ret = 0;
	long n;

	if (!sc)
		return 1;
	entry = entry && !kernel &&
		!bpf_probe_read_user(&ret, sizeof(ret),
				     (void *)PT_REGS_SP((struct pt_regs *)ctx));
	n = bpf_get_stack((void *)ctx, entry ? &sc->st.ip[1] : sc->st.ip,
			  entry ? sizeof(sc->st.ip) : sizeof(sc->st.ip) + 8,
			  kernel ? 0 : BPF_F_USER_STACK);
	n = n > 0 ? n / sizeof(__u64) : 0;
	if (entry && n) {
		sc->st.ip[0] = sc->st.ip[1];
		sc->st.ip[1] = ret;
		n++;
	}
	sc->st.truncated = n > PT_STACK_FRAMES;
	sc->st.depth = n > PT_STACK_FRAMES ? PT_STACK_FRAMES : n;
	return stack_store(sample, kernel);
}
