// SPDX-License-Identifier: MIT
/*
 * stacktext — names of call stacks by (pid, id); see stacktext.h.
 */
#include "stacktext.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define INDEX 16384 /* slots of the direct-mapped index */

struct kept {
	pid_t pid;
	uint64_t id;
	char *text;
	uint32_t next; /* the next of its index slot: 1 + index, or 0 */
};

struct stacktext {
	struct kept *v; /* every stack named, kept to the end */
	size_t n, cap;
	uint32_t index[INDEX]; /* by (pid, id): the first of the slot's
				  chain, 1 + index into v, or 0 */
};

struct stacktext *stacktext_new(void)
{
	return calloc(1, sizeof(struct stacktext));
}

void stacktext_free(struct stacktext *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->n; i++)
		free(st->v[i].text);
	free(st->v);
	free(st);
}

static size_t slot(pid_t pid, uint64_t id)
{
	return (id ^ (uint64_t)pid) % INDEX;
}

const char *stacktext_find(const struct stacktext *st, pid_t pid, uint64_t id)
{
	for (uint32_t k = st->index[slot(pid, id)]; k; k = st->v[k - 1].next)
		if (st->v[k - 1].id == id && st->v[k - 1].pid == pid)
			return st->v[k - 1].text;
	return NULL;
}

const char *stacktext_keep(struct stacktext *st, pid_t pid, uint64_t id,
			   const char *text)
{
	struct kept *v;

	if (st->n == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 64;

		v = realloc(st->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		st->v = v;
		st->cap = cap;
	}
	v = &st->v[st->n];
	v->text = strdup(text);
	if (!v->text)
		return NULL;
	v->pid = pid;
	v->id = id;
	v->next = st->index[slot(pid, id)];
	st->index[slot(pid, id)] = (uint32_t)++st->n;
	return v->text;
}
