// SPDX-License-Identifier: MIT
/*
 * pyframe — CPython found, described and named; see pyframe.h.
 *
 * Names come from two places. The kernel takes them at first sight
 * (bpf/pyframe.bpf.h: a code object's name, file, first line and, for
 * pyline, its line table, as struct pt_pynew records on pynew), so a
 * process that exits at once is still named; on_new() keeps them. What
 * the kernel could not read (a page not present) is read here from the
 * process (process_vm_readv) while it lives: at the record, or when a
 * row asks for a name no record brought.
 *
 * Every name is kept to the end of the run, by (pid, gen, code): gen is
 * the process's set-up (a new one after an exec), so an address of the
 * program before never names one of the program after.
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

#include "catalog.h"
#include "elfobj.h"
#include "log.h"
#include "probetop.h"
#include "proc.h"
#include "pylayout.h"
#include "pymem.h"
#include "stacktext.h"
#include "pyline.h"

#define INDEX 16384 /* chains of the names' index */

_Static_assert(offsetof(struct pt_pynew, lines) == PT_PYNEW_HEAD,
	       "pt_pynew layout");
_Static_assert(sizeof(struct pt_pyproc) == 80, "pt_pyproc layout");

#define OLD_GENS 8 /* set-ups before an exec whose names are looked up */

struct pyproc {
	pid_t pid;
	uint32_t gen; /* its set-up, as the kernel keys it; 0: none yet */
	uint32_t old[OLD_GENS]; /* the set-ups before its exec()s, the last
				   first (0: none) */
	const struct pylayout *lay;
	uint64_t code_type; /* the address of PyCode_Type */
	bool ready;
	bool said; /* unsupported: said once */
};

/* One code object's names. */
struct name_slot {
	pid_t pid;
	uint32_t gen;
	uint64_t code;
	struct pyname name;
	bool ok;
	bool opaque; /* code is a line key's (PT_PYCODE_LINE()): not read */
	int minor;
	uint8_t *lines; /* the code object's line table, for pyline */
	size_t nlines;
	uint32_t next; /* the next of its index chain: 1 + index, or 0 */
};

#define LINES_MAX PT_PYLINES /* bytes of a line table kept */

struct pyframe {
	int procs_fd, stacks_fd;
	struct ring_buffer *news; /* pynew: names taken at first sight */
	const volatile uint64_t *lost; /* records pynew had no room for */
	uint64_t lost_said;
	struct pyproc procs[PT_PY_PROCS];
	size_t nprocs;
	uint32_t gens; /* the last gen handed out */
	struct name_slot *names; /* every code object named, to the end */
	size_t nnames, capnames;
	uint32_t index[INDEX]; /* by (pid, gen, code): 1 + index, or 0 */
	struct stacktext *stacks; /* every stack named, kept to the end */
};

static int on_new(void *ctx, void *data, size_t size);

struct pyframe *pyframe_new(int pyprocs_fd, int pystacks_fd, int pynew_fd,
			    const volatile uint64_t *lost)
{
	struct pyframe *pf = calloc(1, sizeof(*pf));

	if (!pf) {
		errno = ENOMEM;
		return NULL;
	}
	pf->procs_fd = pyprocs_fd;
	pf->stacks_fd = pystacks_fd;
	pf->lost = lost;
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
	for (size_t i = 0; i < pf->nnames; i++)
		free(pf->names[i].lines);
	free(pf->names);
	stacktext_free(pf->stacks);
	ring_buffer__free(pf->news);
	free(pf);
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
	    !pymem_peek(pid, addr + bias, &hex, sizeof(hex)) &&
	    (hex >> 24 & 0xff) == 3)
		minor = (int)(hex >> 16 & 0xff);
	return minor;
}

static uint32_t field(uint32_t v)
{
	return v == PYLAYOUT_NONE ? PT_PY_NONE : v;
}

