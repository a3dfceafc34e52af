// SPDX-License-Identifier: MIT
/*
 * beamjit — an Erlang node's JIT code named by the BEAM's GDB JIT list;
 * see beamjit.h.
 *
 * A read builds a process's ranges anew (sorted by start, names in one
 * pool) and replaces the old only when it found a module: a list caught
 * torn keeps the names read before.
 */
#include "beamjit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog.h"
#include "elfobj.h"
#include "log.h"
#include "proc.h"
#include "pymem.h"

#define MODULE_KIND 1 /* a symfile's kind: a module's */
#define HEAD_SIZE 32 /* a module symfile's fixed part */
#define RANGE_SIZE 16 /* a range's fixed part (its name at 14) */
#define LINE_SIZE 12 /* a line's (its file at 10) */

/* One range of a module. */
struct bj_range {
	uint64_t start;
	uint32_t size;
	uint32_t name; /* in the names pool */
};

/* A process's ranges, as read last. */
struct bj_table {
	struct bj_range *ranges;
	size_t n, cap;
	char *names;
	size_t nnames, capnames;
	size_t modules; /* module symfiles in it */
	bool whole; /* read to the list's end (not torn, no loop) */
	bool full; /* BEAMJIT_BYTES reached */
};

/* One process. */
struct bj_proc {
	pid_t pid; /* 0: a free slot */
	uint64_t used; /* when last asked about (beamjits.clock) */
	uint64_t desc; /* its __jit_debug_descriptor; 0: not found */
	uint64_t looked_ms; /* when desc was last looked for */
	uint64_t head; /* the list's first entry when read last */
	uint64_t checked_ms; /* when head was last looked at */
	uint64_t read_ms; /* when the list was last read */
	struct bj_table t;
};

struct beamjits {
	struct objcache *cache;
	struct bj_proc procs[BEAMJIT_PROCS];
	uint64_t clock;
};

struct beamjits *beamjits_new(struct objcache *cache)
{
	struct beamjits *bj = calloc(1, sizeof(*bj));

	if (bj)
		bj->cache = cache;
	return bj;
}

