// SPDX-License-Identifier: MIT
/*
 * unwind.bpf.h — a thread's user stack walked by the unwind tables of
 * the objects it runs in (issue 34), for ustack keys.
 *
 * Debian builds nothing with frame pointers, so the kernel's own walk
 * (bpf_get_stack(), rbp to rbp) loses its way in the first frame of libc
 * or of any -O2 program. User space compiles each object's .eh_frame into
 * rows by file offset (engine/find/ehframe.c, struct pt_urow) and loads
 * them into urows; the walker, from the probe's registers, for each frame:
 * finds its mapping (uprocs: the process's executable mappings, sorted,
 * as user space read them; else bpf_find_vma() and uobjs, by the file's
 * device and inode, the last one found kept per CPU), the rule at its
 * file offset (a binary search of the object's rows), and applies it: the
 * CFA from rsp or rbp, the return address at CFA - 8, the caller's rbp
 * where the rule says it was saved. An object without a table, or an
 * address no FDE covers, is walked by its frame pointer; the walk ends at
 * the outermost frame (_start's and clone's undefined return address), at
 * a rule it cannot follow, at unreadable memory, a zero return address or
 * a frame that does not move up the stack. A return address a uretprobe
 * replaced by its trampoline is put back (the thread's pending
 * return_instances, in order, as the kernel's own stack traces do).
 * A frame of the traced HotSpot JVM's interpreter (jvm_pid, its code
 * [jvm_lo, jvm_hi), which keeps rbp as its frame pointer) is recorded
 * by the Method* at rbp + jvm_method_at and its bytecode index
 * (PT_IP_JAVA, probetop.h), which user space names with a line
 * (engine/name/jvmframe.h): three reads more per such frame.
 *
 * In a V8 process (v8procs: Node), a frame walked by its frame pointer
 * that V8 made for JavaScript (its context slot holds a heap object, not
 * a frame type's Smi marker) has its JSFunction's SharedFunctionInfo
 * kept beside its address (pt_stack_ips.fn, one more user-memory read a
 * JavaScript frame) and in the stack's hash: user space names it
 * (engine/name/v8frame.c), and code that moved, or other code at the
 * same address, makes another stack.
 *
 * A frame whose address was walked lately costs a probe of the per-CPU
 * rules cache; another a map lookup or none for its mapping (the last
 * frame's is tried first) and some 17 array lookups for its rule. The
 * stack is read through a 4 KB window: one user-memory read for most
 * stacks. The tables are user space's to change: it bumps unwind_gen,
 * which makes the per-CPU last mapping and cached rules stale, and a
 * walk under way reads at worst a row that just changed (a wrong frame,
 * never a fault).
 *
 * Part of probetop.bpf.c, included before stack.bpf.h (stack_key()).
 */

#define UW_ENOENT 2 /* errno values (vmlinux.h has none) */
#define UW_EBUSY 16

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PT_UROWS); /* sized by user space (mapsize.c) */
	__type(key, __u32);
	__type(value, struct pt_urow);
} urows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_UOBJS);
	__type(key, struct pt_uobj_key);
	__type(value, struct pt_uobj);
} uobjs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_UPROCS);
	__type(key, __u32);
	__type(value, struct pt_uproc);
} uprocs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_V8_PROCS);
	__type(key, __u32);
	__type(value, struct pt_v8proc);
} v8procs SEC(".maps");

/* Walk by the tables (set by user space once it has loaded some). */
__u32 unwind_on;
/* The tables' generation: user space bumps it at each change. */
__u32 unwind_gen;
/* The HotSpot JVM whose interpreted frames are recorded by Method*
 * (user space sets them, engine/name/jvmframe.h; 0: none): its
 * process, its interpreter's code [jvm_lo, jvm_hi), where a frame
 * keeps its Method*, bytecode pointer and its caller's stack pointer,
 * from its rbp, where a Method keeps its ConstMethod, and where a
 * ConstMethod's bytecodes start. */
