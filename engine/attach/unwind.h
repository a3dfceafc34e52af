/* SPDX-License-Identifier: MIT */
/*
 * unwind — the unwind tables a tracer keeps in the kernel, for the
 * walker of engine/bpf/unwind.bpf.h (issue 34).
 *
 * Once a spec has a ustack key, every executable object of the target
 * gets its table (engine/find/ehframe.c): its rows written into one
 * range of the urows array, the range found in uobjs by the file's
 * device and inode. A table is loaded once however many holders it has
 * (the -p process's mappings; under -b the file, the libraries it needs
 * and the vDSO, for every process) and freed with its last holder, when
 * a rescan finds the object unmapped. The -p process's executable
 * mappings are written to uprocs (sorted, each with its rows), so that
 * its walks need no bpf_find_vma().
 *
 * The array is sized by mapsize.c (MAPSIZE_UROWS). An object whose rows
 * do not fit is said once and counted, and its frames are walked by
 * frame pointer; so are those of objects without tables (not ELF, no
 * unwind section, a broken one: said by ehframe.c).
 *
 * PROBETOP_UNWIND=fp leaves the tables off: user stacks are walked by
 * frame pointer alone (bpf_get_stack()), as before issue 34.
 *
 * Called by tracer.c (unwind_start() from tracer_add(), unwind_free())
 * and rescan.c (unwind_sync()); implements tracer_unwind() of tracer.h;
 * calls find/ only.
 */
#ifndef PROBETOP_UNWIND_H
#define PROBETOP_UNWIND_H

#include <stddef.h>
#include <stdint.h>

struct pt_urow;
struct tracer;

/* Walk user stacks by the tables from now on: load the tables of tr's
 * target and turn the walker on. A no-op once on, or with
 * PROBETOP_UNWIND=fp. What cannot be loaded is said; its frames are
 * walked by frame pointer. */
void unwind_start(struct tracer *tr);

/* After a rescan read tr->maps again: tables for new objects, those
 * unmapped released, the process's mappings written again if they
 * changed. A no-op while off. */
void unwind_sync(struct tracer *tr);

#define UNWIND_SPANS 8 /* code heaps of a JVM */

/* Executable memory that is no file's: [start, end). */
struct unwind_span {
	uint64_t start, end;
};

/* The -p JVM's compiled frames (engine/name/jvmcode.h): its code heaps
 * spans[0..nspans) (at most UNWIND_SPANS), walked by rows[0..n), by
 * offset from lo, in place of the last ones (kept when these cannot be
 * loaded). A no-op when the same, or while off. */
void unwind_jit(struct tracer *tr, const struct unwind_span *spans,
		size_t nspans, uint64_t lo, const struct pt_urow *rows,
		size_t n);

/* Free the tracer's unwind state (the maps go with the BPF object). */
void unwind_free(struct tracer *tr);

#endif
