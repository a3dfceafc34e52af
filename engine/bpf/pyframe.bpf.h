// SPDX-License-Identifier: MIT
/*
 * pyframe.bpf.h — the Python frames of the thread at a probe, read from
 * CPython's own structures (pyframe, pyline, pyfirstline and pystack
 * keys).
 *
 * engine/name/pyframe.c writes, per CPython process, where its _PyRuntime is
 * and the offsets of its version (struct pt_pyproc). The thread's
 * PyThreadState is found by walking the interpreter's list for the one
 * whose thread_id (pthread_self(), on x86-64 the thread's fs base) is
 * the current task's fs base, then kept per thread (pytids) and checked
 * at each use. Its innermost frame: tstate->frame (3.8-3.10), its cframe's
 * current_frame (3.11-3.12), tstate->current_frame (3.13); frames that
 * belong to no function (3.12+: the C stack's shims) are skipped. A
 * frame is named by its code object's address, tagged by its co_version
 * or its names (PT_PYCODE_KEY(): an address freed and taken again by
 * another code object is another key; a line key folds the tag into its
 * address, PT_PYCODE_LINE()); a stack by the id (a
 * hash) of its code objects, kept in pystacks, with (for mixstack keys,
 * mixstack.bpf.h) where each C-level call of the eval loop begins among
 * its frames (struct pt_pystack's ends). pyfirstline is a number
 * read here at each event, the code object's co_firstlineno: nothing to
 * name.
 *
 * Names are taken here, at first sight: the first time a process's code
 * object is a key (or a frame of a new stack), py_name() reads its name,
 * file, first line (and, for pyline, its line table) from the process
 * and sends them to user space on pynew (engine/name/pyframe.c keeps them).
 * User space drains pynew a few times a second; a process that exits
 * before that would leave addresses no one can read any more. The
 * reads cost about a microsecond, once per code object, never on the
 * path of an event whose code objects were seen.
 *
 * Part of probetop.bpf.c, included before fetch.bpf.h (fill_key()).
 */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_PY_PROCS);
	__type(key, __u32); /* tgid */
	__type(value, struct pt_pyproc);
} pyprocs SEC(".maps");

/* A thread's PyThreadState, as last found, in the task's own storage
 * (gone with the thread; cheaper to find than by a hash of its tid). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} pytids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_PYSTACK_ENTRIES);
	__type(key, __u64);
	__type(value, struct pt_pystack);
} pystacks SEC(".maps");

/* A code object of a process as set up (gen: one per process and set-up,
 * never reused) whose names were sent. */
struct py_seen_key {
	__u64 code;
	__u32 gen;
	__u32 pad;
};

#define PY_SEEN_NAMES 1 /* sent: its names */
#define PY_SEEN_LINES 2 /* and its line table */

/* The code objects whose names were sent (first sight: py_name()). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PT_PYSTACK_ENTRIES);
	__type(key, struct py_seen_key);
	__type(value, __u8);
} pycodes SEC(".maps");

/* The names of what was seen for the first time (struct pt_pynew). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} pynew SEC(".maps");

/* Code objects whose names could not be sent (pynew full): user space
 * says so; the next event of such a code object tries again. */
__u64 py_names_lost;

/* A code object's names being taken, per CPU: one for uprobes, one for
 * profile samples, which may interrupt a uprobe's program on the same
 * CPU. */
struct py_namer {
	struct pt_pynew rec;
	__u8 code[256]; /* the code object's first PT_PYCODE_SPAN bytes */
	__u8 head[64]; /* a str's or bytes' header (PT_PY*_HEAD bytes) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct py_namer);
} pynamer SEC(".maps");

/* The str at obj into *out: the first PT_PYSTR bytes of its characters,
 * or the last if tail. false if it cannot be read (out->kind 0). */
static __always_inline bool py_str(const struct pt_pyproc *pp,
				   struct py_namer *nm, __u64 obj,
				   struct pt_pystr *out, bool tail)
{
	__u64 bytes, n, at;
	__u32 state, kind;
	__s64 chars;

