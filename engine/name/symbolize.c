// SPDX-License-Identifier: MIT
/*
 * symbolize — see symbolize.h. Objects come from the tracer's objcache;
 * the maps of the last process asked about are kept until an address
 * misses them. An address no ELF file holds is looked for in the
 * process's vDSO (named by probetop's own image, engine/find/vdso.h),
 * then in its perf map (JIT code, perfmap.h), then in an Erlang node's
 * own tables of its JIT code (beamjit.h).
 */
#include "symbolize.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "beamjit.h"
#include "catalog.h"
#include "debugfile.h"
#include "debugpkg.h"
#include "elfobj.h"
#include "jvmmap.h"
#include "log.h"
#include "perfmap.h"
#include "proc.h"
#include "vdso.h"

/* libstdc++'s demangler (the Itanium C++ ABI), callable from C */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* A file said to have no symbols for its frames, or a process said to
 * have no perf map for its JIT frames (dev UINT64_MAX, inode its pid). */
struct said {
	uint64_t dev, inode;
};

struct symbolizer {
	struct objcache *cache;
	pid_t pid; /* whose maps these are; 0: none */
	struct proc_maps maps;
	struct perfmaps *perf; /* JIT code's names */
	struct beamjits *beam; /* an Erlang node's, without a perf map */
	struct elfobj *vdso; /* the vDSO image, opened at its first frame */
	bool vdso_tried;
	pid_t vdso_pid; /* the process whose vDSO was compared last */
	uint64_t vdso_at; /* where it maps it */
	bool vdso_ours; /* it is probetop's image (vdso_same()) */
	struct said *said; /* files said to have no symbols, processes no
			      perf map, each once */
	size_t nsaid;
};

struct symbolizer *symbolizer_new(struct objcache *cache)
{
	struct symbolizer *sy = calloc(1, sizeof(*sy));

	if (!sy)
		return NULL;
	sy->perf = perfmaps_new();
	sy->beam = beamjits_new(cache);
	if (!sy->perf || !sy->beam) {
		perfmaps_free(sy->perf);
		beamjits_free(sy->beam);
		free(sy);
		errno = ENOMEM;
		return NULL;
	}
	sy->cache = cache;
	return sy;
}