/* How the eval loop's C-level calls part l's frames (enum pt_pysplit). */
static uint8_t split_of(const struct pylayout *l)
{
	if (!l->interp_frames)
		return PT_PYSPLIT_EACH;
	if (l->frame_is_entry != PYLAYOUT_NONE)
		return PT_PYSPLIT_FLAG;
	if (l->frame_owner != PYLAYOUT_NONE && l->owner_cstack != 0xff)
		return PT_PYSPLIT_SHIM;
	return PT_PYSPLIT_NONE;
}

/* Where a frame walk finds l's owner and is_entry in one read of 8
 * bytes (pp's frame_flags, owner_shift, entry_shift), no further than
 * what the walk reads of a frame (PT_PYFRAME_SPAN): 0, or -1 if they are too
 * far apart or past it. */
static int frame_flags(const struct pylayout *l, struct pt_pyproc *pp)
{
	uint32_t at = l->frame_owner;

	if (l->frame_owner == PYLAYOUT_NONE)
		return 0; /* (3.8-3.10: neither) */
	if (l->frame_is_entry != PYLAYOUT_NONE && l->frame_is_entry < at)
		at = l->frame_is_entry;
	/* 3.14's owner, at 74: the span's last 8 bytes */
	if (at + 8 > PT_PYFRAME_SPAN && at < PT_PYFRAME_SPAN)
		at = PT_PYFRAME_SPAN - 8;
	if (at + 8 > PT_PYFRAME_SPAN || l->frame_owner - at > 7 ||
	    (l->frame_is_entry != PYLAYOUT_NONE && l->frame_is_entry - at > 7))
		return -1;
	pp->frame_flags = at;
	pp->owner_shift = (uint8_t)(8 * (l->frame_owner - at));
	pp->entry_shift = l->frame_is_entry == PYLAYOUT_NONE
				  ? 0
				  : (uint8_t)(8 * (l->frame_is_entry - at));
	return 0;
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
		.code_tag = l->code_tag,
		.frame_owner = field(l->frame_owner),
		.frame_lasti = l->frame_lasti,
		.code_adaptive = field(l->code_code_adaptive),
		.owner_cstack = l->owner_cstack,
		.lasti_kind = l->minor <= 9    ? PT_LASTI_BYTES
			      : l->minor == 10 ? PT_LASTI_UNITS
					       : PT_LASTI_PTR,
		.code_firstlineno = (uint8_t)l->code_firstlineno,
		.code_filename = (uint8_t)l->code_filename,
		.code_name = (uint8_t)l->code_name,
		.code_linetable = (uint8_t)l->code_linetable,
		.code_version = l->code_version == PYLAYOUT_NONE
					? 0
					: (uint8_t)l->code_version,
		.str_length = (uint8_t)l->unicode_length,
		.str_state = (uint8_t)l->unicode_state,
		.str_ascii_data = (uint8_t)l->unicode_ascii_data,
		.str_compact_data = (uint8_t)l->unicode_compact_data,
		.bytes_size = (uint8_t)l->bytes_size,
		.bytes_sval = (uint8_t)l->bytes_sval,
		.state_kind_shift = (uint8_t)l->state_kind_shift,
		.state_compact_shift = (uint8_t)l->state_compact_shift,
		.state_ascii_shift = (uint8_t)l->state_ascii_shift,
		.split = split_of(l),
		.gen = ++pf->gens,
	};
	uint32_t key = (uint32_t)pid;
	struct pyproc *p = find_proc(pf, pid, false);

	if (frame_flags(l, &pp))
		return -ENOTSUP;
	/* what the kernel reads of a code object, str, bytes lies in the
	 * spans it reads (bpf/pyframe.bpf.h) */
	if (l->code_firstlineno + 4 > PT_PYCODE_SPAN ||
	    l->code_filename + 8 > PT_PYCODE_SPAN ||
	    l->code_name + 8 > PT_PYCODE_SPAN ||
	    l->code_name != l->code_filename + 8 || /* PT_PYCODE_KEY() */
	    l->unicode_length != 16 || /* the hash after it: PyASCIIObject */
	    (l->code_version != PYLAYOUT_NONE &&
	     (!l->code_version || l->code_version + 4 > 255)) ||
	    l->code_linetable + 8 > PT_PYCODE_SPAN ||
	    l->unicode_length + 8 > PT_PYSTR_HEAD ||
	    l->unicode_state + 4 > PT_PYSTR_HEAD ||
	    l->bytes_size + 8 > PT_PYBYTES_HEAD ||
	    l->unicode_compact_data > 255 || l->bytes_sval > 255)
		return -ENOTSUP;
	if (bpf_map_update_elem(pf->procs_fd, &key, &pp, BPF_ANY))
		return -errno;
	if (p)
		p->gen = pp.gen;
	return 0;
}

