// SPDX-License-Identifier: MIT
/*
 * rostr — the read-only ranges of a target; see rostr.h.
 */
#include "rostr.h"

#include <string.h>
#include <sys/sysmacros.h>

#include "proc.h"

static bool same_file(const struct proc_map *a, const struct proc_map *b)
{
	return a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->inode == b->inode;
}

/* Whether the file of maps->maps[i] has an executable mapping. */
static bool runs_code(const struct proc_maps *maps, size_t i)
{
	for (size_t j = 0; j < maps->n; j++)
		if (maps->maps[j].perms[2] == 'x' &&
		    same_file(&maps->maps[i], &maps->maps[j]))
			return true;
	return false;
}

void ro_set_from_maps(const struct proc_maps *maps, struct ro_set *out)
{
	const struct proc_map *prev = NULL;

	out->n = 0;
	for (size_t i = 0; i < maps->n; i++) {
		const struct proc_map *m = &maps->maps[i];
		struct ro_range *r = out->n ? &out->r[out->n - 1] : NULL;

		if (m->perms[0] != 'r' || m->perms[1] != '-' ||
		    m->perms[3] != 'p' || !runs_code(maps, i)) {
			prev = NULL;
			continue;
		}
		if (r && prev && same_file(prev, m) && r->hi == m->start) {
			r->hi = m->end;
		} else if (out->n < PT_RO_RANGES) {
			out->r[out->n++] = (struct ro_range){
				.lo = m->start,
				.hi = m->end,
				.offset = m->offset,
				.dev = makedev(m->dev_major, m->dev_minor),
				.inode = m->inode,
			};
		} else {
			return;
		}
		prev = m;
	}
}

bool ro_map_holds_literals(const struct proc_maps *maps, size_t i)
{
	const char *perms = maps->maps[i].perms;

	return !strcmp(perms, "r--p") && runs_code(maps, i);
}

bool ro_set_kept(const struct ro_set *old, const struct ro_set *new)
{
	for (size_t i = 0; i < old->n; i++) {
		bool found = false;

		for (size_t j = 0; j < new->n && !found; j++)
			found = !memcmp(&old->r[i], &new->r[j],
					sizeof(old->r[i]));
		if (!found)
			return false;
	}
	return true;
}

/* A program that read t->epoch before and after its search used a table
 * that did not change under it (PT_RO_WRITING in between). */
void ro_set_table(const struct ro_set *set, uint32_t epoch, uint32_t gen,
		  struct pt_ro *t)
{
	__atomic_store_n(&t->epoch, PT_RO_WRITING, __ATOMIC_RELEASE);
	t->n = (uint32_t)set->n;
	t->gen = gen;
	for (size_t i = 0; i < set->n; i++) {
		t->lo[i] = set->r[i].lo;
		t->hi[i] = set->r[i].hi;
	}
	__atomic_store_n(&t->epoch, epoch, __ATOMIC_RELEASE);
}
