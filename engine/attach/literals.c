// SPDX-License-Identifier: MIT
/* literals — the read-only string table and touched literals; see
 * literals.h. */
#include "literals.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/types.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "needed.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "rescan.h"
#include "rostr.h"
#include "tracer_state.h"

uint32_t literals_epoch(const struct tracer *tr)
{
	return __atomic_load_n(&tr->skel->bss->ro_epoch, __ATOMIC_ACQUIRE);
}

void literals_install(struct tracer *tr, uint32_t epoch,
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
	err = needed_dl_hook(tr->cache, exe, interp, sizeof(interp), &offset);
	if (!err) {
		err = rescan_dl_hook(tr, tr->skel->progs.pt_dlmark, interp,
				     offset, &tr->ro_mark);
		if (err)
			return err;
		if (!tr->dl_interp)
			tr->dl_interp = strdup(interp); /* NULL: not followed */
	} else if (err != -ENOENT) { /* -ENOENT: static, nothing to load */
		return err;
	}
	tr->skel->bss->ro_pid = (uint32_t)tr->pid;
	tr->ro_exec = bpf_program__attach(tr->skel->progs.pt_ro_exec);
	if (!tr->ro_exec)
		return -errno;
	tr->ro_gen = 1;
	epoch = literals_epoch(tr);
	if (!proc_maps_read(tr->pid, &maps))
		literals_install(tr, epoch, &maps);
	proc_maps_free(&maps);
	return 0;
}

bool literals_ready(struct tracer *tr)
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
			bpf_link__destroy(tr->ro_exec);
			ulink_detach(&tr->ro_mark);
			tr->ro_exec = NULL;
		}
	}
	return tr->ro_state > 0;
}

#define TOUCH_MAX (256ULL << 20) /* bytes of literals made present */

/* Whether a spec reads strings: a string key, or Ruby's frames (rb_wanted),
 * whose C methods' names and some labels ("<main>") are libruby's
 * literals, kept as Strings that point at them. */
static bool reads_strings(const struct tracer *tr)
{
	if (tr->rb_wanted)
		return true;
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

void literals_touch(struct tracer *tr)
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