/* obj's load bias in the process whose maps are maps, from its lowest
 * mapping there. 0 or -ENOENT (not mapped: not yet, or not in this
 * program; the catalog's bias of an object it knew in the program before
 * an exec is that program's). */
static int load_bias(const struct cat_object *obj, const struct proc_maps *maps,
		     uint64_t *bias)
{
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
					"to 3.14, default builds",
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
	p->ready = false; /* nothing read from the new program ... */
	pyframe_drain(pf); /* ... for the names taken before the exec */
	p->said = false;
	p->lay = NULL;
	p->code_type = 0;
	if (p->gen) {
		memmove(p->old + 1, p->old, sizeof(p->old) - sizeof(p->old[0]));
		p->old[0] = p->gen;
	}
	p->gen = 0; /* addresses mean others now: names of the next gen */
	bpf_map_delete_elem(pf->procs_fd, &key);
}

int pyframe_ready(const struct pyframe *pf, pid_t pid)
{
	for (size_t i = 0; i < pf->nprocs; i++)
		if (pf->procs[i].pid == pid)
			return pf->procs[i].ready;
	return 0;
}

/* The line table of the code object at code into s (malloc'd), so that
 * lines are found after the process is gone. */
static void read_lines(const struct pyproc *p, uint64_t code,
		       struct name_slot *s)
{
	const struct pylayout *l = p && p->ready ? p->lay : NULL;
	uint64_t tab =
		l ? pymem_ptr(p->pid, PT_PYCODE_ADDR(code) + l->code_linetable)
		  : 0;
	int64_t n = 0;

	if (!tab || pymem_peek(p->pid, tab + l->bytes_size, &n, sizeof(n)) ||
	    n <= 0)
		return;
	n = n > LINES_MAX ? LINES_MAX : n;
	s->lines = malloc((size_t)n);
	if (s->lines &&
	    pymem_peek(p->pid, tab + l->bytes_sval, s->lines, (size_t)n)) {
		free(s->lines);
		s->lines = NULL;
		return;
	}
	s->nlines = s->lines ? (size_t)n : 0;
	s->minor = l->minor;
}

/* The key (PT_PYCODE_KEY()) of the code object at code of p now, as
 * the kernel makes it (bpf/pyframe.bpf.h's py_code_key()); 0 if it
 * cannot be read. */
static uint64_t code_key(const struct pyproc *p, uint64_t code)
{
	const struct pylayout *l = p->lay;
	uint64_t fn[2], hash = 0;
	uint32_t version = 0;

	if (l->code_version != PYLAYOUT_NONE &&
	    !pymem_peek(p->pid, code + l->code_version, &version,
			sizeof(version)) &&
	    version)
		return PT_PYCODE_KEY(code, (uint64_t)version, 0ULL);
	if (pymem_peek(p->pid, code + l->code_filename, fn, sizeof(fn)) ||
	    pymem_peek(p->pid, fn[1] + l->unicode_length + 8, &hash,
		       sizeof(hash)))
		return 0;
	return PT_PYCODE_KEY(code, fn[0], hash);
}

/* Read the code object key (PT_PYCODE_KEY(), or a bare address) of p
 * into *out: not if its address holds another code object now (another
 * tag). 0 or -1. */
