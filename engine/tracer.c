// SPDX-License-Identifier: MIT
/*
 * tracer — compile specs into sites and attach them; see tracer.h.
 *
 * Objects are visited once each: the tracer remembers every (dev, inode)
 * it has attached specs to, so a rescan only looks at what is new, and a
 * new spec is attached to everything seen so far. A site index is the
 * BPF cookie; site slots are recycled when their spec is removed.
 */
#include "tracer.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/types.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <signal.h>
#include <unistd.h>

#include "catalog.h"
#include "elfobj.h"
#include "log.h"
#include "mapsize.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "rostr.h"
#include "ulink.h"
#include "proc.h"

_Static_assert(sizeof(struct pt_fetch) == 16, "pt_fetch layout");
_Static_assert(sizeof(struct pt_key) ==
		       8 + 8 * PT_MAX_KEYS + PT_MAX_STRS * PT_STR_LEN,
	       "pt_key layout");
_Static_assert(sizeof(struct pt_nkey) == offsetof(struct pt_key, str),
	       "pt_nkey is a prefix of pt_key");
_Static_assert(sizeof(struct pt_skey) == offsetof(struct pt_key, str[1]),
	       "pt_skey is a prefix of pt_key");
_Static_assert(SPEC_MAX_STRS == PT_KEY_STR2, "a key width per string count");
_Static_assert(SPEC_MAX_KEYS == PT_MAX_KEYS, "key counts agree");
_Static_assert(SPEC_MAX_STRS == PT_MAX_STRS, "string key counts agree");
_Static_assert(SPEC_LQ_MAX_STEPS + 2 <= PT_NBUCKETS, "lquantize buckets");
_Static_assert(sizeof(struct pt_hist) >= sizeof(struct pt_stat) &&
		       sizeof(struct pt_hist) >= sizeof(struct pt_count),
	       "tracer_remove() zeroes any per-CPU value with pt_hist's size");
_Static_assert(sizeof(struct pt_hist) >= sizeof(struct pt_aslot),
	       "tracer_remove() zeroes address slots with pt_hist's size");

#define PT_REG_IP 16

struct attachment {
	struct ulink link;
	uint32_t site;
	const struct cat_object *obj; /* where: for sweep_forks() */
	uint64_t offset, ref_ctr;
};

struct tspec {
	bool used;
	struct spec spec;
	struct tracer_spec_info info;
	bool info_typed; /* key signedness taken from a first site */
	struct attachment *atts;
	size_t natts, cap;
	uint64_t *probe_ids; /* distinct probes, for info.nprobes */
	size_t nprobe_ids;
};

struct seen {
	uint64_t dev, inode;
};

/* A mapping whose pages touch_literals() made present. */
struct touched {
	uint64_t start, end, inode;
};

struct seen_set {
	struct seen *v;
	size_t n;
};

struct tracer {
	enum tracer_kind kind;
	pid_t pid;
	char *path; /* TRACER_FILE */
	struct probetop_bpf *skel;
	struct mapsize sizes; /* the aggregation maps' capacities */
	bool multi; /* sites attached by uprobe_multi (see ulink.h) */
	struct objcache *cache;
	struct catalog **cats; /* every catalog whose objects we use */
	size_t ncats;
	struct seen_set seen; /* objects every live spec was offered */
	struct proc_maps maps; /* TRACER_PID: as of the last rescan */
	struct tspec specs[PT_MAX_SPECS];
	unsigned int gens[PT_MAX_SPECS];
	int nspecs; /* highest used id + 1 */
	uint8_t site_used[PT_MAX_SITES];
	uint32_t site_hint;
	struct bpf_link *io_links[4];
	struct bpf_link *proc_links[3];
	uint8_t watching; /* enum pt_watch: programs attached (PT_WATCH_PROC:
			     those that follow processes, for both) */
	struct bpf_link *dl_link; /* tracer_hold_dlopen() */
	struct ring_buffer *dl_ring;
	bool dl_stopped; /* the process stopped in its dynamic linker */
	int ro_state; /* ro_ready(): 0 not tried, 1 on, -1 not available */
	struct ro_set ro; /* the read-only ranges of the valid table */
	uint32_t ro_gen;
	struct bpf_link *ro_links[2]; /* pt_ro_exec, pt_dlmark */
	struct bpf_link *fork_link; /* pt_forked: see sweep_forks() */
	uint32_t forks; /* its count when last swept */
	struct touched *touched; /* touch_literals(): mappings made present */
	size_t ntouched;
};

/* What the current attach walk works on. */
struct walk {
	struct tracer *tr;
	struct tspec *ts;
	const struct cat_object *obj;
	const char *attach_path;
};

/*
 * libbpf's messages while the object loads are held here (libbpf's print
 * callback has no context), and said only if the load fails for a reason
 * probetop cannot put in one sentence: a map that did not get its memory
 * is said once, by log_load_error(), not in libbpf's four lines.
 */
static struct {
	bool on;
	int n;
	enum log_level level[8];
	char text[8][512];
} held;

static int libbpf_log(enum libbpf_print_level level, const char *fmt,
		      va_list ap)
{
	enum log_level l = level == LIBBPF_WARN ? LOG_WARN : LOG_INFO;
	char msg[512];
	const char *text = msg;
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	if (!strncmp(msg, "libbpf: ", 8))
		text += 8;
	if (held.on && held.n < 8) {
		held.level[held.n] = l;
		snprintf(held.text[held.n++], sizeof(held.text[0]), "%s", text);
	} else if (!held.on) {
		log_msg(l, "libbpf: %s", text);
	}
	return 0;
}

/* Stop holding libbpf's messages; say them unless drop. */
static void release_held(bool drop)
{
	for (int i = 0; i < held.n && !drop; i++)
		log_msg(held.level[i], "libbpf: %s", held.text[i]);
	held.on = false;
	held.n = 0;
}

/* Whether this process may load tracing programs: CAP_SYS_ADMIN, or
 * CAP_BPF with CAP_PERFMON, in its effective set. Asked before libbpf
 * tries, whose failure would only add noise to the one sentence. */
static bool may_trace(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3,
						0 };
	struct __user_cap_data_struct data[2] = { 0 };
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data))
		return true; /* cannot tell: let the load say */
	eff = data[0].effective | (uint64_t)data[1].effective << 32;
	return (eff >> CAP_SYS_ADMIN & 1) ||
	       ((eff >> 39 & 1) && (eff >> 38 & 1)); /* CAP_BPF, CAP_PERFMON */
}

static bool seen_has(const struct seen_set *set, uint64_t dev, uint64_t inode)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i].dev == dev && set->v[i].inode == inode)
			return true;
	return false;
}

