// SPDX-License-Identifier: MIT
/*
 * phpframe.bpf.h — the PHP frames of the thread at a probe, read from
 * the Zend engine's own structures (phpframe, phpline and phpstack
 * keys).
 *
 * engine/name/phpframe.c writes, per PHP process (non-ZTS: one request
 * at a time, its globals at a fixed address), where its executor_globals
 * is and the offsets of its version (struct pt_phpproc). The innermost
 * frame is executor_globals.current_execute_data, which the VM sets on
 * every call into a PHP function and into a C one (an "internal"
 * function: getmypid(), strlen() ...) and restores on return; each frame
 * names its function (func) and its caller's frame (prev_execute_data).
 *
 * A phpframe key is the innermost frame that runs PHP code (a user
 * function, or a file's top level): time or calls in a C function are
 * its caller's. A phpline key is that frame and the line of its current
 * zend_op (execute_data->opline->lineno): in a C function, the line
 * that called it. A phpstack key keeps every frame, C functions too, by
 * an id (a hash of its functions' keys) in phpstacks, its functions
 * named when the stack is new. A function is
 * keyed by its address tagged by its file (or class), name and first
 * line (PT_PHPFUNC_KEY()): an address freed and taken by another
 * function is another key.
 *
 * Names are taken here, at first sight, as pyframe.bpf.h does: the
 * first time a process's function is a key (or a frame of a new stack),
 * php_name() reads its name, class, file and first line and sends them
 * on phpnew, so a process that exits at once is still named.
 *
 * Part of probetop.bpf.c, included before fetch.bpf.h (fill_key()).
 */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_PHP_PROCS);
	__type(key, __u32); /* tgid */
	__type(value, struct pt_phpproc);
} phpprocs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_PHPSTACK_ENTRIES);
	__type(key, __u64);
	__type(value, struct pt_phpstack);
} phpstacks SEC(".maps");

/* A function of a process as set up (gen) whose names were sent. */
struct php_seen_key {
	__u64 key;
	__u32 gen;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PT_PHPSTACK_ENTRIES);
	__type(key, struct php_seen_key);
	__type(value, __u8);
} phpfuncs SEC(".maps");

/* The names of what was seen for the first time (struct pt_phpnew). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} phpnew SEC(".maps");

/* Functions whose names could not be sent (phpnew full). */
__u64 php_names_lost;

/* Every field of a zend_function read lies in its first PHP_FN_SPAN
 * bytes (phplayout.c: below 168 in 8.2; phpframe.c checks). */
#define PHP_FN_SPAN 256

/* Per CPU: one for uprobes, one for profile samples, which may
 * interrupt a uprobe's program on the same CPU. */
struct php_scratch {
	struct pt_phpnew rec;
	struct pt_phpstack st;
	__u8 fn[PHP_FN_SPAN];
	__u8 head[32]; /* a zend_string's header */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct php_scratch);
} phpscratch SEC(".maps");

/* The pointer at addr in the current process, or 0. */
static __always_inline __u64 php_ptr(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (const void *)addr))
		return 0;
	return v;
}

/* The 8 bytes at off of a function's span. */
static __always_inline __u64 php_fn_u64(const __u8 *fn, __u32 off)
{
	return *(const __u64 *)&fn[off & (PHP_FN_SPAN - 8)];
}

/* The zend_string at str into *out: its first PT_PHPSTR bytes, or its
 * last if tail. false if it cannot be read (out->len (__u64)-1). */
static __always_inline bool php_str(const struct pt_phpproc *pp,
				    struct php_scratch *sc, __u64 str,
				    struct pt_phpstr *out, bool tail)
{
	__u64 len, n, at;

	out->len = (__u64)-1;
	out->kept = 0;
	if (!str ||
	    bpf_probe_read_user(sc->head, sizeof(sc->head), (const void *)str))
		return false;
	len = *(__u64 *)&sc->head[pp->str_len & 0x18];
	if (len > (1ULL << 32))
		return false;
	n = len > PT_PHPSTR ? PT_PHPSTR : len;
	at = str + pp->str_val + (tail ? len - n : 0);
	if (n && bpf_probe_read_user(out->data, n, (const void *)at))
		return false;
	out->len = len;
	out->kept = n;
	return true;
}

/* Read function fn into sc->fn; false if it cannot be read. */
static __always_inline bool php_read_fn(struct php_scratch *sc, __u64 fn)
{
	return fn &&
	       !bpf_probe_read_user(sc->fn, PHP_FN_SPAN, (const void *)fn);
}

