// SPDX-License-Identifier: MIT
/* needed — the DT_NEEDED library tree of an executable; see needed.h. */
#include "needed.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "elfobj.h"

struct needed {
	needed_add_fn *add;
	void *ctx;
	char origin[PATH_MAX];
	char runpath[4096];
	int depth;
};

static int add_tree(needed_add_fn *add, void *ctx, const char *path, int depth);

static bool try_dirs(const char *dirs, const char *origin, const char *name,
		     char *out, size_t n)
{
	char buf[4096];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", dirs ? dirs : "");
	for (char *d = strtok_r(buf, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		if (!strncmp(d, "$ORIGIN", 7))
			snprintf(out, n, "%s%s/%s", origin, d + 7, name);
		else
			snprintf(out, n, "%s/%s", d, name);
		if (!access(out, R_OK))
			return true;
	}
	return false;
}

static int add_needed(const char *name, void *ctx)
{
	struct needed *nd = ctx;
	char path[PATH_MAX];

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else if (!try_dirs(nd->runpath, nd->origin, name, path, sizeof(path)) &&
		 !try_dirs(getenv("LD_LIBRARY_PATH"), nd->origin, name, path,
			   sizeof(path)) &&
		 catalog_find_file(name, path, sizeof(path)))
		return 0;
	add_tree(nd->add, nd->ctx, path, nd->depth + 1);
	return 0;
}

static int append_runpath(const char *dirs, void *ctx)
{
	struct needed *nd = ctx;
	size_t len = strlen(nd->runpath);

	snprintf(nd->runpath + len, sizeof(nd->runpath) - len, "%s%s",
		 len ? ":" : "", dirs);
	return 0;
}

/* path and, recursively, what it needs (at most 8 levels deep). */
static int add_tree(needed_add_fn *add, void *ctx, const char *path, int depth)
{
	struct needed nd = { .add = add, .ctx = ctx, .depth = depth };
	const struct cat_object *obj = NULL;
	char *slash;
	int err;

	if (depth > 8)
		return 0;
	err = add(path, &obj, ctx);
	if (err || !obj)
		return err; /* !obj: already there: its tree was walked */
	if (!realpath(path, nd.origin))
		snprintf(nd.origin, sizeof(nd.origin), "%s", path);
	slash = strrchr(nd.origin, '/');
	if (slash)
		*slash = '\0';
	elfobj_dyn_strings(obj->elf, DT_RUNPATH, append_runpath, &nd);
	if (!nd.runpath[0])
		elfobj_dyn_strings(obj->elf, DT_RPATH, append_runpath, &nd);
	return elfobj_dyn_strings(obj->elf, DT_NEEDED, add_needed, &nd);
}

int needed_walk(const char *exe, needed_add_fn *add, void *ctx)
{
	char path[PATH_MAX];
	int err = catalog_find_file(exe, path, sizeof(path));

	if (err)
		return err;
	return add_tree(add, ctx, path, 0);
}

int needed_dl_hook(struct objcache *cache, const char *exe, char *interp,
		   size_t n, uint64_t *offset)
{
	struct catalog *cat = catalog_open_file(cache, exe);
	const struct cat_object *obj = cat ? catalog_object(cat, 0) : NULL;
	struct elfobj *ld;
	uint64_t addr;
	int err = -ENOENT;

	if (obj && obj->elf)
		err = elfobj_interp(obj->elf, interp, n);
	catalog_free(cat);
	if (err)
		return err;
	ld = elfobj_open(interp);
	if (!ld)
		return -errno;
	err = elfobj_symbol_addr(ld, "_dl_debug_state", &addr);
	if (!err)
		err = elfobj_vaddr_to_offset(ld, addr, offset);
	elfobj_free(ld);
	return err;
}
