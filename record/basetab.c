// SPDX-License-Identifier: MIT
/*
 * basetab — a baseline's keys summed by aggregation, and a run held
 * against them; see basetab.h. Each aggregation keeps its rows in an
 * array and an open-addressing table of their indices by the key's
 * 64-bit hash (FNV-1a over the parts' kinds and texts or numbers), keys
 * compared part by part on a hash match.
 */
#include "basetab.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FNV_BASIS 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * FNV_PRIME;
	return h;
}

/* A part's kind as one byte. */
static unsigned char part_kind(const struct agg_key_part *k)
{
	return (unsigned char)(k->is_str | k->is_signed << 1 |
			       k->is_stack << 2);
}

/* The hash of row's key parts (not its pid). */
static uint64_t key_hash(const struct agg_row *row)
{
	uint64_t h = FNV_BASIS;

	for (int i = 0; i < row->nkeys; i++) {
		const struct agg_key_part *k = &row->key[i];
		unsigned char kind = part_kind(k);

		h = fnv(h, &kind, 1);
		if (k->is_str || k->is_stack) {
			const char *s = agg_key_text(k);

			h = fnv(h, s, strlen(s) + 1);
		} else {
			h = fnv(h, &k->num, sizeof(k->num));
		}
	}
	return h;
}

static bool key_equal(const struct agg_row *a, const struct agg_row *b)
{
	if (a->nkeys != b->nkeys)
		return false;
	for (int i = 0; i < a->nkeys; i++) {
		const struct agg_key_part *x = &a->key[i], *y = &b->key[i];

		if (part_kind(x) != part_kind(y))
			return false;
		if (x->is_str || x->is_stack
			    ? strcmp(agg_key_text(x), agg_key_text(y)) != 0
			    : x->num != y->num)
			return false;
	}
	return true;
}

struct basetab *basetab_new(void)
{
	return calloc(1, sizeof(struct basetab));
}

static void row_free(struct basetab_row *br)
{
	for (int i = 0; i < br->row.nkeys; i++) {
		free((char *)br->row.key[i].text);
		free((char *)br->row.key[i].mods);
	}
	free((uint64_t *)br->row.b);
}

void basetab_free(struct basetab *t)
{
	if (!t)
		return;
	for (size_t s = 0; s < t->nspecs; s++) {
		struct basetab_spec *bs = &t->specs[s];

		for (size_t i = 0; i < bs->nrows; i++)
			row_free(&bs->rows[i]);
		free(bs->rows);
		free(bs->slots);
	}
	free(t->specs);
	free(t);
}

const struct basetab_spec *basetab_spec(const struct basetab *t,
					const char *text)
{
	for (size_t s = 0; t && s < t->nspecs; s++)
		if (!strcmp(t->specs[s].spec.text, text))
			return &t->specs[s];
	return NULL;
}

/* The slot of row's key in bs: its row's, or the empty one it would
 * take. bs->nslots is a power of two, never full. */
static size_t slot_of(const struct basetab_spec *bs, const struct agg_row *row,
		      uint64_t h)
{
	size_t mask = bs->nslots - 1, i = (size_t)h & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t v = bs->slots[i];

		if (!v || (bs->rows[v - 1].hash == h &&
			   key_equal(&bs->rows[v - 1].row, row)))
			return i;
	}
}

const struct basetab_row *basetab_find(const struct basetab_spec *bs,
				       const struct agg_row *row)
{
	uint64_t h;
	uint32_t v;

	if (!bs || !bs->nslots)
		return NULL;
	h = key_hash(row);
	v = bs->slots[slot_of(bs, row, h)];
	return v ? &bs->rows[v - 1] : NULL;
}

/* Room for one more row in bs (its array, and slots at most half
 * full). 0 or -ENOMEM. */
