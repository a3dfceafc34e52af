// SPDX-License-Identifier: MIT
/* catalog — the probes of a process or of one file; see catalog.h. */
#include "catalog.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "debugfile.h"
#include "log.h"
#include "spec.h"
#include "proc.h"
#include "semread.h"

/* A parsed ELF file, shared by every catalog that maps it. */
struct objinfo {
	uint64_t dev, inode;
	struct elfobj *elf;
	bool bad_notes;
	struct cat_probe *probes;
	size_t nprobes;
	struct cat_loc *locs;
};

struct objcache {
	struct objinfo **items;
	size_t n, cap;
};

struct catalog {
	pid_t pid;
	struct objcache *own_cache; /* when the caller gave none */
	struct cat_object *objs;
	size_t nobjs;
	size_t nprobes;
};

/* Notes collected before grouping: one per location. */
struct note_list {
	struct usdt_note *notes;
	size_t n, cap;
};

struct objcache *objcache_new(void)
{
	return calloc(1, sizeof(struct objcache));
}

static void objinfo_free(struct objinfo *info)
{
	if (!info)
		return;
	elfobj_free(info->elf);
	free(info->probes);
	free(info->locs);
	free(info);
}

void objcache_free(struct objcache *cache)
{
	if (!cache)
		return;
	for (size_t i = 0; i < cache->n; i++)
		objinfo_free(cache->items[i]);
	free(cache->items);
	free(cache);
}

static struct objinfo *cache_find(struct objcache *cache, uint64_t dev,
				  uint64_t inode)
{
	for (size_t i = 0; i < cache->n; i++)
		if (cache->items[i]->dev == dev &&
		    cache->items[i]->inode == inode)
			return cache->items[i];
	return NULL;
}

bool objcache_has(struct objcache *cache, uint64_t dev, uint64_t inode)
{
	return cache_find(cache, dev, inode) != NULL;
}

static int cache_add(struct objcache *cache, struct objinfo *info)
{
	if (cache->n == cache->cap) {
		size_t ncap = cache->cap ? cache->cap * 2 : 32;
		struct objinfo **tmp =
			realloc(cache->items, ncap * sizeof(*tmp));

		if (!tmp)
			return -ENOMEM;
		cache->items = tmp;
		cache->cap = ncap;
	}
	cache->items[cache->n++] = info;
	return 0;
}

