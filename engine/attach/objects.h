/* SPDX-License-Identifier: MIT */
/*
 * objects — the objects a tracer knows of its target: the catalogs it
 * keeps (each object's probes and symbols), the set of objects every
 * live spec was offered (seen), and the target's CPython, set up from
 * them once a spec reads Python frames. tracer_objects() (tracer.h)
 * lists them. Called by tracer.c, attach.c and rescan.c; calls find/
 * and name/ only.
 */
#ifndef PROBETOP_OBJECTS_H
#define PROBETOP_OBJECTS_H

#include <stdbool.h>
#include <stdint.h>

struct catalog;
struct seen_set;
struct jvmcode;
struct tracer;

/* Whether (dev, inode) is in set. */
bool seen_has(const struct seen_set *set, uint64_t dev, uint64_t inode);

/* Add (dev, inode) to set. 0 or -ENOMEM. */
int seen_add(struct seen_set *set, uint64_t dev, uint64_t inode);

/* Keep cat among tr's catalogs, which now owns it (freed on failure).
 * 0 or -ENOMEM. */
int objects_keep(struct tracer *tr, struct catalog *cat);

/* Set up the traced process's CPython when a spec reads Python frames
 * and its objects show it (pyframe.h); a no-op once done. */
void objects_py_setup(struct tracer *tr);

/* The same for PHP (phpframe.h), when a spec reads PHP frames. */
void objects_php_setup(struct tracer *tr);

/* The same for Ruby (rbframe.h), when a spec reads Ruby frames. */
void objects_rb_setup(struct tracer *tr);

/* When the traced process is a HotSpot JVM: ask it for its perf map
 * (jvmmap.h), and, once a spec walks user stacks by the unwind tables,
 * tell the kernel where its interpreter is, so that its interpreted
 * frames are recorded by Method* (jvmframe.h); a no-op once done, or
 * once its tables proved to lack what that needs (said once). */
void objects_jvm_setup(struct tracer *tr);

/* Once the JVM is set up, its code cache read again (as often as
 * jvmcode.h says), for the kernel's walk: NULL when not now. */
const struct jvmcode *objects_jvm_code(struct tracer *tr);

/* The traced process ran exec: its interpreted frames no longer
 * recorded nor named as the JVM's it was (set up again if it is one;
 * its compiled frames' rows are the caller's to drop: unwind_jit()). */
void objects_jvm_forget(struct tracer *tr);

/* Describe the traced process's V8 (Node: v8meta.h) to the stack walker
 * (v8procs, v8shared.h) when its stacks are walked by the unwind tables
 * and one of its objects has V8's metadata; a no-op once done. */
void objects_v8_setup(struct tracer *tr);

/* The process runs another program (exec): its V8 forgotten. */
void objects_v8_forget(struct tracer *tr);

#endif