	out->kind = 0;
	if (!obj || bpf_probe_read_user(nm->head, PT_PYSTR_HEAD, (void *)obj))
		return false;
	chars = *(__s64 *)&nm->head[pp->str_length & 0x38];
	state = *(__u32 *)&nm->head[pp->str_state & 0x3c];
	if (chars < 0 || chars > (1LL << 32) ||
	    !(state >> (pp->state_compact_shift & 31) & 1))
		return false;
	kind = state >> (pp->state_kind_shift & 31) & 7;
	if (kind != 1 && kind != 2 && kind != 4)
		return false;
	at = obj + (state >> (pp->state_ascii_shift & 31) & 1
			    ? pp->str_ascii_data
			    : pp->str_compact_data);
	bytes = (__u64)chars * kind;
	n = bytes;
	if (n > PT_PYSTR)
		n = PT_PYSTR;
	if (tail)
		at += bytes - n;
	if (n && bpf_probe_read_user(out->data, n, (void *)at))
		return false;
	out->kind = kind;
	out->len = n;
	out->chars = chars;
	return true;
}

/*
 * Take the names of code object code of the current process (its line
 * table too if lines), send them on pynew and remember it in pycodes;
 * sample: at a profile sample (its own scratch). addr: where it is (code
 * is how keys name it). A global function, called at a first sight only.
 * 1 if sent.
 */
__noinline int py_name(__u64 code, __u64 addr, __u32 lines, __u32 sample)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	const struct pt_pyproc *pp = bpf_map_lookup_elem(&pyprocs, &tgid);
	struct py_namer *nm = bpf_map_lookup_elem(&pynamer, &sample);
	struct py_seen_key k = { .code = code };
	__u8 bits = lines ? PY_SEEN_NAMES | PY_SEEN_LINES : PY_SEEN_NAMES;
	struct pt_pynew *r;
	__s64 n = 0;
	__u64 tab;

	if (!pp || !nm)
		return 0;
	r = &nm->rec;
	r->pid = tgid;
	r->gen = k.gen = pp->gen;
	r->code = code;
	r->type = 0;
	r->firstlineno = 0;
	r->named = PT_PYCODE_ADDR(code) != addr ? PT_PYNAMED_OPAQUE : 0;
	r->nlines = 0;
	r->lines_cut = 0;
	r->func.kind = r->file.kind = 0;
	if (bpf_probe_read_user(nm->code, PT_PYCODE_SPAN, (void *)addr))
		goto send;
	r->type = *(__u64 *)&nm->code[8];
	r->firstlineno = *(__s32 *)&nm->code[pp->code_firstlineno & 0xfc];
	if (py_str(pp, nm, *(__u64 *)&nm->code[pp->code_name & 0xf8], &r->func,
		   false))
		r->named |= PT_PYNAMED_FUNC;
	if (py_str(pp, nm, *(__u64 *)&nm->code[pp->code_filename & 0xf8],
		   &r->file, true))
		r->named |= PT_PYNAMED_FILE;
	tab = *(__u64 *)&nm->code[pp->code_linetable & 0xf8];
	if (!lines || !tab ||
	    bpf_probe_read_user(nm->head, PT_PYBYTES_HEAD, (void *)tab))
		goto send;
	n = *(__s64 *)&nm->head[pp->bytes_size & 0x38];
	if (n < 0)
		n = 0;
	r->lines_cut = n > PT_PYLINES;
	if (n > PT_PYLINES)
		n = PT_PYLINES;
	if (n &&
	    bpf_probe_read_user(r->lines, n, (void *)(tab + pp->bytes_sval))) {
		n = 0;
		goto send;
	}
	r->nlines = n;
	r->named |= PT_PYNAMED_LINES;
send:
	if (bpf_ringbuf_output(&pynew, r, PT_PYNEW_HEAD + n, 0)) {
		__sync_fetch_and_add(&py_names_lost, 1);
		return 0;
	}
	bpf_map_update_elem(&pycodes, &k, &bits, BPF_ANY);
	return 1;
}

/* Name code (py_name()) unless its names (and its line table, if
 * lines) were sent: on the path of every event, one lookup. */
static __always_inline void py_seen(const struct pt_pyproc *pp, __u64 code,
				    __u64 addr, __u32 lines, __u32 sample)
{
	struct py_seen_key k = { .code = code, .gen = pp->gen };
	__u8 *bits = bpf_map_lookup_elem(&pycodes, &k);

	if (!bits || (lines && !(*bits & PY_SEEN_LINES)))
		py_name(code, addr, lines, sample);
}

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

