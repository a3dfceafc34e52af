// SPDX-License-Identifier: MIT
/* attach — attach specs to a catalog's objects; see attach.h. */
#include "attach.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <fnmatch.h>
#include <linux/types.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "catalog.h"
#include "cost.h"
#include "debugfile.h"
#include "elfobj.h"
#include "log.h"
#include "objects.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "siteprog.h"
#include "tracer_state.h"
#include "trapkind.h"

/* A location whose site is built and in the sites map, waiting for its
 * uprobe (flush()). */
/* What the current attach walk works on. */
struct walk {
	struct tracer *tr;
	struct tspec *ts;
	const struct cat_object *obj;
	const char *attach_path;
	struct attachment *pend; /* the sites of one role of ts in obj, not
				    attached yet (probe: counted once one
				    attaches) */
	size_t npend, cap;
};

static int remember_probe(struct tspec *ts, uint64_t id)
{
	uint64_t *ids;

	for (size_t i = 0; i < ts->nprobe_ids; i++)
		if (ts->probe_ids[i] == id)
			return 0;
	ids = realloc(ts->probe_ids, (ts->nprobe_ids + 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	ts->probe_ids = ids;
	ids[ts->nprobe_ids++] = id;
	ts->info.nprobes = ts->nprobe_ids;
	return 0;
}

/* FNV-1a over a probe's identity: object, then name. */
static uint64_t probe_id(const struct cat_object *obj, const char *a,
			 const char *b)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ obj->dev ^ (obj->inode << 1);

	for (const char *p = a; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ULL;
	h = (h ^ ':') * 0x100000001b3ULL;
	for (const char *p = b; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ULL;
	return h;
}

/* Room in the array *v (*cap elements of size bytes) for need
 * elements, doubling from 16. 0 or -ENOMEM (*v unchanged). */
static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*v, n * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = n;
	return 0;
}

int attach_site(struct tracer *tr, const struct tspec *ts,
		const struct pt_site *site, uint32_t *idx)
{
	int err = site_alloc(&tr->sites, idx);

	if (err) {
		log_msg(LOG_ERROR, "%s: more than %d attachments",
			ts->spec.text, PT_MAX_SITES);
		return err;
	}
	err = bpf_map__update_elem(tr->skel->maps.sites, idx, sizeof(*idx),
				   site, sizeof(*site), BPF_ANY);
	if (err)
		tr->sites.used[*idx] = 0;
	return err;
}

/* A latency start's site s at offset (its trap of kind, a bit per enum
 * trap_kind): if single-stepped, a second probe queued at the next
 * instruction to take its time again (latency.bpf.h) where that one is
 * known and emulated. The start's time then holds that probe's trap, not
 * the step (lat_kinds); a call that jumps back there pays its whole hit
 * again, which it takes out (its site's lat_adj). 0 or a negative
 * errno. */
static int queue_restamp(struct walk *w, const struct pt_site *s,
			 uint64_t offset, unsigned int kind, uint64_t probe)
{
	struct tspec *ts = w->ts;
	struct pt_site site = *s;
	enum trap_kind next;
	uint64_t at = kind == 1u << TRAP_STEP
			      ? trap_restamp_at(w->attach_path, offset, &next)
			      : 0;
	uint32_t idx;
	int err;

	if (!at) {
		ts->info.lat_kinds |= kind;
		return 0;
	}
	site.action = PT_ACT_LAT_RESTAMP;
	site.lat_adj = (__u32)cost_kind_ns(next);
	err = grow((void **)&w->pend, &w->cap, w->npend + 1, sizeof(*w->pend));
	if (!err)
		err = attach_site(w->tr, ts, &site, &idx);
	if (err)
		return err;
	ts->info.lat_kinds |= 1u << next;
	ts->info.restamp_kinds |= 1u << next;
	w->pend[w->npend++] = (struct attachment){ .site = idx,
						   .obj = w->obj,
						   .probe = probe,
						   .offset = at,
						   .restamp = true };
	return 0;
}

/* Why site_build() could not serve a location of spec sp, as its error
 * says, into out[0..n). */
static const char *site_error(const struct spec *sp, int err, char *out,
			      size_t n)
{
	const char * or = sp->nglobals > 1 ? " or `" : "";
	const char *second = sp->nglobals > 1 ? sp->globals[1] : "";

	switch (err) {
	case -ERANGE:
		return "the probe lacks an argument the spec uses";
	case SITE_NO_VARIABLE:
		snprintf(out, n, "no variable `%s%s%s in its symbols",
			 sp->globals[0], or, second);
		return out;
	case SITE_NOT_VARIABLE:
		snprintf(out, n, "`%s%s%s is not a variable", sp->globals[0],
			 or, second);
		return out;
	default:
		return "an argument cannot be fetched (see list -v)";
	}
}

/* Build the site of one location at offset of the walk's object (of
 * probe) and queue it for flush(). 0 (also when the location cannot
 * serve the spec: logged and skipped) or a negative errno. */
static int queue_site(struct walk *w, int id, int role, uint64_t offset,
		      uint64_t ref_ctr, const struct site_argsrc *src,
		      uint64_t probe)
{
	struct tracer *tr = w->tr;
	struct tspec *ts = w->ts;
	struct pt_site site;
	unsigned int kind = 1u << trap_kind_at(w->attach_path, offset) |
			    (src->ret ? TRAP_RET_BIT : 0);
	uint32_t idx;
	int err;

	err = site_build(&ts->info, &ts->info_typed,
			 tr->kind == TRACER_PID ? (uint32_t)tr->pid : 0, id,
			 role, src, &site);
	if (err) {
		char why[SPEC_GLOBAL_MAX * 2 + 64];

		ts->info.nskipped++;
		log_msg(LOG_WARN, "%s: %s: %s at %#llx: skipped", ts->spec.text,
			w->obj->path,
			site_error(&ts->spec, err, why, sizeof(why)),
			(unsigned long long)offset);
		return 0;
	}
	err = grow((void **)&w->pend, &w->cap, w->npend + 1, sizeof(*w->pend));
	if (err)
		return err;
	if (site.action == PT_ACT_LAT_END) /* its probes' own time out */
		site.lat_adj = (__u32)trap_lat_adj(cost_trap_lat(),
						   ts->info.lat_kinds, kind);
	err = attach_site(tr, ts, &site, &idx);
	if (err)
		return err;
	ts->info.trap_kinds[role] |= kind;
	ts->info.semaphore |= ref_ctr != 0 && src->loc && src->loc->sem_tested;
	w->pend[w->npend++] = (struct attachment){ .site = idx,
						   .obj = w->obj,
						   .probe = probe,
						   .offset = offset,
						   .ref_ctr = ref_ctr };
	if (site.action == PT_ACT_LAT_START)
		return queue_restamp(w, &site, offset, kind, probe);
	return 0;
}

/* Room in ts for n more attachments and links. 0 or -ENOMEM. */
static int reserve(struct tspec *ts, size_t n)
{
	int err = grow((void **)&ts->atts, &ts->cap, ts->natts + n,
		       sizeof(*ts->atts));

	return err ? err
		   : grow((void **)&ts->links, &ts->lcap, ts->nlinks + n,
			  sizeof(*ts->links));
}

/* Record the attached location p of role (room reserved). 0 or
 * -ENOMEM. */
static int commit(struct walk *w, int role, const struct attachment *p)
{
	struct tspec *ts = w->ts;

	ts->atts[ts->natts++] = *p;
	if (p->restamp) {
		ts->info.nrestamps++;
		return 0;
	}
	ts->info.nsites++;
	ts->info.role_sites[role]++;
	return remember_probe(ts, p->probe);
}

/* Keep link (room reserved), which holds the n attachments about to be
 * committed. */
static void add_link(struct tspec *ts, const struct ulink *link, size_t n,
		     bool ret)
{
	ts->links[ts->nlinks++] = (struct tlink){
		.l = *link, .first = ts->natts, .n = n, .ret = ret
	};
}

int attach_many(struct bpf_program *prog, pid_t pid, const char *path,
		const struct attachment *atts, size_t n, bool ret,
		struct ulink *link)
{
	uint64_t *v = calloc(3 * n, sizeof(*v));
	int err;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i] = atts[i].offset;
		v[n + i] = atts[i].ref_ctr;
		v[2 * n + i] = atts[i].site;
	}
	err = ulink_attach_many(prog, pid, path, v, v + n, v + 2 * n, n, ret,
				link);
	free(v);
	return err;
}

