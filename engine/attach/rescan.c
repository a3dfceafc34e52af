// SPDX-License-Identifier: MIT
/* rescan — new objects of a traced process, and its dynamic linker's
 * hold; see rescan.h. */
#include "rescan.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/types.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "attach.h"
#include "catalog.h"
#include "elfobj.h"
#include "forks.h"
#include "jvmcode.h"
#include "literals.h"
#include "log.h"
#include "needed.h"
#include "objects.h"
#include "proc.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "phpframe.h"
#include "pyframe.h"
#include "rbframe.h"
#include "tracer_state.h"
#include "unwind.h"

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

/* Attach every live spec to the objects of tr->maps not seen yet. The
 * number of new sites or a negative errno. */
static int attach_new(struct tracer *tr)
{
	struct catalog *cat = catalog_open_maps(tr->cache, tr->pid, &tr->maps);
	int n, err;

	if (!cat)
		return -errno;
	err = objects_keep(tr, cat);
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

static bool is_mapped(const struct proc_maps *m, const struct cat_object *obj)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->maps[i].perms[2] == 'x' &&
		    m->maps[i].inode == obj->inode &&
		    makedev(m->maps[i].dev_major, m->maps[i].dev_minor) ==
			    obj->dev)
			return true;
	return false;
}

size_t tracer_mapped_probes(const struct tracer *tr)
{
	size_t total = 0;

	for (int s = 0; s < tr->nspecs; s++) {
		const struct tspec *ts = &tr->specs[s];

		for (size_t i = 0; ts->used && i < ts->natts; i++) {
			size_t j = 0;

			if (!is_mapped(&tr->maps, ts->atts[i].obj))
				continue;
			while (j < i && ts->atts[j].probe != ts->atts[i].probe)
				j++;
			total += j == i;
		}
	}
	return total;
}

int rescan_dl_hook(struct tracer *tr, struct bpf_program *prog,
		   const char *interp, uint64_t offset, struct ulink *out)
{
	return ulink_attach(prog, tr->multi, tr->pid, interp, offset, 0, 0,
			    false, out);
}

/* Move a uprobe link of prog from the old dynamic linker to interp, or
 * make it there if there was none and it is wanted. */
static void move_link(struct tracer *tr, struct ulink *link,
		      struct bpf_program *prog, const char *interp,
		      uint64_t offset, bool wanted)
{
	int err;

	if (link->fd < 0 && !link->perf && !wanted)
		return;
	ulink_detach(link);
	err = rescan_dl_hook(tr, prog, interp, offset, link);
	if (err)
		log_msg(LOG_WARN, "%s: cannot attach to _dl_debug_state: %s",
			interp, strerror(-err));
}

/*
 * After an exec: the hooks on the dynamic linker (the hold, the range
 * table's mark) follow the new image's, when that is another; after a
 * static image, whose exec is held, they are made (the hold of a
 * launched command, the mark where the range table is on).
 */
static void follow_interp(struct tracer *tr)
{
	bool held = tr->skel->bss->exec_hold;
	char exe[64], interp[PATH_MAX];
	uint64_t offset;
	char *dup;

	if (!tr->dl_interp && !held)
		return;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)tr->pid);
	if (needed_dl_hook(tr->cache, exe, interp, sizeof(interp), &offset) ||
	    (tr->dl_interp && !strcmp(interp, tr->dl_interp)))
		return; /* static (the old hooks are harmless), or the same */
	dup = strdup(interp);
	if (!dup)
		return;
	free(tr->dl_interp);
	tr->dl_interp = dup;
	move_link(tr, &tr->dl_link, tr->skel->progs.pt_dlstop, interp, offset,
		  held);
	move_link(tr, &tr->ro_mark, tr->skel->progs.pt_dlmark, interp, offset,
		  tr->ro_state > 0);
}

/* The process exec()ed since the last rescan (execs is the kernel's
 * count): what it runs now, for tracer_exec(). */
static void note_exec(struct tracer *tr, uint32_t execs)
{
	tr->exec.count = execs;
	if (proc_exe(tr->pid, tr->exec.path, sizeof(tr->exec.path)))
		snprintf(tr->exec.path, sizeof(tr->exec.path), "?");
	follow_interp(tr);
}

/* The JVM's compiled frames to the kernel's walk, when its code cache
 * was read again. */
