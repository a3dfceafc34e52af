/* SPDX-License-Identifier: MIT */
/*
 * rescan — objects that appear in a traced process: tracer_rescan()
 * re-reads its maps and attaches every live spec to what is new (a
 * library dlopen()ed, a new executable after exec), and brings the
 * read-only string table, the touched literals and the fork sweep up to
 * date; tracer_hold_dlopen() stops a launched process in its dynamic
 * linker (_dl_debug_state) each time the loaded objects change, so that
 * the rescan comes before any new code runs; tracer_hold_exec() does the
 * same at each exec() (pt_execstop, from the kernel's sched_process_exec),
 * and every rescan notes the exec()s since the last (tracer_exec()): the
 * new image's probes, and the dynamic linker's hooks moved to its
 * interpreter if that changed. Implements those of tracer.h
 * (tracer_rescan(), tracer_resume(), tracer_hold_dlopen(),
 * tracer_hold_exec(), tracer_exec(), tracer_event_fd()); literals.c uses
 * the dynamic linker's hook too.
 */
#ifndef PROBETOP_RESCAN_H
#define PROBETOP_RESCAN_H

#include <stddef.h>
#include <stdint.h>

struct bpf_program;
struct objcache;
struct tracer;
struct ulink;

/* TRACER_PID, from tracer_new(): count the process's exec()s in the
 * kernel (pt_execstop), unheld. Failure is logged: execs then go
 * unsaid, and the periodic rescan still attaches to the new image. */
void rescan_start(struct tracer *tr);

/* Attach prog (pt_dlstop, pt_dlmark) at offset of the dynamic linker
 * interp, filtered to tr's process, by uprobe_multi where the kernel has
 * it (ulink.h: closing a perf-event uprobe waits for a lock every other
 * such close holds). 0 and *out, or a negative errno. */
int rescan_dl_hook(struct tracer *tr, struct bpf_program *prog,
		   const char *interp, uint64_t offset, struct ulink *out);

#endif
