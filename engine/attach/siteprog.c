// SPDX-License-Identifier: MIT
/* siteprog — which program a spec's sites run; see siteprog.h. */
#include "siteprog.h"

#include <bpf/libbpf.h>

#include "lateload.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "site.h"
#include "tracer_state.h"

/* The walker programs, by index, and the walkers each has. */
static const char *const WALK_NAMES[SITEPROG_WALKS] = {
	"pt_walk_py", "pt_walk_php", "pt_walk_rb", "pt_walk_native", "pt_walk",
};
static const unsigned int WALKS[SITEPROG_WALKS] = {
	PT_WALK_PY, PT_WALK_PHP, PT_WALK_RB, PT_WALK_NATIVE, PT_WALK_ALL,
};

void siteprog_defer(struct tracer *tr)
{
	lateset_defer(tr, &tr->walks, WALK_NAMES, SITEPROG_WALKS);
}

int siteprog_family(const struct spec *sp)
{
	unsigned int walks = site_key_walks(sp);
	int i = 0;

	if (!walks)
		return 0;
	while (i < SITEPROG_WALKS - 1 && WALKS[i] != walks)
		i++; /* one family's program, else pt_walk's */
	return 1 + i;
}

int siteprog_index(const struct spec *sp)
{
	return sp->probe[0].hz ? -1 : siteprog_family(sp);
}

struct bpf_program *siteprog_of(struct tracer *tr, const struct spec *sp)
{
	int i = siteprog_index(sp) - 1;

	return i < 0 ? tr->skel->progs.pt_usdt
		     : lateset_get(tr, &tr->walks, i, tr->multi);
}

void siteprog_fds(const struct tracer *tr, int *fds)
{
	lateset_fds(&tr->walks, fds);
}

void siteprog_free(struct tracer *tr)
{
	lateset_free(&tr->walks);
}