static int read_code(const struct pyproc *p, uint64_t key, struct pyname *out)
{
	const struct pylayout *l = p->lay;
	static char buf[4 * PYMEM_STR_MAX + 1];
	uint64_t code = PT_PYCODE_ADDR(key), type = 0, fn[2];
	int32_t line = 0;

	if (!code || pymem_peek(p->pid, code + 8, &type, sizeof(type)) ||
	    (p->code_type && type != p->code_type))
		return -1; /* no code object (any more) */
	if (key != code && code_key(p, code) != key)
		return -1; /* another code object there now */
	if (pymem_peek(p->pid, code + l->code_filename, fn, sizeof(fn)))
		return -1;
	if (pymem_peek(p->pid, code + l->code_firstlineno, &line, sizeof(line)))
		return -1;
	if (pymem_str(p->pid, l, fn[1], buf) < 0)
		return -1;
	pymem_cut(buf, out->func, sizeof(out->func), false);
	if (pymem_str(p->pid, l, fn[0], buf) < 0)
		return -1;
	pymem_cut(buf, out->file, sizeof(out->file), true);
	out->line = line;
	return 0;
}

static size_t name_chain(pid_t pid, uint32_t gen, uint64_t code)
{
	return (code >> 4 ^ (uint64_t)pid ^ (uint64_t)gen << 20) % INDEX;
}

/* The names of code in pid as set up gen, or NULL. */
static struct name_slot *find_name(struct pyframe *pf, pid_t pid, uint32_t gen,
				   uint64_t code)
{
	for (uint32_t k = pf->index[name_chain(pid, gen, code)]; k;
	     k = pf->names[k - 1].next) {
		struct name_slot *s = &pf->names[k - 1];

		if (s->code == code && s->pid == pid && s->gen == gen)
			return s;
	}
	return NULL;
}

/* A new slot for code in pid, "?" until named; NULL if out of memory. */
static struct name_slot *add_name(struct pyframe *pf, pid_t pid, uint32_t gen,
				  uint64_t code)
{
	size_t chain = name_chain(pid, gen, code);
	struct name_slot *s;

	if (pf->nnames == pf->capnames) {
		size_t cap = pf->capnames ? 2 * pf->capnames : 256;

		s = realloc(pf->names, cap * sizeof(*s));
		if (!s)
			return NULL;
		pf->names = s;
		pf->capnames = cap;
	}
	s = &pf->names[pf->nnames];
	*s = (struct name_slot){ .pid = pid, .gen = gen, .code = code };
	strcpy(s->name.func, "?");
	s->next = pf->index[chain];
	pf->index[chain] = (uint32_t)++pf->nnames;
	return s;
}

/* Name s from the process, if it lives and s is not named yet (and is
 * a code object's address). */
static void read_name(const struct pyproc *p, struct name_slot *s)
{
	if (s->ok || s->opaque || !p || !p->ready || !p->lay ||
	    read_code(p, s->code, &s->name))
		return;
	s->ok = true;
	if (!s->lines)
		read_lines(p, s->code, s);
}

/*
 * The slot of code in pid: kept, else brought by a record not yet
 * drained, else the kernel's name of that address in the program before
 * an exec (a key of the program before named after the exec: the key
 * does not say which; a name the kernel took in the current one would
 * have been found first), else read from the process now (a new slot,
 * "?" if it cannot be, or if opaque: code is a line key's, not an
 * address); NULL if out of memory.
 */
static struct name_slot *name_of(struct pyframe *pf, pid_t pid, uint64_t code,
				 bool opaque)
{
	struct pyproc *p = find_proc(pf, pid, false);
	uint32_t gen = p ? p->gen : 0;
	struct name_slot *s = find_name(pf, pid, gen, code);

	if (s)
		return s;
	pyframe_drain(pf);
	s = find_name(pf, pid, gen, code);
	for (int i = 0; !s && p && i < OLD_GENS && p->old[i]; i++) {
		s = find_name(pf, pid, p->old[i], code);
		s = s && s->ok ? s : NULL;
	}
	if (s)
		return s;
	s = add_name(pf, pid, gen, code);
	if (s) {
		s->opaque = opaque;
		read_name(p, s);
	}
	return s;
}