/*
 * The thread states' fields read (thread_id, the frame or cframe) lie in
 * their first PY_TS_SPAN bytes in every version (pylayout.c: below 192):
 * a thread known from before is checked and its frame found in one read.
 */
#define PY_TS_SPAN 256

/* what a walk reads of each frame (probetop.h) */
#define PY_SPAN PT_PYFRAME_SPAN

/*
 * What py_begin() and py_frame() read into: in a per-CPU map, not on the
 * stack, which a uprobe program shares with every function it calls (512
 * bytes in all; a kernel without private stacks for uprobe programs
 * counts the global ones too). One per kind of run (sample: 0 a probe's,
 * 1 a profile sample's), as pyscratch is.
 */
struct py_buf {
	__u8 ts[PY_TS_SPAN];
	__u8 frame[128]; /* offsets masked below 128, 8-aligned */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct py_buf);
} pybuf SEC(".maps");

/* The 8 bytes at off of b (PY_TS_SPAN bytes; off a multiple of 8, as
 * every pointer field's is). */
static __always_inline __u64 py_ts_field(const __u8 *b, __u32 off)
{
	return *(const __u64 *)&b[off & (PY_TS_SPAN - 8)];
}

/* The current thread's PyThreadState, or 0; *field its tstate_frame
 * field (the frame, or the cframe, by version), 0 if unknown. */
static __always_inline __u64 py_tstate(const struct pt_pyproc *pp, __u64 *field,
				       struct py_buf *buf)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 *known = bpf_task_storage_get(&pytids, task, 0, 0), interp;
	struct py_threads t = {
		.id_off = pp->tstate_thread_id,
		.next_off = pp->tstate_next,
		.self = task->thread.fsbase,
	};
	__u8 *b = buf->ts;

	*field = 0;
	if (!t.self)
		return 0;
	if (known && *known &&
	    !bpf_probe_read_user(b, PY_TS_SPAN, (const void *)*known) &&
	    py_ts_field(b, t.id_off) == t.self) {
		*field = py_ts_field(b, pp->tstate_frame);
		return *known;
	}
	interp = py_ptr(pp->runtime + pp->runtime_interp_head);
	if (!interp)
		return 0;
	t.ts = py_ptr(interp + pp->interp_tstate_head);
	bpf_loop(PT_PY_THREADS, py_thread_step, &t, 0);
	known = t.found ? bpf_task_storage_get(&pytids, task, 0,
					       BPF_LOCAL_STORAGE_GET_F_CREATE)
			: NULL;
	if (known)
		*known = t.found;
	*field = t.found ? py_ptr(t.found + pp->tstate_frame) : 0;
	return t.found;
}

/* The innermost frame, from the thread state's tstate_frame field. */
static __always_inline __u64 py_top(const struct pt_pyproc *pp, __u64 field)
{
	if (field && pp->cframe_current_frame != PT_PY_NONE)
		return py_ptr(field + pp->cframe_current_frame);
	return field;
}

/* Code object code as keys name it (PT_PYCODE_KEY()): by its co_version
 * (one read), or its co_filename and co_name's hash (two); its bare
 * address if they cannot be read. */
static __always_inline __u64 py_code_key(const struct pt_pyproc *pp, __u64 code)
{
	__u64 fn[2], hash = 0;
	__u32 version = 0;

	if (pp->code_version &&
	    !bpf_probe_read_user(&version, sizeof(version),
				 (const void *)(code + pp->code_version)) &&
	    version)
		return PT_PYCODE_KEY(code, (__u64)version, 0ULL);
	if (bpf_probe_read_user(fn, sizeof(fn),
				(const void *)(code + pp->code_filename)) ||
	    bpf_probe_read_user(&hash, sizeof(hash),
				(const void *)(fn[1] + pp->str_length + 8)))
		return code;
	return PT_PYCODE_KEY(code, fn[0], hash);
}

/* Frame f's code object (0 for a frame that is no function's) and its
 * caller's frame, in one read; false if f cannot be read. */
