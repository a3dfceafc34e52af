// SPDX-License-Identifier: MIT
/*
 * rowcache — values kept by row id; see rowcache.h.
 *
 * One open-addressing table (linear probing, under half full) whose slots
 * carry the round that last got or put them. A get touches its one slot,
 * which rowcache_prefetch() can ask for ahead; the sweep is one pass over
 * the slots, deleting the stale ones by moving their probe chains back
 * (no tombstones to lengthen the chains), and no pass at all when the
 * round used every entry. An entry that a deletion moves into a slot the
 * pass has left behind is looked at by the next sweep.
 */
#include "rowcache.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	uint64_t id; /* 0: empty */
	void *v;
	unsigned int round; /* the last that got or put it */
};

struct rowcache {
	struct slot *s;
	size_t cap, n; /* cap a power of two, or 0 */
	unsigned int round;
	size_t used; /* entries this round got or put */
	void (*free_fn)(void *);
};

/* Where id's probe starts in a table of cap slots. */
static size_t home(uint64_t id, size_t cap)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (size_t)id & (cap - 1);
}

/* c's slot of id, or NULL. */
static struct slot *find(const struct rowcache *c, uint64_t id)
{
	if (!c->cap)
		return NULL;
	for (size_t h = home(id, c->cap); c->s[h].id;
	     h = (h + 1) & (c->cap - 1))
		if (c->s[h].id == id)
			return &c->s[h];
	return NULL;
}

/* Put slot x in s[0..cap), which has room and no x.id. */
static void place(struct slot *s, size_t cap, const struct slot *x)
{
	size_t h = home(x->id, cap);

	while (s[h].id)
		h = (h + 1) & (cap - 1);
	s[h] = *x;
}

/* Room in c for one more, under half full; 0 or -ENOMEM. */
static int room(struct rowcache *c)
{
	size_t cap = c->cap ? 2 * c->cap : 1024;
	struct slot *s;

	if ((c->n + 1) * 2 <= c->cap)
		return 0;
	s = calloc(cap, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < c->cap; i++)
		if (c->s[i].id)
			place(s, cap, &c->s[i]);
	free(c->s);
	c->s = s;
	c->cap = cap;
	return 0;
}

/* Whether home h lies cyclically in (i, j]: an entry at j with home h
 * must stay after a hole at i. */
static bool between(size_t i, size_t h, size_t j)
{
	return i <= j ? i < h && h <= j : i < h || h <= j;
}

/* Empty slot i, moving back the entries of the probe chain after it that
 * would be cut off from their home. */
static void delete_at(struct rowcache *c, size_t i)
{
	size_t mask = c->cap - 1;

	for (size_t j = (i + 1) & mask; c->s[j].id; j = (j + 1) & mask) {
		if (between(i, home(c->s[j].id, c->cap), j))
			continue;
		c->s[i] = c->s[j];
		i = j;
	}
	c->s[i] = (struct slot){ 0 };
	c->n--;
}

struct rowcache *rowcache_new(void (*free_fn)(void *))
{
	struct rowcache *c = calloc(1, sizeof(*c));

	if (c)
		c->free_fn = free_fn;
	return c;
}

void rowcache_free(struct rowcache *c)
{
	if (!c)
		return;
	rowcache_clear(c);
	free(c->s);
	free(c);
}

void rowcache_prefetch(const struct rowcache *c, uint64_t id)
{
	if (c->cap)
		__builtin_prefetch(&c->s[home(id, c->cap)], 1);
}

void rowcache_prefetch_value(const struct rowcache *c, uint64_t id)
{
	const struct slot *s = find(c, id);

	if (s)
		__builtin_prefetch(s->v, 1);
}

void *rowcache_get(struct rowcache *c, uint64_t id)
{
	struct slot *s = find(c, id);

	if (!s)
		return NULL;
	c->used += s->round != c->round;
	s->round = c->round;
	return s->v;
}

int rowcache_put(struct rowcache *c, uint64_t id, void *v)
{
	if (room(c))
		return -ENOMEM;
	place(c->s, c->cap, &(struct slot){ id, v, c->round });
	c->n++;
	c->used++;
	return 0;
}

void rowcache_sweep(struct rowcache *c)
{
	for (size_t i = 0; i < c->cap && c->used < c->n; i++) {
		while (c->s[i].id && c->s[i].round != c->round) {
			c->free_fn(c->s[i].v);
			delete_at(c, i);
		}
	}
	c->round++;
	c->used = 0;
}

void rowcache_clear(struct rowcache *c)
{
	for (size_t i = 0; i < c->cap; i++)
		if (c->s[i].id)
			c->free_fn(c->s[i].v);
	if (c->cap)
		memset(c->s, 0, c->cap * sizeof(*c->s));
	c->n = c->used = 0;
}