/* What one flush attaches with: the program, its pid filter, the role. */
struct flush_ctx {
	struct bpf_program *prog;
	pid_t pid;
	int role;
	bool ret;
};

/*
 * Attach pend[0..n) (room reserved): with uprobe_multi in one link; if
 * the kernel refuses it (a bad location), each half on its own, so that
 * the good locations stay in a few links; on perf-event uprobes, and a
 * location alone that fails, one by one, a failure logged, counted in
 * nskipped and its site freed. 0 or -ENOMEM.
 */
static int attach_pending(struct walk *w, const struct flush_ctx *f,
			  const struct attachment *pend, size_t n)
{
	struct tracer *tr = w->tr;
	struct tspec *ts = w->ts;
	struct ulink link;
	int err, first = 0;

	if (tr->multi && !attach_many(f->prog, f->pid, w->attach_path, pend, n,
				      f->ret, &link)) {
		add_link(ts, &link, n, f->ret);
		for (size_t i = 0; i < n; i++) {
			err = commit(w, f->role, &pend[i]);
			first = first ? first : err;
		}
		return first;
	}
	if (tr->multi && n > 1) {
		first = attach_pending(w, f, pend, n / 2);
		err = attach_pending(w, f, pend + n / 2, n - n / 2);
		return first ? first : err;
	}
	for (size_t i = 0; i < n; i++) {
		const struct attachment *p = &pend[i];

		err = ulink_attach(f->prog, tr->multi, f->pid, w->attach_path,
				   p->offset, p->ref_ctr, p->site, f->ret,
				   &link);
		if (err) {
			tr->sites.used[p->site] = 0;
			ts->info.nskipped++;
			log_msg(LOG_WARN, "%s: %s: cannot attach at %#llx: %s",
				ts->spec.text, w->obj->path,
				(unsigned long long)p->offset, strerror(-err));
			continue;
		}
		add_link(ts, &link, 1, f->ret);
		err = commit(w, f->role, p);
		first = first ? first : err;
	}
	return first;
}

