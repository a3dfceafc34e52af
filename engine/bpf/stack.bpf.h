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
 * space names it once (engine/name/stackname.c). Unlike the kernel's stack
 * trace map, two stacks never share an id slot: a full map drops the
 * event (counted), it never overwrites a stack already named.
 *
 * Naming a frame needs the mapping that holds it, which user space
 * reads from /proc/PID/maps; a process that exits first (any short
 * command under -b) leaves none. So the first time a user stack is
 * seen, each of its frames' mappings that the process has not sent yet
 * is sent on `nmaps` (struct pt_vma: the range, file offset, device,
 * inode and path, found with bpf_find_vma()), and the stack records the
 * process it was first seen in. That costs a lookup per frame of a new
 * stack only, never on the path of an event of a known one.
 *
 * With unwind tables loaded (unwind.bpf.h), a user stack is walked by
 * them instead of by bpf_get_stack(); the id, nstacks and nmaps are the
 * same either way.
 *
 * Part of probetop.bpf.c, included before fetch.bpf.h (fill_key()).
 */

/* Not preallocated: at 1 KB a stack (return addresses and JavaScript
 * functions) the full map is 8 MB, which a session that walks no stacks
 * should not hold (a small memory cgroup, say). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_STACKS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
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

/* The mappings of new stacks' frames (struct pt_vma). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 128 * 1024);
} nmaps SEC(".maps");

/* A mapping of a process, sent on nmaps. */
struct vma_seen_key {
	__u64 start;
	__u32 pid;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PT_VMAS);
	__type(key, struct vma_seen_key);
	__type(value, __u8);
} nmapseen SEC(".maps");

/* Mappings that found no room on nmaps (user space says so; the next
 * new stack with a frame there tries again). */
__u64 vmas_lost;

/* A mapping being sent, per CPU (uprobes, profile samples). */
struct vma_scratch {
	struct pt_vma rec;
	char more[PT_PATH_MAX]; /* room for a name read past the path's end */
	__u64 file; /* the mapping's struct file */
	__u32 at; /* where the path built so far starts in rec.path */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct vma_scratch);
} vmascratch SEC(".maps");

/*
 * The path of f as its process's mount namespace shows it, built from
 * its end in sc->rec.path (which it ends, NUL included): up its
 * dentries, across mounts, to the root. Where it starts in path, or 0
 * (too deep, too long, not reachable from the root: an anonymous file).
 * Where it starts is kept in the map value, sc->at, not in a register:
 * the verifier does not follow what a map holds, so each step of the
 * walk is one state whatever the names' lengths were (a register would
 * make it follow each combination of them).
 */
static __always_inline __u32 vma_path(struct vma_scratch *sc, struct file *f)
{
	struct dentry *d = BPF_CORE_READ(f, f_path.dentry);
	struct vfsmount *vm = BPF_CORE_READ(f, f_path.mnt);
	struct mount *mnt = container_of(vm, struct mount, mnt);
	__u32 at, len;

	sc->rec.path[PT_PATH_MAX - 1] = '\0';
	sc->at = PT_PATH_MAX - 1;
	for (int i = 0; i < PT_PATH_PARTS; i++) {
		struct dentry *top = BPF_CORE_READ(vm, mnt_root);
		struct dentry *up = BPF_CORE_READ(d, d_parent);
		const unsigned char *name;
		struct mount *pm;

		if (d ==
		    top) { /* the mount's root: on to where it is mounted */
			pm = BPF_CORE_READ(mnt, mnt_parent);
			if (pm == mnt) {
				at = sc->at;
				return at < PT_PATH_MAX - 1 ? at : 0;
			}
			d = BPF_CORE_READ(mnt, mnt_mountpoint);
			mnt = pm;
			vm = &pm->mnt;
			continue;
		}
		if (d == up)
			return 0; /* no root above: an anonymous file's */
		len = BPF_CORE_READ(d, d_name.len);
		name = BPF_CORE_READ(d, d_name.name);
		at = sc->at;
		if (len >= PT_PATH_MAX || len + 1 > at) /* at 0 means none */
			return 0;
		at -= len + 1;
		sc->rec.path[at & (PT_PATH_MAX - 1)] = '/';
		if (bpf_probe_read_kernel(
			    &sc->rec.path[(at + 1) & (PT_PATH_MAX - 1)],
			    len & (PT_PATH_MAX - 1), name))
			return 0;
		sc->at = at;
		d = up;
	}
	return 0;
}

/* Send the mapping in scratch `which` (its rec but the path, and file)
 * on nmaps with its path, and remember it as sent. A global function:
 * verified once, not at each frame of stack_maps()'s walk. */
__noinline int vma_send(__u32 which)
{
	struct vma_scratch *sc = bpf_map_lookup_elem(&vmascratch, &which);
	struct vma_seen_key k = {};
	__u8 one = 1;

	if (!sc)
		return 0;
	sc->rec.path_at = vma_path(sc, (struct file *)sc->file);
	if (bpf_ringbuf_output(&nmaps, &sc->rec, sizeof(sc->rec), 0)) {
		__sync_fetch_and_add(&vmas_lost, 1);
		return 0;
	}
	k.start = sc->rec.start;
	k.pid = sc->rec.pid;
	bpf_map_update_elem(&nmapseen, &k, &one, BPF_ANY);
	return 1;
}

/* A walk of a new stack's frames' mappings (bpf_find_vma()), for
 * bpf_loop(). */
struct vma_walk {
	const struct pt_stack_ips *st;
	struct task_struct *task;
	__u32 which; /* the scratch */
	__u32 pid;
	__u64 start, end; /* the mapping found last */
};