__u32 jvm_pid;
__u64 jvm_lo, jvm_hi;
__s64 jvm_method_at, jvm_bcp_at, jvm_sender_at;
__u32 jvm_cm_at, jvm_code_at;

/* The mapping a frame is in, as the walker needs it (struct pt_umap). */
struct uw_map {
	__u64 start, end, base;
	__u32 first, count;
};

/* The last mapping found by bpf_find_vma(), of which address space, at
 * which generation. */
struct uw_last {
	struct uw_map m;
	__u64 mm;
	__u32 gen;
	__u32 pad;
};

/* A window of the stack: one read serves every frame in it (a
 * user-memory read costs some 150 ns here, whatever its size up to a
 * few KB). */
#define UW_WIN 4096

/* The rules of the addresses walked last, by address: a stack walked
 * again (a probe's stacks are few) costs no search. */
#define UW_RC 512

struct uw_rc {
	__u64 pc, mm;
	__u32 gen, rule;
};

/*
 * A walk's state, per CPU (uprobes, profile samples): the window, the
 * last mapping found, the rules cache and the frame's registers. Kept in a map value,
 * not in the walk on the stack: the verifier does not follow what a map
 * holds, so it sees one state per step of bpf_loop() whatever was read
 * (in a stack value each step's differences made it explore on past a
 * million instructions).
 */
struct uw_scratch {
	__u8 b[UW_WIN];
	__u64 base, len; /* b holds [base, base + len) of the stack */
	struct uw_last last;
	struct uw_rc rc[UW_RC];
	struct uw_map cur; /* the last frame's mapping */
	__u64 pc, sp, bp; /* the frame's registers */
	__u64 ri, tramp; /* the next uretprobe's return_instance, and the
			    trampoline it put in the return address's place */
	__u64 mm;
	__u64 hash; /* FNV-1a of the frames so far */
	__u32 gen;
	__u8 bp_ok; /* bp is the frame's rbp (not lost) */
	__u8 entry; /* frame 0 is at a function's first instruction */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct uw_scratch);
} uwscratch SEC(".maps");

/* A walk under way, for bpf_loop(): what does not change. */
struct uw_walk {
	struct pt_stack_ips *st;
	const struct pt_uproc *proc; /* the process's mappings, or NULL */
	__u32 v8pid; /* the process, if a V8 (v8procs); else 0 */
	struct task_struct *task;
	struct uw_scratch *s;
	__u64 r13; /* the interpreter's bytecode pointer, in frame 0 */
	bool jvm; /* the process is jvm_pid */
};

/* The index of process p's mapping (uprocs) holding address a, or -1. A
 * global function: its search verified once, not in every path of the
 * walk's step. */
__noinline int uw_umap_index(const struct pt_uproc *p, __u64 a)
{
	const struct pt_umap *m;
	__u32 lo = 0, n;

	if (!p)
		return -1;
	n = p->n < PT_UMAPS ? p->n : PT_UMAPS;
	if (!n)
		return -1;
	for (int i = 0; i < 8; i++) { /* the answer is in [lo, lo + n) */
		__u32 half = n / 2;

		if (n <= 1)
			break;
		if (p->m[(lo + half) & (PT_UMAPS - 1)].start <= a) {
			lo += half;
			n -= half;
		} else {
			n = half;
		}
	}
	m = &p->m[lo & (PT_UMAPS - 1)];
	return a < m->start || a >= m->end ? -1 : (int)(lo & (PT_UMAPS - 1));
}

/* Mapping a of the process's in uprocs into w->s->cur; 0 or -1. */
static __always_inline int uw_proc_map(struct uw_walk *w, __u64 a)
{
	int at = w->proc ? uw_umap_index(w->proc, a) : -1;
	const struct pt_umap *m;

	if (at < 0)
		return -1;
	m = &w->proc->m[at & (PT_UMAPS - 1)];
	w->s->cur.start = m->start;
	w->s->cur.end = m->end;
	w->s->cur.base = m->base;
	w->s->cur.first = m->first;
	w->s->cur.count = m->count;
	return 0;
}

