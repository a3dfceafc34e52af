// SPDX-License-Identifier: MIT
/*
 * symbolize — see symbolize.h. Objects come from the tracer's objcache;
 * the maps of the last process asked about are kept until an address
 * misses them.
 */
#include "symbolize.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "debugfile.h"
#include "elfobj.h"
#include "proc.h"

/* libstdc++'s demangler (the Itanium C++ ABI), callable from C */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct symbolizer {
	struct objcache *cache;
	pid_t pid; /* whose maps these are; 0: none */
	struct proc_maps maps;
};

struct symbolizer *symbolizer_new(struct objcache *cache)
{
	struct symbolizer *sy = calloc(1, sizeof(*sy));

	if (sy)
		sy->cache = cache;
	return sy;
}

void symbolizer_free(struct symbolizer *sy)
{
	if (!sy)
		return;
	proc_maps_free(&sy->maps);
	free(sy);
}

static const struct proc_map *find_map(const struct proc_maps *maps,
				       uint64_t addr)
{
	for (size_t i = 0; i < maps->n; i++)
		if (addr >= maps->maps[i].start && addr < maps->maps[i].end)
			return &maps->maps[i];
	return NULL;
}

/* The mapping of pid holding addr, reading the maps again on a miss, or
 * from known if pid is gone (a zombie's maps read empty); *maps is the
 * set it is in. */
static const struct proc_map *map_of(struct symbolizer *sy, pid_t pid,
				     uint64_t addr,
				     const struct proc_maps *known,
				     const struct proc_maps **maps)
{
	const struct proc_map *m =
		sy->pid == pid ? find_map(&sy->maps, addr) : NULL;

	*maps = &sy->maps;
	if (m)
		return m;
	proc_maps_free(&sy->maps);
	sy->pid = 0;
	if (!proc_maps_read(pid, &sy->maps)) {
		sy->pid = pid;
		m = find_map(&sy->maps, addr);
	}
	if (m || !known)
		return m;
	*maps = known;
	return find_map(known, addr);
}

/* name demangled into out, without a symbol version ("@GLIBCXX_3.4");
 * a typeinfo object ("_ZTI" + type) as the type it describes */
static void demangle(const char *name, char *out, size_t n)
{
	char plain[512];
	char *d = NULL;
	int status = -1;

	snprintf(plain, sizeof(plain), "%.*s", (int)strcspn(name, "@"), name);
	if (!strncmp(plain, "_ZTI", 4) && plain[4])
		d = __cxa_demangle(plain + 4, NULL, NULL, &status);
	else if (!strncmp(plain, "_Z", 2))
		d = __cxa_demangle(plain, NULL, NULL, &status);
	snprintf(out, n, "%s", status == 0 && d ? d : plain);
	free(d);
}

/* The base name of m's file ("" for an anonymous mapping). */
static const char *base_name(const struct proc_map *m)
{
	const char *base = m->path ? strrchr(m->path, '/') : NULL;

	return base ? base + 1 : m->path ? m->path : "";
}

/* symbolizer_name(), the symbol's offset left out if !offset; the
 * object's base name into mod[0..modn) if mod. */
static void name_of(struct symbolizer *sy, pid_t pid, uint64_t addr,
		    const struct proc_maps *known, bool offset, char *out,
		    size_t n, char *mod, size_t modn)
{
	const struct proc_maps *maps;
	const struct proc_map *m = map_of(sy, pid, addr, known, &maps);
	struct elfobj *obj = m ? objcache_elf(sy->cache, pid, m) : NULL;
	uint64_t bias, off;
	const char *name;

	if (mod)
		snprintf(mod, modn, "%s", m ? base_name(m) : "");
	if (!obj) {
		snprintf(out, n, "0x%" PRIx64, addr);
		return;
	}
	debugfile_attach(obj, m->path); /* its symbols kept elsewhere */
	if (!catalog_load_bias(maps, m, obj, &bias) &&
	    !elfobj_symbol_at(obj, addr - bias, &name, &off)) {
		demangle(name, out, n);
		if (off && offset)
			snprintf(out + strlen(out), n - strlen(out),
				 "+0x%" PRIx64, off);
		return;
	}
	snprintf(out, n, "%s+0x%" PRIx64, base_name(m),
		 addr - m->start + m->offset);
}

void symbolizer_name(struct symbolizer *sy, pid_t pid, uint64_t addr,
		     const struct proc_maps *known, char *out, size_t n)
{
	name_of(sy, pid, addr, known, true, out, n, NULL, 0);
}

bool symbolizer_has(const struct symbolizer *sy, uint64_t dev, uint64_t inode)
{
	return objcache_has(sy->cache, dev, inode);
}

void symbolizer_func(struct symbolizer *sy, pid_t pid, uint64_t addr,
		     const struct proc_maps *known, char *out, size_t n,
		     char *mod, size_t modn)
{
	name_of(sy, pid, addr, known, false, out, n, mod, modn);
}
