// SPDX-License-Identifier: MIT
/* siteprog — which program a spec's sites run; see siteprog.h. */
#include "siteprog.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>

#include "lateload.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "site.h"
#include "tracer_state.h"

/* The walker programs, by index, and the walkers each has. */
static const struct {
	const char *name;
	unsigned int walks;
} WALKS[SITEPROG_WALKS] = {
	{ "pt_walk_py", PT_WALK_PY }, { "pt_walk_php", PT_WALK_PHP },
	{ "pt_walk_rb", PT_WALK_RB }, { "pt_walk_native", PT_WALK_NATIVE },
	{ "pt_walk", PT_WALK_ALL },
};

void siteprog_defer(struct tracer *tr)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, tr->skel->obj)
	{
		if (!strncmp(bpf_program__name(p), "pt_walk", 7))
			bpf_program__set_autoload(p, false);
	}
}

int siteprog_family(const struct spec *sp)
{
	unsigned int walks = site_key_walks(sp);
	int i = 0;

	if (!walks)
		return 0;
	while (i < SITEPROG_WALKS - 1 && WALKS[i].walks != walks)
		i++; /* one family's program, else pt_walk's */
	return 1 + i;
}

int siteprog_index(const struct spec *sp)
{
	return sp->probe[0].hz ? -1 : siteprog_family(sp);
}

struct bpf_program *siteprog_of(struct tracer *tr, const struct spec *sp)
{
	int i = siteprog_index(sp) - 1, err;

	if (i < 0)
		return tr->skel->progs.pt_usdt;
	if (!tr->walk_prog[i] &&
	    (err = lateload(tr, WALKS[i].name, tr->multi, &tr->walk_obj[i],
			    &tr->walk_prog[i]))) {
		errno = -err;
		return NULL;
	}
	return tr->walk_prog[i];
}

void siteprog_fds(const struct tracer *tr, int *fds)
{
	for (int i = 0; i < SITEPROG_WALKS; i++)
		fds[i] = tr->walk_prog[i] ? bpf_program__fd(tr->walk_prog[i])
					  : -1;
}

void siteprog_free(struct tracer *tr)
{
	for (int i = 0; i < SITEPROG_WALKS; i++) {
		bpf_object__close(tr->walk_obj[i]);
		tr->walk_obj[i] = NULL;
		tr->walk_prog[i] = NULL;
	}
}
