/* SPDX-License-Identifier: MIT */
/*
 * debugfile — the symbols a stripped ELF file keeps elsewhere, found the
 * way gdb and elfutils find them:
 *
 *   1. by its GNU build ID: DIR/.build-id/xx/yyyy.debug;
 *   2. by its .gnu_debuglink name, checked by the CRC-32 it records:
 *      beside the file, in .debug/ beside it, then DIR/<the file's
 *      directory>/NAME;
 *   3. its MiniDebugInfo: .gnu_debugdata, an xz-compressed ELF holding
 *      a .symtab of the functions .dynsym leaves out.
 *
 * DIR is each directory of $PROBETOP_DEBUG_DIRS (colon-separated), else
 * /usr/lib/debug, where Debian's -dbg and -dbgsym packages put theirs
 * (libc6-dbg: /usr/lib/debug/.build-id/...). A debug file only counts if
 * it has a .symtab: probetop reads symbols from it, nothing else.
 */
#ifndef PROBETOP_DEBUGFILE_H
#define PROBETOP_DEBUGFILE_H

struct elfobj;

/*
 * The debug file of obj, whose file is at path (its directory is where
 * .gnu_debuglink's name is looked for), opened; NULL when there is none
 * (or it cannot be read: said at debug level). The caller gives it to
 * elfobj_set_debug().
 */
struct elfobj *debugfile_open(const struct elfobj *obj, const char *path);

/* Give obj its debug file (debugfile_open()) unless it was given one, or
 * none, already: before asking it for symbols. */
void debugfile_attach(struct elfobj *obj, const char *path);

#endif
