/* SPDX-License-Identifier: MIT */
/*
 * vdso — the vDSO, the small ELF image the kernel maps into every
 * process (clock_gettime(), gettimeofday()... without a system call).
 * Every 64-bit process of this kernel maps the same image as probetop
 * itself, found at getauxval(AT_SYSINFO_EHDR): its unwind table
 * (attach/unwind.c) and its symbols (name/symbolize.c) serve them all.
 * A 32-bit process maps another image (vdso_same() says so).
 */
#ifndef PROBETOP_VDSO_H
#define PROBETOP_VDSO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct elfobj;

/* This process's vDSO image: its address and its size (to the end of
 * its section headers, which come last). 0, or -ENOENT (none, or not a
 * 64-bit ELF image). */
int vdso_image(const void **at, size_t *size);

/* The image opened as an ELF file (a copy in a memory file, named
 * "[vdso]"). NULL with errno set (ENOENT: no vDSO). Free with
 * elfobj_free(). */
struct elfobj *vdso_elfobj(void);

/* Whether the vDSO that pid maps at `at` (proc_vdso()) is this image:
 * its ELF header, read from pid's memory, is this one's. 1, 0, or a
 * negative errno when it cannot be read. */
int vdso_same(pid_t pid, uint64_t at);

#endif
