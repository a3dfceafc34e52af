// SPDX-License-Identifier: MIT
/* attach — attach specs to a catalog's objects; see attach.h. */
#include "attach.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/types.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "catalog.h"
#include "elfobj.h"
#include "log.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "tracer_impl.h"

/* What the current attach walk works on. */
struct walk {
	struct tracer *tr;
	struct tspec *ts;
	const struct cat_object *obj;
	const char *attach_path;
	uint64_t probe; /* probe_id() of the probe being attached */
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

/* Attach one site at offset of the walk's object. */
static int attach_site(struct walk *w, int id, int role, uint64_t offset,
		       uint64_t ref_ctr, const struct site_argsrc *src)
{
	struct tracer *tr = w->tr;
	struct tspec *ts = w->ts;
	struct bpf_program *prog =
		src->ret ? tr->skel->progs.pt_ret : tr->skel->progs.pt_usdt;
	struct attachment *a;
	struct pt_site site;
	struct ulink link;
	uint32_t idx;
	int err;

	err = site_build(&ts->info, &ts->info_typed,
			 tr->kind == TRACER_PID ? (uint32_t)tr->pid : 0, id,
			 role, src, &site);
	if (err) {
		ts->info.nskipped++;
		log_msg(LOG_WARN, "%s: %s: %s at %#llx: %s", ts->spec.text,
			w->obj->path,
			err == -ERANGE ? "the probe lacks an argument the "
					 "spec uses"
				       : "an argument cannot be fetched",
			(unsigned long long)offset,
			err == -ERANGE ? "skipped" : "skipped (see list -v)");
		return 0;
	}
	if (ts->natts == ts->cap) {
		size_t cap = ts->cap ? ts->cap * 2 : 16;

		a = realloc(ts->atts, cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		ts->atts = a;
		ts->cap = cap;
	}
	err = site_alloc(&tr->sites, &idx);
	if (err) {
		log_msg(LOG_ERROR, "%s: more than %d attachments",
			ts->spec.text, PT_MAX_SITES);
		return err;
	}
	err = bpf_map__update_elem(tr->skel->maps.sites, &idx, sizeof(idx),
				   &site, sizeof(site), BPF_ANY);
	if (err) {
		tr->sites.used[idx] = 0;
		return err;
	}
	err = ulink_attach(
		prog, tr->multi, tr->kind == TRACER_PID ? tr->pid : -1,
		w->attach_path, offset, ref_ctr, idx, src->ret, &link);
	if (err) {
		tr->sites.used[idx] = 0;
		ts->info.nskipped++;
		log_msg(LOG_WARN, "%s: %s: cannot attach at %#llx: %s",
			ts->spec.text, w->obj->path, (unsigned long long)offset,
			strerror(-err));
		return 0;
	}
	ts->atts[ts->natts++] =
		(struct attachment){ link,     idx,    w->obj,
				     w->probe, offset, ref_ctr };
	ts->info.nsites++;
	ts->info.role_sites[role]++;
	return 1;
}

static int attach_usdt(struct walk *w, int id, int role,
		       const struct spec_probe *p)
{
	const struct cat_object *obj = w->obj;
	int err;

	for (size_t i = 0; i < obj->nprobes; i++) {
		const struct cat_probe *cp = &obj->probes[i];
		bool any = false;

		if (!spec_probe_matches(p, cp->provider, cp->name))
			continue;
		w->probe = probe_id(obj, cp->provider, cp->name);
		for (size_t l = 0; l < cp->nlocs; l++) {
			const struct site_argsrc src = { .loc = &cp->locs[l] };

			err = attach_site(w, id, role, cp->locs[l].offset,
					  cp->locs[l].sem_offset, &src);
			if (err < 0)
				return err;
			any |= err > 0;
		}
		if (any) {
			err = remember_probe(w->ts, w->probe);
			if (err)
				return err;
		}
	}
	return 0;
}

static int attach_fn(struct walk *w, int id, int role,
		     const struct spec_probe *p)
{
	const struct site_argsrc src = { .fn = true, .ret = p->ret };
	uint64_t addr, offset;
	int err;

	if (!w->obj->elf || elfobj_symbol_addr(w->obj->elf, p->name, &addr) ||
	    elfobj_vaddr_to_offset(w->obj->elf, addr, &offset))
		return 0;
	w->probe = probe_id(w->obj, "fn", p->name);
	err = attach_site(w, id, role, offset, 0, &src);
	if (err > 0)
		err = remember_probe(w->ts, w->probe);
	return err < 0 ? err : 0;
}

/* Attach spec id everywhere it matches in the walk's object. */
static int attach_spec_object(struct walk *w, int id)
{
	const struct spec *sp = &w->ts->spec;
	int err = 0;

	for (int role = 0; role < sp->nprobes && !err; role++) {
		const struct spec_probe *p = &sp->probe[role];

		if (!spec_object_matches(p, w->obj->path))
			continue;
		err = p->fn ? attach_fn(w, id, role, p)
			    : attach_usdt(w, id, role, p);
	}
	return err;
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
	int n = 0, err;

	for (size_t i = 0; i < catalog_nobjects(cat); i++) {
		const struct cat_object *obj = catalog_object(cat, i);
		struct walk w = { .tr = tr, .obj = obj, .attach_path = path };

		if (seen_has(visited, obj->dev, obj->inode))
			continue;
		err = seen_add(visited, obj->dev, obj->inode);
		if (err)
			return err;
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
				return err;
			n += (int)(w.ts->info.nsites - before);
		}
	}
	return n;
}
