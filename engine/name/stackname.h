/* SPDX-License-Identifier: MIT */
/*
 * stackname — native stacks (ustack, kstack keys) named: the kernel
 * keeps each new stack's return addresses by id (nstacks, see
 * engine/bpf/stack.bpf.h); this reads a stack once, the first time a
 * row of it is made, names each frame by its function (engine/symbolize
 * for user space, /proc/kallsyms for the kernel), and keeps the text by
 * (pid, id) to the end of the run (engine/stacktext), with the module
 * (object) of each frame beside it. A user frame is
 * named from the process's maps, or, once it is gone, from the mappings
 * the kernel sent when the stack was new (nmaps).
 */
#ifndef PROBETOP_STACKNAME_H
#define PROBETOP_STACKNAME_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct stackname;
struct symbolizer;
struct proc_maps;
struct jvmframe;
struct objcache;

/* Reading nstacks at stacks_fd and the nmaps ring at nmaps_fd (-1: none),
 * naming user frames with sy, JavaScript frames by V8's metadata in the
 * files of cache (engine/name/v8frame.h); lost: the kernel's count of
 * mappings nmaps had no room for (or NULL). sy, cache and lost must
 * outlive it. NULL with errno = ENOMEM. */
struct stackname *stackname_new(int stacks_fd, int nmaps_fd,
				const volatile uint64_t *lost,
				struct symbolizer *sy, struct objcache *cache);
void stackname_free(struct stackname *sn);

/* Name a HotSpot JVM's interpreted frames (PT_IP_JAVA | Method*, see
 * engine/bpf/unwind.bpf.h) with jvm (which must outlive sn): by their
 * method, module "[jit]"; without it, or when it cannot tell, they are
 * "Interpreter", as the JVM's perf map names the interpreter's code. */
void stackname_java(struct stackname *sn, struct jvmframe *jvm);

/* Keep the mappings the kernel sent since the last call. Call it a few
 * times a second (nmaps holds 128 KB of them); stackname_text() calls it
 * too. */
void stackname_drain(struct stackname *sn);

/*
 * Stack id of pid (kernel: a kernel stack) as text: root first, frames
 * by function name joined by ";" (as flamegraph.pl reads them), "..."
 * first when the stack was deeper than PT_STACK_FRAMES; a JavaScript
 * frame of a V8 process "JS:NAME SCRIPT:LINE:COLUMN" (its perf map's
 * name where it has one, else V8's metadata's); a frame with no
 * symbol "OBJECT+0x..." (user) or "0x..." (unknown); "[user]" for a
 * kernel stack of no frames (the thread was in user space, as at every
 * uprobe), "[kernel]" for a user stack of none; "?" when the kernel
 * does not have the stack. known: pid's maps read earlier, used
 * when the process is gone (or NULL). Kept to the end of the run; NULL
 * only when out of memory.
 *
 * If mods is not NULL, *mods gets the module of each of those frames,
 * in the same order and joined the same way (so that the text and it
 * have as many ";"): the base name of the object the frame is in
 * ("python3.11", "libc.so.6", "[vdso]"), "kernel" for a kernel frame,
 * "" where unknown (nothing mapped there, "...", "?", "[user]"). Kept
 * as long as the text; NULL when out of memory. The text stays what it
 * was (the module is never part of a frame's name).
 */
const char *stackname_text(struct stackname *sn, pid_t pid, uint64_t id,
			   bool kernel, const struct proc_maps *known,
			   const char **mods);

/*
 * The jitframe key's frame of a stack named by stackname_text() (text,
 * and mods, its modules, or NULL) into out[0..n): the innermost frame a
 * perf map or V8's metadata named (module "[jit]": code a runtime
 * compiled, as Erlang's JIT with +JPperf true or Node name it), as its
 * function's (V8's tiers, "JS:*f" and "JS:~f", are "JS:f"; the BEAM's
 * "f-CodeInfoPrologue" is f), else the innermost frame; one too long cut
 * at a character, "..." after it. "?" for a NULL text.
 */
void stackname_jit_frame(const char *text, const char *mods, char *out,
			 size_t n);

#endif