void symbolizer_free(struct symbolizer *sy)
{
	if (!sy)
		return;
	proc_maps_free(&sy->maps);
	perfmaps_free(sy->perf);
	beamjits_free(sy->beam);
	elfobj_free(sy->vdso);
	free(sy->said);
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

/* "+0x<off>" after the name in out, if offset and off. */
static void put_offset(uint64_t off, bool offset, char *out, size_t n)
{
	if (off && offset)
		snprintf(out + strlen(out), n - strlen(out), "+0x%" PRIx64,
			 off);
}

/* name (a symbol's: demangle()) and its offset (put_offset()) into out. */
static void put_symbol(const char *name, uint64_t off, bool offset, char *out,
		       size_t n)
{
	demangle(name, out, n);
	put_offset(off, offset, out, n);
}

/*
 * Say, once per file, that a frame in obj (mapped by m) has no name
 * because the file has no .symtab and no debug file was found for it,
 * and which package's debug symbols would name it (debugpkg.h).
 */
static void say_unnamed(struct symbolizer *sy, const struct proc_map *m,
			const struct elfobj *obj, const char *base)
{
	uint64_t dev = makedev(m->dev_major, m->dev_minor);
	char pkg[128], dbg[160];
	struct said *more;

	if (elfobj_has_symtab(obj) || elfobj_has_debug(obj))
		return;
	for (size_t i = 0; i < sy->nsaid; i++)
		if (sy->said[i].dev == dev && sy->said[i].inode == m->inode)
			return;
	more = realloc(sy->said, (sy->nsaid + 1) * sizeof(*more));
	if (!more)
		return;
	sy->said = more;
	sy->said[sy->nsaid++] = (struct said){ dev, m->inode };
	if (debugpkg_owner(NULL, m->path, dev, m->inode, pkg, sizeof(pkg))) {
		log_msg(LOG_INFO,
			"%s: no symbols and no debug file; its frames stay "
			"%s+0x... (no installed package holds it)",
			m->path, base);
		return;
	}
	debugpkg_debug(pkg, dbg, sizeof(dbg));
	log_msg(LOG_INFO,
		"%s: no symbols and no debug file; its frames stay %s+0x...: "
		"installing %s (the debug symbols of package %s) would name "
		"them",
		m->path, base, dbg, pkg);
}

/* Whether pid was said to have no perf map; marks it said. A process
 * is kept among the files said (struct said) by a device no file has. */
static bool said_no_perfmap(struct symbolizer *sy, pid_t pid)
{
	struct said *more;

	for (size_t i = 0; i < sy->nsaid; i++)
		if (sy->said[i].dev == UINT64_MAX &&
		    sy->said[i].inode == (uint64_t)pid)
			return true;
	more = realloc(sy->said, (sy->nsaid + 1) * sizeof(*more));
	if (!more)
		return true; /* said nothing, but never again */
	sy->said = more;
	sy->said[sy->nsaid++] = (struct said){ UINT64_MAX, (uint64_t)pid };
	return false;
}

/* A frame of pid in code no ELF file holds, pid without a perf map and
 * not named otherwise (symbolizer_quiet()): say once what would name
 * such frames. */
static void say_no_perfmap(struct symbolizer *sy, pid_t pid)
{
	if (said_no_perfmap(sy, pid))
		return;
	log_msg(LOG_INFO,
		"process %d runs code compiled at run time (JIT), writes "
		"no perf map (/tmp/perf-%d.map) and none of its frames was "
		"named by its runtime's own metadata: those frames stay "
		"0x...; Erlang (where its JIT's own tables are not there: "
		"OTP before 25, or built without them) writes a perf map when "
		"started with +JPperf true, Node with --perf-basic-prof (or "
		"its V8 is read where "
		"user stacks are walked by unwind tables, not under "
		"PROBETOP_UNWIND=fp), a JVM with a perf map agent",
		(int)pid, (int)pid);
}

/* The base name of m's file ("" for an anonymous mapping). */
static const char *base_name(const struct proc_map *m)
{
	const char *base = m->path ? strrchr(m->path, '/') : NULL;

	return base ? base + 1 : m->path ? m->path : "";
}

/* addr in obj, the ELF file mapped by m (of maps): its symbol, else
 * "FILE+0x<file offset>" (said once: say_unnamed()): without offset (a
 * stack's frame), the file offset of its function's start where the
 * file's .eh_frame_hdr says it (one frame a function, as a symbol's). */
static void name_in_file(struct symbolizer *sy, const struct proc_maps *maps,
			 const struct proc_map *m, struct elfobj *obj,
			 uint64_t addr, bool offset, char *out, size_t n)
{
	const char *name, *base = base_name(m);
	uint64_t bias, off, start, at = addr - m->start + m->offset;
	bool biased = !catalog_load_bias(maps, m, obj, &bias);

	debugfile_attach(obj, m->path); /* its symbols kept elsewhere */
	if (biased && !elfobj_symbol_at(obj, addr - bias, &name, &off)) {
		put_symbol(name, off, offset, out, n);
		return;
	}
	say_unnamed(sy, m, obj, base);
	if (!offset && biased &&
	    !elfobj_function_start(obj, addr - bias, &start) &&
	    !elfobj_vaddr_to_offset(obj, start, &off) && off <= at)
		at = off;
	snprintf(out, n, "%s+0x%" PRIx64, base, at);
}

/*
 * addr in pid's vDSO, named by probetop's own image's symbols (the same
 * image: vdso_same(); one that cannot be compared is taken to be),
 * "[vdso]+0x<offset>" where none covers it. 0, or -ENOENT: not in pid's
 * vDSO (or pid is gone).
 */
static int name_in_vdso(struct symbolizer *sy, pid_t pid, uint64_t addr,
			bool offset, char *out, size_t n)
{
	uint64_t at, bias, off;
	const char *name;
	const void *img;
	size_t size;

	if (vdso_image(&img, &size) || proc_vdso(pid, &at) || addr < at ||
	    addr - at >= size)
		return -ENOENT;
	if (sy->vdso_pid != pid || sy->vdso_at != at) {
		sy->vdso_pid = pid;
		sy->vdso_at = at;
		sy->vdso_ours = vdso_same(pid, at) != 0;
	}
	if (!sy->vdso_ours)
		return -ENOENT;
	if (!sy->vdso_tried) {
		sy->vdso_tried = true;
		sy->vdso = vdso_elfobj();
		if (sy->vdso) /* a kernel's -dbg package, by build ID */
			debugfile_attach(sy->vdso, "[vdso]");
	}
	if (sy->vdso && !elfobj_load_bias(sy->vdso, at, 0, &bias) &&
	    !elfobj_symbol_at(sy->vdso, addr - bias, &name, &off))
		put_symbol(name, off, offset, out, n);
	else
		snprintf(out, n, "[vdso]+0x%" PRIx64, addr - at);
	return 0;
}

/* addr in JIT code, named by pid's perf map (perfmap.h), or if beam by
 * an Erlang node's own tables (beamjit.h): a C++ name demangled, any
 * other as written. 0, -ENODATA (pid has no perf map, or is no BEAM
 * whose tables are read) or -ENOENT. */
static int name_in_jit(struct symbolizer *sy, pid_t pid, uint64_t addr,
		       bool beam, bool offset, char *out, size_t n)
{
	const char *name;
	uint64_t off;
	int err = beam ? beamjits_find(sy->beam, pid, addr, &name, &off)
		       : perfmaps_find(sy->perf, pid, addr, &name, &off);

	if (err)
		return err;
	if (!strncmp(name, "_Z", 2))
		demangle(name, out, n);
	else
		snprintf(out, n, "%s", name); /* '@' is no version here */
	put_offset(off, offset, out, n);
	return 0;
}

/* module into mod[0..modn), if mod. */
static void put_module(const char *module, char *mod, size_t modn)
{
	if (mod)
		snprintf(mod, modn, "%s", module);
}

/*
 * symbolizer_name(), the symbol's offset left out if !offset. An address
 * in a file of the maps read last is named by that ELF file; one outside
 * them by the vDSO, then by the perf map, before the maps are read again
 * (JIT frames are many: a read of the maps costs tens of microseconds),
 * then by the file mapped there now; in a file that is not ELF (a JIT's
 * memory file: the perf map), or in none, by the BEAM's tables (an
 * Erlang node's code: its memory file is in the maps, so an address of
 * another process is never looked for there before its maps are read).
 * Its module into mod[0..modn) if mod:
 * the file's base name, "[vdso]", "[jit]" (a perf map's or the BEAM's
 * tables'), "" (none).
 */
static void name_of(struct symbolizer *sy, pid_t pid, uint64_t addr,
		    const struct proc_maps *known, bool offset, char *out,
		    size_t n, char *mod, size_t modn)
{
	const struct proc_maps *maps = &sy->maps;
	const struct proc_map *m =
		sy->pid == pid ? find_map(&sy->maps, addr) : NULL;
	struct elfobj *obj;
	int jit = -ENOENT, beam;

	if (!m && !name_in_vdso(sy, pid, addr, offset, out, n)) {
		put_module("[vdso]", mod, modn);
		return;
	}
	if (!m && !(jit = name_in_jit(sy, pid, addr, false, offset, out, n))) {
		put_module("[jit]", mod, modn);
		return;
	}
	if (!m)
		m = map_of(sy, pid, addr, known, &maps);
	put_module(m ? base_name(m) : "", mod, modn);
	obj = m ? objcache_elf(sy->cache, pid, m) : NULL;
	if (obj) {
		name_in_file(sy, maps, m, obj, addr, offset, out, n);
		return;
	}
	if (m)
		jit = name_in_jit(sy, pid, addr, false, offset, out, n);
	if (jit && (beam = name_in_jit(sy, pid, addr, true, offset, out, n)) !=
			   -ENODATA)
		jit = beam; /* its tables' name, or -ENOENT: no hint */
	if (!jit) {
		put_module("[jit]", mod, modn);
		return;
	}
	if (sy->pid == pid && jvmmap_is_jvm(&sy->maps))
		jvmmap_request(pid, true); /* compiled since its map */
	else if (jit == -ENODATA)
		say_no_perfmap(sy, pid);
	snprintf(out, n, "0x%" PRIx64, addr);
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

void symbolizer_quiet(struct symbolizer *sy, pid_t pid)
{
	said_no_perfmap(sy, pid);
}

void symbolizer_func(struct symbolizer *sy, pid_t pid, uint64_t addr,
		     const struct proc_maps *known, char *out, size_t n,
		     char *mod, size_t modn)
{
	name_of(sy, pid, addr, known, false, out, n, mod, modn);
}
