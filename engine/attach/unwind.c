// SPDX-License-Identifier: MIT
/*
 * unwind — the unwind tables a tracer keeps in the kernel; see unwind.h.
 */
#include "unwind.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "catalog.h"
#include "ehframe.h"
#include "log.h"
#include "needed.h"
#include "objects.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "proc.h"
#include "tracer_state.h"
#include "vdso.h"

/* An object and its rows (count 0: it has no table), and its holders. */
struct uw_obj {
	uint64_t dev, ino; /* the kernel's device: major << 20 | minor */
	uint32_t first, count;
	unsigned refs;
};

/* Rows of urows not in use. */
struct uw_range {
	uint32_t first, count;
};

struct unwind {
	struct uw_obj objs[PT_UOBJS];
	size_t nobjs;
	struct uw_range free[PT_UOBJS + 1]; /* by first, none adjacent */
	size_t nfree;
	uint32_t capacity;
	struct seen_set held; /* the objects the -p process holds */
	const void *vdso; /* this process's vDSO image (every process's) */
	size_t vdso_size;
	struct pt_uproc proc; /* the -p process's mappings, as written */
	uint32_t execs; /* tr->exec.count when proc was written (an exec
			   takes it out of uprocs: pt_execstop) */
	size_t rows, full;
	struct { /* the -p JVM's compiled code (unwind_jit()) */
		struct unwind_span spans[UNWIND_SPANS];
		size_t nspans;
		uint64_t lo;
		uint32_t first, count;
		struct pt_urow *rows; /* as written */
	} jit;
};

/* The kernel's device number of a user-space dev_t. */
static uint64_t kdev(uint64_t dev)
{
	return (uint64_t)major(dev) << 20 | minor(dev);
}

static struct uw_obj *obj_find(struct unwind *u, uint64_t dev, uint64_t ino)
{
	for (size_t i = 0; i < u->nobjs; i++)
		if (u->objs[i].dev == dev && u->objs[i].ino == ino)
			return &u->objs[i];
	return NULL;
}

/* n rows of the free ranges (the first that has room) into *first.
 * 0 or -ENOSPC. */
static int range_take(struct unwind *u, uint32_t n, uint32_t *first)
{
	for (size_t i = 0; i < u->nfree; i++) {
		struct uw_range *r = &u->free[i];

		if (r->count < n)
			continue;
		*first = r->first;
		r->first += n;
		r->count -= n;
		if (!r->count)
			memmove(r, r + 1, (u->nfree-- - i - 1) * sizeof(*r));
		return 0;
	}
	return -ENOSPC;
}

/* Rows [first, first + n) free again, merged with their neighbours. */
static void range_give(struct unwind *u, uint32_t first, uint32_t n)
{
	size_t i = 0;

	while (i < u->nfree && u->free[i].first < first)
		i++;
	if (i && u->free[i - 1].first + u->free[i - 1].count == first) {
		u->free[i - 1].count += n;
		if (i < u->nfree && first + n == u->free[i].first) {
			u->free[i - 1].count += u->free[i].count;
			memmove(&u->free[i], &u->free[i + 1],
				(u->nfree-- - i - 1) * sizeof(u->free[0]));
		}
		return;
	}
	if (i < u->nfree && first + n == u->free[i].first) {
		u->free[i].first = first;
		u->free[i].count += n;
		return;
	}
	memmove(&u->free[i + 1], &u->free[i],
		(u->nfree - i) * sizeof(u->free[0]));
	u->free[i] = (struct uw_range){ first, n };
	u->nfree++;
}

/* Write t's rows at first in urows. 0 or a negative errno. */
static int write_rows(int fd, uint32_t first, const struct eh_table *t)
{
	enum {
		CHUNK = 16384
	};
	uint32_t *keys = malloc(CHUNK * sizeof(*keys));
	int err = keys ? 0 : -ENOMEM;

	for (size_t at = 0; !err && at < t->n; at += CHUNK) {
		__u32 n = t->n - at < CHUNK ? (__u32)(t->n - at) : CHUNK;

		for (__u32 i = 0; i < n; i++)
			keys[i] = first + (uint32_t)(at + i);
		if (bpf_map_update_batch(fd, keys, &t->rows[at], &n, NULL))
			err = -errno;
	}
	free(keys);
	return err;
}

/* Rows for o from t: a range taken, written, o made known to the kernel
 * by (dev, inode). A full array is said once and counted. */