static int seen_add(struct seen_set *set, uint64_t dev, uint64_t inode)
{
	struct seen *v = realloc(set->v, (set->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	set->v = v;
	v[set->n++] = (struct seen){ dev, inode };
	return 0;
}

static int keep_catalog(struct tracer *tr, struct catalog *cat)
{
	struct catalog **c = realloc(tr->cats, (tr->ncats + 1) * sizeof(*c));

	if (!c) {
		catalog_free(cat);
		return -ENOMEM;
	}
	tr->cats = c;
	c[tr->ncats++] = cat;
	return 0;
}

/* Sites ------------------------------------------------------------- */

static int site_alloc(struct tracer *tr, uint32_t *idx)
{
	for (uint32_t n = 0; n < PT_MAX_SITES; n++) {
		uint32_t i = (tr->site_hint + n) % PT_MAX_SITES;

		if (!tr->site_used[i]) {
			tr->site_used[i] = 1;
			tr->site_hint = i + 1;
			*idx = i;
			return 0;
		}
	}
	return -ENOSPC;
}

/* An argument as a decoded note operand; loc_addr for %rip forms. */
static int fetch_from_usdt(const struct usdt_arg *a, uint64_t loc_addr,
			   struct pt_fetch *f)
{
	memset(f, 0, sizeof(*f));
	f->size = a->size;
	f->is_signed = a->is_signed;
	f->reg = PT_REG_NONE;
	f->index = PT_REG_NONE;
	switch (a->kind) {
	case USDT_ARG_CONST:
		f->kind = PT_FETCH_CONST;
		f->disp = a->disp;
		return 0;
	case USDT_ARG_REG:
		f->kind = PT_FETCH_REG;
		f->reg = (uint8_t)a->reg;
		f->shift = a->reg_shift;
		return 0;
	case USDT_ARG_MEM:
		f->kind = PT_FETCH_MEM;
		f->disp = a->disp;
		if (a->reg != X86_REG_NONE)
			f->reg = a->reg == X86_REG_RIP ? PT_REG_IP
						       : (uint8_t)a->reg;
		if (a->index != X86_REG_NONE) {
			f->index = (uint8_t)a->index;
			f->scale = a->scale;
		}
		return 0;
	case USDT_ARG_SYM:
		if (!a->sym_addr)
			return -ENOENT;
		/* the probe's own address is known at run time (ip):
		 * sym + disp = ip - loc_addr + sym_addr + disp */
		f->kind = PT_FETCH_MEM;
		f->reg = PT_REG_IP;
		f->disp = (int64_t)(a->sym_addr - loc_addr) + a->disp;
		return 0;
	default:
		return -EINVAL;
	}
}

/* Where argN of a site comes from. */
struct argsrc {
	bool fn; /* function entry: System V registers */
	bool ret; /* function return: arg0 = %rax */
	const struct cat_loc *loc; /* USDT */
};

static int fetch_arg(const struct argsrc *src, int n, struct pt_fetch *f)
{
	static const uint8_t SYSV[] = { X86_REG_RDI, X86_REG_RSI, X86_REG_RDX,
					X86_REG_RCX, X86_REG_R8,  X86_REG_R9 };

	if (src->fn) {
		if (src->ret ? n > 0 : n >= (int)sizeof(SYSV))
			return -ERANGE;
		*f = (struct pt_fetch){
			.kind = PT_FETCH_REG,
			.size = 8,
			.is_signed = 1,
			.reg = src->ret ? X86_REG_RAX : SYSV[n],
			.index = PT_REG_NONE,
		};
		return 0;
	}
	if (n >= src->loc->nargs)
		return -ERANGE;
	return fetch_from_usdt(&src->loc->argv[n], src->loc->addr, f);
}

static const enum pt_action AGG_ACTION[] = {
	[SPEC_AGG_COUNT] = PT_ACT_COUNT,
	[SPEC_AGG_SUM] = PT_ACT_COUNT,
	[SPEC_AGG_QUANTIZE] = PT_ACT_QUANTIZE,
	[SPEC_AGG_LQUANTIZE] = PT_ACT_LQUANTIZE,
	[SPEC_AGG_LATENCY] = PT_ACT_LAT_START,
};

/* Fill the site for role (0: first probe, 1: the end of a latency). */
static int build_site(const struct tracer *tr, struct tspec *ts, int id,
		      int role, const struct argsrc *src, struct pt_site *s)
{
	const struct spec *sp = &ts->spec;
	int err;

	memset(s, 0, sizeof(*s));
	s->spec = (uint32_t)id;
	s->pid = tr->kind == TRACER_PID ? (uint32_t)tr->pid : 0;
	s->solo = ts->info.solo_pid != 0;
	s->aslot = ts->info.aslot_pid != 0;
	s->tag = (uint32_t)id | ts->info.gen << 8;
	s->width = (uint8_t)ts->info.width; /* the end pops keys of it */
	if (sp->agg == SPEC_AGG_LQUANTIZE) {
		s->lq_low = sp->lq_low;
		s->lq_step = sp->lq_step;
		s->lq_nsteps = (uint32_t)sp->lq_nsteps;
	}
	if (role == 1) {
		s->action = PT_ACT_LAT_END;
		return 0;
	}
	s->action = sp->timed ? PT_ACT_LAT_START : AGG_ACTION[sp->agg];
	if (sp->val_arg >= 0) {
		err = fetch_arg(src, sp->val_arg, &s->val);
		if (err)
			return err;
		s->has_val = 1;
	}
	s->nkeys = (uint8_t)sp->nkeys;
	for (int i = 0; i < sp->nkeys; i++) {
		const struct spec_key *k = &sp->keys[i];

		s->key_kind[i] = !spec_key_is_str(k)	   ? PT_KEY_NUM
				 : k->kind == SPEC_KEY_STR ? PT_KEY_STR
							   : PT_KEY_STRN;
		s->key_slot[i] = (uint8_t)ts->info.key_slot[i];
		err = fetch_arg(src, k->arg, &s->key[i]);
		if (!err && k->kind == SPEC_KEY_STRN)
			err = fetch_arg(src, k->len_arg, &s->len[i]);
		if (err)
			return err;
	}
	if (!ts->info_typed) {
		for (int i = 0; i < sp->nkeys; i++)
			ts->info.key_signed[i] = s->key[i].is_signed;
		ts->info.val_signed = s->val.is_signed;
		ts->info_typed = true;
	}
	return 0;
}

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
		       uint64_t ref_ctr, const struct argsrc *src)
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

	err = build_site(tr, ts, id, role, src, &site);
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
	err = site_alloc(tr, &idx);
	if (err) {
		log_msg(LOG_ERROR, "%s: more than %d attachments",
			ts->spec.text, PT_MAX_SITES);
		return err;
	}
	err = bpf_map__update_elem(tr->skel->maps.sites, &idx, sizeof(idx),
				   &site, sizeof(site), BPF_ANY);
	if (err) {
		tr->site_used[idx] = 0;
		return err;
	}
	err = ulink_attach(
		prog, tr->multi, tr->kind == TRACER_PID ? tr->pid : -1,
		w->attach_path, offset, ref_ctr, idx, src->ret, &link);
	if (err) {
		tr->site_used[idx] = 0;
		ts->info.nskipped++;
		log_msg(LOG_WARN, "%s: %s: cannot attach at %#llx: %s",
			ts->spec.text, w->obj->path, (unsigned long long)offset,
			strerror(-err));
		return 0;
	}
	ts->atts[ts->natts++] =
		(struct attachment){ link, idx, w->obj, offset, ref_ctr };
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
		for (size_t l = 0; l < cp->nlocs; l++) {
			const struct argsrc src = { .loc = &cp->locs[l] };

			err = attach_site(w, id, role, cp->locs[l].offset,
					  cp->locs[l].sem_offset, &src);
			if (err < 0)
				return err;
			any |= err > 0;
		}
		if (any) {
			err = remember_probe(
				w->ts, probe_id(obj, cp->provider, cp->name));
			if (err)
				return err;
		}
	}
	return 0;
}

