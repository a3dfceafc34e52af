// SPDX-License-Identifier: MIT
/* What a spec that matches nothing probably meant (see nearest.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "catalog.h"
#include "elfobj.h"
#include "nearest.h"
#include "spec.h"

#define NEAREST_LEN 256 /* longest string nearest_distance() compares */

unsigned nearest_distance(const char *a, const char *b, unsigned max)
{
	unsigned rows[3][NEAREST_LEN + 1];
	unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	size_t na = strlen(a), nb = strlen(b);

	if (na > NEAREST_LEN || nb > NEAREST_LEN ||
	    (na > nb ? na - nb : nb - na) > max)
		return max + 1;
	for (size_t j = 0; j <= nb; j++)
		prev[j] = (unsigned)j;
	for (size_t i = 1; i <= na; i++) {
		unsigned low = cur[0] = (unsigned)i;
		int ca = tolower((unsigned char)a[i - 1]);

		for (size_t j = 1; j <= nb; j++) {
			int cb = tolower((unsigned char)b[j - 1]);
			unsigned d = prev[j - 1] + (ca != cb);

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 &&
			    ca == tolower((unsigned char)b[j - 2]) &&
			    cb == tolower((unsigned char)a[i - 2]) &&
			    prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
			if (d < low)
				low = d;
		}
		if (low > max)
			return max + 1; /* every path is already too long */
		unsigned *t = prev2;

		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[nb] > max ? max + 1 : prev[nb];
}

/* The nearest candidate so far. */
struct nearest {
	const struct spec_probe *p;
	unsigned max, d; /* d > max: none yet */
	bool exact; /* p itself is there: nothing to suggest */
	struct spec_probe best; /* p with the nearest names */
};

/* A candidate d edits from p: provider (USDT only) and name. */
static void consider(struct nearest *nr, unsigned d, const char *provider,
		     const char *name)
{
	const struct spec_probe *p = nr->p;

	if (!d && !strcmp(name, p->name) &&
	    (p->fn || !strcmp(provider, p->provider)))
		nr->exact = true;
	if (d >= nr->d || d > nr->max)
		return;
	nr->d = d;
	snprintf(nr->best.provider, sizeof(nr->best.provider), "%s", provider);
	snprintf(nr->best.name, sizeof(nr->best.name), "%s", name);
}

/* A USDT probe: by NAME, a different PROVIDER (a typo or the wrong one
 * altogether) one edit more. */
static void consider_usdt(struct nearest *nr, const struct cat_probe *cp)
{
	unsigned d = nearest_distance(nr->p->name, cp->name, nr->max);

	consider(nr, d + (strcasecmp(nr->p->provider, cp->provider) != 0),
		 cp->provider, cp->name);
}

static int consider_fn(const struct elf_func *fn, void *ctx)
{
	struct nearest *nr = ctx;

	consider(nr, nearest_distance(nr->p->name, fn->name, nr->max), "",
		 fn->name);
	return 0;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

bool nearest_settled(const struct cat_object *const *objs, size_t n,
		     const struct spec_probe *p)
{
	if (p->hz || (!p->fn && has_glob(p->provider)))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (p->object[0]) {
			if (spec_object_matches(p, objs[i]->path))
				return true;
			continue;
		}
		if (p->fn)
			return true;
		for (size_t k = 0; k < objs[i]->nprobes; k++)
			if (!strcmp(objs[i]->probes[k].provider, p->provider))
				return true;
	}
	return false;
}

bool nearest_probe(const struct cat_object *const *objs, size_t n,
		   const struct spec_probe *p, char *out, size_t len)
{
	size_t nlen = strlen(p->name);
	struct nearest nr = {
		.p = p,
		.max = nlen <= 4    ? 1
		       : nlen <= 10 ? 2
				    : 3,
		.best = *p,
	};

	nr.d = nr.max + 1;
	out[0] = '\0';
	if (has_glob(p->name) || (!p->fn && has_glob(p->provider)))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!spec_object_matches(p, objs[i]->path))
			continue;
		if (p->fn)
			catalog_functions(objs[i], consider_fn, &nr);
		for (size_t k = 0; !p->fn && k < objs[i]->nprobes; k++)
			consider_usdt(&nr, &objs[i]->probes[k]);
	}
	if (nr.d > nr.max || nr.exact)
		return false;
	spec_probe_text(&nr.best, out, len);
	return true;
}
