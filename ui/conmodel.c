// SPDX-License-Identifier: MIT
/*
 * conmodel — the engine's state turned into the views' model; see
 * conmodel.h. A probe is "on" when a live spec's first (or second) probe
 * matches its object and provider:name; its hits are that spec's events.
 */
#include "conmodel.h"

#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "cmd.h"
#include "elfobj.h"
#include "inert.h"
#include "proc.h"

struct conmodel {
	struct model_probe *probes;
	size_t nprobes;
	struct model_func *funcs;
	size_t nfuncs, capfuncs;
	const char *func_object;
	struct model_proc *procs;
	size_t nprocs;
	/* for cpu% */
	uint64_t last_ticks;
	double last_s;
};

struct conmodel *conmodel_new(void)
{
	return calloc(1, sizeof(struct conmodel));
}

void conmodel_free(struct conmodel *cm)
{
	if (!cm)
		return;
	free(cm->probes);
	free(cm->funcs);
	free(cm->procs);
	free(cm);
}

static int collect_func(const struct elf_func *fn, void *ctx)
{
	struct conmodel *cm = ctx;

	if (cm->nfuncs && !strcmp(cm->funcs[cm->nfuncs - 1].name, fn->name))
		return 0;
	if (cm->nfuncs == cm->capfuncs) {
		size_t cap = cm->capfuncs ? cm->capfuncs * 2 : 1024;
		struct model_func *v = realloc(cm->funcs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		cm->funcs = v;
		cm->capfuncs = cap;
	}
	cm->funcs[cm->nfuncs++] = (struct model_func){
		.object = cm->func_object, .name = fn->name, .spec_id = -1
	};
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	return strcmp(((const struct model_func *)a)->name,
		      ((const struct model_func *)b)->name);
}

/* Function symbols of the executable (or the -b file): the first object. */
static int load_funcs(struct conmodel *cm, const struct cat_object *exe)
{
	size_t w = 0;

	cm->nfuncs = 0;
	if (!exe || !exe->elf)
		return 0;
	cm->func_object = exe->path;
	if (catalog_functions(exe, collect_func, cm))
		return -ENOMEM;
	qsort(cm->funcs, cm->nfuncs, sizeof(*cm->funcs), cmp_func);
	for (size_t i = 0; i < cm->nfuncs; i++) /* .symtab and .dynsym */
		if (!w || strcmp(cm->funcs[w - 1].name, cm->funcs[i].name))
			cm->funcs[w++] = cm->funcs[i];
	cm->nfuncs = w;
	return 0;
}

static const struct cat_object *
main_object(const struct session *s, const struct cat_object **objs, size_t n)
{
	char exe[4096];

	if (s->binary[0] || proc_exe(s->pid, exe, sizeof(exe)))
		return n ? objs[n - 1] : NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(objs[i]->path, exe))
			return objs[i];
	return n ? objs[n - 1] : NULL;
}

int conmodel_probes(struct conmodel *cm, const struct session *s,
		    struct model *m)
{
	const struct cat_object **objs =
		calloc(SESSION_MAX_OBJECTS, sizeof(*objs));
	size_t nobj;

