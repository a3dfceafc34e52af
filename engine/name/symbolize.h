/* SPDX-License-Identifier: MIT */
/*
 * symbolize — addresses in a process turned into names, for sym(argN)
 * keys: the function or data symbol of the ELF object mapped there,
 * demangled. A std::type_info object (a C++ exception's type) is named
 * by the type it describes.
 *
 * Names are computed once per new key, not per event: the process's maps
 * are read again only when an address falls outside the ones read last,
 * and objects come from an objcache (the tracer's, so a library it has
 * parsed for probes is not parsed again). Frames no ELF file holds are
 * named by the vDSO's own symbols, by JIT runtimes' perf maps and by an
 * Erlang node's own tables of its JIT code (beamjit.h).
 */
#ifndef PROBETOP_SYMBOLIZE_H
#define PROBETOP_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct symbolizer;
struct objcache;

/* NULL with errno = ENOMEM. cache must outlive the symbolizer. */
struct symbolizer *symbolizer_new(struct objcache *cache);
void symbolizer_free(struct symbolizer *sy);

/*
 * The name of addr in pid into out[0..n): "SYMBOL" or "SYMBOL+0x10",
 * demangled ("std::runtime_error" for its typeinfo object); "OBJECT+0x..."
 * (the file's base name and the file offset) where no symbol covers it
 * (and, once per file without .symtab or debug file, a message at
 * LOG_INFO naming the debug package that would name it); where no file
 * is mapped, in the vDSO, by the vDSO's symbols ("__vdso_clock_gettime",
 * else "[vdso]+0x..."); where no file or one that is not ELF is mapped
 * (JIT code), by the process's perf map, /tmp/perf-PID.map (perfmap.h),
 * else by the BEAM's tables of an Erlang node's modules (beamjit.h,
 * "module:function/arity"); else "0x...". known, if not NULL, are pid's maps read earlier: used
 * when the process is gone (its vDSO is then not known).
 */
struct proc_maps;
void symbolizer_name(struct symbolizer *sy, pid_t pid, uint64_t addr,
		     const struct proc_maps *known, char *out, size_t n);

/* Whether the file of (dev, inode) (dev: makedev()) is parsed already:
 * a mapping of it names addresses without opening it. */
bool symbolizer_has(const struct symbolizer *sy, uint64_t dev, uint64_t inode);

/* pid's JIT frames are named by another source (V8's metadata,
 * engine/name/v8frame.h): its frames outside any file and perf map are
 * not said to want a perf map. */
void symbolizer_quiet(struct symbolizer *sy, pid_t pid);

/* The same, a function's name without the offset into it ("SYMBOL"), as
 * a stack's frame is named; and, if mod is not NULL, the base name of
 * the object mapped at addr into mod[0..modn) ("libc.so.6", "[vdso]";
 * "" when nothing is mapped there). */
void symbolizer_func(struct symbolizer *sy, pid_t pid, uint64_t addr,
		     const struct proc_maps *known, char *out, size_t n,
		     char *mod, size_t modn);

#endif
