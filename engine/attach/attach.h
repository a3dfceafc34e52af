/* SPDX-License-Identifier: MIT */
/*
 * attach — walk a catalog's objects and attach specs there: for each
 * object and spec, every USDT location (or function entry/return) the
 * spec's probes match becomes a site (site.h), recorded in the spec's
 * attachments; distinct probes are counted in its info.nprobes. The
 * sites of one role of a spec in one object get their uprobes from one
 * uprobe_multi link (ulink_attach_many()), so that removing the spec
 * costs one kernel wait, not one per location; on perf-event uprobes,
 * or when the kernel refuses that link, each its own (ulink_attach()).
 * A location that cannot be used is logged, counted in info.nskipped
 * and skipped. Called by tracer.c (tracer_add(), tracer_add_file()) and
 * rescan.c; attach_site() by profile.c too.
 */
#ifndef PROBETOP_ATTACH_H
#define PROBETOP_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct attachment;
struct bpf_program;
struct catalog;
struct cat_object;
struct proc_maps;
struct seen_set;
struct tracer;
struct ulink;

/*
 * Attach specs (one id, or all when id < 0) to every object of cat not in
 * *visited, adding each to it. Returns the number of new sites or a
 * negative errno.
 */
int attach_catalog(struct tracer *tr, const struct catalog *cat, int id,
		   struct seen_set *visited);

/*
 * Put site (built for spec ts) in the sites map at a free index, *idx,
 * the BPF cookie its uprobes or perf events are to carry. 0 or a negative
 * errno (-ENOSPC: no index left, logged).
 */
struct pt_site;
struct tspec;
int attach_site(struct tracer *tr, const struct tspec *ts,
		const struct pt_site *site, uint32_t *idx);

/* atts[0..n) of one object, at path, in one uprobe_multi link of prog,
 * their sites the cookies (ulink_attach_many()): the attach walk's
 * batches and park's links attached again. 0 and *link filled, or a
 * negative errno. */
int attach_many(struct bpf_program *prog, pid_t pid, const char *path,
		const struct attachment *atts, size_t n, bool ret,
		struct ulink *link);

/* The path to attach at for an object: the file itself for TRACER_FILE
 * and launched files (maps NULL); for process pid, its map_files link,
 * which names the inode the process really maps (deleted files, other
 * mount namespaces). Into buf, n bytes. */
void attach_path(pid_t pid, const struct cat_object *obj,
		 const struct proc_maps *maps, char *buf, size_t n);

#endif