static int collect_note(const struct usdt_note *note, void *ctx)
{
	struct note_list *list = ctx;

	if (list->n == list->cap) {
		size_t ncap = list->cap ? list->cap * 2 : 64;
		struct usdt_note *tmp =
			realloc(list->notes, ncap * sizeof(*tmp));

		if (!tmp)
			return -ENOMEM;
		list->notes = tmp;
		list->cap = ncap;
	}
	list->notes[list->n++] = *note;
	return 0;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_note(const void *pa, const void *pb)
{
	const struct usdt_note *a = pa, *b = pb;
	int c = strcmp(a->provider, b->provider);

	if (!c)
		c = strcmp(a->name, b->name);
	return c ? c : cmp_u64(a->pc, b->pc);
}

static void fill_loc(struct elfobj *elf, const struct usdt_note *note,
		     struct cat_loc *loc)
{
	bool x86 = elfobj_machine(elf) == EM_X86_64;

	loc->addr = note->pc;
	loc->sem_addr = note->semaphore;
	loc->args = note->args;
	if (elfobj_vaddr_to_offset(elf, note->pc, &loc->offset))
		log_msg(LOG_WARN,
			"%s: probe %s:%s at %#lx is outside every "
			"loadable segment",
			elfobj_name(elf), note->provider, note->name,
			(unsigned long)note->pc);
	if (note->semaphore &&
	    elfobj_vaddr_to_offset(elf, note->semaphore, &loc->sem_offset))
		log_msg(LOG_WARN,
			"%s: semaphore of %s:%s at %#lx is outside "
			"every loadable segment",
			elfobj_name(elf), note->provider, note->name,
			(unsigned long)note->semaphore);
	loc->nargs = usdtarg_decode_all(note->args, loc->argv, USDT_MAX_ARGS);
	if (loc->nargs < 0)
		loc->nargs = -1;
	for (int i = 0; i < loc->nargs; i++) {
		struct usdt_arg *arg = &loc->argv[i];

		if (!x86) /* the decoder only knows x86-64; raw keeps the spec */
			arg->kind = USDT_ARG_RAW;
		if (arg->kind == USDT_ARG_SYM &&
		    elfobj_symbol_addr(elf, arg->sym, &arg->sym_addr))
			arg->sym_addr = 0;
	}
}

/* Group sorted notes into probes with their locations. */
static int build_probes(struct objinfo *info, struct note_list *list)
{
	size_t np = 0;

	if (!list->n)
		return 0;
	qsort(list->notes, list->n, sizeof(*list->notes), cmp_note);
	info->locs = calloc(list->n, sizeof(*info->locs));
	info->probes = calloc(list->n, sizeof(*info->probes));
	if (!info->locs || !info->probes)
		return -ENOMEM;
	for (size_t i = 0; i < list->n; i++) {
		const struct usdt_note *note = &list->notes[i];
		struct cat_probe *p = np ? &info->probes[np - 1] : NULL;

		if (!p || strcmp(p->provider, note->provider) ||
		    strcmp(p->name, note->name)) {
			p = &info->probes[np++];
			p->provider = note->provider;
			p->name = note->name;
			p->locs = &info->locs[i];
		}
		fill_loc(info->elf, note, &info->locs[i]);
		p->nlocs++;
	}
	info->nprobes = np;
	return 0;
}

/* Whether the code of the file behind fd (read, not taken) tests each
 * of info's n locations' semaphores (semread.h): their sem_tested. */
static void find_tested(struct objinfo *info, size_t n, int fd,
			const char *name)
{
	uint64_t *sems = calloc(n ? n : 1, sizeof(*sems));
	bool *tested = calloc(n ? n : 1, sizeof(*tested));
	size_t k = 0;

	for (size_t i = 0; sems && i < n; i++)
		if (info->locs[i].sem_addr)
			sems[k++] = info->locs[i].sem_addr;
	if (sems && tested && k)
		semread_tested(fd, name, sems, k, tested);
	for (size_t i = 0, j = 0; i < n; i++)
		if (info->locs[i].sem_addr) /* unknown: taken as tested */
			info->locs[i].sem_tested =
				sems && tested ? tested[j++] : true;
	free(sems);
	free(tested);
}

/* Parse fd (taken) as an ELF file into a new objinfo. NULL + errno. */
static struct objinfo *objinfo_load(int fd, const char *name, uint64_t dev,
				    uint64_t inode)
{
	struct note_list list = { 0 };
	struct objinfo *info = calloc(1, sizeof(*info));
	int ret, sfd = -1;

	if (!info) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	info->dev = dev;
	info->inode = inode;
	sfd = dup(fd);
	info->elf = elfobj_open_fd(fd, name);
	if (!info->elf) {
		ret = -errno;
		goto fail;
	}
	ret = elfobj_notes(info->elf, collect_note, &list);
	if (ret == -EBADMSG) {
		info->bad_notes = true;
		list.n = 0;
		ret = 0;
	}
	if (!ret)
		ret = build_probes(info, &list);
	if (ret)
		goto fail;
	find_tested(info, list.n, sfd, name);
	if (sfd >= 0)
		close(sfd);
	free(list.notes);
	return info;
fail:
	if (sfd >= 0)
		close(sfd);
	free(list.notes);
	objinfo_free(info);
	errno = -ret;
	return NULL;
}

static bool is_elf_file(int fd)
{
	unsigned char magic[SELFMAG];

	return pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	       !memcmp(magic, ELFMAG, SELFMAG);
}

static struct catalog *catalog_new(struct objcache *cache, pid_t pid,
				   size_t max_objs)
{
	struct catalog *cat = calloc(1, sizeof(*cat));

	if (!cat)
		return NULL;
	cat->pid = pid;
	cat->objs = calloc(max_objs ? max_objs : 1, sizeof(*cat->objs));
	if (!cache)
		cache = cat->own_cache = objcache_new();
	if (!cat->objs || !cache) {
		catalog_free(cat);
		return NULL;
	}
	return cat;
}

static void add_object(struct catalog *cat, const struct objinfo *info,
		       const char *path)
{
	struct cat_object *obj = &cat->objs[cat->nobjs++];

	obj->path = path;
	obj->dev = info->dev;
	obj->inode = info->inode;
	obj->bad_notes = info->bad_notes;
	obj->nprobes = info->nprobes;
	obj->probes = info->probes;
	obj->elf = info->elf;
	cat->nprobes += info->nprobes;
}

static bool seen_inode(const struct catalog *cat, uint64_t dev, uint64_t ino)
{
	for (size_t i = 0; i < cat->nobjs; i++)
		if (cat->objs[i].dev == dev && cat->objs[i].inode == ino)
			return true;
	return false;
}

/* The objinfo of one mapping: from the cache, or parsed now. */
static struct objinfo *map_objinfo(struct objcache *cache, pid_t pid,
				   const struct proc_map *m, uint64_t dev)
{
	struct objinfo *info = cache_find(cache, dev, m->inode);
	int fd;

	if (info)
		return info;
	fd = proc_open_mapped(pid, m);
	if (fd < 0) {
		log_msg(LOG_WARN, "pid %d: %s: cannot open: %s", (int)pid,
			m->path, strerror(-fd));
		return NULL;
	}
	if (!is_elf_file(fd)) {
		close(fd);
		return NULL;
	}
	info = objinfo_load(fd, m->path, dev, m->inode);
	if (info && cache_add(cache, info)) {
		objinfo_free(info);
		info = NULL;
	}
	return info;
}

int catalog_load_bias(const struct proc_maps *maps, const struct proc_map *m,
		      const struct elfobj *elf, uint64_t *bias)
{
	for (size_t i = 0; i < maps->n; i++) {
		const struct proc_map *f = &maps->maps[i];

		if (f->inode == m->inode && f->dev_major == m->dev_major &&
		    f->dev_minor == m->dev_minor)
			return elfobj_load_bias(elf, f->start, f->offset, bias);
	}
	return -ENOENT;
}

struct elfobj *objcache_elf(struct objcache *cache, pid_t pid,
			    const struct proc_map *m)
{
	const struct objinfo *info =
		map_objinfo(cache, pid, m, makedev(m->dev_major, m->dev_minor));

	return info ? info->elf : NULL;
}

/* What a parse reads of a file: its head (ELF and program headers) and
 * its tail (section headers, section names and, in stripped files, the
 * notes). */
#define PREFETCH_HEAD 4096
#define PREFETCH_TAIL (64 * 1024)

/*
 * Ask the kernel to start reading the head and tail of every object not in
 * the cache, all at once, before parsing them one by one: on a cold page
 * cache the reads then overlap instead of queueing behind each other.
 */
static void prefetch_objects(struct objcache *cache, pid_t pid,
			     const struct proc_maps *maps)
{
	for (size_t i = 0; i < maps->n; i++) {
		const struct proc_map *m = &maps->maps[i];
		struct stat st;
		int fd;

		if (m->perms[2] != 'x' ||
		    cache_find(cache, makedev(m->dev_major, m->dev_minor),
			       m->inode))
			continue;
		fd = proc_open_mapped(pid, m);
		if (fd < 0)
			continue;
		posix_fadvise(fd, 0, PREFETCH_HEAD, POSIX_FADV_WILLNEED);
		if (!fstat(fd, &st) && st.st_size > PREFETCH_TAIL)
			posix_fadvise(fd, st.st_size - PREFETCH_TAIL,
				      PREFETCH_TAIL, POSIX_FADV_WILLNEED);
		close(fd);
	}
}

struct catalog *catalog_open_pid(struct objcache *cache, pid_t pid)
{
	struct proc_maps maps = { 0 };
	struct catalog *cat;
	int ret;

	ret = proc_maps_read(pid, &maps);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	cat = catalog_open_maps(cache, pid, &maps);
	ret = errno;
	proc_maps_free(&maps);
	errno = ret;
	return cat;
}

struct catalog *catalog_open_maps(struct objcache *cache, pid_t pid,
				  const struct proc_maps *maps)
{
	struct catalog *cat = NULL;
	int ret = 0;

	cat = catalog_new(cache, pid, maps->n);
	if (!cat) {
		ret = -ENOMEM;
		goto out;
	}
	cache = cache ? cache : cat->own_cache;
	prefetch_objects(cache, pid, maps);
	/* each object once, in address order, if some part is executable */
	for (size_t i = 0; i < maps->n; i++) {
		const struct proc_map *m = &maps->maps[i];
		uint64_t dev = makedev(m->dev_major, m->dev_minor);
		const struct objinfo *info;
		struct cat_object *obj;
		char *path;

		if (m->perms[2] != 'x' || seen_inode(cat, dev, m->inode))
			continue;
		info = map_objinfo(cache, pid, m, dev);
		if (!info)
			continue;
		path = strdup(m->path);
		if (!path) {
			ret = -ENOMEM;
			catalog_free(cat);
			cat = NULL;
			goto out;
		}
		add_object(cat, info, path);
		obj = &cat->objs[cat->nobjs - 1];
		obj->deleted = m->deleted;
		obj->has_bias =
			!catalog_load_bias(maps, m, info->elf, &obj->bias);
	}
	if (!proc_alive(pid)) {
		ret = -ESRCH;
		catalog_free(cat);
		cat = NULL;
	}
out:
	if (ret)
		errno = -ret;
	return cat;
}

struct catalog *catalog_open_file(struct objcache *cache, const char *path)
{
	struct catalog *cat = NULL;
	struct objinfo *info;
	struct stat st;
	char *copy = NULL;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = errno;
		log_msg(LOG_ERROR, "%s: %s", path, strerror(err));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? EISDIR : ENOEXEC;
		log_msg(LOG_ERROR, "%s: not a regular file", path);
		goto fail;
	}
	cat = catalog_new(cache, 0, 1);
	copy = strdup(path);
	if (!cat || !copy) {
		err = ENOMEM;
		goto fail;
	}
	cache = cache ? cache : cat->own_cache;
	info = cache_find(cache, st.st_dev, st.st_ino);
	if (info) {
		close(fd);
	} else {
		info = objinfo_load(fd, path, st.st_dev, st.st_ino);
		if (!info || cache_add(cache, info)) {
			err = info ? ENOMEM : errno;
			objinfo_free(info);
			fd = -1;
			goto fail;
		}
	}
	fd = -1;
	if (info->bad_notes) {
		err = EBADMSG;
		goto fail;
	}
	add_object(cat, info, copy);
	return cat;
fail:
	if (fd >= 0)
		close(fd);
	free(copy);
	catalog_free(cat);
	errno = err;
	return NULL;
}

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static int search_dirs(const char *dirs, const char *name, char *out, size_t n)
{
	const char *p = dirs;

	while (*p) {
		size_t len = strcspn(p, ":");

		if (len &&
		    (size_t)snprintf(out, n, "%.*s/%s", (int)len, p, name) <
			    n &&
		    is_file(out))
			return 0;
		p += len + (p[len] == ':');
	}
	return -ENOENT;
}

