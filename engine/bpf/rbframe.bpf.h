// SPDX-License-Identifier: MIT
/*
 * rbframe.bpf.h — the Ruby frames of the thread at a probe, read from
 * CRuby's own structures (rbframe and rbstack keys).
 *
 * engine/name/rbframe.c writes, per Ruby process, where its
 * ruby_current_vm_ptr and its global symbol table are and the offsets
 * of its version (struct pt_rbproc). The thread that runs Ruby code is
 * the one holding the GVL: the main ractor's threads.running_ec, whose
 * thread's pthread_t (on x86-64 its fs base) must be the current
 * task's, else the probe fired in a thread that runs no Ruby code now
 * (a blocking region of another thread, Ruby's timer thread). Its
 * control frames lie from ec->cfp up to the end of its VM stack
 * (vm_stack + vm_stack_size), innermost first, and are read through one
 * RB_WINDOW-byte window; each frame's ep[0] says what it is: a C method
 * (its method entry at ep[-2], named by the ID it was called by), a C
 * block or a dummy frame (no code of their own: skipped), else Ruby
 * code (its iseq).
 *
 * An rbframe key is the innermost frame that runs Ruby code (a method,
 * a block, a class body, a file's top level): time or calls in a C
 * method are its caller's. An rbline key is that frame and its pc
 * (PT_RBLINE()): in a C method, the caller's call's. An rbstack key
 * keeps every frame, C methods too, by an id (a hash of its frames'
 * keys) in rbstacks, its frames named when the stack is new. Ruby code
 * is keyed by its iseq's body tagged by its path, label and first line
 * (PT_RBFUNC_KEY()), a C method by its ID (PT_RBCFUNC_KEY()).
 *
 * Names are taken here, at first sight, as phpframe.bpf.h does: the
 * first time a process's frame is a key (or a frame of a new stack),
 * rb_name() reads its label, path and first line (a C method: its name
 * from the symbol table) and sends them on rbnew, so a process that
 * exits at once is still named; for an rbline key's function, its line
 * table too (rb_lines()), which user space reads lines from.
 *
 * Its structs are in rbshared.h. Part of probetop.bpf.c, included
 * before fetch.bpf.h (fill_key()).
 */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_RB_PROCS);
	__type(key, __u32); /* tgid */
	__type(value, struct pt_rbproc);
} rbprocs SEC(".maps");

/* Allocated as stacks come (unlike the key maps, maps.bpf.h): every
 * probetop loads it, and preallocated it took 1.6 MiB of a run that
 * reads no Ruby (trace_fixture's memory cgroup of 64 MiB holds a run
 * with --aggsize 16m: 61.3 MiB at its peak before Ruby, 64.2 with this
 * map preallocated, 63.1 without). A Ruby's new stacks come one sample
 * or one call path at a time; one that finds no room is dropped as
 * rbstacks full (STAT_FULL), never lost. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, PT_RBSTACK_ENTRIES);
	__type(key, __u64);
	__type(value, struct pt_rbstack);
} rbstacks SEC(".maps");

/* A frame's function of a process as set up (gen) whose names (and
 * line table, lines 1) were sent. */
struct rb_seen_key {
	__u64 key;
	__u32 gen;
	__u32 lines;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PT_RBSTACK_ENTRIES);
	__type(key, struct rb_seen_key);
	__type(value, __u8);
} rbfuncs SEC(".maps");

/* The names of what was seen for the first time (struct pt_rbnew). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} rbnew SEC(".maps");

/* Functions whose names could not be sent (rbnew full). */
__u64 rb_names_lost;

/* Bytes of control frames read at once: PT_RBSTACK_DEPTH frames of up
 * to 64 bytes (rblayout_usable() checks the layout's). */
#define RB_WINDOW PT_RBWINDOW
/* An object's header read at once: flags, class and 24 bytes (a slot
 * of Ruby's heap is 40 bytes), into a buffer of RB_HEADBUF. */
#define RB_HEAD PT_RBHEAD
#define RB_HEADBUF 64
/* The fields of an iseq body read lie in RB_LOC bytes from its pathobj. */
#define RB_LOC PT_RBLOC

/* rb_frame(): a frame that cannot be read (no key is 1). */
#define RB_UNREAD 1

/* Per CPU: one for uprobes, one for profile samples, which may
 * interrupt a uprobe's program on the same CPU. */
struct rb_scratch {
	struct pt_rbnew rec;
	struct pt_rbstack st;
	__u8 win[RB_WINDOW];
	__u8 head[RB_HEADBUF];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct rb_scratch);
} rbscratch SEC(".maps");

