// SPDX-License-Identifier: MIT
/*
 * pyframe.bpf.h — the Python frames of the thread at a probe, read from
 * CPython's own structures (pyframe and pystack keys).
 *
 * engine/pyframe.c writes, per CPython process, where its _PyRuntime is
 * and the offsets of its version (struct pt_pyproc). The thread's
 * PyThreadState is found by walking the interpreter's list for the one
 * whose thread_id (pthread_self(), on x86-64 the thread's fs base) is
 * the current task's fs base, then kept per thread (pytids) and checked
 * at each use. Its innermost frame: tstate->frame (3.8-3.10), its cframe's
 * current_frame (3.11-3.12), tstate->current_frame (3.13); frames that
 * belong to no function (3.12+: the C stack's shims) are skipped. A
 * frame is named by its code object's address, which user space turns
 * into function, file and first line once (engine/pyframe.c); a stack
 * by the id (a hash) of its code objects, kept in pystacks.
 *
 * Part of probetop.bpf.c, included before fetch.bpf.h (fill_key()).
 */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_PY_PROCS);
	__type(key, __u32); /* tgid */
	__type(value, struct pt_pyproc);
} pyprocs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32); /* tid */
	__type(value, __u64); /* its PyThreadState */
} pytids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_PYSTACK_ENTRIES);
	__type(key, __u64);
	__type(value, struct pt_pystack);
} pystacks SEC(".maps");

/* The code objects a pyframe key has seen (first sight: pynew). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PT_PYSTACK_ENTRIES);
	__type(key, __u64);
	__type(value, __u8);
} pycodes SEC(".maps");

/* What was seen for the first time, for user space to name now. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} pynew SEC(".maps");

/* Tell user space about value (a code object, or a stack id) now:
 * names are read from the process, which may not live long. */
static __always_inline void py_announce(__u64 value, __u32 stack)
{
	struct pt_pynew n = {
		.pid = bpf_get_current_pid_tgid() >> 32,
		.stack = stack,
		.value = value,
	};

	bpf_ringbuf_output(&pynew, &n, sizeof(n), 0);
}

/* A stack being read, per CPU: one for uprobes, one for profile samples,
 * which may interrupt a uprobe's program on the same CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct pt_pystack);
} pyscratch SEC(".maps");

/* The pointer at addr in the current process, or 0. */
static __always_inline __u64 py_ptr(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (const void *)addr))
		return 0;
	return v;
}

/* A walk of the interpreter's thread states, for bpf_loop(): the
 * verifier checks one step, not PT_PY_THREADS of them. */
struct py_threads {
	__u32 id_off, next_off;
	__u64 ts; /* the state to look at next */
	__u64 self; /* the thread's fs base */
	__u64 found;
};

static long py_thread_step(__u32 i, void *data)
{
	struct py_threads *t = data;

	if (!t->ts)
		return 1;
	if (py_ptr(t->ts + t->id_off) == t->self) {
		t->found = t->ts;
		return 1;
	}
	t->ts = py_ptr(t->ts + t->next_off);
	return 0;
}

/* The current thread's PyThreadState, or 0. */
static __always_inline __u64 py_tstate(const struct pt_pyproc *pp, __u32 tid)
{
	__u64 *known = bpf_map_lookup_elem(&pytids, &tid), interp;
	struct py_threads t = {
		.id_off = pp->tstate_thread_id,
		.next_off = pp->tstate_next,
		.self = bpf_get_current_task_btf()->thread.fsbase,
	};

	if (!t.self)
		return 0;
	if (known && *known && py_ptr(*known + t.id_off) == t.self)
		return *known;
	interp = py_ptr(pp->runtime + pp->runtime_interp_head);
	if (!interp)
		return 0;
	t.ts = py_ptr(interp + pp->interp_tstate_head);
	bpf_loop(PT_PY_THREADS, py_thread_step, &t, 0);
	if (t.found)
		bpf_map_update_elem(&pytids, &tid, &t.found, BPF_ANY);
	return t.found;
}

/* The innermost frame of the thread whose state is ts, or 0. */
static __always_inline __u64 py_top(const struct pt_pyproc *pp, __u64 ts)
{
	__u64 f = py_ptr(ts + pp->tstate_frame);

	if (f && pp->cframe_current_frame != PT_PY_NONE)
		f = py_ptr(f + pp->cframe_current_frame);
	return f;
}

/* The code object of frame f, or 0 for a frame that is no function's. */
static __always_inline __u64 py_code(const struct pt_pyproc *pp, __u64 f)
{
	__u8 owner = 0;

	if (pp->frame_owner != PT_PY_NONE &&
	    (bpf_probe_read_user(&owner, 1,
				 (const void *)(f + pp->frame_owner)) ||
	     owner == pp->owner_cstack))
		return 0;
	return py_ptr(f + pp->frame_code);
}

/* The current process's layout and the current thread's innermost
 * frame; NULL (no CPython known, no Python frame) otherwise. */