int catalog_find_file(const char *name, char *out, size_t n)
{
	static const char LIBDIRS[] =
		"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"
		"/usr/local/lib:/lib64:/usr/lib64:/lib:/usr/lib";
	const char *path = getenv("PATH");

	if (strchr(name, '/') || is_file(name)) {
		if ((size_t)snprintf(out, n, "%s", name) >= n)
			return -ENAMETOOLONG;
		return 0;
	}
	if (path && !search_dirs(path, name, out, n))
		return 0;
	return search_dirs(LIBDIRS, name, out, n);
}

void catalog_free(struct catalog *cat)
{
	if (!cat)
		return;
	for (size_t i = 0; i < cat->nobjs; i++)
		free((char *)cat->objs[i].path);
	free(cat->objs);
	objcache_free(cat->own_cache);
	free(cat);
}

pid_t catalog_pid(const struct catalog *cat)
{
	return cat->pid;
}

size_t catalog_nobjects(const struct catalog *cat)
{
	return cat->nobjs;
}

const struct cat_object *catalog_object(const struct catalog *cat, size_t i)
{
	return i < cat->nobjs ? &cat->objs[i] : NULL;
}

size_t catalog_nprobes(const struct catalog *cat)
{
	return cat->nprobes;
}

int catalog_find_probe(const struct catalog *cat, const struct spec_probe *p)
{
	for (size_t i = 0; i < catalog_nobjects(cat); i++) {
		const struct cat_object *obj = catalog_object(cat, i);

		if (!spec_object_matches(p, obj->path))
			continue;
		for (size_t k = 0; k < obj->nprobes; k++)
			if (spec_probe_matches(p, obj->probes[k].provider,
					       obj->probes[k].name))
				return (int)i;
	}
	return -1;
}

bool catalog_has_probe(const struct catalog *cat, const struct spec_probe *p)
{
	return catalog_find_probe(cat, p) >= 0;
}

int catalog_functions(const struct cat_object *obj, elf_func_fn fn, void *ctx)
{
	if (!obj->elf)
		return 0;
	debugfile_attach(obj->elf, obj->path);
	return elfobj_functions(obj->elf, fn, ctx);
}

int catalog_symbol_addr(const struct cat_object *obj, const char *name,
			uint64_t *addr)
{
	if (!obj->elf)
		return -ENOENT;
	if (!elfobj_symbol_addr(obj->elf, name, addr))
		return 0; /* its own tables: no debug file looked for */
	debugfile_attach(obj->elf, obj->path);
	return elfobj_symbol_addr(obj->elf, name, addr);
}

int catalog_variable(const struct cat_object *obj, const char *name,
		     uint64_t *addr, uint64_t *size)
{
	int err;

	if (!obj->elf)
		return -ENOENT;
	err = elfobj_variable(obj->elf, name, addr, size);
	if (err != -ENOENT)
		return err; /* its own tables: no debug file looked for */
	debugfile_attach(obj->elf, obj->path);
	return elfobj_variable(obj->elf, name, addr, size);
}
