/* SPDX-License-Identifier: MIT */
/*
 * ksyms — kernel addresses named by /proc/kallsyms (kstack keys), read
 * once, the first time a kernel address is named.
 */
#ifndef PROBETOP_KSYMS_H
#define PROBETOP_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksyms;

/* The symbols of text (t, T, w, W) in the file at path (/proc/kallsyms),
 * sorted; NULL with errno set (ENOMEM, or the file's error). */
struct ksyms *ksyms_load(const char *path);
void ksyms_free(struct ksyms *ks);

/* The name of the function at or below addr into out ("vfs_read", with
 * " [module]" for a module's), or "0x..." when none is known (no
 * symbols, or addresses hidden by kptr_restrict). */
void ksyms_name(const struct ksyms *ks, uint64_t addr, char *out, size_t n);

#endif