static int attach_fn(struct walk *w, int id, int role,
		     const struct spec_probe *p)
{
	const struct argsrc src = { .fn = true, .ret = p->ret };
	uint64_t addr, offset;
	int err;

	if (!w->obj->elf || elfobj_symbol_addr(w->obj->elf, p->name, &addr) ||
	    elfobj_vaddr_to_offset(w->obj->elf, addr, &offset))
		return 0;
	err = attach_site(w, id, role, offset, 0, &src);
	if (err > 0)
		err = remember_probe(w->ts, probe_id(w->obj, "fn", p->name));
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

/* The path to attach at for an object: the file itself for TRACER_FILE
 * and launched files; for a process, its map_files link, which names the
 * inode the process really maps (deleted files, other mount namespaces). */
static void attach_path(const struct tracer *tr, const struct cat_object *obj,
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
				 (int)tr->pid, (unsigned long long)m->start,
				 (unsigned long long)m->end);
			return;
		}
	}
}

/*
 * Attach specs (one id, or all when id < 0) to every object of cat not in
 * *visited, adding each to it. Returns the number of new sites or a
 * negative errno.
 */
static int attach_catalog(struct tracer *tr, const struct catalog *cat, int id,
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
		attach_path(tr, obj, tr->kind == TRACER_PID ? &tr->maps : NULL,
			    path, sizeof(path));
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

/* Life cycle -------------------------------------------------------- */

/* Size the aggregation maps of the opened tr->skel for aggsize bytes
 * (mapsize_plan()), into tr->sizes. 0 or a negative errno. */
static int size_maps(struct tracer *tr, uint64_t aggsize)
{
	int ncpus = libbpf_num_possible_cpus();

	if (ncpus < 0)
		return ncpus;
	mapsize_plan(aggsize, ncpus, &tr->sizes);
	for (int m = 0; m < MAPSIZE_NMAPS; m++) {
		struct bpf_map *map = bpf_object__find_map_by_name(
			tr->skel->obj, mapsize_name(m));
		int err = map ? bpf_map__set_max_entries(map,
							 tr->sizes.entries[m])
			      : -ENOENT;

		if (err)
			return err;
	}
	return 0;
}

/* Open the BPF object into tr->skel, its aggregation maps sized for
 * aggsize bytes, its site programs made for uprobe_multi where the
 * kernel has it (tr->multi), and load it. 0 or a negative errno (-EPERM
 * without the privileges, before libbpf tries). */
static int load_programs(struct tracer *tr, uint64_t aggsize)
{
	int err;

	if (!may_trace())
		return -EPERM;
	tr->skel = probetop_bpf__open();
	if (!tr->skel)
		return -errno;
	err = size_maps(tr, aggsize);
	if (err)
		return err;
	tr->multi = ulink_multi_supported();
	if (tr->multi) {
		ulink_prepare(tr->skel->progs.pt_usdt);
		ulink_prepare(tr->skel->progs.pt_ret);
	}
	held.on = true;
	err = probetop_bpf__load(tr->skel);
	release_held(err == -ENOMEM);
	return err;
}

/* Say why load_programs() failed with err, and what to do about it. */
static void log_load_error(const struct tracer *tr, int err)
{
	char size[32], hint[160] = "";

	if (err == -EPERM) {
		snprintf(hint, sizeof(hint),
			 " (run as root, or with CAP_BPF and CAP_PERFMON)");
	} else if (err == -ENOMEM && tr->sizes.bytes) {
		mapsize_format(tr->sizes.budget, size, sizeof(size));
		snprintf(hint, sizeof(hint),
			 " (the maps take about %llu MB with --aggsize %s; a "
			 "smaller one takes less)",
			 (unsigned long long)(tr->sizes.bytes >> 20), size);
	}
	log_msg(LOG_ERROR, "cannot load the BPF programs: %s%s", strerror(-err),
		hint);
}

struct tracer *tracer_new(enum tracer_kind kind, pid_t pid, const char *path,
			  uint64_t aggsize)
{
	struct tracer *tr = calloc(1, sizeof(*tr));
	struct catalog *cat = NULL;
	int err = -ENOMEM;
	bool said = false; /* err is logged already */

	if (!tr) {
		log_msg(LOG_ERROR, "out of memory");
		return NULL;
	}
	libbpf_set_print(libbpf_log);
	tr->kind = kind;
	tr->pid = kind == TRACER_PID ? pid : 0;
	tr->cache = objcache_new();
	if (!tr->cache)
		goto fail;
	if (kind == TRACER_FILE) {
		tr->path = strdup(path);
		cat = tr->path ? catalog_open_file(tr->cache, path) : NULL;
		if (!cat) {
			err = tr->path ? -errno : -ENOMEM;
			goto fail;
		}
	} else if (!proc_alive(pid)) {
		err = -ESRCH; /* before the BPF object is loaded for nothing */
		goto fail;
	}
	err = load_programs(tr, aggsize ? aggsize : MAPSIZE_DEFAULT);
	if (err) {
		log_load_error(tr, err);
		said = true;
		goto fail;
	}
	if (cat) {
		for (size_t i = 0; i < catalog_nobjects(cat); i++) {
			const struct cat_object *o = catalog_object(cat, i);

			err = seen_add(&tr->seen, o->dev, o->inode);
			if (err)
				goto fail;
		}
		err = keep_catalog(tr, cat);
		cat = NULL;
		if (err)
			goto fail;
	}
	if (kind == TRACER_PID && tr->multi) {
		tr->skel->bss->fork_pid = (uint32_t)pid;
		tr->fork_link = bpf_program__attach(tr->skel->progs.pt_forked);
		if (!tr->fork_link)
			log_msg(LOG_WARN,
				"cannot follow forks (%s): processes %d forks "
				"will keep its breakpoints",
				strerror(errno), (int)pid);
	}
	if (kind == TRACER_PID) {
		err = tracer_rescan(tr);
		said = err < 0 && err != -ESRCH && err != -EACCES;
		if (said)
			log_msg(LOG_ERROR, "pid %d: cannot read its maps: %s",
				(int)pid, strerror(-err));
		if (err < 0)
			goto fail;
	}
	return tr;
fail:
	if (err == -ENOMEM && !said) /* every other reason is logged */
		log_msg(LOG_ERROR, "out of memory");
	catalog_free(cat);
	tracer_free(tr);
	errno = -err;
	return NULL;
}

static void detach_spec(struct tracer *tr, struct tspec *ts)
{
	for (size_t i = 0; i < ts->natts; i++) {
		ulink_detach(&ts->atts[i].link);
		tr->site_used[ts->atts[i].site] = 0;
	}
	free(ts->atts);
	free(ts->probe_ids);
	memset(ts, 0, sizeof(*ts));
}

void tracer_free(struct tracer *tr)
{
	if (!tr)
		return;
	for (int i = 0; i < tr->nspecs; i++)
		if (tr->specs[i].used)
			detach_spec(tr, &tr->specs[i]);
	for (size_t i = 0; i < sizeof(tr->io_links) / sizeof(tr->io_links[0]);
	     i++)
		bpf_link__destroy(tr->io_links[i]);
	for (size_t i = 0;
	     i < sizeof(tr->proc_links) / sizeof(tr->proc_links[0]); i++)
		bpf_link__destroy(tr->proc_links[i]);
	bpf_link__destroy(tr->ro_links[0]);
	bpf_link__destroy(tr->ro_links[1]);
	bpf_link__destroy(tr->fork_link);
	bpf_link__destroy(tr->dl_link);
	ring_buffer__free(tr->dl_ring);
	if (tr->dl_link)
		kill(tr->pid, SIGCONT); /* never leave it stopped */
	probetop_bpf__destroy(tr->skel);
	for (size_t i = 0; i < tr->ncats; i++)
		catalog_free(tr->cats[i]);
	free(tr->cats);
	objcache_free(tr->cache);
	free(tr->seen.v);
	free(tr->touched);
	proc_maps_free(&tr->maps);
	free(tr->path);
	free(tr);
}

int tracer_add_file(struct tracer *tr, const char *path)
{
	struct catalog *cat = catalog_open_file(tr->cache, path);
	const struct cat_object *obj;
	int err;

	if (!cat)
		return -errno;
	obj = catalog_object(cat, 0);
	if (!obj || seen_has(&tr->seen, obj->dev, obj->inode)) {
		catalog_free(cat);
		return 0;
	}
	err = keep_catalog(tr, cat);
	if (err)
		return err;
	err = attach_catalog(tr, cat, -1, &tr->seen);
	return err < 0 ? err : 0;
}

/* Library search ----------------------------------------------------- */

struct needed {
	struct tracer *tr;
	char origin[PATH_MAX];
	char runpath[4096];
	int depth;
};

static int add_tree(struct tracer *tr, const char *path, int depth);

static bool try_dirs(const char *dirs, const char *origin, const char *name,
		     char *out, size_t n)
{
	char buf[4096];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", dirs ? dirs : "");
	for (char *d = strtok_r(buf, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		if (!strncmp(d, "$ORIGIN", 7))
			snprintf(out, n, "%s%s/%s", origin, d + 7, name);
		else
			snprintf(out, n, "%s/%s", d, name);
		if (!access(out, R_OK))
			return true;
	}
	return false;
}

static int add_needed(const char *name, void *ctx)
{
	struct needed *nd = ctx;
	char path[PATH_MAX];

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else if (!try_dirs(nd->runpath, nd->origin, name, path, sizeof(path)) &&
		 !try_dirs(getenv("LD_LIBRARY_PATH"), nd->origin, name, path,
			   sizeof(path)) &&
		 catalog_find_file(name, path, sizeof(path)))
		return 0;
	add_tree(nd->tr, path, nd->depth + 1);
	return 0;
}

static int append_runpath(const char *dirs, void *ctx)
{
	struct needed *nd = ctx;
	size_t len = strlen(nd->runpath);

	snprintf(nd->runpath + len, sizeof(nd->runpath) - len, "%s%s",
		 len ? ":" : "", dirs);
	return 0;
}

/* path and, recursively, what it needs (at most 8 levels deep). */
static int add_tree(struct tracer *tr, const char *path, int depth)
{
	struct needed nd = { .tr = tr, .depth = depth };
	const struct cat_object *obj;
	char *slash;
	int err;

	if (depth > 8)
		return 0;
	err = tracer_add_file(tr, path);
	if (err)
		return err;
	obj = catalog_object(tr->cats[tr->ncats - 1], 0);
	if (!obj || !obj->elf || strcmp(obj->path, path))
		return 0; /* already there: its tree was walked */
	if (!realpath(path, nd.origin))
		snprintf(nd.origin, sizeof(nd.origin), "%s", path);
	slash = strrchr(nd.origin, '/');
	if (slash)
		*slash = '\0';
	elfobj_dyn_strings(obj->elf, DT_RUNPATH, append_runpath, &nd);
	if (!nd.runpath[0])
		elfobj_dyn_strings(obj->elf, DT_RPATH, append_runpath, &nd);
	return elfobj_dyn_strings(obj->elf, DT_NEEDED, add_needed, &nd);
}

int tracer_add_command_files(struct tracer *tr, const char *exe)
{
	char path[PATH_MAX];
	int err = catalog_find_file(exe, path, sizeof(path));

	if (err)
		return err;
	return add_tree(tr, path, 0);
}

/* Specs ------------------------------------------------------------- */

/* Read-only strings ---------------------------------------------------- */

static int dl_hook(struct tracer *tr, const char *exe, char *interp, size_t n,
		   uint64_t *offset);

/* Whether spec counts (or sums) by one str() key on one process: its
 * events may go to address slots (struct pt_aslot). */
static bool aslot_spec(const struct tracer *tr, const struct spec *sp)
{
	return tr->kind == TRACER_PID && !sp->timed && sp->nkeys == 1 &&
	       sp->keys[0].kind == SPEC_KEY_STR &&
	       (sp->agg == SPEC_AGG_COUNT || sp->agg == SPEC_AGG_SUM);
}

static uint32_t ro_epoch_now(const struct tracer *tr)
{
	return __atomic_load_n(&tr->skel->bss->ro_epoch, __ATOMIC_ACQUIRE);
}

/*
 * Make the read-only ranges of maps the valid table, for epoch (read
 * before maps were: a change since has bumped ro_epoch, and the table
 * is not used). A new generation when a range went away.
 */
static void ro_install(struct tracer *tr, uint32_t epoch,
		       const struct proc_maps *maps)
{
	struct probetop_bpf__bss *bss = tr->skel->bss;
	uint32_t sel = __atomic_load_n(&bss->ro_sel, __ATOMIC_ACQUIRE) & 1;
	struct ro_set set;

	ro_set_from_maps(maps, &set);
	if (bss->ro_tables[sel].epoch == epoch && set.n == tr->ro.n &&
	    ro_set_kept(&tr->ro, &set))
		return; /* still true */
	if (!ro_set_kept(&tr->ro, &set))
		tr->ro_gen++;
	ro_set_table(&set, epoch, tr->ro_gen, &bss->ro_tables[!sel]);
	__atomic_store_n(&bss->ro_sel, !sel, __ATOMIC_RELEASE);
	tr->ro = set;
}

/*
 * Start keeping the target's read-only ranges: ro_epoch bumped when it
 * execs and when its dynamic linker changes the loaded objects, and a
 * first table. 0 or a negative errno.
 */
static int ro_start(struct tracer *tr)
{
	char exe[64], interp[PATH_MAX];
	struct proc_maps maps = { 0 };
	uint64_t offset;
	uint32_t epoch;
	int err;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)tr->pid);
	err = dl_hook(tr, exe, interp, sizeof(interp), &offset);
	if (!err) {
		tr->ro_links[1] = bpf_program__attach_uprobe(
			tr->skel->progs.pt_dlmark, false, tr->pid, interp,
			(size_t)offset);
		if (!tr->ro_links[1])
			return -errno;
	} else if (err != -ENOENT) { /* -ENOENT: static, nothing to load */
		return err;
	}
	tr->skel->bss->ro_pid = (uint32_t)tr->pid;
	tr->ro_links[0] = bpf_program__attach(tr->skel->progs.pt_ro_exec);
	if (!tr->ro_links[0])
		return -errno;
	tr->ro_gen = 1;
	epoch = ro_epoch_now(tr);
	if (!proc_maps_read(tr->pid, &maps))
		ro_install(tr, epoch, &maps);
	proc_maps_free(&maps);
	return 0;
}

