/* SPDX-License-Identifier: MIT */
/*
 * rowcache — what a view derives from a snapshot's rows (their key as
 * text, say), kept by the row's id (struct agg_row.id) from one refresh
 * to the next, so that a row is formatted once in its life rather than
 * at every interval: with a hundred thousand rows, that formatting was
 * most of a refresh.
 *
 * A refresh is a round: what the round gets or puts stays, what it does
 * not is freed at rowcache_sweep(), which ends it. The cache owns what
 * is put in it and frees it with the function given to rowcache_new().
 * Ids are never 0 (a row agg did not make has id 0: keep nothing for it).
 */
#ifndef PROBETOP_ROWCACHE_H
#define PROBETOP_ROWCACHE_H

#include <stdint.h>

struct rowcache;

/* An empty cache whose values free_fn frees; NULL if out of memory. */
struct rowcache *rowcache_new(void (*free_fn)(void *));

/* Free c and every value in it; NULL is a no-op. */
void rowcache_free(struct rowcache *c);

/* Ask the memory for id's slot now: a rowcache_get(id) soon after will
 * not wait for it (a loop over rows prefetches a few rows ahead). */
void rowcache_prefetch(const struct rowcache *c, uint64_t id);

/* The same for the value kept by id, once its slot is in (a
 * rowcache_prefetch() earlier); nothing if it has none. */
void rowcache_prefetch_value(const struct rowcache *c, uint64_t id);

/* The value of id, kept for this round, or NULL. */
void *rowcache_get(struct rowcache *c, uint64_t id);

/* Keep v as id's value (id has none) for this round: 0, or -ENOMEM (v
 * is not kept; the caller still owns it). */
int rowcache_put(struct rowcache *c, uint64_t id, void *v);

/* End the round: free the values it neither got nor put. */
void rowcache_sweep(struct rowcache *c);

/* Free every value (what they were derived from changed). */
void rowcache_clear(struct rowcache *c);

#endif