static void load_rows(struct tracer *tr, struct uw_obj *o,
		      const struct eh_table *t, const char *name)
{
	struct unwind *u = tr->unwind;
	struct pt_uobj_key k = { o->dev, o->ino };
	struct pt_uobj v;
	int err = range_take(u, (uint32_t)t->n, &o->first);

	if (err) {
		if (!u->full++)
			log_msg(LOG_WARN,
				"unwind tables full (%u rows): %s and any "
				"later object are walked by frame pointer",
				u->capacity, name);
		return;
	}
	err = write_rows(bpf_map__fd(tr->skel->maps.urows), o->first, t);
	v = (struct pt_uobj){ o->first, (uint32_t)t->n };
	if (!err && bpf_map_update_elem(bpf_map__fd(tr->skel->maps.uobjs), &k,
					&v, BPF_ANY))
		err = -errno;
	if (err) {
		log_msg(LOG_WARN, "%s: cannot load its unwind table: %s", name,
			strerror(-err));
		range_give(u, o->first, (uint32_t)t->n);
		return;
	}
	o->count = (uint32_t)t->n;
	u->rows += t->n;
}

/* Hold object (dev, ino) once more (dev: the kernel's); on its first
 * hold its table is made from fd (or, fd < 0, from the vDSO image) and
 * loaded. */
static void hold(struct tracer *tr, uint64_t dev, uint64_t ino, int fd,
		 const char *name)
{
	struct unwind *u = tr->unwind;
	struct uw_obj *o = obj_find(u, dev, ino);
	struct eh_table t;
	int err;

	if (o) {
		o->refs++;
		return;
	}
	if (u->nobjs == PT_UOBJS) {
		if (!u->full++)
			log_msg(LOG_WARN,
				"unwind tables full (%d objects): %s and any "
				"later object are walked by frame pointer",
				PT_UOBJS, name);
		return;
	}
	o = &u->objs[u->nobjs++];
	*o = (struct uw_obj){ .dev = dev, .ino = ino, .refs = 1 };
	err = fd >= 0 ? ehframe_compile_fd(fd, name, &t)
		      : ehframe_compile_mem(u->vdso, u->vdso_size, name, &t);
	if (!err)
		load_rows(tr, o, &t, name);
	ehframe_free(&t);
	__atomic_add_fetch(&tr->skel->bss->unwind_gen, 1, __ATOMIC_RELEASE);
}

/* Release a hold of (dev, ino); with the last, its rows go. */
static void release(struct tracer *tr, uint64_t dev, uint64_t ino)
{
	struct unwind *u = tr->unwind;
	struct uw_obj *o = obj_find(u, dev, ino);
	struct pt_uobj_key k = { dev, ino };

	if (!o || --o->refs)
		return;
	if (o->count) {
		bpf_map_delete_elem(bpf_map__fd(tr->skel->maps.uobjs), &k);
		__atomic_add_fetch(&tr->skel->bss->unwind_gen, 1,
				   __ATOMIC_RELEASE);
		range_give(u, o->first, o->count);
		u->rows -= o->count;
	}
	*o = u->objs[--u->nobjs];
}

/* Mapping m into p in its place by start (dropped when p is full). */
static void put_sorted(struct pt_uproc *p, const struct pt_umap *m)
{
	uint32_t at = p->n;

	if (p->n == PT_UMAPS)
		return;
	while (at && p->m[at - 1].start > m->start)
		at--;
	memmove(&p->m[at + 1], &p->m[at], (p->n - at) * sizeof(p->m[0]));
	p->m[at] = *m;
	p->n++;
}

/* The -p process's executable mappings, with their objects' rows, into
 * p (sorted by start, as maps are; the vDSO put in its place; a JVM's
 * code heaps, which are no file's, with their rows). */