static void table_free(struct bj_table *t)
{
	free(t->ranges);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

void beamjits_free(struct beamjits *bj)
{
	if (!bj)
		return;
	for (size_t i = 0; i < BEAMJIT_PROCS; i++)
		table_free(&bj->procs[i].t);
	free(bj);
}

/* Milliseconds of the monotonic clock. */
static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint16_t u16_at(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A name of nlen bytes (its NUL last) at buf[at..len): whether it fits
 * and ends there with its only NUL. */
static bool name_fits(const uint8_t *buf, size_t len, size_t at, size_t nlen)
{
	return nlen && at + nlen <= len && !buf[at + nlen - 1] &&
	       !memchr(buf + at, 0, nlen - 1);
}

/* The ranges of the module symfile buf[0..len) walked, each passed to
 * add if add is not NULL. 0, -EINVAL (they do not add up) or add's. */
static int walk(const uint8_t *buf, size_t len, beamjit_range_fn add, void *ctx)
{
	uint64_t base, at;
	uint32_t nranges, code;
	uint16_t nlen;

	memcpy(&base, buf + 8, sizeof(base));
	nranges = u32_at(buf + 16);
	code = u32_at(buf + 20);
	nlen = u16_at(buf + 24);
	at = HEAD_SIZE + (uint64_t)nlen;
	if (!name_fits(buf, len, 26, nlen) || at > len || base + code < base ||
	    nranges > len / RANGE_SIZE)
		return -EINVAL;
	for (uint32_t r = 0; r < nranges; r++) {
		uint32_t start, end, nlines;
		int err;

		if (at + RANGE_SIZE > len)
			return -EINVAL;
		start = u32_at(buf + at);
		end = u32_at(buf + at + 4);
		nlines = u32_at(buf + at + 8);
		nlen = u16_at(buf + at + 12);
		if (start > end || end > code ||
		    !name_fits(buf, len, at + 14, nlen) ||
		    nlines > (len - at) / LINE_SIZE)
			return -EINVAL;
		if (add && end > start &&
		    (err = add(ctx, base + start, end - start,
			       (const char *)buf + at + 14, nlen - 1u)))
			return err;
		at += RANGE_SIZE + (uint64_t)nlen;
		for (uint32_t l = 0; l < nlines; l++) {
			if (at + LINE_SIZE > len)
				return -EINVAL;
			nlen = u16_at(buf + at + 8);
			if (!name_fits(buf, len, at + 10, nlen) ||
			    u32_at(buf + at) > code)
				return -EINVAL;
			at += LINE_SIZE + (uint64_t)nlen;
		}
	}
	return at == len ? 0 : -EINVAL;
}

int beamjit_parse(const uint8_t *buf, size_t len, beamjit_range_fn add,
		  void *ctx)
{
	int err;

	if (len < HEAD_SIZE || u32_at(buf) != MODULE_KIND)
		return len >= 4 && !u32_at(buf) ? -ENOENT : -EINVAL;
	err = walk(buf, len, NULL, NULL);
	return err ? err : walk(buf, len, add, ctx);
}

/* Room in t for the ranges and names of a symfile of size bytes (at
 * most one range each RANGE_SIZE bytes, at most size bytes of names),
 * twice what is needed taken when it grows. 0 or -ENOMEM. */
static int reserve(struct bj_table *t, size_t size)
{
	size_t n = t->n + size / RANGE_SIZE, bytes = t->nnames + size;
	struct bj_range *r = t->ranges;
	char *names = t->names;

	if (n > t->cap && (r = realloc(r, 2 * n * sizeof(*r))))
		t->cap = 2 * n;
	if (r)
		t->ranges = r;
	if (bytes > t->capnames && (names = realloc(names, 2 * bytes)))
		t->capnames = 2 * bytes;
	if (names)
		t->names = names;
	return r && names ? 0 : -ENOMEM;
}

/* t's arrays cut to what they hold (reserve() took some three times
 * that). */
static void fit(struct bj_table *t)
{
	struct bj_range *r =
		t->n ? realloc(t->ranges, t->n * sizeof(*r)) : NULL;
	char *names = t->nnames ? realloc(t->names, t->nnames) : NULL;

	if (r) {
		t->ranges = r;
		t->cap = t->n;
	}
	if (names) {
		t->names = names;
		t->capnames = t->nnames;
	}
}

/* beamjit_range_fn: a range into the table ctx (room reserved). 0 or
 * -ENOSPC (full). */
static int add_range(void *ctx, uint64_t start, uint32_t size, const char *name,
		     size_t nlen)
{
	struct bj_table *t = ctx;

	if (nlen > BEAMJIT_NAME_MAX)
		nlen = BEAMJIT_NAME_MAX;
	if ((t->n + 1) * sizeof(*t->ranges) + t->nnames + nlen + 1 >
	    BEAMJIT_BYTES) {
		t->full = true;
		return -ENOSPC;
	}
	t->ranges[t->n++] =
		(struct bj_range){ start, size, (uint32_t)t->nnames };
	memcpy(t->names + t->nnames, name, nlen);
	t->names[t->nnames + nlen] = '\0';
	t->nnames += nlen + 1;
	return 0;
}

/* One entry's symfile (at, size) of pid read and its ranges added to t;
 * what was added by a symfile that turned out bad taken back. 0, or
 * -ENOSPC / -ENOMEM (stop reading). */
static int read_symfile(pid_t pid, uint64_t at, uint64_t size,
			struct bj_table *t, uint8_t *buf)
{
	size_t n = t->n, nnames = t->nnames;
	int err;

	if (size > BEAMJIT_SYMFILE_MAX || pymem_peek(pid, at, buf, size))
		return 0;
	if (reserve(t, size))
		return -ENOMEM;
	err = beamjit_parse(buf, size, add_range, t);
	if (!err)
		t->modules++;
	if (err && err != -ENOENT) {
		t->n = n;
		t->nnames = nnames;
	}
	return err == -ENOSPC || err == -ENOMEM ? err : 0;
}

/* By start; compares, never subtracts. */
static int by_start(const void *a, const void *b)
{
	const struct bj_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The list from its first entry first into t: at most BEAMJIT_ENTRIES
 * entries, up to where it comes back on itself (an entry met again is
 * seen within twice the walk to it: the one at each power of two is
 * kept), sorted. 0 or -ENOMEM. */
static int read_list(pid_t pid, uint64_t first, struct bj_table *t)
{
	uint8_t *buf = malloc(BEAMJIT_SYMFILE_MAX);
	uint64_t e = first, kept = 0, ent[4];
	int err = buf ? 0 : -ENOMEM;

	for (size_t k = 1; !err && e && e != kept && k <= BEAMJIT_ENTRIES;
	     k++) {
		if (pymem_peek(pid, e, ent, sizeof(ent)))
			break; /* torn: what was read stays */
		err = read_symfile(pid, ent[2], ent[3], t, buf);
		if (!(k & (k - 1)))
			kept = e;
		e = ent[0];
	}
	t->whole = (!err && !e) || t->full; /* full: no read does better */
	free(buf);
	if (t->full)
		log_msg(LOG_WARN,
			"process %d: more than %u MiB of BEAM JIT ranges; the "
			"rest are not read, their frames stay addresses",
			(int)pid, BEAMJIT_BYTES >> 20);
	qsort(t->ranges, t->n, sizeof(*t->ranges), by_start);
	fit(t);
	return err == -ENOMEM ? err : 0;
}

/* Whether path is a BEAM's binary by its name (beam.smp,
 * beam.debug.smp ...): no other object's symbols are looked at, as
 * asking for one builds its tables before the symbolizer gives them
 * their debug file. */
static bool is_beam(const char *path)
{
	const char *base = strrchr(path, '/');

	return !strncmp(base ? base + 1 : path, "beam.", 5);
}

/* The run-time address of pid's __jit_debug_descriptor, in a BEAM's
 * binary (is_beam()) that exports it and erts_atom_table; 0 if none. */
static uint64_t find_descriptor(struct objcache *cache, pid_t pid)
{
	struct proc_maps maps = { 0 };
	uint64_t desc = 0;

	if (proc_maps_read(pid, &maps))
		return 0;
	for (size_t i = 0; i < maps.n && !desc; i++) {
		const struct proc_map *m = &maps.maps[i];
		struct elfobj *obj;
		uint64_t at, atoms, bias;

		if (m->perms[2] != 'x' || !is_beam(m->path))
			continue;
		obj = objcache_elf(cache, pid, m);
		if (obj &&
		    !elfobj_symbol_addr(obj, "__jit_debug_descriptor", &at) &&
		    !elfobj_symbol_addr(obj, "erts_atom_table", &atoms) &&
		    !catalog_load_bias(&maps, m, obj, &bias))
			desc = at + bias;
	}
	proc_maps_free(&maps);
	return desc;
}

/* pid's slot: its own, else a free one, else the least lately used
 * (emptied). */
static struct bj_proc *slot_of(struct beamjits *bj, pid_t pid)
{
	struct bj_proc *old = NULL;

	for (size_t i = 0; i < BEAMJIT_PROCS; i++) {
		struct bj_proc *p = &bj->procs[i];

		if (p->pid == pid) {
			p->used = ++bj->clock;
			return p;
		}
		if (!old || !p->pid || (old->pid && p->used < old->used))
			old = p;
	}
	table_free(&old->t);
	*old = (struct bj_proc){ .pid = pid, .used = ++bj->clock };
	return old;
}

/* p's list read again if its head moved since (or never read), or if
 * it was not read whole (torn, or a loop) at most every
 * BEAMJIT_LOOK_MS; its descriptor looked for first if not found yet (as
 * often). 0 or -ENOMEM. */
static int refresh(struct beamjits *bj, struct bj_proc *p)
{
	uint64_t now = now_ms(), d[3];
	struct bj_table t = { 0 };
	int err;

	p->checked_ms = now;
	if (!p->desc &&
	    (!p->looked_ms || now - p->looked_ms >= BEAMJIT_LOOK_MS)) {
		p->looked_ms = now;
		p->desc = find_descriptor(bj->cache, p->pid);
	}
	if (!p->desc || pymem_peek(p->pid, p->desc, d, sizeof(d)) ||
	    (uint32_t)d[0] != 1 ||
	    (d[2] == p->head &&
	     (p->t.whole || now - p->read_ms < BEAMJIT_LOOK_MS)))
		return 0;
	p->read_ms = now;
	err = read_list(p->pid, d[2], &t);
	if (t.modules) {
		table_free(&p->t);
		p->t = t;
		p->head = d[2];
	} else {
		table_free(&t);
	}
	return err;
}

/* bsearch()'s comparison of an address (key) with a range: below it,
 * in it, above it. */
static int covers(const void *key, const void *elem)
{
	uint64_t addr = *(const uint64_t *)key;
	const struct bj_range *r = elem;

	if (addr < r->start)
		return -1;
	return addr - r->start >= r->size;
}

/* The range of t covering addr, or NULL (the ranges of a module never
 * overlap; of torn memory, one covering addr may be missed). */
static const struct bj_range *range_at(const struct bj_table *t, uint64_t addr)
{
	return t->n ? bsearch(&addr, t->ranges, t->n, sizeof(*t->ranges),
			      covers)
		    : NULL;
}

int beamjits_find(struct beamjits *bj, pid_t pid, uint64_t addr,
		  const char **name, uint64_t *offset)
{
	struct bj_proc *p = slot_of(bj, pid);
	const struct bj_range *r = range_at(&p->t, addr);
	int err = 0;

	if (!r || now_ms() - p->checked_ms >= BEAMJIT_RECHECK_MS) {
		err = refresh(bj, p);
		r = range_at(&p->t, addr);
	}
	if (!r)
		return err ? err : p->t.modules ? -ENOENT : -ENODATA;
	*name = p->t.names + r->name;
	*offset = addr - r->start;
	return 0;
}

bool beamjit_present(struct objcache *cache, pid_t pid)
{
	uint64_t desc = find_descriptor(cache, pid), d[3];
	struct bj_table t = { 0 };
	bool named;

	if (!desc || pymem_peek(pid, desc, d, sizeof(d)) || (uint32_t)d[0] != 1)
		return false;
	read_list(pid, d[2], &t);
	named = t.modules > 0;
	table_free(&t);
	return named;
}