/* Whether the function in sc->fn runs PHP code (has a file): any type
 * but a C function's (ZEND_USER_CODE()). */
static __always_inline bool php_is_user(const struct pt_phpproc *pp,
					const struct php_scratch *sc)
{
	return sc->fn[pp->fn_type & (PHP_FN_SPAN - 1)] != pp->internal_function;
}

/* The key of the function fn read into sc->fn (PT_PHPFUNC_KEY()). */
static __always_inline __u64 php_fn_key(const struct pt_phpproc *pp,
					const struct php_scratch *sc, __u64 fn)
{
	bool user = php_is_user(pp, sc);
	__u64 where = php_fn_u64(sc->fn, user ? pp->fn_filename : pp->fn_scope);
	__u32 line = user ? *(const __u32 *)&sc
				     ->fn[pp->fn_line_start & (PHP_FN_SPAN - 4)]
			  : 0;

	return PT_PHPFUNC_KEY(fn, where, php_fn_u64(sc->fn, pp->fn_name), line);
}

/*
 * Take the names of function fn (read into sc->fn) of the current
 * process, keyed key, send them on phpnew and remember it in phpfuncs.
 * Called at a first sight only. 1 if sent.
 */
static __noinline int php_name(const struct pt_phpproc *pp,
			       struct php_scratch *sc, __u64 key)
{
	struct pt_phpnew *r = &sc->rec;
	struct php_seen_key k = { .key = key, .gen = pp->gen };
	bool user = php_is_user(pp, sc);
	__u64 scope = php_fn_u64(sc->fn, pp->fn_scope);
	__u8 one = 1;

	r->pid = bpf_get_current_pid_tgid() >> 32;
	r->gen = pp->gen;
	r->key = key;
	r->type = sc->fn[pp->fn_type & (PHP_FN_SPAN - 1)];
	r->line = user ? *(const __u32 *)&sc
				  ->fn[pp->fn_line_start & (PHP_FN_SPAN - 4)]
		       : 0;
	r->func.len = r->scope.len = r->file.len = 0;
	r->func.kept = r->scope.kept = r->file.kept = 0;
	if (php_fn_u64(sc->fn, pp->fn_name)) /* none: a file's top level */
		php_str(pp, sc, php_fn_u64(sc->fn, pp->fn_name), &r->func,
			false);
	if (scope)
		php_str(pp, sc, php_ptr(scope + pp->ce_name), &r->scope, false);
	if (user)
		php_str(pp, sc, php_fn_u64(sc->fn, pp->fn_filename), &r->file,
			true);
	if (bpf_ringbuf_output(&phpnew, r, sizeof(*r), 0)) {
		__sync_fetch_and_add(&php_names_lost, 1);
		return 0;
	}
	bpf_map_update_elem(&phpfuncs, &k, &one, BPF_ANY);
	return 1;
}

/* Name the function in sc->fn (php_name()) unless it was: one lookup. */
static __always_inline void php_seen(const struct pt_phpproc *pp,
				     struct php_scratch *sc, __u64 key)
{
	struct php_seen_key k = { .key = key, .gen = pp->gen };

	if (!bpf_map_lookup_elem(&phpfuncs, &k))
		php_name(pp, sc, key);
}

/* The current process's layout, its scratch and the innermost frame;
 * NULL (no PHP known, no frame) otherwise. */
static __always_inline const struct pt_phpproc *
php_begin(__u32 sample, struct php_scratch **sc, __u64 *ex)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	const struct pt_phpproc *pp = bpf_map_lookup_elem(&phpprocs, &tgid);

	*sc = bpf_map_lookup_elem(&phpscratch, &sample);
	if (!pp || !*sc)
		return NULL;
	*ex = php_ptr(pp->eg + pp->eg_current_execute_data);
	return *ex ? pp : NULL;
}

/* The frame ex's function, its caller's frame and its current zend_op
 * (opline); false if ex cannot be read. */
static __always_inline bool php_frame(const struct pt_phpproc *pp, __u64 ex,
				      __u64 *fn, __u64 *prev, __u64 *opline)
{
	__u64 b[8] = {}; /* ex_func, ex_prev, ex_opline: below 64, 8-aligned */

	if (bpf_probe_read_user(b, sizeof(b), (const void *)ex))
		return false;
	*fn = b[(pp->ex_func >> 3) & 7];
	*prev = b[(pp->ex_prev >> 3) & 7];
	*opline = b[(pp->ex_opline >> 3) & 7];
	return true;
}