/* Whether address slots can be used (started on the first call). */
static bool ro_ready(struct tracer *tr)
{
	int err;

	if (!tr->ro_state) {
		err = ro_start(tr);
		tr->ro_state = err ? -1 : 1;
		if (err) {
			log_msg(LOG_DEBUG,
				"no read-only string ranges (%s): strings are "
				"read at every event",
				strerror(-err));
			bpf_link__destroy(tr->ro_links[0]);
			bpf_link__destroy(tr->ro_links[1]);
			tr->ro_links[0] = tr->ro_links[1] = NULL;
		}
	}
	return tr->ro_state > 0;
}

#define TOUCH_MAX (256ULL << 20) /* bytes of literals made present */

static bool reads_strings(const struct tracer *tr)
{
	for (int i = 0; i < tr->nspecs; i++)
		if (tr->specs[i].used && tr->specs[i].info.width)
			return true;
	return false;
}

static bool was_touched(const struct tracer *tr, const struct proc_map *m)
{
	for (size_t i = 0; i < tr->ntouched; i++)
		if (tr->touched[i].start == m->start &&
		    tr->touched[i].end == m->end &&
		    tr->touched[i].inode == m->inode)
			return true;
	return false;
}

/*
 * While a spec reads strings, make the pages of the target's literals
 * present (proc_touch()), each mapping once, at most TOUCH_MAX bytes: a
 * literal on a page the target has not read yet could not be read by the
 * BPF side and was a drop (ruby's first require passes "enc/encdb.so"
 * before anything reads it). Called with tr->maps fresh, before a held
 * process goes on, so a launched command's libraries are ready before
 * their code runs. The list keeps only what is still mapped.
 */