static __always_inline bool py_frame(const struct pt_pyproc *pp, __u64 f,
				     __u64 *code, __u64 *back,
				     struct py_buf *buf)
{
	__u8 *b = buf->frame;

	if (bpf_probe_read_user(b, PY_SPAN, (const void *)f))
		return false;
	*back = *(const __u64 *)&b[pp->frame_back & 0x78];
	*code = pp->frame_owner != PT_PY_NONE &&
				b[pp->frame_owner & 127] >= pp->owner_cstack
			? 0
			: *(const __u64 *)&b[pp->frame_code & 0x78] &
				  ~(__u64)pp->code_tag;
	return true;
}

/* The innermost frame of those from f that is a function's (past up to
 * three shims), its code object into *code; 0 if none. */
static __always_inline __u64 py_function_frame(const struct pt_pyproc *pp,
					       __u64 f, __u64 *code,
					       struct py_buf *buf)
{
	__u64 back = 0;

	*code = 0;
	for (int i = 0; i < 4 && f; i++) {
		if (!py_frame(pp, f, code, &back, buf))
			return 0;
		if (*code)
			return f;
		f = back;
	}
	return 0;
}

/* The current process's layout and the current thread's innermost
 * frame; NULL (no CPython known, no Python frame) otherwise. */
static __always_inline const struct pt_pyproc *
py_begin(__u64 *frame, __u32 sample, struct py_buf **buf)
{
	__u64 id = bpf_get_current_pid_tgid(), ts, field;
	__u32 tgid = id >> 32;
	const struct pt_pyproc *pp = bpf_map_lookup_elem(&pyprocs, &tgid);

	*buf = bpf_map_lookup_elem(&pybuf, &sample);
	if (!pp || !*buf)
		return NULL;
	ts = py_tstate(pp, &field, *buf);
	*frame = ts ? py_top(pp, field) : 0;
	return *frame ? pp : NULL;
}

/* The innermost function frame's code object, or 0 when the thread
 * runs no Python or its frames cannot be read; sample: at a profile
 * sample. A global function: the verifier checks it once, not at each
 * program that keys by it. */
__noinline __u64 py_frame_key(__u32 sample)
{
	__u64 f = 0, code = 0;
	struct py_buf *buf;
	const struct pt_pyproc *pp = py_begin(&f, sample, &buf);

	if (!pp || !py_function_frame(pp, f, &code, buf))
		return 0;
	code = py_code_key(pp, code);
	py_seen(pp, code, PT_PYCODE_ADDR(code), 0, sample);
	return code;
}

/* The first line of the innermost function frame's code object
 * (co_firstlineno), read at each event: a number, with nothing to name
 * and no first sight to keep; in the low 32 bits, bit 32 set (never 0);
 * 0 when the thread runs no Python or its frames cannot be read. A
 * global function; sample as py_frame_key()'s. */
__noinline __u64 py_firstline_key(__u32 sample)
{
	__u64 f = 0, code = 0;
	struct py_buf *buf;
	const struct pt_pyproc *pp = py_begin(&f, sample, &buf);
	__u32 line = 0;

	if (!pp || !py_function_frame(pp, f, &code, buf) ||
	    bpf_probe_read_user(&line, sizeof(line),
				(const void *)(code + pp->code_firstlineno)))
		return 0;
	return 1ULL << 32 | line;
}

/* The innermost function frame's code object and where in its bytecode
 * the thread is (PT_PYLINE), or 0. A global function. */
__noinline __u64 py_line_key(__u32 sample)
{
	__u64 f = 0, code = 0, ptr = 0, key;
	struct py_buf *buf;
	const struct pt_pyproc *pp = py_begin(&f, sample, &buf);
	__s32 lasti = 0;
	__u64 off;

	if (!pp)
		return 0;
	f = py_function_frame(pp, f, &code, buf);
	if (!f)
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
	key = code ? PT_PYCODE_LINE(py_code_key(pp, code)) : 0;
	if (code)
		py_seen(pp, key, code, 1, sample);
	return PT_PYLINE(key, off);
}