int pyframe_name(struct pyframe *pf, pid_t pid, uint64_t code,
		 struct pyname *out)
{
	const struct name_slot *s = name_of(pf, pid, code, false);

	if (!s) {
		*out = (struct pyname){ .func = "?" };
		return -1;
	}
	*out = s->name;
	return s->ok ? 0 : -1;
}

int pyframe_line(struct pyframe *pf, pid_t pid, uint64_t code, uint32_t off,
		 struct pyname *out)
{
	struct name_slot *s = name_of(pf, pid, code, true);
	const struct pyproc *p;
	int line;

	if (!s || !s->ok) {
		*out = s ? s->name : (struct pyname){ .func = "?" };
		return -1;
	}
	p = find_proc(pf, pid, false);
	if (!s->lines && !s->opaque && p && s->gen == p->gen)
		read_lines(p, code, s); /* named without its lines */
	*out = s->name;
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

/* The str the kernel took as UTF-8, cut to out (n bytes) as a name read
 * from the process is (read_code()): the kernel kept PT_PYSTR bytes of
 * characters, at least 64, so what it left out is cut here anyway.
 * false if it took none. */
static bool take_str(const struct pt_pystr *st, char *out, size_t n, bool tail)
{
	char buf[4 * PT_PYSTR + 1];

	if ((st->kind != 1 && st->kind != 2 && st->kind != 4) ||
	    st->len > PT_PYSTR || st->len % st->kind)
		return false;
	pymem_decode(st->data, st->len / st->kind, st->kind, buf);
	pymem_cut(buf, out, n, tail);
	return true;
}

/* A pynew record: a code object's names as the kernel took them at first
 * sight; what it could not read, read from the process if it lives. */
static int on_new(void *ctx, void *data, size_t size)
{
	const struct pt_pynew *r = data;
	struct pyframe *pf = ctx;
	struct pyproc *p;
	struct name_slot *s;
	struct pyname n = { .line = 0 };
	const uint32_t both = PT_PYNAMED_FUNC | PT_PYNAMED_FILE;

	if (size < PT_PYNEW_HEAD || r->nlines > size - PT_PYNEW_HEAD)
		return 0;
	p = find_proc(pf, (pid_t)r->pid, false);
	if (!p || !p->lay || r->gen != p->gen)
		return 0; /* (none: the kernel sends only as set up) */
	s = find_name(pf, (pid_t)r->pid, r->gen, r->code);
	if (!s)
		s = add_name(pf, (pid_t)r->pid, r->gen, r->code);
	if (!s)
		return 0;
	s->opaque |= (r->named & PT_PYNAMED_OPAQUE) != 0;
	if (!s->ok && (r->named & both) == both &&
	    (!p->code_type || r->type == p->code_type) &&
	    take_str(&r->func, n.func, sizeof(n.func), false) &&
	    take_str(&r->file, n.file, sizeof(n.file), true)) {
		n.line = r->firstlineno;
		s->name = n;
		s->ok = true;
	}
	if (r->named & PT_PYNAMED_LINES && !s->lines) {
		s->lines = malloc(r->nlines ? r->nlines : 1);
		if (s->lines) {
			memcpy(s->lines, r->lines, r->nlines);
			s->nlines = r->nlines;
			s->minor = p->lay->minor;
		}
	}
	read_name(p, s); /* what the kernel could not read */
	return 0;
}

void pyframe_drain(struct pyframe *pf)
{
	uint64_t lost;

	if (!pf)
		return;
	ring_buffer__consume(pf->news);
	lost = pf->lost ? *pf->lost : 0;
	if (lost > pf->lost_said) {
		log_msg(LOG_WARN,
			"python: the names of %llu code objects found no room "
			"to be sent at first sight (pynew full); read from the "
			"process instead while it lives",
			(unsigned long long)(lost - pf->lost_said));
		pf->lost_said = lost;
	}
}