static void touch_literals(struct tracer *tr)
{
	struct touched *now;
	uint64_t bytes = 0;
	size_t n = 0;

	if (!reads_strings(tr))
		return;
	now = calloc(tr->maps.n ? tr->maps.n : 1, sizeof(*now));
	if (!now)
		return;
	for (size_t i = 0; i < tr->maps.n; i++) {
		const struct proc_map *m = &tr->maps.maps[i];

		if (!ro_map_holds_literals(&tr->maps, i) ||
		    bytes + (m->end - m->start) > TOUCH_MAX)
			continue;
		if (!was_touched(tr, m) &&
		    proc_touch(tr->pid, m->start, m->end)) {
			log_msg(LOG_DEBUG, "%s: cannot read the literals",
				m->path);
			continue;
		}
		bytes += m->end - m->start;
		now[n++] = (struct touched){ m->start, m->end, m->inode };
	}
	free(tr->touched);
	tr->touched = now;
	tr->ntouched = n;
}

/* Each key's slot in num[] or str[], and the key's width (the count of
 * string keys: enum pt_key_width). */
static void assign_key_slots(struct tspec *ts)
{
	int nums = 0, strs = 0;

	for (int i = 0; i < ts->spec.nkeys; i++)
		ts->info.key_slot[i] =
			spec_key_is_str(&ts->spec.keys[i]) ? strs++ : nums++;
	ts->info.width = strs;
}

int tracer_add(struct tracer *tr, const struct spec *spec)
{
	struct seen_set visited = { 0 };
	struct tspec *ts = NULL;
	int id, err = 0;

	for (id = 0; id < PT_MAX_SPECS; id++)
		if (!tr->specs[id].used)
			break;
	if (id == PT_MAX_SPECS)
		return -ENOSPC;
	ts = &tr->specs[id];
	memset(ts, 0, sizeof(*ts));
	ts->used = true;
	ts->spec = *spec;
	ts->info.spec = &ts->spec;
	ts->info.gen = ++tr->gens[id];
	assign_key_slots(ts);
	if (tr->kind == TRACER_PID && !spec->nkeys)
		ts->info.solo_pid = tr->pid;
	if (aslot_spec(tr, spec) && ro_ready(tr))
		ts->info.aslot_pid = tr->pid;
	if (id >= tr->nspecs)
		tr->nspecs = id + 1;
	for (size_t c = 0; c < tr->ncats && err >= 0; c++)
		err = attach_catalog(tr, tr->cats[c], id, &visited);
	free(visited.v);
	if (err < 0) {
		tracer_remove(tr, id);
		return err;
	}
	if (tr->kind == TRACER_PID)
		touch_literals(tr);
	return id;
}

