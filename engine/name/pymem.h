/* SPDX-License-Identifier: MIT */
/*
 * pymem — CPython's objects read from another process's memory
 * (process_vm_readv), by the layout of its version (pylayout.h): bytes,
 * pointers, str objects as UTF-8, and names cut to fit. Called by
 * pyframe.c, which names code objects with them.
 */
#ifndef PROBETOP_PYMEM_H
#define PROBETOP_PYMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PYMEM_STR_MAX 1024 /* characters of a name or path read at most */

struct pylayout;

/* n bytes at addr in pid. 0 or -1. */
int pymem_peek(pid_t pid, uint64_t addr, void *buf, size_t n);

/* The pointer at addr in pid; 0 if unreadable. */
uint64_t pymem_ptr(pid_t pid, uint64_t addr);

/* n characters of kind (1, 2 or 4 bytes each) at raw as UTF-8 into buf
 * (4 * n + 1 bytes). Its length. */
int pymem_decode(const uint8_t *raw, size_t n, uint32_t kind, char *buf);

/* The str object at obj in pid as UTF-8 into buf (4 * PYMEM_STR_MAX + 1
 * bytes). Its length, or -1 (not a compact string, unreadable). */
int pymem_str(pid_t pid, const struct pylayout *l, uint64_t obj, char *buf);

/* s cut to out (n bytes): its end kept behind "..." if tail, else its
 * start followed by "...", never inside a UTF-8 character. */
void pymem_cut(const char *s, char *out, size_t n, bool tail);

#endif