/* bpf_find_vma()'s callback: send vma unless the process sent it. */
static long vma_note(struct task_struct *task, struct vm_area_struct *vma,
		     void *data)
{
	struct vma_walk *w = data;
	struct vma_seen_key k = { .pid = w->pid };
	struct file *f = BPF_CORE_READ(vma, vm_file);
	struct vma_scratch *sc;

	k.start = w->start = BPF_CORE_READ(vma, vm_start);
	w->end = BPF_CORE_READ(vma, vm_end);
	if (!f || bpf_map_lookup_elem(&nmapseen, &k))
		return 0;
	sc = bpf_map_lookup_elem(&vmascratch, &w->which);
	if (!sc)
		return 0;
	sc->file = (__u64)f;
	sc->rec.pid = w->pid;
	sc->rec.dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
	sc->rec.ino = BPF_CORE_READ(f, f_inode, i_ino);
	sc->rec.start = w->start;
	sc->rec.end = w->end;
	sc->rec.offset = BPF_CORE_READ(vma, vm_pgoff) << 12;
	sc->rec.flags = BPF_CORE_READ(vma, vm_flags) & 7;
	vma_send(w->which);
	return 0;
}

/* Frame i's mapping, unless it is the last one found. */
static long vma_frame(__u32 i, void *data)
{
	struct vma_walk *w = data;
	__u64 ip;

	if (i >= w->st->depth)
		return 1;
	/* a return address: its call's (bpf_loop() keeps i below
	   PT_STACK_FRAMES: the mask is for the verifier) */
	ip = w->st->ip[i & (PT_STACK_FRAMES - 1)] - (i ? 1 : 0);
	if (ip < w->start || ip >= w->end)
		bpf_find_vma(w->task, ip, vma_note, w, 0);
	return 0;
}

/* Send the mappings of st's frames the current process has not sent;
 * which: the scratch to build them in. */
static __always_inline void stack_maps(const struct pt_stack_ips *st,
				       __u32 which)
{
	struct vma_walk w = {
		.st = st,
		.task = bpf_get_current_task_btf(),
		.which = which,
		.pid = bpf_get_current_pid_tgid() >> 32,
	};

	bpf_loop(PT_STACK_FRAMES, vma_frame, &w, 0);
}

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
 * The id of the stack in scratch slot `which`, hashed as h (kernel: a
 * kernel stack), the stack kept in `nstacks` if new (a user stack's
 * mappings sent, stack_maps()). Never 0; 1 when `nstacks` is full. A
 * global function: verified once, whatever calls it.
 */
__noinline __u64 stack_keep(__u32 which, __u32 kernel, __u64 h)
{
	struct stack_scratch *sc = bpf_map_lookup_elem(&stackscratch, &which);
	__u64 id = h > 1 ? h : h + 2;

	if (!sc)
		return 1;
	if (bpf_map_lookup_elem(&nstacks, &id))
		return id;
	sc->st.pid = kernel ? 0 : bpf_get_current_pid_tgid() >> 32;
	if (bpf_map_update_elem(&nstacks, &id, &sc->st, BPF_NOEXIST))
		return bpf_map_lookup_elem(&nstacks, &id) ? id : 1;
	if (!kernel)
		stack_maps(&sc->st, which);
	return id;
}

/* stack_keep() of the stack in scratch slot `which`, hashed here (the
 * id differs from a user stack of the same addresses when kernel). */
__noinline __u64 stack_store(__u32 which, __u32 kernel)
{
	struct stack_scratch *sc = bpf_map_lookup_elem(&stackscratch, &which);
	struct stack_hash sh;

	if (!sc)
		return 1;
	sh.st = &sc->st;
	sh.h = 0xcbf29ce484222325ULL ^ sc->st.depth ^ ((__u64)kernel << 63);
	bpf_loop(PT_STACK_FRAMES, stack_hash_step, &sh, 0);
	return stack_keep(which, kernel, sh.h);
}

/* The id of the current thread's user stack walked by the unwind
 * tables (unwind.bpf.h) from registers (pc, sp, bp), as stack_store();
 * which: the scratch slot; entry: pc is a function's first instruction.
 * A global function: verified once, whatever calls it. */
__noinline __u64 ustack_walk(__u32 which, __u64 pc, __u64 sp, __u64 bp,
			     __u32 entry)
{
	struct stack_scratch *sc = bpf_map_lookup_elem(&stackscratch, &which);

	if (!sc)
		return 1;
	return stack_keep(which, 0, uw_walk(&sc->st, which, pc, sp, bp, entry));
}

/* The id of the current thread's user (or kernel) stack at ctx, as
 * stack_store(); sample: ctx is a profile sample (its own scratch; the
 * user registers are the task's, saved when it entered the kernel);
 * entry: ctx is at a function's first instruction, which has not made
 * its frame yet: the frame walk would miss its caller, whose return
 * address is then read from the stack pointer and put second. With
 * unwind tables loaded, user stacks are walked by them (ustack_walk()). */
static __always_inline __u64 stack_key(const void *ctx, __u32 sample,
				       bool kernel, bool entry)
{
	struct stack_scratch *sc = bpf_map_lookup_elem(&stackscratch, &sample);
	const struct pt_regs *regs = ctx;
	__u64 ret = 0;
	long n;

	if (!sc)
		return 1;
	if (!kernel && unwind_on) {
		if (sample)
			regs = (const struct pt_regs *)bpf_task_pt_regs(
				bpf_get_current_task_btf());
		return ustack_walk(sample, BPF_CORE_READ(regs, ip),
				   BPF_CORE_READ(regs, sp),
				   BPF_CORE_READ(regs, bp), entry);
	}
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
	sc->st.js = 0; /* JavaScript frames: walked by the tables only */
	return stack_store(sample, kernel);
}
