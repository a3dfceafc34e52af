/* SPDX-License-Identifier: MIT */
/*
 * needed — the tree of shared libraries an executable will map, known
 * before it runs: the executable (found like execvp does) and,
 * recursively, what it needs (DT_NEEDED), searched as the dynamic linker
 * would: DT_RUNPATH (or DT_RPATH) with $ORIGIN, LD_LIBRARY_PATH, then
 * the system library directories. Libraries not found are skipped.
 * Called by tracer_add_command_files() (see tracer.h), whose callback
 * adds each file to the tracer. Also where the dynamic linker that maps
 * them says it changed the loaded objects (needed_dl_hook(): rescan.c
 * and literals.c hook it).
 */
#ifndef PROBETOP_NEEDED_H
#define PROBETOP_NEEDED_H

#include <stddef.h>
#include <stdint.h>

struct cat_object;
struct objcache;

/* Add the file at path, and set *obj (NULL on entry) to its object if
 * that is new and ELF: its needs are walked next. 0 or a negative errno
 * (a library's is ignored: its needs are not walked). */
typedef int needed_add_fn(const char *path, const struct cat_object **obj,
			  void *ctx);

/* add() exe and the libraries it needs, at most 8 levels deep. Returns
 * 0 or a negative errno for exe. */
int needed_walk(const char *exe, needed_add_fn *add, void *ctx);

/* File offset of _dl_debug_state in the interpreter exe names, into
 * interp (n bytes); exe's object parsed through cache. 0 or a negative
 * errno (-ENOENT: exe is static). */
int needed_dl_hook(struct objcache *cache, const char *exe, char *interp,
		   size_t n, uint64_t *offset);

#endif
