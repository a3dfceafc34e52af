/* SPDX-License-Identifier: MIT */
/*
 * jvmmap — a HotSpot JVM asked to write its own perf map: the JVM's
 * diagnostic command Compiler.perfmap (JDK 17 and later) writes
 * /tmp/perf-PID.map, one line per compiled method and stub ("long
 * Hot.heavy(long)"), which perfmap.h then reads. It is sent as jcmd
 * sends it, through the JVM's attach protocol: no agent, no flag, no
 * restart. The map is what the code cache held when it was written, so
 * it is asked for again when a frame in the code cache is not in it, at
 * most every JVMMAP_EVERY_S.
 *
 * The attach protocol: the JVM listens on /tmp/.java_pidPID (in its own
 * root and pid namespace) once its attach listener runs; until then, a
 * file .attach_pidPID in its working directory and a SIGQUIT start it.
 * SIGQUIT is sent only to a process that handles it (SigCgt): a JVM
 * started with -Xrs does not, and the signal would end it. A JVM started
 * with -XX:+DisableAttachMechanism never listens: asked once, said why.
 *
 * Asynchronous: a request runs on a detached thread (the listener may
 * take a second to start), which opens no file probetop keeps; what it
 * found is said by the next jvmmap_request() for that process, on the
 * caller's thread.
 */
#ifndef PROBETOP_JVMMAP_H
#define PROBETOP_JVMMAP_H

#include <stdbool.h>
#include <sys/types.h>

#define JVMMAP_EVERY_S 5.0 /* a process's map asked for at most this often */
#define JVMMAP_WAIT_S 5.0 /* for the attach listener to start */
#define JVMMAP_CLEAN_WAIT_MS 1000 /* for a request under way, at the end */

struct proc_maps;

/* Whether maps hold HotSpot (a libjvm.so). */
bool jvmmap_is_jvm(const struct proc_maps *maps);

/* Ask pid, a HotSpot JVM, to write its perf map, unless it was asked
 * before (again: within JVMMAP_EVERY_S), a request is under way, or it
 * cannot answer (said once). Returns at once. */
void jvmmap_request(pid_t pid, bool again);

/* Remove every perf map a request made a JVM write (one that was not
 * there before probetop asked): probetop leaves nothing behind in a
 * target's /tmp (a JVM's map of 388 kB stayed after it exited). A
 * request under way is waited for up to JVMMAP_CLEAN_WAIT_MS; one that
 * ends later removes its map itself. At the tracer's end. */
void jvmmap_clean(void);

#endif
