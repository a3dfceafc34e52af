/* SPDX-License-Identifier: MIT */
/*
 * jvmscope — what a HotSpot JVM's compiled frame was running: the
 * method and bytecode index at its pc, and those of every method the
 * compiler inlined it into, from the nmethod's own debug information
 * (what the JVM reads to deoptimize a frame or to print a stack trace):
 * its PcDescs (scopes_pcs: the pc offsets of its calls and safepoints,
 * each with where its scope is), the first at or after the frame's pc,
 * and the chain of scopes it names in its scopes data (each: its
 * caller's scope, the method by its index into the nmethod's metadata,
 * and the bytecode index, in HotSpot's compressed ints), read from the
 * process's memory by the offsets of its tables (jvmlayout.h). A pc
 * without a PcDesc at or after it, or a scope that cannot be read,
 * gives no scope: the frame is then named by its method alone.
 *
 * Also HotSpot's compressed ints (CompressedReadStream), which the
 * method's line number table uses too (jvmframe.c).
 */
#ifndef PROBETOP_JVMSCOPE_H
#define PROBETOP_JVMSCOPE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define JVMSCOPE_MAX 8 /* scopes of a frame read at most (innermost) */

struct jvmcodelayout;
struct jvmcode_blob;

/* One scope of a compiled frame. */
struct jvmscope {
	uint64_t method; /* its Method* */
	uint32_t bci; /* its bytecode index; PT_JAVA_BCI_NONE if none */
};

/* A stream of HotSpot's compressed ints. */
struct cstream {
	const uint8_t *b;
	size_t n, at;
};

/* The next unsigned int of s (UNSIGNED5: one to five bytes, six bits
 * more from each after the first, a byte below 192 the last); 0 past
 * its end. */
uint32_t cstream_u5(struct cstream *s);

/* The next signed int of s (zigzag over UNSIGNED5). */
int32_t cstream_s5(struct cstream *s);

/*
 * The scopes of the compiled frame of nmethod b (of the JVM in pid,
 * laid out as l) at pc, innermost first, into out[0..JVMSCOPE_MAX):
 * their number; 0 if unknown.
 */
size_t jvmscope_read(pid_t pid, const struct jvmcodelayout *l,
		     const struct jvmcode_blob *b, uint64_t pc,
		     struct jvmscope *out);

#endif
