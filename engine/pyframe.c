// SPDX-License-Identifier: MIT
/*
 * pyframe — CPython found, described and named; see pyframe.h.
 */
#include "pyframe.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#include "catalog.h"
#include "elfobj.h"
#include "log.h"
#include "probetop.h"
#include "proc.h"
#include "pylayout.h"
#include "stacktext.h"
#include "pyline.h"

#define NAMES 16384 /* code objects named, a direct-mapped cache */
#define STR_MAX 1024 /* characters of a name or path read at most */

struct pyproc {
	pid_t pid;
	const struct pylayout *lay;
	uint64_t code_type; /* the address of PyCode_Type */
	bool ready;
	bool said; /* unsupported: said once */
};

struct name_slot {
	pid_t pid;
	uint64_t code;
	struct pyname name;
	bool used, ok;
	int minor;
	uint8_t *lines; /* the code object's line table, for pyline */
	size_t nlines;
};

#define LINES_MAX 16384 /* bytes of a line table kept */

struct pyframe {
	int procs_fd, stacks_fd;
	struct ring_buffer *news; /* pynew: what to name now */
	struct pyproc procs[PT_PY_PROCS];
	size_t nprocs;
	struct name_slot names[NAMES];
	struct stacktext *stacks; /* every stack named, kept to the end */
};

static int on_new(void *ctx, void *data, size_t size);

struct pyframe *pyframe_new(int pyprocs_fd, int pystacks_fd, int pynew_fd)
{
	struct pyframe *pf = calloc(1, sizeof(*pf));

	if (!pf) {
		errno = ENOMEM;
		return NULL;
	}
	pf->procs_fd = pyprocs_fd;
	pf->stacks_fd = pystacks_fd;
	pf->news = ring_buffer__new(pynew_fd, on_new, pf, NULL);
	pf->stacks = stacktext_new();
	if (!pf->news || !pf->stacks) {
		ring_buffer__free(pf->news);
		stacktext_free(pf->stacks);
		free(pf);
		errno = ENOMEM;
		return NULL;
	}
	return pf;
}

void pyframe_free(struct pyframe *pf)
{
	if (!pf)
		return;
	for (size_t i = 0; i < NAMES; i++)
		free(pf->names[i].lines);
	stacktext_free(pf->stacks);
	ring_buffer__free(pf->news);
	free(pf);
}

/* n bytes at addr in pid. 0 or -1. */
static int peek(pid_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n };
	struct iovec remote = { (void *)(uintptr_t)addr, n };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)n
		       ? 0
		       : -1;
}

static uint64_t peek_ptr(pid_t pid, uint64_t addr)
{
	uint64_t v = 0;

	return peek(pid, addr, &v, sizeof(v)) ? 0 : v;
}

static struct pyproc *find_proc(struct pyframe *pf, pid_t pid, bool add)
{
	for (size_t i = 0; i < pf->nprocs; i++)
		if (pf->procs[i].pid == pid)
			return &pf->procs[i];
	if (!add || pf->nprocs == PT_PY_PROCS)
		return NULL;
	pf->procs[pf->nprocs] = (struct pyproc){ .pid = pid };
	return &pf->procs[pf->nprocs++];
}

/* The minor version named in path ("python3.12", "libpython3.9.so.1.0"),
 * -1 if none; *threaded for a free-threaded build ("python3.13t"). */
static int name_minor(const char *path, bool *threaded)
{
	const char *base = strrchr(path, '/'), *p;
	int minor = -1, n = 0;

	base = base ? base + 1 : path;
	p = strstr(base, "python3.");
	if (!p)
		return -1;
	if (sscanf(p + 8, "%d%n", &minor, &n) != 1)
		return -1;
	*threaded = p[8 + n] == 't';
	return minor;
}

/* The CPython of obj (which holds _PyRuntime at link-time runtime): its
 * minor version, from Py_Version if the object has it, else its name;
 * -1 if neither tells. */