static void describe(struct tracer *tr, struct pt_uproc *p)
{
	struct unwind *u = tr->unwind;
	uint64_t vdso = 0, vend;
	const struct uw_obj *o;

	memset(p, 0, sizeof(*p));
	if (proc_vdso(tr->pid, &vdso) || !u->vdso_size)
		vdso = 0;
	vend = (vdso + u->vdso_size + 4095) & ~4095ull;
	for (size_t i = 0; i < tr->maps.n && p->n < PT_UMAPS; i++) {
		const struct proc_map *m = &tr->maps.maps[i];

		if (vdso && m->start > vdso) {
			o = obj_find(u, 0, 0);
			p->m[p->n++] = (struct pt_umap){ vdso, vend, 0,
							 o ? o->first : 0,
							 o ? o->count : 0 };
			vdso = 0;
			if (p->n == PT_UMAPS)
				break;
		}
		if (m->perms[2] != 'x')
			continue;
		o = obj_find(u, (uint64_t)m->dev_major << 20 | m->dev_minor,
			     m->inode);
		p->m[p->n++] =
			(struct pt_umap){ m->start, m->end, m->offset,
					  o ? o->first : 0, o ? o->count : 0 };
	}
	if (vdso && p->n < PT_UMAPS) { /* above every file's mapping */
		o = obj_find(u, 0, 0);
		p->m[p->n++] =
			(struct pt_umap){ vdso, vend, 0, o ? o->first : 0,
					  o ? o->count : 0 };
	}
	for (size_t i = 0; i < u->jit.nspans; i++)
		put_sorted(p,
			   &(struct pt_umap){ u->jit.spans[i].start,
					      u->jit.spans[i].end,
					      u->jit.spans[i].start - u->jit.lo,
					      u->jit.first, u->jit.count });
}

/* The -p process's mappings written to uprocs again if they changed
 * (or an exec took them out). */
static void procs_write(struct tracer *tr)
{
	struct unwind *u = tr->unwind;
	struct pt_uproc *p = malloc(sizeof(*p));
	__u32 pid = (__u32)tr->pid;

	if (!p)
		return;
	describe(tr, p);
	if (u->execs != tr->exec.count) {
		memset(&u->proc, 0, sizeof(u->proc));
		u->execs = tr->exec.count;
	}
	if (memcmp(p, &u->proc, sizeof(*p)) &&
	    !bpf_map_update_elem(bpf_map__fd(tr->skel->maps.uprocs), &pid, p,
				 BPF_ANY)) {
		u->proc = *p;
		/* rules cached by address may be another object's now */
		__atomic_add_fetch(&tr->skel->bss->unwind_gen, 1,
				   __ATOMIC_RELEASE);
	}
	free(p);
}

void unwind_sync(struct tracer *tr)
{
	struct unwind *u = tr->unwind;
	struct seen_set now = { 0 };

	if (!u || tr->kind != TRACER_PID)
		return;
	for (size_t i = 0; i < tr->maps.n; i++) {
		const struct proc_map *m = &tr->maps.maps[i];
		uint64_t dev = (uint64_t)m->dev_major << 20 | m->dev_minor;
		int fd;

		if (m->perms[2] != 'x' || seen_has(&now, dev, m->inode) ||
		    seen_add(&now, dev, m->inode))
			continue;
		if (seen_has(&u->held, dev, m->inode))
			continue;
		fd = proc_open_mapped(tr->pid, m);
		if (fd >= 0) {
			hold(tr, dev, m->inode, fd, m->path);
			close(fd);
		}
	}
	for (size_t i = 0; i < u->held.n; i++)
		if (!seen_has(&now, u->held.v[i].dev, u->held.v[i].inode))
			release(tr, u->held.v[i].dev, u->held.v[i].inode);
	free(u->held.v);
	u->held = now;
	procs_write(tr);
}

/* Whether the JVM rows written are these. */
static bool jit_same(const struct unwind *u, const struct unwind_span *spans,
		     size_t nspans, uint64_t lo, const struct pt_urow *rows,
		     size_t n)
{
	return u->jit.nspans == nspans && u->jit.lo == lo &&
	       u->jit.count == n &&
	       (!nspans ||
		!memcmp(u->jit.spans, spans, nspans * sizeof(*spans))) &&
	       (!n || !memcmp(u->jit.rows, rows, n * sizeof(*rows)));
}

void unwind_jit(struct tracer *tr, const struct unwind_span *spans,
		size_t nspans, uint64_t lo, const struct pt_urow *rows,
		size_t n)
{
	struct unwind *u = tr->unwind;
	uint32_t old_first, old_count;
	struct eh_table t = { (struct pt_urow *)rows, n };
	struct pt_urow *copy;
	uint32_t first = 0;

	if (nspans > UNWIND_SPANS)
		nspans = UNWIND_SPANS;
	if (!u || tr->kind != TRACER_PID ||
	    jit_same(u, spans, nspans, lo, rows, n))
		return;
	copy = malloc(n * sizeof(*rows) + 1);
	if (!copy || (n && range_take(u, (uint32_t)n, &first))) {
		free(copy);
		return; /* kept as it was: walked by the older rows */
	}
	if (n && write_rows(bpf_map__fd(tr->skel->maps.urows), first, &t)) {
		range_give(u, first, (uint32_t)n);
		free(copy);
		return;
	}
	memcpy(copy, rows, n * sizeof(*rows));
	old_first = u->jit.first;
	old_count = u->jit.count;
	free(u->jit.rows);
	u->jit.rows = copy;
	u->jit.lo = lo;
	u->jit.nspans = nspans;
	if (nspans)
		memcpy(u->jit.spans, spans, nspans * sizeof(*spans));
	u->jit.first = first;
	u->jit.count = (uint32_t)n;
	u->rows += n;
	procs_write(tr); /* the walks take the new rows from here on */
	if (old_count) {
		range_give(u, old_first, old_count);
		u->rows -= old_count;
	}
}