/* The control frames of the thread: where the window starts (base),
 * the innermost frame's offset in it, how many frames it holds. */
struct rb_walk {
	__u64 base;
	__u32 first, n;
	bool truncated; /* more frames than the window holds */
};

/* The pointer at addr in the current process, or 0. */
static __always_inline __u64 rb_ptr(__u64 addr)
{
	__u64 v = 0;

	if (!addr || bpf_probe_read_user(&v, sizeof(v), (const void *)addr))
		return 0;
	return v;
}

/* The 8 bytes at off of b (n bytes, a power of two; off 8-aligned). */
#define RB_U64(b, n, off) (*(const __u64 *)&(b)[(off) & ((n)-8)])

/* The object at obj's header into sc->head; its flags, or 0 if it
 * cannot be read or is not of type t. */
static __always_inline __u64 rb_head(struct rb_scratch *sc, __u64 obj, __u8 t)
{
	__u64 flags;

	if (!obj || (obj & 7) ||
	    bpf_probe_read_user(sc->head, RB_HEAD, (const void *)obj))
		return 0;
	flags = RB_U64(sc->head, RB_HEADBUF, 0);
	return (flags & 0x1f) == t ? flags : 0;
}

/* Element idx of the Array ary, or 0 (not an Array, out of range). A
 * global function. */
__noinline __u64 rb_ary_at(const struct pt_rbproc *pp, struct rb_scratch *sc,
			   __u64 ary, __u64 idx)
{
	__u64 flags, len, at;

	if (!pp || !sc)
		return 0;
	flags = rb_head(sc, ary, pp->t_array);
	if (!flags)
		return 0;
	if (flags & pp->ary_embed_flag) {
		len = flags >> pp->ary_embed_len_shift & pp->ary_embed_len_mask;
		at = ary + pp->ary_embed;
	} else {
		len = RB_U64(sc->head, RB_HEADBUF, pp->ary_heap_len);
		at = RB_U64(sc->head, RB_HEADBUF, pp->ary_heap_ptr);
	}
	return idx < len ? rb_ptr(at + idx * 8) : 0;
}

/* The String at str into *out: its first PT_RBSTR bytes, or its last if
 * tail. 0, or -1 if it cannot be read (out->len (__u64)-1). A global
 * function. */
__noinline int rb_str(const struct pt_rbproc *pp, struct rb_scratch *sc,
		      __u64 str, struct pt_rbstr *out, int tail)
{
	__u64 flags, len, ptr, n;

	if (!pp || !sc || !out)
		return -1;
	out->len = (__u64)-1;
	out->kept = 0;
	flags = rb_head(sc, str, pp->t_string);
	if (!flags)
		return -1;
	if (flags & pp->str_noembed) {
		len = RB_U64(sc->head, RB_HEADBUF, pp->str_heap_len);
		ptr = RB_U64(sc->head, RB_HEADBUF, pp->str_heap_ptr);
	} else {
		len = pp->str_embed_len_mask
			      ? flags >> pp->str_embed_len_shift &
					pp->str_embed_len_mask
			      : RB_U64(sc->head, RB_HEADBUF, pp->str_heap_len);
		ptr = str + pp->str_embed;
	}
	if (len > (1ULL << 32))
		return -1;
	n = len > PT_RBSTR ? PT_RBSTR : len;
	if (n &&
	    bpf_probe_read_user(out->data, n,
				(const void *)(ptr + (tail ? len - n : 0))))
		return -1;
	out->len = len;
	out->kept = n;
	return 0;
}

/* The location of the iseq body at body (pathobj, label, first_lineno)
 * into loc; false if it cannot be read. */
static __always_inline bool rb_loc(const struct pt_rbproc *pp, __u64 body,
				   __u64 loc[3])
{
	__u8 b[RB_LOC];

	if (!body ||
	    bpf_probe_read_user(b, sizeof(b),
				(const void *)(body + pp->body_pathobj)))
		return false;
	loc[0] = RB_U64(b, RB_LOC, 0);
	loc[1] = RB_U64(b, RB_LOC, pp->body_label - pp->body_pathobj);
	loc[2] = RB_U64(b, RB_LOC, pp->body_first_lineno - pp->body_pathobj);
	return true;
}

/* A first line as first_lineno holds it (the 8 bytes there): an int
 * (3.2+), else a Fixnum; 0 if not one. */
