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
 * Part of probetop.bpf.c, included after fetch.bpf.h.
 */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_PY_PROCS);
	__type(key, __u32); /* tgid */
	__type(value, struct pt_pyproc);
} pyprocs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
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
	__uint(max_entries, 256 * 1024);
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

/* The current thread's PyThreadState, or 0. */
static __always_inline __u64 py_tstate(const struct pt_pyproc *pp, __u32 tid)
{
	__u64 *known = bpf_map_lookup_elem(&pytids, &tid), ts, interp;
	__u64 self = bpf_get_current_task_btf()->thread.fsbase;

	if (!self)
		return 0;
	if (known && *known && py_ptr(*known + pp->tstate_thread_id) == self)
		return *known;
	interp = py_ptr(pp->runtime + pp->runtime_interp_head);
	if (!interp)
		return 0;
	ts = py_ptr(interp + pp->interp_tstate_head);
	for (int i = 0; i < PT_PY_THREADS && ts; i++) {
		if (py_ptr(ts + pp->tstate_thread_id) == self) {
			bpf_map_update_elem(&pytids, &tid, &ts, BPF_ANY);
			return ts;
		}
		ts = py_ptr(ts + pp->tstate_next);
	}
	return 0;
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
	    (bpf_probe_read_user(&owner, 1, (const void *)(f + pp->frame_owner)) ||
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

/* The innermost function frame's code object into *out. 0, or -1 when
 * the thread runs no Python or its frames cannot be read. */
static __noinline int py_frame_key(__s64 *out)
{
	__u64 f = 0, code = 0;
	const struct pt_pyproc *pp = py_begin(&f);

	if (!pp)
		return -1;
	for (int i = 0; i < 4 && f && !code; i++) { /* past shims */
		code = py_code(pp, f);
		if (!code)
			f = py_ptr(f + pp->frame_back);
	}
	if (!code)
		return -1;
	if (!bpf_map_lookup_elem(&pycodes, &code)) {
		__u8 one = 1;

		bpf_map_update_elem(&pycodes, &code, &one, BPF_ANY);
		py_announce(code, 0);
	}
	*out = (__s64)code;
	return 0;
}

/* FNV-1a of a stack's code objects: its id (never 0). */
static __always_inline __u64 py_stack_id(const struct pt_pystack *st)
{
	__u64 h = 0xcbf29ce484222325ULL ^ st->depth;

	for (int i = 0; i < PT_PYSTACK_DEPTH; i++) {
		if (i >= st->depth)
			break;
		h = (h ^ st->code[i]) * 0x100000001b3ULL;
	}
	return h ? h : 1;
}

/* The id of the thread's Python stack into *out, the stack kept in
 * pystacks; sample: at a profile sample (its own scratch). 0, -1 (no
 * Python frames), or -2 (pystacks full). */
static __noinline int py_stack_key(__s64 *out, __u32 sample)
{
	struct pt_pystack *st = bpf_map_lookup_elem(&pyscratch, &sample);
	__u64 f = 0, code, id;
	const struct pt_pyproc *pp = py_begin(&f);

	if (!pp || !st)
		return -1;
	st->depth = 0;
	st->truncated = 0;
	for (int i = 0; i < PT_PYSTACK_DEPTH + 4 && f; i++) {
		code = py_code(pp, f);
		if (code) {
			if (st->depth >= PT_PYSTACK_DEPTH) {
				st->truncated = 1;
				break;
			}
			st->code[st->depth & (PT_PYSTACK_DEPTH - 1)] = code;
			st->depth++;
		}
		f = py_ptr(f + pp->frame_back);
	}
	if (!st->depth)
		return -1;
	id = py_stack_id(st);
	if (!bpf_map_lookup_elem(&pystacks, &id)) {
		if (!bpf_map_update_elem(&pystacks, &id, st, BPF_NOEXIST))
			py_announce(id, 1);
		else if (!bpf_map_lookup_elem(&pystacks, &id))
			return -2;
	}
	*out = (__s64)id;
	return 0;
}