/* bpf_find_vma()'s callback: the mapping into the walk's last, its rows
 * by the file's device and inode (the vDSO: 0, 0). */
static long uw_vma_found(struct task_struct *task, struct vm_area_struct *vma,
			 void *data)
{
	struct uw_walk *w = data;
	struct uw_last *l = &w->s->last;
	struct file *f = BPF_CORE_READ(vma, vm_file);
	struct pt_uobj_key k = {};
	struct pt_uobj *o = NULL;
	__u64 start = BPF_CORE_READ(vma, vm_start);

	l->m.start = start;
	l->m.end = BPF_CORE_READ(vma, vm_end);
	l->m.base = 0;
	if (f) {
		k.dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
		k.ino = BPF_CORE_READ(f, f_inode, i_ino);
		l->m.base = BPF_CORE_READ(vma, vm_pgoff) << 12;
		o = bpf_map_lookup_elem(&uobjs, &k);
	} else if ((__u64)BPF_CORE_READ(vma, vm_mm, context.vdso) == start) {
		o = bpf_map_lookup_elem(&uobjs, &k);
	}
	l->m.first = o ? o->first : 0;
	l->m.count = o ? o->count : 0;
	l->mm = w->s->mm;
	l->gen = w->s->gen;
	return 0;
}

/* The mapping of address a into w->s->cur: the last frame's, the
 * process's in uprocs, the last found on this CPU, or bpf_find_vma()'s.
 * 0, -ENOENT (none: not code), -EBUSY (not known now: in a profile
 * sample's interrupt bpf_find_vma() takes the mmap lock once). */
static __always_inline int uw_map_of(struct uw_walk *w, __u64 a)
{
	struct uw_last *l = &w->s->last;
	long err;

	if (a >= w->s->cur.start && a < w->s->cur.end)
		return 0;
	if (!uw_proc_map(w, a))
		return 0;
	if (l->mm != w->s->mm || l->gen != w->s->gen || a < l->m.start ||
	    a >= l->m.end) {
		err = bpf_find_vma(w->task, a, uw_vma_found, w, 0);
		if (err)
			return err == -UW_EBUSY ? -UW_EBUSY : -UW_ENOENT;
	}
	w->s->cur = l->m;
	return 0;
}

/* Make the window hold [lo, hi) of the stack (hi - lo <= 512): if it
 * does not, read a new one from lo: UW_WIN bytes, or to the end of lo's
 * page when more cannot be read (the top of a stack). 0 or -1. */
static __always_inline int uw_fill(struct uw_walk *w, __u64 lo, __u64 hi)
{
	struct uw_scratch *win = w->s;
	__u64 n = UW_WIN;

	if (lo >= win->base && hi - win->base <= win->len)
		return 0;
	if (bpf_probe_read_user(win->b, UW_WIN, (void *)lo)) {
		n = (4096 - (lo & 4095)) & (UW_WIN - 1);
		if (bpf_probe_read_user(win->b, n, (void *)lo))
			n = 0;
	}
	win->base = lo;
	win->len = n;
	return hi - lo <= win->len ? 0 : -1;
}

/* The 8 bytes of the stack at a, which the window holds (uw_fill()). */
static __always_inline __u64 uw_at(const struct uw_walk *w, __u64 a)
{
	__u64 at = a - w->s->base;

	barrier_var(at);
	if (at > UW_WIN - 8)
		return 0;
	return *(__u64 *)&w->s->b[at];
}

/* The rule of address a of mapping m: a binary search of its rows. A
 * global function: the verifier checks its 21 steps once, not in every
 * state of uw_step() that calls it. */