/* Attach the queued locations of role (uretprobes if ret), as
 * attach_pending() does. Empties the queue. 0 or -ENOMEM. */
static int flush(struct walk *w, int role, bool ret)
{
	struct tracer *tr = w->tr;
	const struct flush_ctx f = {
		.prog = siteprog_of(tr, &w->ts->spec),
		.pid = tr->kind == TRACER_PID ? tr->pid : -1,
		.role = role,
		.ret = ret,
	};
	size_t n = w->npend;
	int err;

	if (!n)
		return 0;
	err = f.prog ? reserve(w->ts, n) : -errno;
	if (err) {
		for (size_t i = 0; i < n; i++)
			tr->sites.used[w->pend[i].site] = 0;
	} else {
		err = attach_pending(w, &f, w->pend, n);
	}
	w->npend = 0;
	return err;
}

/* Whether link-time address addr of obj is a function's first
 * instruction: a USDT probe a compiler put before the function's frame
 * is made, which a stack walk from there must treat as an entry. */
static bool at_function_start(const struct cat_object *obj, uint64_t addr)
{
	const char *name;
	uint64_t off;

	if (!obj->elf)
		return false;
	debugfile_attach(obj->elf, obj->path); /* a stripped file's names */
	return !elfobj_symbol_at(obj->elf, addr, &name, &off) && !off;
}

/* PROBE@FUNCTION's function in one object: FUNCTION's start, looked up
 * at the first location that needs it (a walk of the symbol tables). */
struct fn_filter {
	const struct spec_probe *p;
	int looked; /* 0 not yet, 1 FUNCTION names no symbol, 2 start */
	uint64_t start;
};

/* Whether link-time address addr of obj is in a function whose name
 * matches f's FUNCTION (any location if it names none): the symbol that
 * covers it, or another name of the same function (an alias:
 * __libc_malloc is malloc); a stripped file's functions by its debug file
 * where there is one. */
static bool in_function(const struct cat_object *obj, uint64_t addr,
			struct fn_filter *f)
{
	const char *name;
	uint64_t off;

	if (!f->p->function[0])
		return true;
	if (!obj->elf)
		return false;
	debugfile_attach(obj->elf, obj->path);
	if (elfobj_symbol_at(obj->elf, addr, &name, &off))
		return false;
	if (!fnmatch(f->p->function, name, 0))
		return true;
	if (!f->looked)
		f->looked = catalog_symbol_addr(obj, f->p->function, &f->start)
				    ? 1
				    : 2;
	return f->looked == 2 && f->start == addr - off;
}