static __always_inline __u32 rb_line(const struct pt_rbproc *pp, __u64 v)
{
	if (pp->lineno_int)
		return (__u32)v;
	return v & 1 ? (__u32)(v >> 1) : 0;
}

/* The name of the C method whose ID is id, from the global symbol
 * table, into *out. 0 or -1. */
static __always_inline int rb_id_name(const struct pt_rbproc *pp,
				      struct rb_scratch *sc, __u64 id,
				      struct pt_rbstr *out)
{
	__u64 serial = id > pp->last_op_id ? id >> pp->id_scope_shift : id;
	__u64 ids = rb_ptr(pp->syms ? pp->syms + pp->syms_ids : 0);
	__u64 ary = ids ? rb_ary_at(pp, sc, ids, serial / 512) : 0;
	__u64 str = ary ? rb_ary_at(pp, sc, ary, serial % 512 * 2) : 0;

	return rb_str(pp, sc, str, out, 0);
}

/* The bytes of the succinct index of an iseq of size VALUEs (as Ruby's
 * iseq.c allocates it): its immediate part, then its blocks. */
static __always_inline __u32 rb_succ_bytes(__u32 size)
{
	if (size < PT_RBSUCC_IMM)
		return (size + 8) / 9 * 8;
	return PT_RBSUCC_IMM / 9 * 8 +
	       (size - PT_RBSUCC_IMM + 511) / 512 * PT_RBSUCC_BLOCK;
}

/* The line table of the iseq body at body into sc->rec: its
 * iseq_encoded and size, its insns_info entries and succinct index, as
 * much of each as the record holds. A global function. */
__noinline int rb_lines(const struct pt_rbproc *pp, struct rb_scratch *sc,
			__u64 body)
{
	struct pt_rbnew *r;
	__u64 n, info, succ;
	__u8 b[32];

	if (!pp || !sc)
		return 0;
	r = &sc->rec;
	r->encoded = 0;
	r->iseq_size = r->ninfo = r->info_bytes = r->succ_bytes = 0;
	if (bpf_probe_read_user(b, 16, (const void *)body))
		return 0;
	r->iseq_size = *(__u32 *)&b[pp->body_iseq_size & 12];
	r->encoded = RB_U64(b, 16, pp->body_iseq_encoded);
	if (bpf_probe_read_user(b, sizeof(b),
				(const void *)(body + pp->body_insns_info)))
		return 0;
	info = RB_U64(b, 32, 0);
	succ = RB_U64(b, 32, pp->body_insns_succ - pp->body_insns_info);
	r->ninfo =
		*(__u32 *)&b[(pp->body_insns_size - pp->body_insns_info) & 28];
	n = (__u64)r->ninfo * pp->insn_info_size;
	barrier_var(n);
	n = n > PT_RBINFO ? PT_RBINFO : n;
	if (n && info && !bpf_probe_read_user(r->info, n, (const void *)info))
		r->info_bytes = n;
	n = succ && r->ninfo > 1 ? rb_succ_bytes(r->iseq_size) : 0;
	barrier_var(n); /* bounded here, where the verifier sees it */
	n = n > PT_RBSUCC ? PT_RBSUCC : n;
	if (n && !bpf_probe_read_user(r->succ, n, (const void *)succ))
		r->succ_bytes = n;
	return 1;
}

/*
 * Take the names of frame key of the current process (Ruby code: its
 * body's label, path and first line; a C method: its name), send them
 * on rbnew and remember it in rbfuncs. Called at a first sight only.
 * body: the iseq body of an rbline key's function (key PT_RBLINE_FN()),
 * its line table sent too; 0 for a frame key. 1 if sent. A global
 * function.
 */
__noinline int rb_name(const struct pt_rbproc *pp, struct rb_scratch *sc,
		       __u64 key, __u64 body)
{
	struct rb_seen_key k = { .key = key, .lines = body != 0 };
	struct pt_rbnew *r;
	__u64 loc[3] = {}, path;
	__u8 one = 1;

	if (!pp || !sc)
		return 0;
	r = &sc->rec;
	k.gen = pp->gen;

	r->pid = bpf_get_current_pid_tgid() >> 32;
	r->gen = pp->gen;
	r->key = key;
	r->line = 0;
	r->lines = body != 0;
	r->label.len = r->path.len = 0;
	r->label.kept = r->path.kept = 0;
	body = body ? body : PT_RBFUNC_ADDR(key);
	if (key & PT_RBFUNC_CFUNC && !r->lines) {
		rb_id_name(pp, sc, key & ~PT_RBFUNC_CFUNC, &r->label);
	} else if (rb_loc(pp, body, loc)) {
		r->line = rb_line(pp, loc[2]);
		rb_str(pp, sc, loc[1], &r->label, 0);
		path = rb_head(sc, loc[0], pp->t_array)
			       ? rb_ary_at(pp, sc, loc[0], 0)
			       : loc[0];
		rb_str(pp, sc, path, &r->path, 1);
	} else {
		r->label.len = r->path.len = (__u64)-1;
	}
	if (r->lines)
		rb_lines(pp, sc, body);
	if (bpf_ringbuf_output(&rbnew, r, r->lines ? sizeof(*r) : PT_RBNEW_HEAD,
			       0)) {
		__sync_fetch_and_add(&rb_names_lost, 1);
		return 0;
	}
	bpf_map_update_elem(&rbfuncs, &k, &one, BPF_ANY);
	return 1;
}