/* Delete every key of spec id from a hash map keyed by struct pt_key (or
 * struct pt_stack_key: spec at a different offset). */
static void delete_keys(int fd, size_t key_size, size_t spec_off, int id)
{
	uint8_t key[sizeof(struct pt_key)], next[sizeof(struct pt_key)];
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		uint32_t spec;

		memcpy(&spec, next + spec_off, sizeof(spec));
		if ((int)spec == id && !bpf_map_delete_elem(fd, next))
			continue; /* next is gone: restart from prev */
		memcpy(key, next, key_size);
		prev = key;
	}
}

int tracer_remove(struct tracer *tr, int id)
{
	void *zero; /* big enough for a value of stats, solo maps, aslots */
	int ncpu = libbpf_num_possible_cpus();
	uint32_t key = (uint32_t)id;
	bool aslot;

	if (id < 0 || id >= tr->nspecs || !tr->specs[id].used)
		return -ENOENT;
	aslot = tr->specs[id].info.aslot_pid != 0;
	detach_spec(tr, &tr->specs[id]);
	delete_keys(bpf_map__fd(tr->skel->maps.counts), sizeof(struct pt_key),
		    offsetof(struct pt_key, spec), id);
	delete_keys(bpf_map__fd(tr->skel->maps.hists), sizeof(struct pt_key),
		    offsetof(struct pt_key, spec), id);
	delete_keys(bpf_map__fd(tr->skel->maps.scounts), sizeof(struct pt_skey),
		    offsetof(struct pt_skey, spec), id);
	delete_keys(bpf_map__fd(tr->skel->maps.shists), sizeof(struct pt_skey),
		    offsetof(struct pt_skey, spec), id);
	delete_keys(bpf_map__fd(tr->skel->maps.ncounts), sizeof(struct pt_nkey),
		    offsetof(struct pt_nkey, spec), id);
	delete_keys(bpf_map__fd(tr->skel->maps.nhists), sizeof(struct pt_nkey),
		    offsetof(struct pt_nkey, spec), id);
	delete_keys(bpf_map__fd(tr->skel->maps.stacks),
		    sizeof(struct pt_stack_key),
		    offsetof(struct pt_stack_key, spec), id);
	zero = calloc(ncpu > 0 ? (size_t)ncpu : 1, sizeof(struct pt_hist));
	if (zero) {
		bpf_map_update_elem(bpf_map__fd(tr->skel->maps.stats), &key,
				    zero, BPF_ANY);
		bpf_map_update_elem(bpf_map__fd(tr->skel->maps.solo_counts),
				    &key, zero, BPF_ANY);
		bpf_map_update_elem(bpf_map__fd(tr->skel->maps.solo_hists),
				    &key, zero, BPF_ANY);
		for (uint32_t k = 0; aslot && k < PT_ASLOTS; k++) {
			uint32_t slot = key * PT_ASLOTS + k;

			bpf_map_update_elem(bpf_map__fd(tr->skel->maps.aslots),
					    &slot, zero, BPF_ANY);
		}
		free(zero);
	}
	while (tr->nspecs && !tr->specs[tr->nspecs - 1].used)
		tr->nspecs--;
	return 0;
}

static int cmp_att_obj(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)(*(const struct attachment *const *)a)->obj;
	uintptr_t y = (uintptr_t)(*(const struct attachment *const *)b)->obj;

	return x < y ? -1 : x > y;
}

/* ulink_sweep() the locations atts[0..n) of one object. */
static void sweep_object(struct tracer *tr, struct attachment **atts, size_t n,
			 uint64_t *offs, uint64_t *refs)
{
	char path[PATH_MAX + 64];
	int err;

	for (size_t i = 0; i < n; i++) {
		offs[i] = atts[i]->offset;
		refs[i] = atts[i]->ref_ctr;
	}
	attach_path(tr, atts[0]->obj, &tr->maps, path, sizeof(path));
	err = ulink_sweep(tr->pid, path, offs, refs, n);
	if (err)
		log_msg(LOG_WARN,
			"%s: cannot take the breakpoints out of what %d "
			"forked: %s",
			atts[0]->obj->path, (int)tr->pid, strerror(-err));
}

/*
 * Once the target has forked (pt_forked counts it), take the
 * breakpoints of every site out of its new processes, object by object
 * (ulink_sweep()): with uprobe_multi nothing else would, and a forked
 * worker would trap at every probe it passes.
 */
static void sweep_forks(struct tracer *tr)
{
	struct attachment **atts = NULL;
	uint64_t *offs = NULL, *refs = NULL;
	uint32_t forks;
	size_t n = 0;

	if (!tr->fork_link)
		return;
	forks = __atomic_load_n(&tr->skel->bss->forks, __ATOMIC_ACQUIRE);
	if (forks == tr->forks)
		return;
	for (int i = 0; i < tr->nspecs; i++)
		n += tr->specs[i].used ? tr->specs[i].natts : 0;
	atts = calloc(n ? n : 1, sizeof(*atts));
	offs = calloc(n ? n : 1, sizeof(*offs));
	refs = calloc(n ? n : 1, sizeof(*refs));
	if (!atts || !offs || !refs)
		goto out;
	n = 0;
	for (int i = 0; i < tr->nspecs; i++)
		for (size_t a = 0; tr->specs[i].used && a < tr->specs[i].natts;
		     a++)
			atts[n++] = &tr->specs[i].atts[a];
	qsort(atts, n, sizeof(*atts), cmp_att_obj);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && atts[j]->obj == atts[i]->obj; j++)
			;
		sweep_object(tr, atts + i, j - i, offs, refs);
	}
	tr->forks = forks;
out:
	free(atts);
	free(offs);
	free(refs);
}

static bool has_new_object(const struct tracer *tr, const struct proc_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->maps[i].perms[2] == 'x' &&
		    !seen_has(
			    &tr->seen,
			    makedev(m->maps[i].dev_major, m->maps[i].dev_minor),
			    m->maps[i].inode))
			return true;
	return false;
}

