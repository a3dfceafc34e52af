/* SPDX-License-Identifier: MIT */
/*
 * jvmcode — how the kernel's stack walk steps through a HotSpot JVM's
 * compiled frames. Compiled code (C1, C2, native wrappers, runtime
 * stubs) keeps no frame pointer (rbp is an ordinary register unless
 * -XX:+PreserveFramePointer) and has no .eh_frame; but each blob of
 * the code cache says the size of its frame (CodeBlob::_frame_size, in
 * words, with the return address and the saved rbp at its top) and
 * where its prologue ends (_frame_complete_offset). This reads every
 * blob of every code heap (CodeCache::_heaps, walked block by block:
 * HeapBlock headers, lengths in segments) from the process's memory,
 * by the offsets of the JVM's own tables (jvmlayout.h), and turns the
 * blobs with a frame into unwind rows (struct pt_urow, probetop.h) by
 * offset from the lowest heap's start:
 *   a blob with a frame: from its block to its frame complete,
 *     PT_UR_STOP (the frame not built yet: the walk ends there, never
 *     guesses); then to its block's end, CFA = rsp + 8 * frame size,
 *     the caller's rbp at CFA - 16;
 *   a blob without one (the interpreter, adapters, the call stub, which
 *     keep rbp): PT_UR_FP;
 *   a free block, and what follows the last block read: PT_UR_STOP (code
 *     compiled there since the read is not known: the stack ends there,
 *     rather than skip a frame by a frame pointer the code did not set).
 * An epilogue (after the frame is popped, before the ret) is taken as
 * the body: a sample there gets one wrong caller.
 *
 * The JVM compiles and frees code all the time: the rows are a
 * snapshot, read again by the caller (engine/attach/objects.c) while
 * stacks are walked, every JVMCODE_EVERY_MS at least and JVMCODE_COST
 * times the last read's time: what is newer ends a stack until the
 * next read. Memory that
 * changes under the read (a torn header) ends that heap's walk; nothing
 * read is trusted beyond the heap's bounds. Bounded: JVMCODE_BLOBS
 * blobs, JVMCODE_HEAPS heaps.
 */
#ifndef PROBETOP_JVMCODE_H
#define PROBETOP_JVMCODE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h> /* before probetop.h */

#include "probetop.h"

#define JVMCODE_EVERY_MS 250 /* the code cache read at most this often */
#define JVMCODE_COST 100 /* and at most once in this many times its read */
#define JVMCODE_BLOBS 262144
#define JVMCODE_HEAPS 8

struct jvmcodelayout;

/* A blob: its code, its name (a C string in the JVM: "nmethod" for a
 * method's, else the stub's), and its Method* if it is a method's (an
 * nmethod: compiled, or a native method's wrapper) with a frame, else
 * 0. */
struct jvmcode_blob {
	uint64_t at; /* the blob (its CodeBlob, nmethod) */
	uint64_t begin, end;
	uint64_t name;
	uint64_t method;
};

struct jvmcode {
	struct {
		uint64_t lo, hi; /* committed: [lo, hi) */
	} heap[JVMCODE_HEAPS]; /* by address */
	size_t nheaps;
	uint64_t lo; /* the lowest heap's start: rows' offsets from it */
	struct pt_urow *rows; /* by offset, increasing */
	size_t n, cap;
	struct jvmcode_blob *blob; /* by address, increasing */
	size_t blobs, blobs_cap;
	uint64_t nm_name; /* where the "nmethod" name is, once seen */
};

/*
 * The rows and blobs of the code cache of the JVM in pid, by layout l,
 * into *c (its old ones replaced; c zeroed at first). 0, -ENOENT (no
 * heap readable: a JVM gone, or its tables wrong) or -ENOMEM.
 */
int jvmcode_read(pid_t pid, const struct jvmcodelayout *l, struct jvmcode *c);

/* The blob of c holding addr, or NULL. */
const struct jvmcode_blob *jvmcode_find(const struct jvmcode *c, uint64_t addr);

/* Free c's rows; c is empty after. */
void jvmcode_free(struct jvmcode *c);

#endif