/* Name frame key (rb_name()) unless it was: one lookup. body: as
 * rb_name()'s. */
static __always_inline void rb_seen(const struct pt_rbproc *pp,
				    struct rb_scratch *sc, __u64 key,
				    __u64 body)
{
	struct rb_seen_key k = { .key = key,
				 .gen = pp->gen,
				 .lines = body != 0 };

	if (!bpf_map_lookup_elem(&rbfuncs, &k))
		rb_name(pp, sc, key, body);
}

/*
 * The current process's layout, its scratch, and its thread's control
 * frames read into sc->win (*w); NULL if no Ruby is known, no thread
 * holds the GVL, or the one that does is not this one.
 */
static __always_inline const struct pt_rbproc *
rb_begin(__u32 sample, struct rb_scratch **sc, struct rb_walk *w)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	const struct pt_rbproc *pp = bpf_map_lookup_elem(&rbprocs, &tgid);
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 ec[8] = {}, vm, ractor, cur, cfp, end, th, nt;

	*sc = bpf_map_lookup_elem(&rbscratch, &sample);
	if (!pp || !*sc)
		return NULL;
	vm = rb_ptr(pp->vm_ptr);
	ractor = rb_ptr(vm ? vm + pp->vm_main_ractor : 0);
	cur = rb_ptr(ractor ? ractor + pp->ractor_running_ec : 0);
	if (!cur || bpf_probe_read_user(ec, sizeof(ec), (const void *)cur))
		return NULL;
	th = ec[(pp->ec_thread_ptr >> 3) & 7];
	nt = th && pp->th_nt ? rb_ptr(th + pp->th_nt) : th;
	if (!nt || rb_ptr(nt + pp->th_thread_id) != task->thread.fsbase)
		return NULL;
	cfp = ec[(pp->ec_cfp >> 3) & 7];
	end = ec[(pp->ec_vm_stack >> 3) & 7] +
	      ec[(pp->ec_vm_stack_size >> 3) & 7] * 8;
	if (!cfp || cfp >= end || !pp->cfp_size)
		return NULL;
	w->base = end - cfp < RB_WINDOW ? end - RB_WINDOW : cfp;
	w->first = cfp - w->base;
	w->n = (RB_WINDOW - w->first) / pp->cfp_size;
	w->n = w->n > PT_RBSTACK_DEPTH ? PT_RBSTACK_DEPTH : w->n;
	w->truncated = cfp + (__u64)w->n * pp->cfp_size < end;
	if (bpf_probe_read_user((*sc)->win, RB_WINDOW, (const void *)w->base))
		return NULL;
	return pp;
}

/*
 * The key of frame i of the window (PT_RBFUNC_KEY(): Ruby code,
 * PT_RBCFUNC_KEY(): a C method); 0 if it has no code of its own (a C
 * block, a dummy frame), RB_UNREAD if it cannot be read. A global
 * function.
 */
__noinline __u64 rb_frame(const struct pt_rbproc *pp,
			  const struct rb_scratch *sc, const struct rb_walk *w,
			  __u32 i)
{
	__u64 env[3] = {}, loc[3] = {}, magic; /* ep[-2], ep[-1], ep[0] */
	__u64 iseq, ep;
	__u32 off;

	if (!pp || !sc || !w)
		return 0;
	off = w->first + i * pp->cfp_size;
	iseq = RB_U64(sc->win, RB_WINDOW, off + pp->cfp_iseq);
	ep = RB_U64(sc->win, RB_WINDOW, off + pp->cfp_ep);
	if (!ep ||
	    bpf_probe_read_user(env, sizeof(env), (const void *)(ep - 16)))
		return RB_UNREAD;
	magic = env[2] & pp->magic_mask;
	if (magic == pp->magic_cfunc) {
		__u64 id = rb_ptr(env[0] ? env[0] + pp->me_called_id : 0);

		return id ? PT_RBCFUNC_KEY(id) : RB_UNREAD;
	}
	if (!iseq || magic == pp->magic_ifunc || magic == pp->magic_dummy)
		return 0;
	iseq = rb_ptr(iseq + pp->iseq_body);
	if (!rb_loc(pp, iseq, loc))
		return RB_UNREAD;
	return PT_RBFUNC_KEY(iseq, loc[0], loc[1], rb_line(pp, loc[2]));
}