/* The key of the innermost frame that runs PHP code (past up to seven C
 * functions' frames), named at first sight, and where the line of its
 * current zend_op is into *line_at (0 if it has none); 0 if none;
 * sample: at a profile sample. */
static __always_inline __u64 php_code_frame(__u32 sample, __u64 *line_at)
{
	struct php_scratch *sc = NULL;
	__u64 ex = 0, fn = 0, prev = 0, opline = 0, key;
	const struct pt_phpproc *pp = php_begin(sample, &sc, &ex);

	if (!pp || !sc)
		return 0;
	for (int i = 0; i < 8 && ex; i++) {
		if (!php_frame(pp, ex, &fn, &prev, &opline))
			return 0;
		if (fn && php_read_fn(sc, fn) && php_is_user(pp, sc)) {
			key = php_fn_key(pp, sc, fn);
			php_seen(pp, sc, key);
			*line_at = opline ? opline + pp->op_lineno : 0;
			return key;
		}
		ex = prev;
	}
	return 0;
}

/* The phpframe key (php_code_frame()). A global function. */
__noinline __u64 php_frame_key(__u32 sample)
{
	__u64 line_at = 0;

	return php_code_frame(sample, &line_at);
}

/*
 * The phpline key (PT_PHPLINE()): php_code_frame()'s function and the
 * line of its zend_op, which the VM saves in the frame before every call
 * (to a C function too: then it is the line of that call) and which, in
 * a stretch of PHP code that calls nothing, may lag the register the VM
 * keeps it in. 0 if none or its zend_op cannot be read. A global
 * function.
 */
__noinline __u64 php_line_key(__u32 sample)
{
	__u64 line_at = 0, key = php_code_frame(sample, &line_at);
	__u32 line = 0;

	if (!key || !line_at ||
	    bpf_probe_read_user(&line, sizeof(line), (const void *)line_at))
		return 0;
	return PT_PHPLINE(key, line);
}

/* The id of the thread's PHP stack, the stack kept in phpstacks and its
 * functions named the first time; sample: at a profile sample. 0: no
 * PHP frames; 1: phpstacks full. A global function. The id is an FNV-1a
 * hash of the process as set up (its gen), the functions' keys and the
 * depth (never 0 or 1). */
__noinline __u64 php_stack_key(__u32 sample)
{
	struct php_scratch *sc = NULL;
	__u64 ex = 0, fn = 0, prev = 0, opline, key, id, hash;
	const struct pt_phpproc *pp = php_begin(sample, &sc, &ex);
	struct pt_phpstack *st;

	if (!pp || !sc)
		return 0;
	st = &sc->st;
	st->depth = 0;
	st->truncated = 0;
	hash = 0xcbf29ce484222325ULL ^ (__u64)pp->gen << 32;
	for (__u32 i = 0; i < PT_PHPSTACK_DEPTH + 1 && ex; i++) {
		if (!php_frame(pp, ex, &fn, &prev, &opline))
			break;
		ex = prev;
		if (!fn)
			continue;
		if (st->depth >= PT_PHPSTACK_DEPTH) {
			st->truncated = 1;
			break;
		}
		key = php_read_fn(sc, fn) ? php_fn_key(pp, sc, fn) : 0;
		st->fn[st->depth & (PT_PHPSTACK_DEPTH - 1)] = key;
		st->depth++;
		hash = (hash ^ key) * 0x100000001b3ULL;
	}
	if (!st->depth)
		return 0;
	id = (hash ^ st->depth) * 0x100000001b3ULL;
	id = id > 1 ? id : id + 2;
	if (bpf_map_lookup_elem(&phpstacks, &id))
		return id;
	if (bpf_map_update_elem(&phpstacks, &id, st, BPF_NOEXIST))
		return bpf_map_lookup_elem(&phpstacks, &id) ? id : 1;
	for (__u32 i = 0; i < PT_PHPSTACK_DEPTH; i++) {
		if (i >= st->depth)
			break;
		key = st->fn[i];
		if (key && php_read_fn(sc, PT_PHPFUNC_ADDR(key)))
			php_seen(pp, sc, key);
	}
	return id;
}

/* The key of a PHP kind (PT_KEY_PHPFRAME, PT_KEY_PHPSTACK,
 * PT_KEY_PHPLINE); 0: no frame to read. One global function for
 * fill_key()'s unrolled loop. */
__noinline __u64 php_key(__u32 kind, __u32 sample)
{
	if (kind == PT_KEY_PHPFRAME)
		return php_frame_key(sample);
	if (kind == PT_KEY_PHPLINE)
		return php_line_key(sample);
	return php_stack_key(sample);
}