__noinline __u32 uw_rule(const struct uw_map *m, __u64 a)
{
	__u64 off;
	__u32 lo, n, idx;
	struct pt_urow *r;

	if (!m)
		return PT_UR_MAKE(PT_UR_STOP, 0, 0, 0);
	off = a - m->start + m->base;
	lo = m->first;
	n = m->count;
	if (!n || off > 0xffffffffULL)
		return PT_UR_MAKE(PT_UR_FP, 0, 0, 0);
	for (int i = 0; i < 21; i++) { /* PT_UROWS is 2^20 */
		__u32 half = n / 2;

		if (n <= 1)
			break;
		idx = lo + half;
		r = bpf_map_lookup_elem(&urows, &idx);
		if (!r)
			return PT_UR_MAKE(PT_UR_STOP, 0, 0, 0);
		if (r->off <= off) {
			lo = idx;
			n -= half;
		} else {
			n = half;
		}
	}
	r = bpf_map_lookup_elem(&urows, &lo);
	if (!r)
		return PT_UR_MAKE(PT_UR_STOP, 0, 0, 0);
	return r->off <= off ? r->rule : PT_UR_MAKE(PT_UR_FP, 0, 0, 0);
}

/* The rule of address a (a frame's, or its call's): from the rules
 * cache, else by its mapping and that object's rows, kept in the cache.
 * 0, or -1 when a is in no mapping (the walk ends). */
static __always_inline int uw_rule_of(struct uw_walk *w, __u64 a, __u32 *rule)
{
	struct uw_scratch *s = w->s;
	struct uw_rc *e = &s->rc[(a ^ (a >> 9)) & (UW_RC - 1)];
	int err;

	if (e->pc == a && e->mm == s->mm && e->gen == s->gen) {
		*rule = e->rule;
		return 0;
	}
	err = uw_map_of(w, a);
	if (err == -UW_ENOENT)
		return -1;
	if (err) /* -EBUSY: not known now, not kept */
		return 0;
	*rule = uw_rule(&s->cur, a);
	e->pc = a;
	e->mm = s->mm;
	e->gen = s->gen;
	e->rule = *rule;
	return 0;
}

/* The CFA of w's frame by rule, and where the caller's rbp is (*bp:
 * PT_UR_BP() of the rule, 2 for a frame-pointer frame). 0 or -1 (the
 * walk ends). */
static __always_inline int uw_cfa(struct uw_walk *w, __u32 i, __u32 rule,
				  __u64 *cfa, __u32 *bp)
{
	__s64 off = PT_UR_OFF(rule);

	*bp = PT_UR_BP(rule);
	switch (PT_UR_KIND(rule)) {
	case PT_UR_RSP:
		*cfa = w->s->sp + off;
		return 0;
	case PT_UR_RBP:
		*cfa = w->s->bp + off;
		return w->s->bp_ok ? 0 : -1;
	case PT_UR_PLT:
		*cfa = w->s->sp + off +
		       ((w->s->pc & 15) >= PT_UR_THR(rule) ? 8 : 0);
		return 0;
	case PT_UR_DEREF:
		return w->s->bp_ok && !bpf_probe_read_user(
					      cfa, sizeof(*cfa),
					      (void *)(w->s->bp + off))
			       ? 0
			       : -1;
	case PT_UR_FP:
		if (!i && w->s->entry) { /* before the push of rbp */
			*cfa = w->s->sp + 8;
			*bp = 0;
			return 0;
		}
		*cfa = w->s->bp + 16;
		*bp = 2;
		return w->s->bp_ok && w->s->bp ? 0 : -1;
	default: /* PT_UR_END, PT_UR_STOP */
		return -1;
	}
}

/* What a JVM's frame at pc, its rbp bp (0: lost), is recorded as: pc,
 * or, for an interpreted frame, the Method* it keeps and its bytecode
 * index (PT_IP_JAVA, probetop.h): the bytecode pointer is r13 in the
 * running frame (i == 0), saved in the frame by a caller's; the index is
 * its offset into the method's bytecodes (PT_JAVA_BCI_NONE if not
 * there). The pc when rbp is lost or the Method* unreadable. A global
 * function: verified once, not in every path of the walk's step. */
