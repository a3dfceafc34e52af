/* SPDX-License-Identifier: MIT */
/*
 * rostr — where a one-process target's strings cannot change: the
 * private, read-only mappings of the files it runs code from (its
 * executable, its interpreter and shared libraries, whose literals are
 * what probes mostly pass). A string there stays the same for as long as
 * the mapping does, so the kernel side reads it once per address (struct
 * pt_aslot) rather than at every event. These functions turn the
 * target's maps into the table the BPF programs search (struct pt_ro).
 */
#ifndef PROBETOP_ROSTR_H
#define PROBETOP_ROSTR_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probetop.h"

struct proc_maps;

/* One range: [lo, hi) of the file (dev, inode) from offset on. */
struct ro_range {
	uint64_t lo, hi, offset, dev, inode;
};

struct ro_set {
	struct ro_range r[PT_RO_RANGES];
	size_t n;
};

/*
 * The read-only ranges of maps (sorted by address, as /proc gives them):
 * private mappings without write permission of each file that also has
 * an executable mapping there (data files a program maps and unmaps
 * itself are left out); neighbours of one file merged. At most
 * PT_RO_RANGES, the lowest.
 */
void ro_set_from_maps(const struct proc_maps *maps, struct ro_set *out);

/*
 * Whether maps->maps[i] is where a file's literals live: a private,
 * read-only mapping, not executable, of a file the target also runs code
 * from (its .rodata and the like).
 */
bool ro_map_holds_literals(const struct proc_maps *maps, size_t i);

/* Whether every range of old is in new, same bounds, file and offset:
 * then a string read at an address of old still reads the same. */
bool ro_set_kept(const struct ro_set *old, const struct ro_set *new);

/* Write set into the BPF table t, valid for epoch, of generation gen. */
void ro_set_table(const struct ro_set *set, uint32_t epoch, uint32_t gen,
		  struct pt_ro *t);

#endif
