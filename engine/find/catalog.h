/* SPDX-License-Identifier: MIT */
/*
 * catalog — every USDT probe a process (or one ELF file) offers.
 *
 * For a pid: read /proc/PID/maps, take each distinct mapped file once,
 * open it the way the process sees it (map_files for deleted files,
 * /proc/PID/root for containers), and parse its SDT notes into probes:
 * one probe per (object, provider, name) with all its locations, each
 * location with its file offset (for the uprobe), its semaphore's file
 * offset (for the kernel's reference counter) and its decoded arguments.
 *
 * Parsed files live in an objcache keyed by (device, inode), so a rescan
 * of the maps, or a second process running the same binary, costs a
 * lookup. A file with broken notes is reported (logged) and skipped; the
 * other objects are still catalogued.
 */
#ifndef PROBETOP_CATALOG_H
#define PROBETOP_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "elfobj.h"
#include "proc.h"
#include "usdtarg.h"

struct objcache;
struct catalog;

struct cat_loc {
	uint64_t addr; /* link-time address, after .stapsdt.base fix */
	uint64_t offset; /* file offset of the probe site */
	uint64_t sem_addr; /* link-time address of the semaphore, or 0 */
	uint64_t sem_offset; /* its file offset (ref_ctr_offset), or 0 */
	bool sem_tested; /* the file's code tests it (semread.h): raised,
			    it may make the target do more */
	const char *args; /* the raw argument spec, "" if none */
	int nargs; /* decoded arguments, -1 if more than 12 */
	struct usdt_arg argv[USDT_MAX_ARGS];
};

struct cat_probe {
	const char *provider;
	const char *name;
	size_t nlocs; /* >= 1 */
	struct cat_loc *locs;
};

/* One mapped ELF object of the process (or the file given). */
struct cat_object {
	const char *path; /* as the process maps it (or as given) */
	uint64_t dev, inode;
	bool deleted; /* mapped file was removed or replaced */
	bool has_bias;
	uint64_t bias; /* run-time = link-time + bias, when has_bias */
	bool bad_notes; /* its notes were broken (reported) */
	size_t nprobes; /* sorted by provider, name */
	const struct cat_probe *probes;
	struct elfobj *elf; /* for function symbols; owned by the cache */
};

/* A cache of parsed ELF files; free it after every catalog using it. */
struct objcache *objcache_new(void);
void objcache_free(struct objcache *cache);

/*
 * The load bias of the file behind mapping m, from the file's lowest
 * mapping in maps (address order): a later one may map a file page that
 * two segments share (RELRO), which is ambiguous. 0 or -ENOENT.
 */
struct proc_maps;
int catalog_load_bias(const struct proc_maps *maps, const struct proc_map *m,
		      const struct elfobj *elf, uint64_t *bias);

/*
 * The ELF file behind mapping m of pid, from the cache (by dev and inode)
 * or opened and parsed now; NULL if it is not ELF or cannot be opened
 * (logged). Owned by the cache.
 */
struct proc_map;
struct elfobj *objcache_elf(struct objcache *cache, pid_t pid,
			    const struct proc_map *m);

/* Whether the file of (dev, inode) is in the cache (dev: makedev()). */
bool objcache_has(struct objcache *cache, uint64_t dev, uint64_t inode);

/*
 * Catalog a running process. Returns NULL with errno: ESRCH (no such
 * process, or it exited meanwhile), EACCES/EPERM (not allowed to read
 * its maps), ENOMEM. cache may be NULL (a private one is used).
 */
struct catalog *catalog_open_pid(struct objcache *cache, pid_t pid);

/*
 * catalog_open_pid() on mappings the caller has already read (and keeps:
 * they are not modified or taken over).
 */
struct catalog *catalog_open_maps(struct objcache *cache, pid_t pid,
				  const struct proc_maps *maps);

/*
 * Catalog one ELF file. Returns NULL with errno: ENOENT..., ENOEXEC (not
 * ELF), EBADMSG (broken notes); the reason has been logged.
 */
struct catalog *catalog_open_file(struct objcache *cache, const char *path);

/* NULL is a no-op. Objects stay valid until the cache is freed too. */
void catalog_free(struct catalog *cat);

/*
 * Find an ELF file by what a user typed after -b: a path (kept as is), or
 * a bare name ("python3.11", "libc.so.6") looked up in $PATH and then in
 * the system library directories. Writes the path to out[0..n) and
 * returns 0, or -ENOENT.
 */
int catalog_find_file(const char *name, char *out, size_t n);

struct spec_probe;

/* The index of the first object (in catalog order: mappings as the
 * process has them, its executable first) with a USDT probe matching p
 * (its object and provider:name globs, as a spec would attach), or -1. */
int catalog_find_probe(const struct catalog *cat, const struct spec_probe *p);

/* Whether an object of cat has a USDT probe matching p. */
bool catalog_has_probe(const struct catalog *cat, const struct spec_probe *p);

pid_t catalog_pid(const struct catalog *cat); /* 0 for a file */
size_t catalog_nobjects(const struct catalog *cat);
const struct cat_object *catalog_object(const struct catalog *cat, size_t i);
size_t catalog_nprobes(const struct catalog *cat); /* over all objects */

/*
 * obj's function symbols, as elfobj_functions() gives them, with those
 * of its separate debug file (find/debugfile.h, looked for on first use):
 * a stripped file's own functions. 0 (none too) or the callback's value.
 */
int catalog_functions(const struct cat_object *obj, elf_func_fn fn, void *ctx);

/* The link-time address of symbol name in obj or its debug file, as
 * catalog_functions() sees them. 0 or -ENOENT. */
int catalog_symbol_addr(const struct cat_object *obj, const char *name,
			uint64_t *addr);

/* The link-time address and size of variable name (a data symbol, not
 * thread-local) in obj or its debug file. 0, -ENOENT, or -EINVAL if name
 * is another kind of symbol. */
int catalog_variable(const struct cat_object *obj, const char *name,
		     uint64_t *addr, uint64_t *size);

#endif