__noinline __u64 uw_java_record(__u64 pc, __u64 bp, __u64 r13, __u32 i)
{
	__u64 method = 0, bcp = r13, cm = 0;
	__u64 bci = PT_JAVA_BCI_NONE;

	if (pc < jvm_lo || pc >= jvm_hi || !bp ||
	    bpf_probe_read_user(&method, sizeof(method),
				(void *)(bp + jvm_method_at)) ||
	    !method || method & 7 || method >> 47)
		return pc;
	if (i)
		bpf_probe_read_user(&bcp, sizeof(bcp),
				    (void *)(bp + jvm_bcp_at));
	if (!bpf_probe_read_user(&cm, sizeof(cm),
				 (void *)(method + jvm_cm_at)) &&
	    bcp >= cm + jvm_code_at && bcp - cm - jvm_code_at < bci)
		bci = bcp - cm - jvm_code_at;
	return PT_IP_JAVA | bci << PT_JAVA_BCI_SHIFT | method >> 3;
}

/* The stack pointer of the caller of the JVM's frame at pc, its rbp bp,
 * if that is an interpreted frame: the one it saved (a compiled caller,
 * through the c2i adapter that made room for the arguments, is not
 * where its rbp says); else 0. A global function: verified once. */
__noinline __u64 uw_java_sender(__u64 pc, __u64 bp)
{
	__u64 sp = 0;

	if (pc < jvm_lo || pc >= jvm_hi || !bp ||
	    bpf_probe_read_user(&sp, sizeof(sp), (void *)(bp + jvm_sender_at)))
		return 0;
	return sp;
}

/* The SharedFunctionInfo of the frame-pointer frame whose rbp is bp, in
 * V8 process pid (v8procs), if V8 made it for JavaScript (v8shared.h);
 * else 0. A global function: verified once, not at each step of the
 * walk. */
__noinline __u64 uw_v8_shared(__u64 bp, __u32 pid)
{
	const struct pt_v8proc *v8 = bpf_map_lookup_elem(&v8procs, &pid);
	__u64 slot[2], ctx, fn, shared = 0;
	__s32 lo, at_ctx, at_fn;

	if (!v8 || !bp)
		return 0;
	at_ctx = v8->fp_context;
	at_fn = v8->fp_function;
	lo = at_ctx < at_fn ? at_ctx : at_fn;
	if (at_ctx >= 0 || at_fn >= 0 || lo < -256 ||
	    (at_ctx > at_fn ? at_ctx - at_fn : at_fn - at_ctx) != 8)
		return 0; /* the two slots side by side, below fp */
	if (bpf_probe_read_user(slot, sizeof(slot), (void *)(bp + lo)))
		return 0;
	ctx = at_ctx == lo ? slot[0] : slot[1];
	fn = at_fn == lo ? slot[0] : slot[1];
	if ((ctx & v8->heap_tag_mask) != v8->heap_tag ||
	    (fn & v8->heap_tag_mask) != v8->heap_tag ||
	    bpf_probe_read_user(&shared, sizeof(shared),
				(void *)(fn - v8->heap_tag + v8->fn_shared)))
		return 0;
	return (shared & v8->heap_tag_mask) == v8->heap_tag ? shared : 0;
}