/* The key of the innermost frame that runs Ruby code, named at first
 * sight; line: its rbline key (PT_RBLINE()) instead; 0 if none, or if a
 * frame before it cannot be read; sample: at a profile sample. A global
 * function. */
__noinline __u64 rb_frame_key(__u32 sample, __u32 line)
{
	struct rb_scratch *sc = NULL;
	struct rb_walk w = {};
	const struct pt_rbproc *pp = rb_begin(sample, &sc, &w);
	__u64 key, fn, pc;

	if (!pp || !sc)
		return 0;
	for (__u32 i = 0; i < PT_RBSTACK_DEPTH && i < w.n; i++) {
		key = rb_frame(pp, sc, &w, i);
		if (key == RB_UNREAD)
			return 0;
		if (!key || key & PT_RBFUNC_CFUNC)
			continue;
		if (!line) {
			rb_seen(pp, sc, key, 0);
			return key;
		}
		pc = RB_U64(sc->win, RB_WINDOW,
			    w.first + i * pp->cfp_size + pp->cfp_pc);
		fn = PT_RBLINE_FN(key);
		rb_seen(pp, sc, fn, PT_RBFUNC_ADDR(key));
		return PT_RBLINE(fn, pc);
	}
	return 0;
}

/* The id of the thread's Ruby stack, the stack kept in rbstacks (a
 * frame that cannot be read as key 0: "?") and its frames named the
 * first time; sample: at a profile sample. 0: no Ruby frames; 1:
 * rbstacks full. A global function. The id is an FNV-1a
 * hash of the process as set up (its gen), the frames' keys and the
 * depth (never 0 or 1). */
__noinline __u64 rb_stack_key(__u32 sample)
{
	struct rb_scratch *sc = NULL;
	struct rb_walk w = {};
	const struct pt_rbproc *pp = rb_begin(sample, &sc, &w);
	struct pt_rbstack *st;
	__u64 key, id, hash;

	if (!pp || !sc)
		return 0;
	st = &sc->st;
	st->depth = 0;
	st->truncated = w.truncated;
	hash = 0xcbf29ce484222325ULL ^ (__u64)pp->gen << 32;
	for (__u32 i = 0; i < PT_RBSTACK_DEPTH && i < w.n; i++) {
		key = rb_frame(pp, sc, &w, i);
		if (!key)
			continue;
		key = key == RB_UNREAD ? 0 : key; /* named "?" */
		st->fn[st->depth & (PT_RBSTACK_DEPTH - 1)] = key;
		st->depth++;
		hash = (hash ^ key) * 0x100000001b3ULL;
	}
	if (!st->depth)
		return 0;
	id = (hash ^ st->depth ^ (__u64)st->truncated << 40) * 0x100000001b3ULL;
	id = id > 1 ? id : id + 2;
	if (bpf_map_lookup_elem(&rbstacks, &id))
		return id;
	if (bpf_map_update_elem(&rbstacks, &id, st, BPF_NOEXIST))
		return bpf_map_lookup_elem(&rbstacks, &id) ? id : 1;
	for (__u32 i = 0; i < PT_RBSTACK_DEPTH; i++) {
		if (i >= st->depth)
			break;
		key = st->fn[i & (PT_RBSTACK_DEPTH - 1)];
		if (key)
			rb_seen(pp, sc, key, 0);
	}
	return id;
}

/* The key of a Ruby kind (PT_KEY_RBFRAME, PT_KEY_RBLINE,
 * PT_KEY_RBSTACK); 0: no frame to read. One global function for
 * fill_key()'s unrolled loop. */
__noinline __u64 rb_key(__u32 kind, __u32 sample)
{
	if (kind == PT_KEY_RBSTACK)
		return rb_stack_key(sample);
	return rb_frame_key(sample, kind == PT_KEY_RBLINE);
}