	if (!objs)
		return -ENOMEM;
	nobj = tracer_objects(s->tr, objs, SESSION_MAX_OBJECTS);
	free(cm->probes);
	if (session_probes(s, &cm->probes, &cm->nprobes)) {
		free(objs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cm->nprobes; i++) {
		struct model_probe *p = &cm->probes[i];

		p->note = session_note(s, p->provider, p->name);
		p->unmet = session_unmet(s, p->provider, p->name) != NULL;
	}
	if (load_funcs(cm, main_object(s, objs, nobj)))
		cm->nfuncs = 0;
	free(objs);
	m->probes = cm->probes;
	m->nprobes = cm->nprobes;
	m->funcs = cm->funcs;
	m->nfuncs = cm->nfuncs;
	m->probes_total = cm->nprobes;
	return 0;
}

static void spec_hits(const struct agg_snapshot *snap, int id, uint64_t *now,
		      uint64_t *total)
{
	*now = *total = 0;
	for (size_t i = 0; snap && i < snap->nspecs; i++)
		if (snap->specs[i].id == id) {
			*now = snap->specs[i].events;
			*total = snap->specs[i].events_total;
		}
}

/* spec_first_cover()'s spec i: live spec i, the user's own unless a
 * probeset's */
static const struct spec *live_spec(void *ctx, int id, bool *own)
{
	const struct session *s = ctx;
	const struct tracer_spec_info *info = tracer_spec_info(s->tr, id);

	*own = !s->specs[id].ps;
	return info ? info->spec : NULL;
}

/* The first live spec covering the probe; console-made ones first. */
static int spec_for(const struct session *s, const char *object,
		    const char *provider, const char *name, bool fn,
		    bool *console)
{
	return spec_first_cover(tracer_nspecs(s->tr), live_spec, (void *)s,
				object, provider, name, fn, console);
}

bool conmodel_spec_covers(const struct session *s, int id,
			  const struct model_probe *p)
{
	const struct tracer_spec_info *info = tracer_spec_info(s->tr, id);

	return info &&
	       spec_covers(info->spec, p->object, p->provider, p->name, false);
}

int conmodel_probe_specs(const struct session *s, const struct model_probe *p,
			 int *ids, int max)
{
	int n = 0;

	for (int pass = 0; pass < 2 && !n; pass++) {
		for (int id = 0; id < tracer_nspecs(s->tr) && n < max; id++) {
			const struct tracer_spec_info *info =
				tracer_spec_info(s->tr, id);

			if (info && s->specs[id].helper == (pass == 1) &&
			    spec_covers(info->spec, p->object, p->provider,
					p->name, false))
				ids[n++] = id;
		}
	}
	return n;
}

static void update_states(struct conmodel *cm, const struct session *s,
			  const struct agg_snapshot *snap, struct model *m)
{
	m->probes_on = 0;
	for (size_t i = 0; i < cm->nprobes; i++) {
		struct model_probe *p = &cm->probes[i];

		p->spec_id = spec_for(s, p->object, p->provider, p->name, false,
				      &p->console_spec);
		spec_hits(snap, p->spec_id, &p->hits, &p->hits_total);
		m->probes_on += p->spec_id >= 0;
	}
	for (size_t i = 0; i < cm->nfuncs; i++) {
		struct model_func *f = &cm->funcs[i];
		bool console;

		f->spec_id =
			spec_for(s, f->object, "", f->name, true, &console);
		spec_hits(snap, f->spec_id, &f->hits, &f->hits_total);
	}
}

static struct model_role role(const struct session *s, const char *section,
			      const char *name)
{
	struct model_role r = { .id = session_role(s, section, name) };

	if (r.id >= 0) { /* the one attached, of alternatives */
		r.spec = s->specs[r.id].role;
		r.ps = s->specs[r.id].ps;
	}
	for (int i = 0; i < s->npicked && !r.spec; i++) {
		r.spec = probeset_spec(s->picked[i], section, name);
		if (r.spec)
			r.ps = s->picked[i];
	}
	return r;
}

static void update_header(struct conmodel *cm, const struct session *s,
			  const struct agg_snapshot *snap, struct model *m)
{
	struct proc_usage u;
	struct timespec boot;
	double now = cli_now_s(), hz = (double)sysconf(_SC_CLK_TCK);

	if (snap) {
		m->events_s =
			m->snap_s > 0 ? (double)snap->events / m->snap_s : 0;
		m->drops_total = snap->drops_total;
		session_kdrops(snap, true, m->kernel_lost,
			       sizeof(m->kernel_lost));
	}
	if (!s->pid || proc_usage(s->pid, &u))
		return;
	if (cm->last_s > 0 && now > cm->last_s)
		m->cpu_pct = (double)(u.cpu_ticks - cm->last_ticks) / hz /
			     (now - cm->last_s) * 100.0;
	cm->last_ticks = u.cpu_ticks;
	cm->last_s = now;
	m->rss_bytes = u.rss_bytes;
	clock_gettime(CLOCK_BOOTTIME, &boot);
	m->uptime_s = (double)boot.tv_sec - (double)u.start_ticks / hz;
}

/* -b: every process with a row named (session_pid_command()), in
 * m->pidcmds. */
static void update_pidcmds(struct session *s, const struct agg_snapshot *snap,
			   struct model *m)
{
	for (size_t i = 0; s->binary[0] && snap && i < snap->nspecs; i++)
		for (size_t r = 0; r < snap->specs[i].nrows; r++)
			session_pid_command(s, snap->specs[i].rows[r]->pid);
	m->pidcmds = s->pidcmds;
	m->npidcmds = s->npidcmds;
}

/* The attached specs of the picked probesets' [io] sections, in the
 * order of the files, into m->io_roles. */
static void io_roles(const struct session *s, struct model *m)
{
	int n = 0;

	for (int id = 0; id < SESSION_MAX_SPECS && n < MODEL_IO_ROLES; id++) {
		const struct session_spec *ss = &s->specs[id];

		if (ss->used && ss->role &&
		    !strcmp(ss->ps->sections[ss->role->section].name, "io"))
			m->io_roles[n++] = (struct model_role){
				.id = id, .ps = ss->ps, .spec = ss->role
			};
	}
	for (; n < MODEL_IO_ROLES; n++)
		m->io_roles[n] = (struct model_role){ .id = -1 };
}

/* The stack sampler that fits the target: CPython's, PHP's or Ruby's
 * frames where the pysample, phpsample or rubysample probeset can read
 * them, else the native stacks. */
static const char *stack_spec_of(const struct session *s)
{
	for (int i = 0; i < s->npicked; i++)
		if (!strcmp(s->picked[i]->name, "pysample"))
			return "profile:99=count(pystack)";
		else if (!strcmp(s->picked[i]->name, "phpsample"))
			return "profile:99=count(phpstack)";
		else if (!strcmp(s->picked[i]->name, "rubysample"))
			return "profile:99=count(rbstack)";
	return "profile:99=count(ustack)";
}

/* The reason a picked probeset gives for no frames, into out: its calls
 * fire only in a process started otherwise (PHP, Java), or its [frames]
 * empty = text while they are off (Ruby). false if none. */
static bool set_why(const struct session *s, const struct probeset *ps,
		    bool calls_on, char *out, size_t n)
{
	const struct ps_spec *c = probeset_spec(ps, "frames", "calls");
	int sec = probeset_section(ps, "frames");
	const struct ps_note *unmet;
	char raw[PS_TEXT_MAX + 200];

	if (!c)
		return false;
	unmet = session_unmet(s, c->spec.probe[0].provider,
			      c->spec.probe[0].name);
	if (unmet)
		snprintf(raw, sizeof(raw),
			 "%s counts calls only in a process started with %s, "
			 "and this one was not: restart it so, or sample its "
			 "stacks in Stacks (7)",
			 ps->title, unmet->requires_shown);
	else if (!calls_on && sec >= 0 && ps->sections[sec].empty[0])
		snprintf(raw, sizeof(raw), "%s", ps->sections[sec].empty);
	else
		return false;
	inert_str(out, n, raw);
	return true;
}

/* Top's sampled frames come from a probeset whose frames are named only
 * in a process started with what this one was not (erlsample without
 * +JPperf true): its unnamed = text into m->frames_why, over the rows. */
static void unnamed_why(const struct session *s, struct model *m)
{
	const struct probeset *ps = m->frames_samples.ps;

	if (!ps || !ps->unnamed[0] || session_frames_named(s, ps))
		return;
	inert_str(m->frames_why, sizeof(m->frames_why), ps->unnamed);
	m->frames_why_over = true;
}

/*
 * Why Top has no frames of the target's runtime and what would fill
 * them, into m->frames_why: a picked probeset's reason (set_why()), or,
 * when no picked probeset counts calls at all (a native program, a Node
 * built without probes), where to look instead: then only for an empty
 * Top (frames_why_any false).
 */
static void frames_why(const struct session *s, struct model *m)
{
	bool any_frames = false;

	m->frames_why[0] = '\0';
	m->frames_why_any = true;
	m->frames_why_over = false;
	m->stack_spec = stack_spec_of(s);
	if (m->frames_samples.id >= 0) { /* sampled frames fill Top */
		unnamed_why(s, m);
		return;
	}
	for (int i = 0; i < s->npicked; i++) {
		if (set_why(s, s->picked[i], m->frames_calls.id >= 0,
			    m->frames_why, sizeof(m->frames_why)))
			return;
		any_frames |= probeset_section(s->picked[i], "frames") >= 0;
	}
	if (any_frames || !s->detecting)
		return; /* -e, -P: what was asked for is on screen */
	m->frames_why_any = false;
	snprintf(m->frames_why, sizeof(m->frames_why),
		 "no probe of this process counts function calls: Stacks (7) "
		 "samples its stacks (a there)");
}

/* Whether role r counts calls with a probe this process cannot fire
 * (one that needs what it was not started with: PHP's USE_ZEND_DTRACE=1). */
static bool calls_unmet(const struct session *s, const struct model_role *r)
{
	return r->spec && session_unmet(s, r->spec->spec.probe[0].provider,
					r->spec->spec.probe[0].name);
}

void conmodel_update(struct conmodel *cm, struct session *s,
		     const struct agg_snapshot *snap, struct model *m)
{
	update_states(cm, s, snap, m);
	m->frames_calls = role(s, "frames", "calls");
	m->frames_samples = role(s, "frames", "samples");
	m->frames_latency = role(s, "frames", "latency");
	if (m->frames_samples.id >= 0 && calls_unmet(s, &m->frames_calls))
		m->frames_calls = (struct model_role){ .id = -1 };
	m->gc_pause = role(s, "gc", "pause");
	m->gc_collected = role(s, "gc", "collected");
	m->alloc = role(s, "alloc", "objects");
	frames_why(s, m);
	io_roles(s, m);
	m->io_on = s->io;
	m->io_off = s->io_off;
	m->io_off_pct = s->io_off_pct;
	m->io_off_syscall_ns = s->io_off_syscall_ns;
	m->proc_on = s->proc;
	update_header(cm, s, snap, m);
	update_pidcmds(s, snap, m);
}

/* The picker ----------------------------------------------------------- */

/* The probeset detected nearest the executable: PHP's probes are in php
 * itself, libstdc++'s (also mapped) in a library. "" if none. */
static const char *runtime_of(const struct catalog *cat,
			      const struct ps_list *sets)
{
	const char *best = "";
	int best_obj = -1;

	for (size_t k = 0; k < sets->n; k++) {
		for (int d = 0; d < sets->sets[k]->ndetect; d++) {
			int obj = catalog_find_probe(cat,
						     &sets->sets[k]->detect[d]);

			if (obj >= 0 && (best_obj < 0 || obj < best_obj)) {
				best = sets->sets[k]->name;
				best_obj = obj;
			}
		}
	}
	return best;
}

static int add_proc(struct conmodel *cm, struct objcache *cache, pid_t pid,
		    const struct ps_list *sets)
{
	struct catalog *cat = catalog_open_pid(cache, pid);
	struct model_proc *v, *p;
	struct proc_usage u;
	struct passwd *pw;
	char raw[sizeof(p->cmdline)];
	size_t n;

	if (!cat)
		return 0; /* gone, or a kernel thread */
	n = catalog_nprobes(cat);
	if (!n) {
		catalog_free(cat);
		return 0;
	}
	v = realloc(cm->procs, (cm->nprocs + 1) * sizeof(*v));
	if (!v) {
		catalog_free(cat);
		return -ENOMEM;
	}
	cm->procs = v;
	p = &v[cm->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->nprobes = n;
	/* shown and filtered on as the console shows them: inert */
	proc_comm(pid, raw, sizeof(p->comm));
	inert_str(p->comm, sizeof(p->comm), raw);
	proc_cmdline(pid, raw, sizeof(raw));
	inert_str(p->cmdline, sizeof(p->cmdline), raw);
	snprintf(p->runtime, sizeof(p->runtime), "%s", runtime_of(cat, sets));
	pw = !proc_usage(pid, &u) ? getpwuid(u.uid) : NULL;
	snprintf(p->user, sizeof(p->user), "%s", pw ? pw->pw_name : "?");
	catalog_free(cat);
	return 0;
}

int conmodel_procs(struct conmodel *cm, const struct ps_list *sets,
		   struct model *m)
{
	struct objcache *cache = objcache_new();
	DIR *d = opendir("/proc");
	struct dirent *e;
	int err = 0;

	cm->nprocs = 0;
	if (!cache || !d) {
		err = -ENOMEM;
		goto out;
	}
	while (!err && (e = readdir(d))) {
		pid_t pid = proc_parse_pid(e->d_name);

		if (pid > 0 && pid != getpid())
			err = add_proc(cm, cache, pid, sets);
	}
out:
	if (d)
		closedir(d);
	objcache_free(cache);
	m->procs = cm->procs;
	m->nprocs = cm->nprocs;
	return err;
}