/* tracer_rescan() without the dynamic linker's hold. */
static int rescan_maps(struct tracer *tr)
{
	struct proc_maps maps = { 0 };
	struct catalog *cat;
	uint32_t epoch;
	bool fresh;
	int n, err;

	if (tr->kind != TRACER_PID)
		return 0;
	epoch = ro_epoch_now(tr); /* before the maps: see ro_install() */
	err = proc_maps_read(tr->pid, &maps);
	if (err) {
		proc_maps_free(&maps);
		return err == -ENOENT ? -ESRCH : err;
	}
	if (!maps.n) { /* a zombie: keep the last maps, for symbolizing */
		proc_maps_free(&maps);
		return 0;
	}
	fresh = has_new_object(tr, &maps);
	proc_maps_free(&tr->maps);
	tr->maps = maps;
	if (tr->ro_state > 0)
		ro_install(tr, epoch, &tr->maps);
	touch_literals(tr);
	sweep_forks(tr);
	if (!fresh)
		return 0;
	cat = catalog_open_maps(tr->cache, tr->pid, &tr->maps);
	if (!cat)
		return -errno;
	err = keep_catalog(tr, cat);
	if (err)
		return err;
	n = attach_catalog(tr, cat, -1, &tr->seen);
	for (size_t i = 0; n >= 0 && i < tr->maps.n; i++) {
		const struct proc_map *m = &tr->maps.maps[i];
		uint64_t dev = makedev(m->dev_major, m->dev_minor);

		/* not ELF, or no probes: not worth a new catalog again */
		if (m->perms[2] == 'x' && !seen_has(&tr->seen, dev, m->inode) &&
		    seen_add(&tr->seen, dev, m->inode))
			return -ENOMEM;
	}
	return n;
}

void tracer_resume(struct tracer *tr)
{
	if (tr->dl_stopped) {
		tr->dl_stopped = false;
		kill(tr->pid, SIGCONT);
	}
}

int tracer_rescan(struct tracer *tr)
{
	if (tr->dl_ring)
		ring_buffer__consume(tr->dl_ring);
	return rescan_maps(tr);
}

static int dl_event(void *ctx, void *data, size_t size)
{
	struct tracer *tr = ctx;
	uint32_t tgid;

	if (size >= sizeof(tgid)) {
		memcpy(&tgid, data, sizeof(tgid));
		if ((pid_t)tgid == tr->pid)
			tr->dl_stopped = true;
	}
	return 0;
}

/* File offset of _dl_debug_state in the interpreter exe names, into
 * interp. 0 or a negative errno. */
static int dl_hook(struct tracer *tr, const char *exe, char *interp, size_t n,
		   uint64_t *offset)
{
	struct catalog *cat = catalog_open_file(tr->cache, exe);
	const struct cat_object *obj = cat ? catalog_object(cat, 0) : NULL;
	struct elfobj *ld;
	uint64_t addr;
	int err = -ENOENT;

	if (obj && obj->elf)
		err = elfobj_interp(obj->elf, interp, n);
	catalog_free(cat);
	if (err)
		return err;
	ld = elfobj_open(interp);
	if (!ld)
		return -errno;
	err = elfobj_symbol_addr(ld, "_dl_debug_state", &addr);
	if (!err)
		err = elfobj_vaddr_to_offset(ld, addr, offset);
	elfobj_free(ld);
	return err;
}

int tracer_hold_dlopen(struct tracer *tr, const char *exe)
{
	char interp[PATH_MAX];
	uint64_t offset;
	int err;

	if (tr->kind != TRACER_PID || tr->dl_link)
		return -EINVAL;
	err = dl_hook(tr, exe, interp, sizeof(interp), &offset);
	if (err) {
		if (err != -ENOENT)
			log_msg(LOG_WARN, "%s: no dynamic linker hook: %s", exe,
				strerror(-err));
		return err == -ENOENT ? 0 : err; /* static: nothing to hold */
	}
	tr->dl_ring = ring_buffer__new(bpf_map__fd(tr->skel->maps.dl_events),
				       dl_event, tr, NULL);
	if (!tr->dl_ring)
		return -errno;
	tr->dl_link =
		bpf_program__attach_uprobe(tr->skel->progs.pt_dlstop, false,
					   tr->pid, interp, (size_t)offset);
	if (!tr->dl_link) {
		err = -errno;
		ring_buffer__free(tr->dl_ring);
		tr->dl_ring = NULL;
		log_msg(LOG_WARN, "%s: cannot attach to _dl_debug_state: %s",
			interp, strerror(-err));
		return err;
	}
	return 0;
}

int tracer_event_fd(const struct tracer *tr)
{
	return tr->dl_ring ? ring_buffer__epoll_fd(tr->dl_ring) : -1;
}

const struct tracer_spec_info *tracer_spec_info(const struct tracer *tr, int id)
{
	if (id < 0 || id >= tr->nspecs || !tr->specs[id].used)
		return NULL;
	return &tr->specs[id].info;
}

int tracer_nspecs(const struct tracer *tr)
{
	return tr->nspecs;
}

bool tracer_spec_waiting(const struct tracer_spec_info *info,
			 const struct spec_probe **missing)
{
	for (int role = 0; role < info->spec->nprobes; role++) {
		if (info->role_sites[role])
			continue;
		if (missing)
			*missing =
				info->nsites ? &info->spec->probe[role] : NULL;
		return true;
	}
	return false;
}

size_t tracer_nprobes(const struct tracer *tr)
{
	size_t n = 0;

	for (int i = 0; i < tr->nspecs; i++)
		if (tr->specs[i].used)
			n += tr->specs[i].info.nprobes;
	return n;
}

size_t tracer_objects(const struct tracer *tr, const struct cat_object **out,
		      size_t max)
{
	size_t n = 0;

	for (size_t c = tr->ncats; c-- > 0;) {
		for (size_t i = 0; i < catalog_nobjects(tr->cats[c]); i++) {
			const struct cat_object *obj =
				catalog_object(tr->cats[c], i);
			size_t j = 0;

			while (j < n && (out[j]->dev != obj->dev ||
					 out[j]->inode != obj->inode))
				j++;
			if (j == n && n < max)
				out[n++] = obj;
		}
	}
	return n;
}

bool tracer_has_probe(const struct tracer *tr, const struct spec_probe *p)
{
	for (size_t c = 0; c < tr->ncats; c++)
		if (catalog_has_probe(tr->cats[c], p))
			return true;
	return false;
}

/* Kernel watches (IO, processes) ----------------------------------- */