static int object_minor(pid_t pid, const struct cat_object *obj, uint64_t bias,
			bool *threaded)
{
	uint64_t addr, hex;
	int minor = name_minor(obj->path, threaded);

	if (!elfobj_symbol_addr(obj->elf, "Py_Version", &addr) &&
	    !peek(pid, addr + bias, &hex, sizeof(hex)) &&
	    (hex >> 24 & 0xff) == 3)
		minor = (int)(hex >> 16 & 0xff);
	return minor;
}

static uint32_t field(uint32_t v)
{
	return v == PYLAYOUT_NONE ? PT_PY_NONE : v;
}

/* Tell the kernel where pid's CPython keeps its frames. */
static int describe(struct pyframe *pf, pid_t pid, uint64_t runtime,
		    const struct pylayout *l)
{
	struct pt_pyproc pp = {
		.runtime = runtime,
		.runtime_interp_head = l->runtime_interp_head,
		.interp_tstate_head = l->interp_tstate_head,
		.tstate_next = l->tstate_next,
		.tstate_thread_id = l->tstate_thread_id,
		.tstate_frame = l->tstate_frame,
		.cframe_current_frame = field(l->cframe_current_frame),
		.frame_back = l->frame_back,
		.frame_code = l->frame_code,
		.frame_owner = field(l->frame_owner),
		.frame_lasti = l->frame_lasti,
		.code_adaptive = field(l->code_code_adaptive),
		.code_firstlineno = l->code_firstlineno,
		.owner_cstack = l->owner_cstack,
		.lasti_kind = l->minor <= 9    ? PT_LASTI_BYTES
			      : l->minor == 10 ? PT_LASTI_UNITS
					       : PT_LASTI_PTR,
	};
	uint32_t key = (uint32_t)pid;

	return bpf_map_update_elem(pf->procs_fd, &key, &pp, BPF_ANY) ? -errno
								     : 0;
}

/* obj's load bias in the process whose maps are maps: its own if the
 * catalog knew it, else from its lowest mapping (a file named before the
 * process mapped it). 0 or -ENOENT (not mapped). */
static int load_bias(const struct cat_object *obj, const struct proc_maps *maps,
		     uint64_t *bias)
{
	if (obj->has_bias) {
		*bias = obj->bias;
		return 0;
	}
	for (size_t i = 0; maps && i < maps->n; i++) {
		const struct proc_map *m = &maps->maps[i];

		if (m->inode == obj->inode &&
		    makedev(m->dev_major, m->dev_minor) == obj->dev)
			return catalog_load_bias(maps, m, obj->elf, bias);
	}
	return -ENOENT;
}

int pyframe_setup(struct pyframe *pf, pid_t pid,
		  const struct cat_object *const *objs, size_t n,
		  const struct proc_maps *maps)
{
	struct pyproc *p = find_proc(pf, pid, true);

	if (!p)
		return -ENOSPC;
	if (p->ready)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct cat_object *obj = objs[i];
		uint64_t runtime, code_type = 0;
		bool threaded = false;
		int minor, err;

		uint64_t bias;

		if (!obj->elf ||
		    elfobj_symbol_addr(obj->elf, "_PyRuntime", &runtime) ||
		    load_bias(obj, maps, &bias))
			continue;
		minor = object_minor(pid, obj, bias, &threaded);
		p->lay = threaded ? NULL : pylayout_find(minor);
		if (!p->lay) {
			if (!p->said)
				log_msg(LOG_WARN,
					"pid %d runs CPython 3.%d%s (%s): "
					"pyframe and pystack read CPython 3.8 "
					"to 3.13, default builds",
					(int)pid, minor,
					threaded ? " free-threaded" : "",
					obj->path);
			p->said = true;
			return -ENOTSUP;
		}
		if (!elfobj_symbol_addr(obj->elf, "PyCode_Type", &code_type))
			p->code_type = code_type + bias;
		err = describe(pf, pid, runtime + bias, p->lay);
		if (err)
			return err;
		p->ready = true;
		return 0;
	}
	return -ENOENT;
}

void pyframe_forget(struct pyframe *pf, pid_t pid)
{
	struct pyproc *p = find_proc(pf, pid, false);
	uint32_t key = (uint32_t)pid;

	if (!p)
		return;
	p->ready = false;
	p->said = false;
	p->lay = NULL;
	bpf_map_delete_elem(pf->procs_fd, &key);
	for (size_t i = 0; i < NAMES; i++) /* addresses mean others now */
		free(pf->names[i].lines);
	memset(pf->names, 0, sizeof(pf->names));
}

