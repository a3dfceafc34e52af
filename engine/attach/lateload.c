// SPDX-License-Identifier: MIT
/* lateload — a program loaded at its first need; see lateload.h. */
#include "lateload.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>

#include "log.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "tracer_state.h"
#include "ulink.h"

/* Every map of obj the one of the same name of tr's object. 0 or a
 * negative errno. */
static int reuse_maps(struct tracer *tr, struct bpf_object *obj)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj)
	{
		const struct bpf_map *live = bpf_object__find_map_by_name(
			tr->skel->obj, bpf_map__name(m));
		int err = live ? bpf_map__reuse_fd(m, bpf_map__fd(live))
			       : -ENOENT;

		if (err)
			return err;
	}
	return 0;
}

/* Load program name of tr's object alone, on tr's maps (multi: to be
 * attached by uprobe_multi links), into *obj and *prog. 0 or a negative
 * errno (logged). */
static int lateload(struct tracer *tr, const char *name, bool multi,
		    struct bpf_object **obj, struct bpf_program **prog)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, /* maps named as skel's */
		    .object_name = bpf_object__name(tr->skel->obj));
	size_t sz;
	const void *elf = probetop_bpf__elf_bytes(&sz);
	struct bpf_object *o = bpf_object__open_mem(elf, sz, &opts);
	struct bpf_program *p;
	int err;

	if (!o)
		return -errno;
	bpf_object__for_each_program(p, o)
	{
		bpf_program__set_autoload(p,
					  !strcmp(bpf_program__name(p), name));
	}
	p = bpf_object__find_program_by_name(o, name);
	err = p ? reuse_maps(tr, o) : -ENOENT;
	if (!err && multi)
		ulink_prepare(p);
	if (!err)
		err = bpf_object__load(o);
	if (err) {
		bpf_object__close(o);
		log_msg(LOG_ERROR, "cannot load %s: %s", name, strerror(-err));
		return err;
	}
	*obj = o;
	*prog = p;
	return 0;
}

void lateset_defer(struct tracer *tr, struct lateset *s,
		   const char *const *names, int n)
{
	s->names = names;
	s->n = n;
	for (int i = 0; i < n; i++)
		bpf_program__set_autoload(bpf_object__find_program_by_name(
						  tr->skel->obj, names[i]),
					  false);
}

struct bpf_program *lateset_get(struct tracer *tr, struct lateset *s, int i,
				bool multi)
{
	int err;

	if (!s->prog[i] &&
	    (err = lateload(tr, s->names[i], multi, &s->obj[i], &s->prog[i]))) {
		errno = -err;
		return NULL;
	}
	return s->prog[i];
}

void lateset_fds(const struct lateset *s, int *fds)
{
	for (int i = 0; i < s->n; i++)
		fds[i] = s->prog[i] ? bpf_program__fd(s->prog[i]) : -1;
}

void lateset_free(struct lateset *s)
{
	for (int i = 0; i < s->n; i++) {
		bpf_object__close(s->obj[i]);
		s->obj[i] = NULL;
		s->prog[i] = NULL;
	}
}
