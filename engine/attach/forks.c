// SPDX-License-Identifier: MIT
/* forks — take inherited breakpoints out of forked children; see
 * forks.h. */
#include "forks.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/types.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attach.h"
#include "catalog.h"
#include "log.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "tracer_state.h"
#include "ulink.h"

void forks_start(struct tracer *tr)
{
	tr->skel->bss->fork_pid = (uint32_t)tr->pid;
	tr->fork_link = bpf_program__attach(tr->skel->progs.pt_forked);
	if (!tr->fork_link)
		log_msg(LOG_WARN,
			"cannot follow forks (%s): processes %d forks "
			"will keep its breakpoints",
			strerror(errno), (int)tr->pid);
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
	attach_path(tr->pid, atts[0]->obj, &tr->maps, path, sizeof(path));
	err = ulink_sweep(tr->pid, path, offs, refs, n);
	if (err)
		log_msg(LOG_WARN,
			"%s: cannot take the breakpoints out of what %d "
			"forked: %s",
			atts[0]->obj->path, (int)tr->pid, strerror(-err));
}

void forks_sweep(struct tracer *tr)
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
