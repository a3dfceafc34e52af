// SPDX-License-Identifier: MIT
/* rescan — new objects of a traced process, and its dynamic linker's
 * hold; see rescan.h. */
#include "rescan.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/types.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "attach.h"
#include "catalog.h"
#include "elfobj.h"
#include "forks.h"
#include "literals.h"
#include "log.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "tracer_impl.h"

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
	epoch = literals_epoch(tr); /* before the maps: literals.h */
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
	if (!fresh)
		return 0;
	cat = catalog_open_maps(tr->cache, tr->pid, &tr->maps);
	if (!cat)
		return -errno;
	err = tracer_keep_catalog(tr, cat);
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

int rescan_dl_hook(struct objcache *cache, const char *exe, char *interp,
		   size_t n, uint64_t *offset)
{
	struct catalog *cat = catalog_open_file(cache, exe);
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
	err = rescan_dl_hook(tr->cache, exe, interp, sizeof(interp), &offset);
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