int pyframe_ready(const struct pyframe *pf, pid_t pid)
{
	for (size_t i = 0; i < pf->nprocs; i++)
		if (pf->procs[i].pid == pid)
			return pf->procs[i].ready;
	return 0;
}

/* Append code point c as UTF-8 to out (room for 4 more bytes). */
static size_t put_utf8(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (c >> 18 & 7));
	out[1] = (char)(0x80 | (c >> 12 & 0x3f));
	out[2] = (char)(0x80 | (c >> 6 & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* The str object at obj in pid as UTF-8 into buf (4 * STR_MAX + 1
 * bytes). Its length, or -1 (not a compact string, unreadable). */
static int read_str(pid_t pid, const struct pylayout *l, uint64_t obj,
		    char *buf)
{
	uint32_t state, kind;
	int64_t len;
	uint64_t utf8;
	static uint8_t raw[4 * STR_MAX];
	size_t at = 0;

	if (!obj || peek(pid, obj + l->unicode_state, &state, sizeof(state)) ||
	    peek(pid, obj + l->unicode_length, &len, sizeof(len)) ||
	    !(state >> l->state_compact_shift & 1) || len < 0)
		return -1;
	kind = state >> l->state_kind_shift & 7;
	len = len > STR_MAX ? STR_MAX : len;
	if (state >> l->state_ascii_shift & 1) {
		if (peek(pid, obj + l->unicode_ascii_data, buf, (size_t)len))
			return -1;
		buf[len] = '\0';
		return (int)len;
	}
	utf8 = peek_ptr(pid, obj + l->unicode_utf8);
	if (kind != 1 && kind != 2 && kind != 4)
		return -1;
	if (!utf8 &&
	    peek(pid, obj + l->unicode_compact_data, raw, (size_t)len * kind))
		return -1;
	if (utf8) {
		int64_t n = 0;

		if (peek(pid, obj + l->unicode_utf8_length, &n, sizeof(n)) ||
		    n < 0 ||
		    peek(pid, utf8, buf, (size_t)(n > STR_MAX ? STR_MAX : n)))
			return -1;
		n = n > STR_MAX ? STR_MAX : n;
		buf[n] = '\0';
		return (int)n;
	}
	for (int64_t i = 0; i < len; i++) {
		uint32_t c =
			kind == 1 ? raw[i]
			: kind == 2
				? (uint32_t)(raw[2 * i] | raw[2 * i + 1] << 8)
				: (uint32_t)(raw[4 * i] | raw[4 * i + 1] << 8 |
					     raw[4 * i + 2] << 16 |
					     (uint32_t)raw[4 * i + 3] << 24);

		at += put_utf8(buf + at, c > 0x10ffff ? 0xfffd : c);
	}
	buf[at] = '\0';
	return (int)at;
}

/* s cut to out (n bytes): its end kept behind "..." if tail, else its
 * start followed by "...", never inside a UTF-8 character. */
static void cut(const char *s, char *out, size_t n, bool tail)
{
	size_t len = strlen(s), keep;

	if (len < n) {
		memcpy(out, s, len + 1);
		return;
	}
	keep = n - 4; /* "..." and the NUL */
	if (tail) {
		const char *p = s + len - keep;

		while (((unsigned char)*p & 0xc0) == 0x80)
			p++;
		snprintf(out, n, "...%s", p);
		return;
	}
	while (keep && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--;
	snprintf(out, n, "%.*s...", (int)keep, s);
}

/* The line table of the code object at code into s (malloc'd), so that
 * lines are found after the process is gone. */
static void read_lines(const struct pyproc *p, uint64_t code,
		       struct name_slot *s)
{
	const struct pylayout *l = p->lay;
	uint64_t tab = peek_ptr(p->pid, code + l->code_linetable);
	int64_t n = 0;

	if (!tab || peek(p->pid, tab + l->bytes_size, &n, sizeof(n)) || n <= 0)
		return;
	n = n > LINES_MAX ? LINES_MAX : n;
	s->lines = malloc((size_t)n);
	if (s->lines && !peek(p->pid, tab + l->bytes_sval, s->lines, (size_t)n))
		s->nlines = (size_t)n;
	s->minor = l->minor;
}

/* Read the code object at code of p into *out. 0 or -1. */
static int read_code(const struct pyproc *p, uint64_t code, struct pyname *out)
{
	const struct pylayout *l = p->lay;
	static char buf[4 * STR_MAX + 1];
	uint64_t type = 0;
	int32_t line = 0;

	if (!code || peek(p->pid, code + 8, &type, sizeof(type)) ||
	    (p->code_type && type != p->code_type))
		return -1; /* no code object (any more) */
	if (peek(p->pid, code + l->code_firstlineno, &line, sizeof(line)))
		return -1;
	if (read_str(p->pid, l, peek_ptr(p->pid, code + l->code_name), buf) < 0)
		return -1;
	cut(buf, out->func, sizeof(out->func), false);
	if (read_str(p->pid, l, peek_ptr(p->pid, code + l->code_filename),
		     buf) < 0)
		return -1;
	cut(buf, out->file, sizeof(out->file), true);
	out->line = line;
	return 0;
}

int pyframe_name(struct pyframe *pf, pid_t pid, uint64_t code,
		 struct pyname *out)
{
	struct name_slot *s = &pf->names[(code >> 4 ^ (uint64_t)pid) % NAMES];
	const struct pyproc *p = find_proc(pf, pid, false);

	if (!s->used || s->pid != pid || s->code != code) {
		free(s->lines);
		*s = (struct name_slot){ .pid = pid,
					 .code = code,
					 .used = true };
		s->ok = p && p->lay && !read_code(p, code, &s->name);
		if (s->ok)
			read_lines(p, code, s);
		if (!s->ok) {
			strcpy(s->name.func, "?");
			s->name.file[0] = '\0';
		}
	}
	*out = s->name;
	return s->ok ? 0 : -1;
}

int pyframe_line(struct pyframe *pf, pid_t pid, uint64_t code, uint32_t off,
		 struct pyname *out)
{
	struct name_slot *s = &pf->names[(code >> 4 ^ (uint64_t)pid) % NAMES];
	int line;

	if (pyframe_name(pf, pid, code, out))
		return -1;
	line = s->nlines ? pyline_addr2line(s->minor, s->lines, s->nlines,
					    out->line, off)
			 : -1;
	out->line = line > 0 ? line : 0;
	return 0;
}

const char *pyframe_stack(struct pyframe *pf, pid_t pid, uint64_t id)
{
	struct pt_pystack st;
	char text[PT_PYSTACK_DEPTH * (PYFRAME_FUNC_MAX + 1) + 8];
	size_t at = 0;

	const char *kept = stacktext_find(pf->stacks, pid, id);

	if (kept)
		return kept;
	if (bpf_map_lookup_elem(pf->stacks_fd, &id, &st) || !st.depth)
		return stacktext_keep(pf->stacks, pid, id, "?");
	if (st.truncated)
		at += (size_t)snprintf(text, sizeof(text), "...;");
	for (uint32_t i = st.depth; i-- > 0 && i < PT_PYSTACK_DEPTH;) {
		struct pyname n;

		pyframe_name(pf, pid, st.code[i], &n);
		at += (size_t)snprintf(text + at, sizeof(text) - at, "%s%s",
				       n.func, i ? ";" : "");
	}
	return stacktext_keep(pf->stacks, pid, id, text);
}

/* A pynew record: name it while the process lives. */
static int on_new(void *ctx, void *data, size_t size)
{
	const struct pt_pynew *n = data;
	struct pyframe *pf = ctx;
	struct pyname name;

	if (size < sizeof(*n))
		return 0;
	if (n->stack)
		pyframe_stack(pf, (pid_t)n->pid, n->value);
	else
		pyframe_name(pf, (pid_t)n->pid, n->value, &name);
	return 0;
}

void pyframe_drain(struct pyframe *pf)
{
	if (pf)
		ring_buffer__consume(pf->news);
}
