// SPDX-License-Identifier: MIT
/*
 * tracer — the tracer's life cycle, its table of specs and the accessors
 * of tracer.h. Compiling a spec for a location is site.c's, attaching it
 * to a catalog's objects attach.c's; following what the process maps
 * later is rescan.c's (with literals.c and forks.c), the kernel watches
 * are watch.c's; struct tracer is in tracer_state.h.
 *
 * Objects are visited once each: the tracer remembers every (dev, inode)
 * it has attached specs to, so a rescan only looks at what is new, and a
 * new spec is attached to everything seen so far. A site index is the
 * BPF cookie; site slots are recycled when their spec is removed.
 */
#include "tracer.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/capability.h>
#include <linux/types.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attach.h"
#include "catalog.h"
#include "cost.h"
#include "cputime.h"
#include "elfobj.h"
#include "forks.h"
#include "literals.h"
#include "jvmmap.h"
#include "log.h"
#include "mapsize.h"
#include "needed.h"
#include "objects.h"
#include "park.h"
#include "profile.h"
#include "phpframe.h"
#include "jvmframe.h"
#include "pyframe.h"
#include "rbframe.h"
#include "siteprog.h"
#include "runtimes.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "proc.h"
#include "rescan.h"
#include "tracer_state.h"
#include "ulink.h"
#include "unwind.h"
#include "watch.h"

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
_Static_assert(sizeof(struct pt_hist) >= sizeof(struct pt_stat) &&
		       sizeof(struct pt_hist) >= sizeof(struct pt_count),
	       "tracer_remove() zeroes any per-CPU value with pt_hist's size");
_Static_assert(sizeof(struct pt_hist) >= sizeof(struct pt_aslot),
	       "tracer_remove() zeroes address slots with pt_hist's size");

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
	uint64_t room;
	int err;

	if (!may_trace())
		return -EPERM;
	tr->skel = probetop_bpf__open();
	if (!tr->skel)
		return -errno;
	err = size_maps(tr, aggsize);
	if (err)
		return err;
	if (!proc_memcg_room(&room) && tr->sizes.bytes > room)
		return -ENOMEM; /* said as the kernel's would be, before its
				   memory-cgroup OOM killer can take us */
	tr->multi = ulink_multi_supported();
	if (tr->multi) {
		ulink_prepare(tr->skel->progs.pt_usdt);
		ulink_prepare(tr->skel->progs.pt_calib);
		ulink_prepare(tr->skel->progs.pt_calib_in);
		ulink_prepare(tr->skel->progs.pt_calib_out);
		/* the dynamic linker's hooks: closing a perf-event uprobe
		 * takes a lock every other such close waits for */
		ulink_prepare(tr->skel->progs.pt_dlstop);
		ulink_prepare(tr->skel->progs.pt_dlmark);
	}
	profile_defer(tr); /* the samples' programs: at their first spec */
	siteprog_defer(tr); /* the walkers: at their first spec */
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
	double t;

	if (!tr) {
		log_msg(LOG_ERROR, "out of memory");
		return NULL;
	}
	libbpf_set_print(libbpf_log);
	tr->kind = kind;
	tr->pid = kind == TRACER_PID ? pid : 0;
	tr->dl_link = tr->ro_mark = (struct ulink){ -1, NULL };
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
	t = cputime_clock_s(CLOCK_MONOTONIC);
	err = load_programs(tr, aggsize ? aggsize : MAPSIZE_DEFAULT);
	log_msg(LOG_DEBUG, "start: the BPF object loaded in %.0f ms",
		1e3 * (cputime_clock_s(CLOCK_MONOTONIC) - t));
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
		err = objects_keep(tr, cat);
		cat = NULL;
		if (err)
			goto fail;
	}
	tr->py = pyframe_new(
		bpf_map__fd(tr->skel->maps.pyprocs),
		bpf_map__fd(tr->skel->maps.pystacks),
		bpf_map__fd(tr->skel->maps.pynew),
		(const volatile uint64_t *)&tr->skel->bss->py_names_lost);
	tr->php = phpframe_new(
		bpf_map__fd(tr->skel->maps.phpprocs),
		bpf_map__fd(tr->skel->maps.phpstacks),
		bpf_map__fd(tr->skel->maps.phpnew),
		(const volatile uint64_t *)&tr->skel->bss->php_names_lost);
	tr->rb = rbframe_new(
		bpf_map__fd(tr->skel->maps.rbprocs),
		bpf_map__fd(tr->skel->maps.rbstacks),
		bpf_map__fd(tr->skel->maps.rbnew),
		(const volatile uint64_t *)&tr->skel->bss->rb_names_lost);
	tr->jvm = jvmframe_new();
	if (!tr->py || !tr->php || !tr->rb || !tr->jvm) {
		err = -ENOMEM;
		goto fail;
	}
	cost_calibrate_start(&(struct cost_calib){
		.empty = tr->skel->progs.pt_calib,
		.in = tr->skel->progs.pt_calib_in,
		.out = tr->skel->progs.pt_calib_out,
		.t0 = (volatile uint64_t *)&tr->skel->bss->calib_t0,
		.n = (volatile uint64_t *)&tr->skel->bss->calib_n,
		.min = (volatile uint64_t *)&tr->skel->bss->calib_min,
		.cap = (volatile uint64_t *)&tr->skel->bss->calib_cap,
		.sum = (volatile uint64_t *)&tr->skel->bss->calib_sum,
		.multi = tr->multi,
	});
	if (kind == TRACER_PID && tr->multi)
		forks_start(tr);
	if (kind == TRACER_PID)
		rescan_start(tr);
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
	park_forget(tr, ts);
	for (size_t i = 0; i < ts->nlinks; i++)
		ulink_detach(&ts->links[i].l);
	for (size_t i = 0; i < ts->natts; i++)
		tr->sites.used[ts->atts[i].site] = 0;
	free(ts->links);
	free(ts->atts);
	free(ts->probe_ids);
	memset(ts, 0, sizeof(*ts));
}