/*
 * Frames are read through a window: one read of PY_WIN bytes ending just
 * past a frame's fields, so that the frames below it (3.11+ keeps a
 * thread's frames on a stack of its own, callers at lower addresses) are
 * read from the window without a read each; where that read faults (the
 * window's start unmapped) or a frame lies outside it (3.8-3.10's heap
 * frames), the PY_SPAN bytes of the frame's fields alone.
 */
#define PY_WIN 2048

/* A stack being read and its window, per CPU: one for uprobes, one for
 * profile samples, which may interrupt a uprobe's program on the same
 * CPU. */
struct py_scratch {
	struct pt_pystack st;
	__u8 win[PY_WIN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct py_scratch);
} pyscratch SEC(".maps");

/* A walk of a thread's frames into a stack: a plain bounded loop, as
 * bpf_loop()'s call per step costs more than the step. */
struct py_walk {
	const struct pt_pyproc *pp; /* the process's layout (pyprocs) */
	__u64 f; /* the frame to look at next */
	struct py_scratch *sc;
	__u64 base; /* the address sc->win[0] was read from; 0: none */
	__u64 hash; /* FNV-1a of the stack's code objects so far */
	__u32 last; /* the bit in ends of the last frame kept (0: none) */
	__u32 each, flag, shims; /* the process's split: 1 its kind, else 0 */
};

/* The field of 8 bytes at off in frame f, of the window (read into it
 * if f is not in it); false if it cannot be read. */
static __always_inline bool py_field(struct py_walk *w, __u64 f, __u32 off,
				     __u64 *out)
{
	__u64 at = f - w->base;

	if (!w->base || f < w->base || at > PY_WIN - PY_SPAN) {
		w->base = f + PY_SPAN - PY_WIN;
		if (bpf_probe_read_user(w->sc->win, PY_WIN, (void *)w->base)) {
			w->base = f;
			if (bpf_probe_read_user(w->sc->win, PY_SPAN,
						(void *)f)) {
				w->base = 0;
				return false;
			}
		}
		at = f - w->base;
	}
	at = (at + off) & (PY_WIN - 1);
	if (at > PY_WIN - 8)
		return false;
	*out = *(__u64 *)&w->sc->win[at];
	return true;
}

/* 1 if a == b, else 0, for a ^ b below 2^31, without a branch (the
 * compiler makes one of a comparison's value; barrier_var() keeps it
 * from seeing through this). */
static __always_inline __u32 py_is(__u32 a, __u32 b)
{
	__u32 d = a ^ b;

	barrier_var(d);
	return (d - 1) >> 31;
}

/* 1 if a >= b, else 0, without a branch (both below 2^31). */
static __always_inline __u32 py_at_least(__u32 a, __u32 b)
{
	__u32 d = a - b;

	barrier_var(d);
	return 1 ^ d >> 31;
}

/* One frame of the walk: 1 when it ends. A frame's end of its eval
 * call (struct pt_pystack's ends) is marked as enum pt_pysplit says:
 * each frame; a frame whose is_entry is set; the frame above a frame
 * the C stack owns (3.12+: the eval call's entry shim lies below its
 * first frame). The owner and is_entry come in one read (frame_flags),
 * and the marks are made without a branch (py_is()): the verifier
 * explores each step's branches, times PY_WALK_STEPS (each branch
 * here cost 0.2 s of the object's load). */
static __always_inline long py_walk_step(struct py_walk *w)
{
	struct pt_pystack *st = &w->sc->st;
	__u64 code = 0, flags = 0, back = 0;
	bool shim;

	if (!w->f || !w->sc)
		return 1;
	if (w->pp->frame_owner != PT_PY_NONE &&
	    !py_field(w, w->f, w->pp->frame_flags, &flags))
		return 1;
	shim = w->pp->frame_owner != PT_PY_NONE &&
	       (__u8)(flags >> (w->pp->owner_shift & 63)) >=
		       w->pp->owner_cstack;
	if (!shim && !py_field(w, w->f, w->pp->frame_code, &code))
		return 1;
	code &= ~(__u64)w->pp->code_tag;
	st->ends |= w->last &
		    -(py_at_least(flags >> (w->pp->owner_shift & 63) & 0xff,
				  w->pp->owner_cstack) &
		      w->shims);
	if (code) {
		if (st->depth >= PT_PYSTACK_DEPTH) {
			st->truncated = 1;
			return 1;
		}
		w->last = 1u << (st->depth & (PT_PYSTACK_DEPTH - 1));
		st->ends |=
			w->last &
			-(w->each |
			  (w->flag &
			   (1 ^ py_is(flags >> (w->pp->entry_shift & 63) & 0xff,
				      0))));
		code = py_code_key(w->pp, code);
		st->code[st->depth & (PT_PYSTACK_DEPTH - 1)] = code;
		st->depth++;
		w->hash = (w->hash ^ code) * 0x100000001b3ULL;
	}
	if (!py_field(w, w->f, w->pp->frame_back, &back))
		return 1;
	w->f = back;
	return 0;
}