/* x86-64 syscall numbers of each IO class */
static const struct {
	uint16_t nr;
	uint8_t cls;
} IO_SYSCALLS[] = {
	{ 0, PT_IO_READ },     { 1, PT_IO_WRITE },    { 17, PT_IO_PREAD },
	{ 18, PT_IO_PWRITE },  { 19, PT_IO_READV },   { 20, PT_IO_WRITEV },
	{ 295, PT_IO_READV },  { 296, PT_IO_WRITEV }, { 327, PT_IO_READV },
	{ 328, PT_IO_WRITEV }, { 45, PT_IO_RECV },    { 47, PT_IO_RECV },
	{ 299, PT_IO_RECV },   { 44, PT_IO_SEND },    { 46, PT_IO_SEND },
	{ 307, PT_IO_SEND },   { 74, PT_IO_FSYNC },   { 75, PT_IO_FDATASYNC },
	{ 2, PT_IO_OPEN },     { 85, PT_IO_OPEN },    { 257, PT_IO_OPEN },
	{ 437, PT_IO_OPEN },   { 3, PT_IO_CLOSE },
};

/* Attach progs[0..n) into links[]; the first required ones must attach
 * (0 or the negative errno of the first that does not), the others may
 * fail with a warning. Failures are logged. */
static int attach_progs(struct bpf_program *const *progs,
			struct bpf_link **links, size_t n, size_t required)
{
	for (size_t i = 0; i < n; i++) {
		links[i] = bpf_program__attach(progs[i]);
		if (!links[i]) {
			int err = -errno;

			log_msg(i < required ? LOG_ERROR : LOG_WARN,
				"cannot attach %s: %s",
				bpf_program__name(progs[i]), strerror(-err));
			if (i < required)
				return err;
		}
	}
	return 0;
}

static int io_start(struct tracer *tr)
{
	struct bpf_program *progs[] = {
		tr->skel->progs.pt_sys_enter,
		tr->skel->progs.pt_sys_exit,
		tr->skel->progs.pt_rq_issue,
		tr->skel->progs.pt_rq_complete,
	};
	int fd = bpf_map__fd(tr->skel->maps.io_nr);

	for (size_t i = 0; i < sizeof(IO_SYSCALLS) / sizeof(IO_SYSCALLS[0]);
	     i++) {
		uint32_t nr = IO_SYSCALLS[i].nr, cls = IO_SYSCALLS[i].cls + 1;

		if (bpf_map_update_elem(fd, &nr, &cls, BPF_ANY))
			return -errno;
	}
	/* block requests are a bonus: a kernel without them still counts */
	return attach_progs(progs, tr->io_links, 4, 2);
}

static int proc_start(struct tracer *tr)
{
	struct bpf_program *progs[] = {
		tr->skel->progs.pt_fork,
		tr->skel->progs.pt_exec,
		tr->skel->progs.pt_exit,
	};

	return attach_progs(progs, tr->proc_links, 3, 3);
}

/* The processes w's owner has started already are followed like those it
 * will start (a shell's running job, a server's workers), with w's bits;
 * a process watched on its own stays its own owner. */
static void follow_descendants(struct tracer *tr, const struct pt_watched *w)
{
	int fd = bpf_map__fd(tr->skel->maps.watched);
	pid_t kids[PT_PROC_KIDS / 4];
	size_t n = proc_descendants((pid_t)w->owner, kids,
				    sizeof(kids) / sizeof(kids[0]));

	for (size_t i = 0; i < n; i++) {
		uint32_t k = (uint32_t)kids[i];
		struct pt_watched was;

		if (!bpf_map_lookup_elem(fd, &k, &was) && was.owner == k)
			continue;
		bpf_map_update_elem(fd, &k, w, BPF_ANY);
	}
}

int tracer_watch(struct tracer *tr, pid_t pid, unsigned int what)
{
	int fd = bpf_map__fd(tr->skel->maps.watched);
	uint32_t key = (uint32_t)pid;
	struct pt_watched w = { .owner = key };
	int err;

	if ((what & PT_WATCH_IO) && !(tr->watching & PT_WATCH_IO)) {
		err = io_start(tr);
		if (err)
			return err;
		tr->watching |= PT_WATCH_IO;
	}
	if (what && !(tr->watching & PT_WATCH_PROC)) {
		err = proc_start(tr); /* follows descendants for both */
		if (err)
			return err;
		tr->watching |= PT_WATCH_PROC;
	}
	if (!bpf_map_lookup_elem(fd, &key, &w) && w.owner != key)
		w = (struct pt_watched){ .owner = key }; /* was a descendant */
	w.bits |= (uint8_t)what;
	if (bpf_map_update_elem(fd, &key, &w, BPF_ANY))
		return -errno;
	follow_descendants(tr, &w);
	return 0;
}

struct objcache *tracer_objcache(const struct tracer *tr)
{
	return tr->cache;
}

const struct proc_maps *tracer_known_maps(const struct tracer *tr, pid_t pid)
{
	return tr->kind == TRACER_PID && tr->pid == pid && tr->maps.n
		       ? &tr->maps
		       : NULL;
}

void tracer_maps(const struct tracer *tr, struct tracer_maps *out)
{
	out->counts = bpf_map__fd(tr->skel->maps.counts);
	out->hists = bpf_map__fd(tr->skel->maps.hists);
	out->ncounts = bpf_map__fd(tr->skel->maps.ncounts);
	out->nhists = bpf_map__fd(tr->skel->maps.nhists);
	out->scounts = bpf_map__fd(tr->skel->maps.scounts);
	out->shists = bpf_map__fd(tr->skel->maps.shists);
	out->solo_counts = bpf_map__fd(tr->skel->maps.solo_counts);
	out->solo_hists = bpf_map__fd(tr->skel->maps.solo_hists);
	out->aslots = bpf_map__fd(tr->skel->maps.aslots);
	out->stats = bpf_map__fd(tr->skel->maps.stats);
	out->io = bpf_map__fd(tr->skel->maps.io);
	out->proc = bpf_map__fd(tr->skel->maps.proc);
	out->kdrops = bpf_map__fd(tr->skel->maps.kdrops);
}

int tracer_pid_name(const struct tracer *tr, uint32_t pid, char *buf, size_t n)
{
	struct pt_pid_name v;
	size_t len;

	if (bpf_map_lookup_elem(bpf_map__fd(tr->skel->maps.pid_names), &pid,
				&v))
		return -ENOENT;
	v.comm[sizeof(v.comm) - 1] = '\0';
	len = v.args_len < sizeof(v.args) ? v.args_len : sizeof(v.args);
	if (!v.args[0] || !(len = proc_join_args(v.args, len))) {
		snprintf(buf, n, "[%s]", v.comm);
		return 0;
	}
	snprintf(buf, n, "%.*s", (int)len, v.args);
	return 0;
}

const struct mapsize *tracer_mapsize(const struct tracer *tr)
{
	return &tr->sizes;
}