static int attach_usdt(struct walk *w, int id, int role,
		       const struct spec_probe *p)
{
	const struct cat_object *obj = w->obj;
	struct fn_filter fn = { .p = p };
	int err;

	for (size_t i = 0; i < obj->nprobes; i++) {
		const struct cat_probe *cp = &obj->probes[i];
		uint64_t probe;

		if (!spec_probe_matches(p, cp->provider, cp->name))
			continue;
		probe = probe_id(obj, cp->provider, cp->name);
		for (size_t l = 0; l < cp->nlocs; l++) {
			const struct site_argsrc src = {
				.loc = &cp->locs[l],
				.entry = at_function_start(obj,
							   cp->locs[l].addr),
				.obj = obj,
				.addr = cp->locs[l].addr,
			};

			if (!in_function(obj, cp->locs[l].addr, &fn))
				continue;

			err = queue_site(w, id, role, cp->locs[l].offset,
					 cp->locs[l].sem_offset, &src, probe);
			if (err)
				return err;
		}
	}
	return 0;
}

static int attach_fn(struct walk *w, int id, int role,
		     const struct spec_probe *p)
{
	struct site_argsrc src = {
		.fn = true, .ret = p->ret, .entry = !p->ret, .obj = w->obj
	};
	uint64_t offset;

	if (catalog_symbol_addr(w->obj, p->name, &src.addr) ||
	    elfobj_vaddr_to_offset(w->obj->elf, src.addr, &offset))
		return 0;
	return queue_site(w, id, role, offset, 0, &src,
			  probe_id(w->obj, "fn", p->name));
}

/* Queue the locations of spec id's probe role in the walk's object (none
 * if it names another). 0 or a negative errno. */
static int queue_role(struct walk *w, int id, int role)
{
	const struct spec_probe *p = &w->ts->spec.probe[role];

	if (!spec_object_matches(p, w->obj->path))
		return 0;
	return p->fn ? attach_fn(w, id, role, p) : attach_usdt(w, id, role, p);
}

/* Attach spec id everywhere it matches in the walk's object: the
 * locations of each role queued, then flushed. A pair's starts are
 * queued first (its ends' lat_adj reads their traps' kinds) and
 * attached last: a start attached before its end begins a pair on every
 * thread that runs through the gap, whose end is not there to come (the
 * thread's stack keeps it until it is lost: a PostgreSQL's backends
 * under pgbench lost some 1,600 starts as -b attached). */
static int attach_spec_object(struct walk *w, int id)
{
	const struct spec *sp = &w->ts->spec;
	bool ret0 = sp->probe[0].fn && sp->probe[0].ret,
	     ret1 = sp->probe[1].fn && sp->probe[1].ret;
	struct walk ends;
	int err, ferr;

	if (sp->probe[0].hz)
		return 0; /* profile:HZ has no locations (profile.c) */
	err = queue_role(w, id, 0);
	if (sp->nprobes == 2 && !err) {
		ends = *w;
		ends.pend = NULL;
		ends.npend = ends.cap = 0;
		err = queue_role(&ends, id, 1);
		ferr = flush(&ends, 1, ret1);
		free(ends.pend);
		err = err ? err : ferr;
	}
	ferr = flush(w, 0, ret0);
	return err ? err : ferr;
}

void attach_path(pid_t pid, const struct cat_object *obj,
		 const struct proc_maps *maps, char *buf, size_t n)
{
	snprintf(buf, n, "%s", obj->path);
	if (!maps)
		return;
	for (size_t i = 0; i < maps->n; i++) {
		const struct proc_map *m = &maps->maps[i];

		if (m->inode == obj->inode &&
		    makedev(m->dev_major, m->dev_minor) == obj->dev) {
			snprintf(buf, n, "/proc/%d/map_files/%llx-%llx",
				 (int)pid, (unsigned long long)m->start,
				 (unsigned long long)m->end);
			return;
		}
	}
}

int attach_catalog(struct tracer *tr, const struct catalog *cat, int id,
		   struct seen_set *visited)
{
	char path[PATH_MAX + 64];
	struct walk w = { .tr = tr, .attach_path = path };
	int n = 0, err;

	for (size_t i = 0; i < catalog_nobjects(cat); i++) {
		const struct cat_object *obj = catalog_object(cat, i);

		if (seen_has(visited, obj->dev, obj->inode))
			continue;
		err = seen_add(visited, obj->dev, obj->inode);
		if (err)
			goto out;
		w.obj = obj;
		attach_path(tr->pid, obj,
			    tr->kind == TRACER_PID ? &tr->maps : NULL, path,
			    sizeof(path));
		for (int s = 0; s < tr->nspecs; s++) {
			size_t before;

			if (!tr->specs[s].used || (id >= 0 && s != id))
				continue;
			w.ts = &tr->specs[s];
			before = w.ts->info.nsites;
			err = attach_spec_object(&w, s);
			if (err)
				goto out;
			n += (int)(w.ts->info.nsites - before);
		}
	}
	err = n;
out:
	free(w.pend);
	return err;
}