/* Steps of a walk: every frame kept, and shims between them (one per
 * eval call, 3.12+); a walk that ends with frames left is cut. */
#define PY_WALK_STEPS (PT_PYSTACK_DEPTH + 16)

/* The id of the thread's Python stack, the stack kept in pystacks and
 * its frames named the first time; sample: at a profile sample (its
 * own scratch); mix: for a mixstack key, whose id takes in where the
 * eval calls part the frames (ends, split). 0: no Python frames; 1:
 * pystacks full. A global function, as py_frame_key(). The id is an
 * FNV-1a hash of the process as set up (its gen), the code objects and
 * the depth (never 0 or 1). */
__noinline __u64 py_stack_key(__u32 sample, __u32 mix)
{
	struct py_scratch *sc = bpf_map_lookup_elem(&pyscratch, &sample);
	__u64 f = 0, id;
	struct py_buf *buf;
	const struct pt_pyproc *pp = py_begin(&f, sample, &buf);
	struct py_walk w;
	__u32 i;

	if (!pp || !sc)
		return 0;
	sc->st.depth = 0;
	sc->st.truncated = 0;
	sc->st.ends = 0;
	sc->st.split = pp->split;
	w.pp = pp;
	w.f = f;
	w.sc = sc;
	w.base = 0;
	w.last = 0;
	w.each = py_is(pp->split, PT_PYSPLIT_EACH);
	w.flag = py_is(pp->split, PT_PYSPLIT_FLAG);
	w.shims = py_is(pp->split, PT_PYSPLIT_SHIM);
	w.hash = 0xcbf29ce484222325ULL ^ (__u64)pp->gen << 32;
	for (i = 0; i < PY_WALK_STEPS; i++)
		if (py_walk_step(&w))
			break;
	if (i == PY_WALK_STEPS && w.f)
		sc->st.truncated = 1; /* steps ran out (many shims) */
	if (!sc->st.depth)
		return 0;
	id = (w.hash ^ sc->st.depth) * 0x100000001b3ULL;
	if (mix)
		id = ((id ^ sc->st.ends ^ (__u64)sc->st.split << 32 ^
		       (__u64)sc->st.truncated << 40 ^ 0x6d697800000000ULL) *
		      0x100000001b3ULL);
	id = id > 1 ? id : id + 2;
	if (bpf_map_lookup_elem(&pystacks, &id))
		return id;
	if (bpf_map_update_elem(&pystacks, &id, &sc->st, BPF_NOEXIST))
		return bpf_map_lookup_elem(&pystacks, &id) ? id : 1;
	for (i = 0; i < PT_PYSTACK_DEPTH; i++) {
		if (i >= sc->st.depth)
			break;
		if (sc->st.code[i])
			py_seen(w.pp, sc->st.code[i],
				PT_PYCODE_ADDR(sc->st.code[i]), 0, sample);
	}
	return id;
}

/* The key of a Python kind (PT_KEY_PYFRAME ... PT_KEY_PYFIRSTLINE) as
 * its function gives it (0: no frame to read); sample: at a profile
 * sample. One global function, so that fill_key()'s unrolled loop calls
 * one function, not four. */
__noinline __u64 py_key(__u32 kind, __u32 sample)
{
	if (kind == PT_KEY_PYFRAME)
		return py_frame_key(sample);
	if (kind == PT_KEY_PYLINE)
		return py_line_key(sample);
	if (kind == PT_KEY_PYFIRSTLINE)
		return py_firstline_key(sample);
	return py_stack_key(sample, 0);
}