static int grow(struct basetab_spec *bs)
{
	if (bs->nrows == bs->caprows) {
		size_t cap = bs->caprows ? 2 * bs->caprows : 16;
		struct basetab_row *v = realloc(bs->rows, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		bs->rows = v;
		bs->caprows = cap;
	}
	if (2 * (bs->nrows + 1) > bs->nslots) {
		size_t n = bs->nslots ? 2 * bs->nslots : 32;
		uint32_t *old = bs->slots;

		bs->slots = calloc(n, sizeof(*bs->slots));
		if (!bs->slots) {
			bs->slots = old;
			return -ENOMEM;
		}
		bs->nslots = n;
		for (size_t i = 0; i < bs->nrows; i++)
			bs->slots[slot_of(bs, &bs->rows[i].row,
					  bs->rows[i].hash)] = (uint32_t)i + 1;
		free(old);
	}
	return 0;
}

/* A new row of bs with row's key, nothing counted. NULL on ENOMEM. */
static struct basetab_row *row_new(struct basetab_spec *bs,
				   const struct agg_row *row, uint64_t h)
{
	struct basetab_row *br;
	bool hist = row->b != NULL;

	if (grow(bs))
		return NULL;
	br = &bs->rows[bs->nrows];
	memset(br, 0, sizeof(*br));
	br->hash = h;
	br->row.nkeys = row->nkeys;
	br->row.min = row->min;
	br->row.max = row->max;
	for (int i = 0; i < row->nkeys; i++) {
		struct agg_key_part *k = &br->row.key[i];

		*k = row->key[i];
		k->text = row->key[i].text ? strdup(row->key[i].text) : NULL;
		k->mods = row->key[i].mods ? strdup(row->key[i].mods) : NULL;
		if ((row->key[i].text && !k->text) ||
		    (row->key[i].mods && !k->mods)) {
			br->row.nkeys = i + 1;
			row_free(br);
			return NULL;
		}
	}
	if (hist) {
		uint64_t *b = calloc(PT_NBUCKETS, sizeof(*b));

		if (!b) {
			row_free(br);
			return NULL;
		}
		br->row.b = br->row.b_total = b;
	}
	bs->slots[slot_of(bs, row, h)] = (uint32_t)bs->nrows + 1;
	bs->nrows++;
	return br;
}

/* The aggregation of sp's text in t, made if new. NULL on ENOMEM. */
static struct basetab_spec *spec_get(struct basetab *t, const struct spec *sp)
{
	struct basetab_spec *bs =
		(struct basetab_spec *)basetab_spec(t, sp->text);

	if (bs)
		return bs;
	if (t->nspecs == t->capspecs) {
		size_t cap = t->capspecs ? 2 * t->capspecs : 8;
		struct basetab_spec *v = realloc(t->specs, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->specs = v;
		t->capspecs = cap;
	}
	bs = &t->specs[t->nspecs++];
	memset(bs, 0, sizeof(*bs));
	bs->spec = *sp;
	return bs;
}

/* row's interval into br. */
static void row_add(struct basetab_spec *bs, struct basetab_row *br,
		    const struct agg_row *row)
{
	br->row.count += row->count;
	br->row.total += row->count;
	/* the least sure of its intervals' marks (enum agg_mark: exact,
	 * estimate, bound) */
	if (row->mark > br->row.mark)
		br->row.mark = br->row.mark_total = row->mark;
	br->row.sum += row->sum;
	br->row.sum_total += row->sum;
	bs->events += row->count;
	bs->sum += row->sum;
	if (!br->row.b || !row->b)
		return;
	for (int i = 0; i < PT_NBUCKETS; i++)
		((uint64_t *)br->row.b)[i] += row->b[i];
	if (row->min < br->row.min)
		br->row.min = row->min;
	if (row->max > br->row.max)
		br->row.max = row->max;
}

int basetab_add(struct basetab *t, const struct agg_spec *as)
{
	struct basetab_spec *bs = spec_get(t, as->spec);

	if (!bs)
		return -ENOMEM;
	for (size_t i = 0; i < as->nrows; i++) {
		const struct agg_row *row = as->rows[i];
		uint64_t h;
		struct basetab_row *br;

		if (!row->count)
			continue;
		h = key_hash(row);
		br = (struct basetab_row *)basetab_find(bs, row);
		if (!br)
			br = row_new(bs, row, h);
		if (!br)
			return -ENOMEM;
		row_add(bs, br, row);
	}
	return 0;
}

double basetab_rate(const struct basetab *t, const struct basetab_row *br)
{
	if (!br || t->seconds <= 0)
		return 0;
	return (double)br->row.total / t->seconds;
}

struct basetab_cmp basetab_compare(double rate, double base)
{
	return (struct basetab_cmp){
		.rate = rate,
		.base = base,
		.delta = rate - base,
		.ratio = base > 0 ? rate / base : INFINITY,
	};
}

struct basetab_cmp basetab_compare_marked(double rate, unsigned char mark,
					  const struct basetab *t,
					  const struct basetab_row *br)
{
	struct basetab_cmp c = basetab_compare(rate, basetab_rate(t, br));

	c.bound = mark == AGG_BOUND || (br && br->row.mark == AGG_BOUND);
	if (c.bound)
		c.ratio = NAN;
	return c;
}

/* qsort: rows by events, most first, then in recorded order */
static int by_events(const void *a, const void *b)
{
	const struct basetab_row *x = *(const struct basetab_row *const *)a,
				 *y = *(const struct basetab_row *const *)b;

	if (x->row.total != y->row.total)
		return x->row.total < y->row.total ? 1 : -1;
	return x < y ? -1 : x > y;
}

size_t basetab_gone(const struct basetab_spec *bs, const struct agg_spec *as,
		    bool final, const struct basetab_row ***out)
{
	bool *seen;
	size_t n = 0;

	*out = NULL;
	if (!bs || !bs->nrows)
		return 0;
	seen = calloc(bs->nrows, sizeof(*seen));
	if (!seen)
		return 0;
	for (size_t i = 0; i < as->nrows; i++) {
		const struct agg_row *row = as->rows[i];
		const struct basetab_row *br;

		if (!(final ? row->total : row->count))
			continue;
		br = basetab_find(bs, row);
		if (br)
			seen[br - bs->rows] = true;
	}
	for (size_t i = 0; i < bs->nrows; i++)
		n += !seen[i];
	if (n)
		*out = malloc(n * sizeof(**out));
	if (!*out) {
		free(seen);
		return 0;
	}
	n = 0;
	for (size_t i = 0; i < bs->nrows; i++)
		if (!seen[i])
			(*out)[n++] = &bs->rows[i];
	free(seen);
	qsort(*out, n, sizeof(**out), by_events);
	return n;
}