static __always_inline const struct pt_pyproc *py_begin(__u64 *frame)
{
	__u64 id = bpf_get_current_pid_tgid(), ts;
	__u32 tgid = id >> 32;
	const struct pt_pyproc *pp = bpf_map_lookup_elem(&pyprocs, &tgid);

	if (!pp)
		return NULL;
	ts = py_tstate(pp, (__u32)id);
	*frame = ts ? py_top(pp, ts) : 0;
	return *frame ? pp : NULL;
}

/* The innermost function frame's code object, or 0 when the thread
 * runs no Python or its frames cannot be read. A global function: the
 * verifier checks it once, not at each program that keys by it. */
__noinline __u64 py_frame_key(void)
{
	__u64 f = 0, code = 0;
	const struct pt_pyproc *pp = py_begin(&f);

	if (!pp)
		return 0;
	for (int i = 0; i < 4 && f && !code; i++) { /* past shims */
		code = py_code(pp, f);
		if (!code)
			f = py_ptr(f + pp->frame_back);
	}
	if (code && !bpf_map_lookup_elem(&pycodes, &code)) {
		__u8 one = 1;

		bpf_map_update_elem(&pycodes, &code, &one, BPF_ANY);
		py_announce(code, 0);
	}
	return code;
}

/* The innermost function frame's code object and where in its bytecode
 * the thread is (PT_PYLINE), or 0. A global function. */
__noinline __u64 py_line_key(void)
{
	__u64 f = 0, code = 0, ptr = 0;
	const struct pt_pyproc *pp = py_begin(&f);
	__s32 lasti = 0;
	__u64 off;

	if (!pp)
		return 0;
	for (int i = 0; i < 4 && f && !code; i++) { /* past shims */
		code = py_code(pp, f);
		if (!code)
			f = py_ptr(f + pp->frame_back);
	}
	if (!code)
		return 0;
	if (pp->lasti_kind == PT_LASTI_PTR) {
		ptr = py_ptr(f + pp->frame_lasti);
		off = ptr - (code + pp->code_adaptive);
	} else {
		bpf_probe_read_user(&lasti, sizeof(lasti),
				    (const void *)(f + pp->frame_lasti));
		off = lasti < 0				 ? 0
		      : pp->lasti_kind == PT_LASTI_UNITS ? (__u64)lasti * 2
							 : (__u64)lasti;
	}
	if (code && !bpf_map_lookup_elem(&pycodes, &code)) {
		__u8 one = 1;

		bpf_map_update_elem(&pycodes, &code, &one, BPF_ANY);
		py_announce(code, 0);
	}
	return PT_PYLINE(code, off);
}

/* FNV-1a of a stack's code objects: its id (never 0 or 1). */
static __always_inline __u64 py_stack_id(const struct pt_pystack *st)
{
	__u64 h = 0xcbf29ce484222325ULL ^ st->depth;

	for (int i = 0; i < PT_PYSTACK_DEPTH; i++) {
		if (i >= st->depth)
			break;
		h = (h ^ st->code[i]) * 0x100000001b3ULL;
	}
	return h > 1 ? h : h + 2;
}

/* A walk of a thread's frames into a stack, for bpf_loop(). */
struct py_walk {
	struct pt_pyproc pp; /* a copy: the callback reads it */
	__u64 f; /* the frame to look at next */
	struct pt_pystack *st;
};

static long py_walk_step(__u32 i, void *data)
{
	struct py_walk *w = data;
	struct pt_pystack *st = w->st;
	__u64 code;

	if (!w->f || !st)
		return 1;
	code = py_code(&w->pp, w->f);
	if (code) {
		if (st->depth >= PT_PYSTACK_DEPTH) {
			st->truncated = 1;
			return 1;
		}
		st->code[st->depth & (PT_PYSTACK_DEPTH - 1)] = code;
		st->depth++;
	}
	w->f = py_ptr(w->f + w->pp.frame_back);
	return 0;
}

/* The id of the thread's Python stack, the stack kept in pystacks;
 * sample: at a profile sample (its own scratch). 0: no Python frames;
 * 1: pystacks full. A global function, as py_frame_key(). */
__noinline __u64 py_stack_key(__u32 sample)
{
	struct pt_pystack *st = bpf_map_lookup_elem(&pyscratch, &sample);
	__u64 f = 0, id;
	const struct pt_pyproc *pp = py_begin(&f);
	struct py_walk w;

	if (!pp || !st)
		return 0;
	st->depth = 0;
	st->truncated = 0;
	w.pp = *pp;
	w.f = f;
	w.st = st;
	bpf_loop(PT_PYSTACK_DEPTH + 4, py_walk_step, &w, 0);
	if (!st->depth)
		return 0;
	id = py_stack_id(st);
	if (!bpf_map_lookup_elem(&pystacks, &id)) {
		if (!bpf_map_update_elem(&pystacks, &id, st, BPF_NOEXIST))
			py_announce(id, 1);
		else if (!bpf_map_lookup_elem(&pystacks, &id))
			return 1;
	}
	return id;
}