/* Frame i of the walk, for bpf_loop(): record it, step to its caller. */
static long uw_step(__u32 i, void *data)
{
	struct uw_walk *w = data;
	__u64 look = w->s->pc - (i ? 1 : 0); /* a return address: its call's */
	__u32 rule = PT_UR_MAKE(PT_UR_FP, 0, 0, 0), bp;
	__u64 cfa, ra, rec, sender = 0;
	__u32 at = i;

	if (i >= PT_STACK_FRAMES) {
		w->st->truncated = 1;
		return 1;
	}
	barrier_var(at); /* keep the mask: the verifier knows not i < 64 */
	rec = w->jvm ? uw_java_record(w->s->pc, w->s->bp_ok ? w->s->bp : 0,
				      w->r13, i)
		     : w->s->pc;
	w->st->ip[at & (PT_STACK_FRAMES - 1)] = rec;
	w->st->fn[at & (PT_STACK_FRAMES - 1)] = 0;
	w->s->hash = (w->s->hash ^ rec) * 0x100000001b3ULL;
	w->st->depth = i + 1;
	if (uw_rule_of(w, look, &rule))
		return 1;
	if (w->v8pid && PT_UR_KIND(rule) == PT_UR_FP && w->s->bp_ok) {
		__u64 shared = uw_v8_shared(w->s->bp, w->v8pid);

		w->st->fn[at & (PT_STACK_FRAMES - 1)] = shared;
		w->st->js += shared != 0;
		w->s->hash = (w->s->hash ^ shared) * 0x100000001b3ULL;
	}
	if (uw_cfa(w, i, rule, &cfa, &bp))
		return 1;
	if (w->jvm && PT_UR_KIND(rule) == PT_UR_FP)
		sender = uw_java_sender(w->s->pc, w->s->bp);
	if (bp > 64) { /* not worth a read of its own: lost */
		bp = 0;
		w->s->bp_ok = 0;
	}
	if (uw_fill(w, cfa - 8 * (bp ? bp : 1), cfa))
		return 1;
	ra = uw_at(w, cfa - 8);
	if (bp)
		w->s->bp = uw_at(w, cfa - 8 * bp);
	if (w->s->ri && ra == w->s->tramp) { /* a uretprobe's: the real one */
		struct return_instance *ri = (void *)w->s->ri;

		ra = BPF_CORE_READ(ri, orig_ret_vaddr);
		w->s->ri = (__u64)BPF_CORE_READ(ri, next);
	}
	if (!ra || cfa <= w->s->sp)
		return 1;
	w->s->sp = sender > w->s->sp ? sender : cfa;
	w->s->pc = ra;
	return 0;
}

/*
 * Walk the current thread's user stack from registers (pc, sp, bp) into
 * st (its depth, frames and whether it was cut); which: the per-CPU
 * slot (uprobes 0, profile samples 1); entry: pc is a function's first
 * instruction (a frame-pointer frame there has not pushed rbp yet). The
 * stack's hash (FNV-1a of its frames, then its depth), for its id.
 */
static __always_inline __u64 uw_walk(struct pt_stack_ips *st, __u32 which,
				     __u64 pc, __u64 sp, __u64 bp, bool entry)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	struct uw_walk w = { .st = st, .task = task };
	struct uw_scratch *s = bpf_map_lookup_elem(&uwscratch, &which);

	st->depth = 0;
	st->truncated = 0;
	st->js = 0;
	if (!s)
		return 0;
	w.s = s;
	s->hash = 0xcbf29ce484222325ULL;
	s->len = 0;
	s->cur.start = s->cur.end = 0;
	s->pc = pc;
	s->sp = sp;
	s->bp = bp;
	s->mm = (__u64)task->mm;
	s->gen = unwind_gen;
	s->bp_ok = 1;
	s->entry = entry;
	s->ri = task->utask ? (__u64)task->utask->return_instances : 0;
	if (s->ri)
		s->tramp =
			BPF_CORE_READ(task, mm, uprobes_state.xol_area, vaddr);
	w.proc = bpf_map_lookup_elem(&uprocs, &pid);
	w.jvm = jvm_pid && pid == jvm_pid;
	if (w.jvm)
		w.r13 = BPF_CORE_READ((struct pt_regs *)bpf_task_pt_regs(task),
				      r13);
	w.v8pid = bpf_map_lookup_elem(&v8procs, &pid) ? pid : 0;
	bpf_loop(PT_STACK_FRAMES + 1, uw_step, &w, 0);
	return (s->hash ^ st->depth) * 0x100000001b3ULL;
}
