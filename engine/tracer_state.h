/* SPDX-License-Identifier: MIT */
/*
 * tracer_state — struct tracer, private to the modules that implement
 * tracer.h: tracer.c (life cycle, the spec table, accessors), attach.c,
 * rescan.c, literals.c and forks.c. Nothing outside engine/ includes it;
 * a module that needs less (site.c, needed.c, watch.c) takes what it
 * needs as arguments instead.
 */
#ifndef PROBETOP_TRACER_STATE_H
#define PROBETOP_TRACER_STATE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lateload.h"
#include "mapsize.h"
#include "probetop.h"
#include "proc.h"
#include "rostr.h"
#include "site.h"
#include "siteprog.h"
#include "spec.h"
#include "tracer.h"
#include "trapkind.h"
#include "ulink.h"
#include "watch.h"

struct bpf_link;
struct catalog;
struct cat_object;
struct objcache;
struct probetop_bpf;
struct ring_buffer;
struct park_closer;
struct unwind;

/* One location a spec is attached at: its site (the cookie), and where
 * it is, for forks_sweep(). The uprobe is in one of the spec's links. */
struct attachment {
	uint32_t site;
	const struct cat_object *obj; /* where: for forks_sweep() */
	uint64_t probe; /* which: a hash of obj, provider and name */
	uint64_t offset, ref_ctr;
	bool restamp; /* a start's second probe (latency.bpf.h), not a
			 location of the spec's probe */
};

/* A link of a spec and the attachments its uprobes are at:
 * atts[first..first + n), uretprobes if ret. A parked spec's links have
 * l empty and keep the rest, to be attached again (park.h). */
struct tlink {
	struct ulink l;
	size_t first, n;
	bool ret;
	bool gone; /* could not be attached again (park_unpark()) */
	int clock_fd; /* profile:HZ: its CPU's clock (l.perf owns it) */
};

struct tspec {
	bool used;
	bool parked; /* its uprobes out for now (park.h) */
	struct spec spec;
	struct tracer_spec_info info;
	bool info_typed; /* key signedness taken from a first site */
	struct attachment *atts;
	size_t natts, cap;
	struct tlink *links; /* the uprobes of atts: one per object and role
				(uprobe_multi), or per location (perf) */
	size_t nlinks, lcap;
	uint64_t *probe_ids; /* distinct probes, for info.nprobes */
	size_t nprobe_ids;
};

struct seen {
	uint64_t dev, inode;
};

/* A mapping whose pages literals_touch() made present. */
struct touched {
	uint64_t start, end, inode;
};

struct seen_set {
	struct seen *v;
	size_t n;
};

struct tracer {
	enum tracer_kind kind;
	pid_t pid;
	char *path; /* TRACER_FILE */
	struct probetop_bpf *skel; /* loaded without pt_prof*, pt_walk*: */
	struct lateset walks; /* the pt_walk*, each loaded at the first spec
				 that needs it (siteprog.h) */
	struct lateset profs; /* the profile:HZ programs, by walker family
				 (siteprog_family()), likewise (profile.h) */
	double prof_due; /* when the clocks restart (profile_tick()) */
	unsigned int prof_seed; /* their rates and gaps */
	struct mapsize sizes; /* the aggregation maps' capacities */
	bool multi; /* sites attached by uprobe_multi (see ulink.h) */
	struct objcache *cache;
	struct catalog **cats; /* every catalog whose objects we use */
	size_t ncats;
	struct seen_set seen; /* objects every live spec was offered */
	unsigned int objs_gen; /* rescans that found a new object */
	struct proc_maps maps; /* TRACER_PID: as of the last rescan */
	struct tspec specs[PT_MAX_SPECS];
	unsigned int gens[PT_MAX_SPECS];
	int nspecs; /* highest used id + 1 */
	struct site_slots sites;
	struct watch watch; /* tracer_watch() */
	unsigned int hits_by; /* enum tracer_hits_by bits: pt_count_hits */
	struct ulink dl_link; /* pt_dlstop: tracer_hold_dlopen() */
	struct ring_buffer *dl_ring;
	bool dl_stopped; /* the process stopped in its dynamic linker, or at
			  * an exec() */
	char *dl_interp; /* the dynamic linker dl_link, ro_mark are on */
	struct bpf_link *exec_link; /* pt_execstop: rescan_start() */
	struct tracer_exec exec; /* as of the last rescan */
	int ro_state; /* literals_ready(): 0 not tried, 1 on, -1 not available */
	struct ro_set ro; /* the read-only ranges of the valid table */
	uint32_t ro_gen;
	struct bpf_link *ro_exec; /* pt_ro_exec */
	struct ulink ro_mark; /* pt_dlmark */
	struct bpf_link *fork_link; /* pt_forked: see forks_sweep() */
	struct bpf_link *lat_exit_link; /* pt_lat_exit, from the first latency */
	uint32_t forks; /* its count when last swept */
	struct park_closer *closer; /* park.h: closes parked links */
	struct pyframe *py; /* pyframe.h */
	bool py_wanted; /* a spec reads Python frames: set up its CPython */
	struct phpframe *php; /* phpframe.h */
	bool php_wanted; /* a spec reads PHP frames: set up its PHP */
	struct rbframe *rb; /* rbframe.h */
	bool rb_wanted; /* a spec reads Ruby frames: set up its Ruby */
	struct jvmframe *jvm; /* jvmframe.h */
	bool jvm_ready; /* the -p JVM set up (or given up on: jvmframe.h) */
	uint64_t jvm_code_next; /* when its code cache is read again (us,
				   monotonic: objects_jvm_code()) */
	struct touched *touched; /* literals_touch(): mappings made present */
	size_t ntouched;
	struct unwind *unwind; /* unwind.h: the kernel's unwind tables */
	bool v8_set; /* the process's V8 described in v8procs */
	bool v8_said; /* its V8 cannot be read: said once, not read again */
	bool beam_named; /* tracer_jit_named(): the BEAM's tables found */
	uint64_t beam_looked_ns; /* when they were last looked for */
};

#endif