/* needed_walk()'s add under -b: hold the file's table (once). */
struct file_walk {
	struct tracer *tr;
	struct catalog *cats[64]; /* kept while the walk reads them */
	size_t ncats;
};

static int hold_file(const char *path, const struct cat_object **obj, void *ctx)
{
	struct file_walk *w = ctx;
	struct catalog *cat;
	const struct cat_object *o;
	int fd;

	if (w->ncats == sizeof(w->cats) / sizeof(w->cats[0]))
		return 0;
	cat = catalog_open_file(w->tr->cache, path);
	if (!cat)
		return 0;
	w->cats[w->ncats++] = cat;
	o = catalog_object(cat, 0);
	if (!o || obj_find(w->tr->unwind, kdev(o->dev), o->inode))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		hold(w->tr, kdev(o->dev), o->inode, fd, path);
		close(fd);
	}
	*obj = o;
	return 0;
}

void unwind_start(struct tracer *tr)
{
	const char *how = getenv("PROBETOP_UNWIND");
	struct unwind *u;

	if (tr->unwind || (how && !strcmp(how, "fp")))
		return;
	u = calloc(1, sizeof(*u));
	if (!u) {
		log_msg(LOG_WARN, "out of memory: user stacks are walked by "
				  "frame pointer");
		return;
	}
	tr->unwind = u;
	u->capacity = tr->sizes.entries[MAPSIZE_UROWS];
	u->free[0] = (struct uw_range){ 0, u->capacity };
	u->nfree = 1;
	if (!vdso_image(&u->vdso, &u->vdso_size))
		hold(tr, 0, 0, -1, "[vdso]");
	if (tr->kind == TRACER_PID) {
		unwind_sync(tr);
	} else {
		struct file_walk w = { .tr = tr };

		needed_walk(tr->path, hold_file, &w);
		for (size_t i = 0; i < w.ncats; i++)
			catalog_free(w.cats[i]);
	}
	tr->skel->bss->unwind_on = 1;
}

/* Whether the -p process's mappings, as written to uprocs, use rows
 * [first, first + count). */
static bool proc_uses(const struct unwind *u, uint32_t first, uint32_t count)
{
	for (uint32_t i = 0; i < u->proc.n; i++)
		if (u->proc.m[i].count == count && u->proc.m[i].first == first)
			return true;
	return false;
}

/* The tables the -p process pid walks by into p: those of the objects
 * its mappings hold, and the vDSO's (held by the tracer, (0, 0)) if
 * its mappings have the vDSO. */
static void proc_tables(const struct unwind *u, pid_t pid,
			struct tracer_unwind_proc *p)
{
	*p = (struct tracer_unwind_proc){ .pid = pid };
	for (size_t i = 0; i < u->nobjs; i++) {
		const struct uw_obj *o = &u->objs[i];
		bool vdso = !o->dev && !o->ino;

		if (o->count && (vdso ? proc_uses(u, o->first, o->count)
				      : seen_has(&u->held, o->dev, o->ino))) {
			p->objects++;
			p->rows += o->count;
		}
	}
}

void tracer_unwind(const struct tracer *tr, struct tracer_unwind *out)
{
	const struct unwind *u = tr->unwind;

	memset(out, 0, sizeof(*out));
	if (!u)
		return;
	out->on = true;
	for (size_t i = 0; i < u->nobjs; i++)
		out->objects += u->objs[i].count != 0;
	out->rows = u->rows;
	out->full = u->full;
	out->capacity = u->capacity;
	if (tr->kind == TRACER_PID)
		proc_tables(u, tr->pid, &out->procs[out->nprocs++]);
}

void unwind_free(struct tracer *tr)
{
	if (!tr->unwind)
		return;
	free(tr->unwind->held.v);
	free(tr->unwind->jit.rows);
	free(tr->unwind);
	tr->unwind = NULL;
}