void tracer_free(struct tracer *tr)
{
	double t = cputime_clock_s(CLOCK_MONOTONIC);

	if (!tr)
		return;
	/* each close waits out a grace period (some 50 ms): parked, the
	 * specs' links are closed by park's threads side by side (33 links
	 * of -b postgres took 1.7 s one after the other) */
	for (int i = 0; i < tr->nspecs; i++)
		if (tr->specs[i].used)
			park_spec(tr, &tr->specs[i]);
	for (int i = 0; i < tr->nspecs; i++)
		if (tr->specs[i].used)
			detach_spec(tr, &tr->specs[i]);
	/* the dynamic linker's hooks too (each close a grace period: 0.11 s
	 * each, one after the other, once the command had exited) */
	park_close_link(tr, &tr->ro_mark);
	park_close_link(tr, &tr->dl_link);
	park_free(tr); /* every link closed before the programs go */
	cost_calibrate_wait(); /* its links too */
	log_msg(LOG_DEBUG, "end: every uprobe out in %.0f ms",
		1e3 * (cputime_clock_s(CLOCK_MONOTONIC) - t));
	watch_free(&tr->watch);
	bpf_link__destroy(tr->ro_exec);
	bpf_link__destroy(tr->fork_link);
	bpf_link__destroy(tr->lat_exit_link);
	bpf_link__destroy(tr->exec_link);
	if (tr->dl_ring) /* its hook out: it cannot stop it again */
		kill(tr->pid, SIGCONT); /* never leave it stopped */
	ring_buffer__free(tr->dl_ring);
	free(tr->dl_interp);
	profile_free(tr);
	siteprog_free(tr);
	probetop_bpf__destroy(tr->skel);
	jvmmap_clean();
	unwind_free(tr);
	pyframe_free(tr->py);
	phpframe_free(tr->php);
	rbframe_free(tr->rb);
	jvmframe_free(tr->jvm);
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

/* Files a launched command will map --------------------------------- */

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
	err = objects_keep(tr, cat);
	if (err)
		return err;
	err = attach_catalog(tr, cat, -1, &tr->seen);
	return err < 0 ? err : 0;
}

/* needed_add_fn for tracer_add_command_files(): tracer_add_file(), and
 * the object if it is new and ELF. */
static int add_command_file(const char *path, const struct cat_object **obj,
			    void *ctx)
{
	struct tracer *tr = ctx;
	const struct cat_object *o;
	int err = tracer_add_file(tr, path);

	if (err)
		return err;
	o = catalog_object(tr->cats[tr->ncats - 1], 0);
	if (o && o->elf && !strcmp(o->path, path))
		*obj = o;
	return 0;
}

int tracer_add_command_files(struct tracer *tr, const char *exe)
{
	return needed_walk(exe, add_command_file, tr);
}

/* Specs ------------------------------------------------------------- */

/* Whether spec counts (or sums) by one str() key on one process: its
 * events may go to address slots (struct pt_aslot). */
static bool aslot_spec(const struct tracer *tr, const struct spec *sp)
{
	return tr->kind == TRACER_PID && !sp->timed && sp->nkeys == 1 &&
	       sp->keys[0].kind == SPEC_KEY_STR &&
	       (sp->agg == SPEC_AGG_COUNT || sp->agg == SPEC_AGG_SUM);
}

/*
 * Before the first latency spec attaches: pt_lat_exit, which frees the
 * (thread, spec) stacks of every thread that exits (latency.bpf.h). It
 * stays attached until the tracer is freed; a tracer without latency
 * specs never pays for it. Attached before the spec's own sites, so that
 * no thread makes a stack before its exit is watched. Without it (a
 * kernel that refuses) pairs still work, but the stacks of ended threads
 * stay until the map is full: said once.
 */
