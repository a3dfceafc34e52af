/* SPDX-License-Identifier: MIT */
/*
 * basetab — a baseline (`--baseline OLD`): what an older recording
 * counted, summed over the whole of it, by aggregation (its SPEC text)
 * and key, and the arithmetic that holds a run against it. Pure: no
 * file, no libbpf, no curses; baseline.h fills one from a recording,
 * trace's renderers and the console's views read it.
 *
 * A key is a row's key parts (strings, numbers, stacks by their text);
 * the pid of -b's rows is left out, since a second run's pids differ: a
 * key's rows of every pid are summed into one. A row's rate is its
 * events over the recorded seconds (the last interval's elapsed_s: the
 * recording's length), so that runs of different lengths compare.
 */
#ifndef PROBETOP_BASETAB_H
#define PROBETOP_BASETAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"

/* A key of the baseline. row.count and row.total are the events summed
 * over every interval, row.sum and row.sum_total the sums; row.b and
 * row.b_total the buckets summed (NULL: not a histogram kind); min and
 * max over the recording; row.mark the least sure of its intervals'
 * (a bound if one was); its key parts own their text. */
struct basetab_row {
	struct agg_row row;
	uint64_t hash; /* of the key */
};

/* An aggregation of the baseline: its spec (as parsed when recorded) and
 * its keys, in the order first recorded. */
struct basetab_spec {
	struct spec spec;
	struct basetab_row *rows;
	size_t nrows, caprows;
	uint32_t *slots; /* open addressing: row index + 1, 0 empty */
	size_t nslots;
	uint64_t events; /* all its rows' */
	int64_t sum; /* all its rows' sums */
};

struct basetab {
	struct basetab_spec *specs;
	size_t nspecs, capspecs;
	double seconds; /* the recording's length */
	unsigned int intervals; /* read from it */
};

/* How a rate stands to the baseline's. */
struct basetab_cmp {
	double rate, base; /* per second, now and in the baseline */
	double delta; /* rate - base */
	double ratio; /* rate / base; INFINITY for a base of 0; NAN when
			 bound */
	bool bound; /* either is a lower bound (enum agg_mark): a ratio of
		       bounds can be anything, and delta is only a figure */
};

/* An empty baseline. NULL on ENOMEM. */
struct basetab *basetab_new(void);
void basetab_free(struct basetab *t); /* NULL is a no-op */

/*
 * Add the rows of as counted in its interval (count > 0) under its spec
 * text: counts, sums and buckets summed, min and max widened. 0 or
 * -ENOMEM (what was added stays).
 */
int basetab_add(struct basetab *t, const struct agg_spec *as);

/* The aggregation whose SPEC text is text, or NULL. */
const struct basetab_spec *basetab_spec(const struct basetab *t,
					const char *text);

/* The baseline's row of row's key (pid left out), or NULL (a new key);
 * bs NULL: NULL. */
const struct basetab_row *basetab_find(const struct basetab_spec *bs,
				       const struct agg_row *row);

/* Events per second of br over the recording (0 for NULL). */
double basetab_rate(const struct basetab *t, const struct basetab_row *br);

/* rate against base: the delta and the ratio. */
struct basetab_cmp basetab_compare(double rate, double base);

/* A rate marked mark (enum agg_mark) against br's in t (NULL: not in
 * it): basetab_compare(), bound where either is a lower bound (no
 * ratio). */
struct basetab_cmp basetab_compare_marked(double rate, unsigned char mark,
					  const struct basetab *t,
					  const struct basetab_row *br);

/*
 * The rows of bs whose key is in none of as's shown rows (final: those
 * counted since attach, else in the interval): the baseline's keys gone
 * now, by rate, highest first, into a new array *out (the caller frees
 * it). Returns how many; 0 with *out NULL when none or out of memory.
 */
size_t basetab_gone(const struct basetab_spec *bs, const struct agg_spec *as,
		    bool final, const struct basetab_row ***out);

#endif
