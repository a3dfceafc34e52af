// SPDX-License-Identifier: MIT
/*
 * rectab — a string table and a number map for the recording's writer;
 * see rectab.h.
 */
#include "rectab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)(key & (cap - 1));
}

bool rectab_map_get(const struct rectab_map *m, uint64_t key, uint32_t *val)
{
	if (!m->cap)
		return false;
	for (size_t i = slot_of(key, m->cap); m->used[i];
	     i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return true;
		}
	return false;
}

/* Put without growing; the map has a free slot. */
static void put_slot(struct rectab_map *m, uint64_t key, uint32_t val)
{
	size_t i = slot_of(key, m->cap);

	while (m->used[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->used[i])
		m->n++;
	m->used[i] = true;
	m->keys[i] = key;
	m->vals[i] = val;
}

static int grow(struct rectab_map *m)
{
	struct rectab_map g = { .cap = m->cap ? 2 * m->cap : 64 };

	g.keys = malloc(g.cap * sizeof(*g.keys));
	g.vals = malloc(g.cap * sizeof(*g.vals));
	g.used = calloc(g.cap, sizeof(*g.used));
	if (!g.keys || !g.vals || !g.used) {
		rectab_map_free(&g);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->used[i])
			put_slot(&g, m->keys[i], m->vals[i]);
	rectab_map_free(m);
	*m = g;
	return 0;
}

int rectab_map_put(struct rectab_map *m, uint64_t key, uint32_t val)
{
	if (2 * (m->n + 1) > m->cap && grow(m))
		return -ENOMEM;
	put_slot(m, key, val);
	return 0;
}

void rectab_map_free(struct rectab_map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	*m = (struct rectab_map){ 0 };
}

/* FNV-1a, 64 bits */
static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* Append a copy of s as the next id; -1 with no memory. */
static int64_t str_add(struct rectab_strs *t, const char *s)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		char **v = realloc(t->strs, cap * sizeof(*v));

		if (!v)
			return -1;
		t->strs = v;
		t->cap = cap;
	}
	t->strs[t->n] = strdup(s);
	return t->strs[t->n] ? (int64_t)t->n++ : -1;
}

int64_t rectab_str_id(struct rectab_strs *t, const char *s)
{
	uint64_t h = str_hash(s);
	uint32_t id;
	int64_t fresh;

	for (;; h++) {
		if (!rectab_map_get(&t->by_hash, h, &id))
			break;
		if (!strcmp(t->strs[id], s))
			return id;
	}
	fresh = str_add(t, s);
	if (fresh < 0 || rectab_map_put(&t->by_hash, h, (uint32_t)fresh))
		return -1;
	return fresh;
}

void rectab_strs_free(struct rectab_strs *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	rectab_map_free(&t->by_hash);
	*t = (struct rectab_strs){ 0 };
}