static void jit_sync(struct tracer *tr)
{
	const struct jvmcode *c = objects_jvm_code(tr);
	struct unwind_span spans[JVMCODE_HEAPS];

	if (!c)
		return;
	for (size_t i = 0; i < c->nheaps; i++)
		spans[i] = (struct unwind_span){ c->heap[i].lo, c->heap[i].hi };
	unwind_jit(tr, spans, c->nheaps, c->lo, c->rows, c->n);
}

/* tracer_rescan() without the dynamic linker's hold. */
static int rescan_maps(struct tracer *tr)
{
	struct proc_maps maps = { 0 };
	uint32_t epoch, execs;
	bool fresh;
	int n = 0, err;

	if (tr->kind != TRACER_PID)
		return 0;
	epoch = literals_epoch(tr); /* before the maps: literals.h */
	execs = __atomic_load_n(&tr->skel->bss->execs, __ATOMIC_ACQUIRE);
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
		literals_install(tr, epoch, &tr->maps);
	literals_touch(tr);
	forks_sweep(tr);
	if (n >= 0 && execs != tr->exec.count) {
		note_exec(tr, execs);
		pyframe_forget(tr->py, tr->pid); /* another program now */
		phpframe_forget(tr->php, tr->pid);
		rbframe_forget(tr->rb, tr->pid);
		objects_jvm_forget(tr);
		unwind_jit(tr, NULL, 0, 0, NULL, 0);
		objects_v8_forget(tr);
	}
	if (fresh) {
		n = attach_new(tr);
		tr->objs_gen++;
	}
	objects_py_setup(tr);
	objects_php_setup(tr);
	objects_rb_setup(tr);
	unwind_sync(tr);
	objects_v8_setup(tr);
	if (tr->unwind) {
		objects_jvm_setup(tr); /* java loaded libjvm.so */
		jit_sync(tr);
	}
	return n;
}

void rescan_start(struct tracer *tr)
{
	tr->skel->bss->exec_pid = (uint32_t)tr->pid;
	tr->exec_link = bpf_program__attach(tr->skel->progs.pt_execstop);
	if (!tr->exec_link)
		log_msg(LOG_WARN,
			"cannot follow the exec()s of %d (%s): a new program "
			"is found by the periodic rescan, unsaid",
			(int)tr->pid, strerror(errno));
}

const struct tracer_exec *tracer_exec(const struct tracer *tr)
{
	return &tr->exec;
}

void tracer_resume(struct tracer *tr)
{
	if (tr->dl_stopped) {
		tr->dl_stopped = false;
		kill(tr->pid, SIGCONT);
	}
}

unsigned int tracer_objects_gen(const struct tracer *tr)
{
	return tr->objs_gen;
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

/* The ring both holds report on, once. 0 or a negative errno. */
static int open_ring(struct tracer *tr)
{
	if (tr->dl_ring)
		return 0;
	tr->dl_ring = ring_buffer__new(bpf_map__fd(tr->skel->maps.dl_events),
				       dl_event, tr, NULL);
	return tr->dl_ring ? 0 : -errno;
}

int tracer_hold_exec(struct tracer *tr)
{
	int err;

	if (tr->kind != TRACER_PID || !tr->exec_link)
		return -EINVAL;
	err = open_ring(tr);
	if (err)
		return err;
	tr->skel->bss->exec_hold = 1;
	return 0;
}

int tracer_hold_dlopen(struct tracer *tr, const char *exe)
{
	char interp[PATH_MAX];
	uint64_t offset;
	int err;

	if (tr->kind != TRACER_PID || tr->dl_link.fd >= 0 || tr->dl_link.perf)
		return -EINVAL;
	err = needed_dl_hook(tr->cache, exe, interp, sizeof(interp), &offset);
	if (err) {
		if (err != -ENOENT)
			log_msg(LOG_WARN, "%s: no dynamic linker hook: %s", exe,
				strerror(-err));
		return err == -ENOENT ? 0 : err; /* static: nothing to hold */
	}
	err = open_ring(tr);
	if (err)
		return err;
	free(tr->dl_interp);
	tr->dl_interp = strdup(interp);
	if (!tr->dl_interp)
		return -ENOMEM;
	err = rescan_dl_hook(tr, tr->skel->progs.pt_dlstop, interp, offset,
			     &tr->dl_link);
	if (err) {
		free(tr->dl_interp);
		tr->dl_interp = NULL;
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
