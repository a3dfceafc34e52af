// SPDX-License-Identifier: MIT
/*
 * ksyms — kernel symbols from /proc/kallsyms; see ksyms.h.
 */
#include "ksyms.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ksym {
	uint64_t addr;
	char *name; /* "name" or "name [module]" */
};

struct ksyms {
	struct ksym *v;
	size_t n, cap;
};

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Add one symbol; 0 or -ENOMEM. */
static int add(struct ksyms *ks, uint64_t addr, const char *name,
	       const char *mod)
{
	char buf[400];

	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? 2 * ks->cap : 4096;
		struct ksym *v = realloc(ks->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ks->v = v;
		ks->cap = cap;
	}
	snprintf(buf, sizeof(buf), "%s%s%s", name, *mod ? " " : "", mod);
	ks->v[ks->n].addr = addr;
	ks->v[ks->n].name = strdup(buf);
	if (!ks->v[ks->n].name)
		return -ENOMEM;
	ks->n++;
	return 0;
}

struct ksyms *ksyms_load(const char *path)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	char line[512], name[256], mod[128];
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!ks || !f) {
		err = ks ? errno : ENOMEM;
		goto fail;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		uint64_t addr;
		char type;

		mod[0] = '\0';
		if (sscanf(line, "%" SCNx64 " %c %255s %127s", &addr, &type,
			   name, mod) < 3 ||
		    !addr)
			continue; /* hidden (0) or not a symbol line */
		if (strchr("tTwW", type))
			err = -add(ks, addr, name, mod);
	}
	fclose(f);
	f = NULL;
	if (err)
		goto fail;
	qsort(ks->v, ks->n, sizeof(*ks->v), by_addr);
	return ks;
fail:
	if (f)
		fclose(f);
	ksyms_free(ks);
	errno = err;
	return NULL;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	for (size_t i = 0; i < ks->n; i++)
		free(ks->v[i].name);
	free(ks->v);
	free(ks);
}

void ksyms_name(const struct ksyms *ks, uint64_t addr, char *out, size_t n)
{
	size_t lo = 0, hi = ks ? ks->n : 0;

	while (lo < hi) { /* the first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (ks->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo)
		snprintf(out, n, "%s", ks->v[lo - 1].name);
	else
		snprintf(out, n, "0x%" PRIx64, addr);
}
