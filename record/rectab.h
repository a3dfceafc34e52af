/* SPDX-License-Identifier: MIT */
/*
 * rectab — the tables a recording's writer keeps (recenc.c): its string
 * table (each name once, numbered in the order first seen) and a map
 * from 64-bit numbers (row ids, pids) to 32-bit ones. Open addressing,
 * grown at half full; nothing is ever removed, as nothing is from a
 * recording.
 */
#ifndef PROBETOP_RECTAB_H
#define PROBETOP_RECTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rectab_map {
	uint64_t *keys;
	uint32_t *vals;
	bool *used;
	size_t n, cap;
};

/* The value of key into *val: true, or false if key is not there. */
bool rectab_map_get(const struct rectab_map *m, uint64_t key, uint32_t *val);

/* Set key to val (added, or changed). 0 or -ENOMEM. */
int rectab_map_put(struct rectab_map *m, uint64_t key, uint32_t val);

void rectab_map_free(struct rectab_map *m);

struct rectab_strs {
	char **strs; /* by id, each a copy the table owns */
	size_t n, cap;
	size_t nwritten; /* ids below were written to the file */
	struct rectab_map by_hash; /* a string's hash -> its id (probed on
				      a collision, the hash stepped) */
};

/*
 * The id of string s, added (a copy, next id) if it is new. -1 with no
 * memory.
 */
int64_t rectab_str_id(struct rectab_strs *t, const char *s);

void rectab_strs_free(struct rectab_strs *t);

#endif