static void lat_exit_start(struct tracer *tr)
{
	if (tr->lat_exit_link)
		return;
	tr->lat_exit_link = bpf_program__attach(tr->skel->progs.pt_lat_exit);
	if (!tr->lat_exit_link)
		log_msg(LOG_WARN,
			"cannot attach pt_lat_exit (%s): latency starts of "
			"threads that end are not freed",
			strerror(errno));
}

/* Whether a key of spec is read from CPython (pyframe, pystack,
 * mixstack ...). */
static bool spec_reads_python(const struct spec *spec)
{
	for (int i = 0; i < spec->nkeys; i++)
		if (spec_key_is_py(&spec->keys[i]))
			return true;
	return false;
}

/* Whether a key of spec is the native user stack (unwind.h): ustack,
 * jitframe (one frame of it), or mixstack's native half. */
static bool spec_walks_ustack(const struct spec *spec)
{
	for (int i = 0; i < spec->nkeys; i++)
		if (spec->keys[i].kind == SPEC_KEY_USTACK ||
		    spec->keys[i].kind == SPEC_KEY_JITFRAME ||
		    spec->keys[i].kind == SPEC_KEY_MIXSTACK)
			return true;
	return false;
}

/* A spec reads Python frames: set up the process's CPython, now or when it
 * appears. 0 or -EINVAL (-b: no one process). */
static int python_wanted(struct tracer *tr)
{
	if (tr->kind != TRACER_PID)
		return -EINVAL; /* -b: its caller says why (session_add()) */
	tr->py_wanted = true;
	objects_py_setup(tr);
	return 0;
}

bool tracer_py_readable(struct tracer *tr)
{
	const struct cat_object *objs[512];
	size_t n;
	int err;

	if (tr->kind != TRACER_PID)
		return false;
	n = tracer_objects(tr, objs, sizeof(objs) / sizeof(objs[0]));
	err = pyframe_setup(tr->py, tr->pid, objs, n, &tr->maps);
	return err != -ENOTSUP && err != -ENOSPC;
}

struct pyframe *tracer_pyframe(const struct tracer *tr)
{
	return tr->py;
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
	site_key_slots(&ts->info);
	ts->info.site_prog = siteprog_index(spec);
	if (tr->kind == TRACER_PID && !spec->nkeys)
		ts->info.solo_pid = tr->pid;
	if (aslot_spec(tr, spec) && literals_ready(tr))
		ts->info.aslot_pid = tr->pid;
	if (id >= tr->nspecs)
		tr->nspecs = id + 1;
	if (spec->timed)
		lat_exit_start(tr);
	if (spec_walks_ustack(spec)) {
		unwind_start(tr);
		objects_v8_setup(tr); /* Node: its JavaScript frames */
		objects_jvm_setup(tr); /* before a frame */
	}
	if (spec->probe[0].hz)
		err = profile_attach(tr, ts, id);
	if (err >= 0 && spec_reads_python(spec))
		err = python_wanted(tr);
	if (err >= 0)
		err = runtimes_wanted(tr, spec);
	for (size_t c = 0; c < tr->ncats && err >= 0 && !spec->probe[0].hz; c++)
		err = attach_catalog(tr, tr->cats[c], id, &visited);
	free(visited.v);
	if (err < 0) {
		tracer_remove(tr, id);
		return err;
	}
	if (tr->kind == TRACER_PID)
		literals_touch(tr);
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

/* Accessors --------------------------------------------------------- */

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

bool tracer_has_probe(const struct tracer *tr, const struct spec_probe *p)
{
	const struct cat_object *objs[512];
	size_t n;
	uint64_t addr;

	if (!p->fn) {
		for (size_t c = 0; c < tr->ncats; c++)
			if (catalog_has_probe(tr->cats[c], p))
				return true;
		return false;
	}
	n = tracer_objects(tr, objs, sizeof(objs) / sizeof(objs[0]));
	for (size_t i = 0; i < n; i++)
		if (spec_object_matches(p, objs[i]->path) &&
		    !catalog_symbol_addr(objs[i], p->name, &addr))
			return true;
	return false;
}

int tracer_watch(struct tracer *tr, pid_t pid, unsigned int what)
{
	/* the IO watch times the syscall tax as it starts: not while the
	 * calibration's traps run on another CPU (each dearer then) */
	if (what & PT_WATCH_IO)
		cost_calibrate_wait();
	return watch_add(&tr->watch, tr->skel, pid, what);
}

void tracer_unwatch_io(struct tracer *tr)
{
	watch_drop_io(&tr->watch);
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

pid_t tracer_target_pid(const struct tracer *tr)
{
	return tr->kind == TRACER_PID ? tr->pid : 0;
}
