// SPDX-License-Identifier: MIT
/*
 * spec_query — what a parsed spec says of itself (see spec.h): which
 * kind its keys are, its probe as text, which probes and objects it
 * matches, whether its aggregation has buckets. spec.c parses; these
 * only read the result, for the engine, the views and the outputs.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "spec.h"

bool spec_key_is_py(const struct spec_key *k)
{
	return k->kind == SPEC_KEY_PYFRAME || k->kind == SPEC_KEY_PYSTACK ||
	       k->kind == SPEC_KEY_PYLINE || k->kind == SPEC_KEY_PYFIRSTLINE ||
	       k->kind == SPEC_KEY_MIXSTACK;
}

bool spec_key_is_php(const struct spec_key *k)
{
	return k->kind == SPEC_KEY_PHPFRAME || k->kind == SPEC_KEY_PHPSTACK ||
	       k->kind == SPEC_KEY_PHPLINE;
}

bool spec_key_is_rb(const struct spec_key *k)
{
	return k->kind == SPEC_KEY_RBFRAME || k->kind == SPEC_KEY_RBSTACK ||
	       k->kind == SPEC_KEY_RBLINE;
}

enum spec_frames spec_frames_of(const struct spec *sp)
{
	for (int i = 0; i < sp->nkeys; i++)
		if (spec_key_is_php(&sp->keys[i]))
			return SPEC_FRAMES_PHP;
		else if (spec_key_is_rb(&sp->keys[i]))
			return SPEC_FRAMES_RUBY;
	return SPEC_FRAMES_PYTHON;
}

bool spec_key_is_frame(const struct spec_key *k)
{
	return k->kind == SPEC_KEY_PYFRAME || k->kind == SPEC_KEY_PHPFRAME ||
	       k->kind == SPEC_KEY_PHPLINE || k->kind == SPEC_KEY_RBFRAME ||
	       spec_key_is_line(k);
}

bool spec_key_is_line(const struct spec_key *k)
{
	return k->kind == SPEC_KEY_PYLINE || k->kind == SPEC_KEY_RBLINE;
}

bool spec_key_is_stack(const struct spec_key *k)
{
	return k->kind == SPEC_KEY_PYSTACK || k->kind == SPEC_KEY_USTACK ||
	       k->kind == SPEC_KEY_KSTACK || k->kind == SPEC_KEY_MIXSTACK ||
	       k->kind == SPEC_KEY_PHPSTACK || k->kind == SPEC_KEY_RBSTACK;
}

bool spec_key_is_ctx(const struct spec_key *k)
{
	return spec_key_is_py(k) || spec_key_is_php(k) || spec_key_is_rb(k) ||
	       k->kind == SPEC_KEY_USTACK || k->kind == SPEC_KEY_KSTACK ||
	       k->kind == SPEC_KEY_JITFRAME;
}

bool spec_key_of_process(const struct spec_key *k)
{
	return (spec_key_is_ctx(k) && k->kind != SPEC_KEY_KSTACK) ||
	       k->kind == SPEC_KEY_SYM;
}

bool spec_key_is_str(const struct spec_key *k)
{
	return k->kind == SPEC_KEY_STR || k->kind == SPEC_KEY_STRN ||
	       k->kind == SPEC_KEY_SQL;
}

void spec_probe_text(const struct spec_probe *p, char *out, size_t len)
{
	snprintf(out, len, "%s%s%s%s%s%s%s%s%s", p->fn ? "fn:" : "", p->object,
		 p->object[0] ? ":" : "", p->fn ? "" : p->provider,
		 p->fn ? "" : ":", p->name, p->ret ? "%return" : "",
		 p->function[0] ? "@" : "", p->function);
}

bool spec_probe_matches(const struct spec_probe *p, const char *provider,
			const char *name)
{
	return !p->fn && !fnmatch(p->provider, provider, 0) &&
	       !fnmatch(p->name, name, 0);
}

bool spec_object_matches(const struct spec_probe *p, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(p->object);

	base = base ? base + 1 : path;
	if (!n || !strcmp(p->object, path) || !strcmp(p->object, base))
		return true;
	if (strchr(p->object, '/'))
		return false;
	return !strncmp(base, p->object, n) &&
	       (base[n] == '.' || base[n] == '-');
}

bool spec_covers(const struct spec *sp, const char *object,
		 const char *provider, const char *name, bool fn)
{
	for (int i = 0; i < sp->nprobes; i++) {
		const struct spec_probe *p = &sp->probe[i];

		if (p->fn != fn || !spec_object_matches(p, object))
			continue;
		if (fn ? !strcmp(p->name, name)
		       : spec_probe_matches(p, provider, name))
			return true;
	}
	return false;
}

int spec_first_cover(int n,
		     const struct spec *(*get)(void *ctx, int i, bool *own),
		     void *ctx, const char *object, const char *provider,
		     const char *name, bool fn, bool *own)
{
	int found = -1;

	for (int i = 0; i < n; i++) {
		bool mine = false;
		const struct spec *sp = get(ctx, i, &mine);

		if (!sp || !spec_covers(sp, object, provider, name, fn))
			continue;
		if (mine) {
			*own = true;
			return i;
		}
		if (found < 0)
			found = i;
	}
	*own = false;
	return found;
}

bool spec_has_buckets(const struct spec *sp)
{
	return sp->agg == SPEC_AGG_QUANTIZE || sp->agg == SPEC_AGG_LQUANTIZE ||
	       sp->timed;
}
