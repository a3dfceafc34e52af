/* SPDX-License-Identifier: MIT */
/*
 * rescan — objects that appear in a traced process: tracer_rescan()
 * re-reads its maps and attaches every live spec to what is new (a
 * library dlopen()ed, a new executable after exec), and brings the
 * read-only string table, the touched literals and the fork sweep up to
 * date; tracer_hold_dlopen() stops a launched process in its dynamic
 * linker (_dl_debug_state) each time the loaded objects change, so that
 * the rescan comes before any new code runs. Implements those of
 * tracer.h (tracer_rescan(), tracer_resume(), tracer_hold_dlopen(),
 * tracer_event_fd()); literals.c uses the dynamic linker's hook too.
 */
#ifndef PROBETOP_RESCAN_H
#define PROBETOP_RESCAN_H

#include <stddef.h>
#include <stdint.h>

struct objcache;

/* File offset of _dl_debug_state in the interpreter exe names, into
 * interp (n bytes); exe's object parsed through cache. 0 or a negative
 * errno (-ENOENT: exe is static). */
int rescan_dl_hook(struct objcache *cache, const char *exe, char *interp,
		   size_t n, uint64_t *offset);

#endif
