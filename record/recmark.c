// SPDX-License-Identifier: MIT
/*
 * recmark — a decoder's state kept and put back; see recmark.h.
 */
#include "recmark.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A copy of map m into out (empty if m is). 0 or -ENOMEM. */
static int map_copy(struct rectab_map *out, const struct rectab_map *m)
{
	*out = (struct rectab_map){ .n = m->n, .cap = m->cap };
	if (!m->cap)
		return 0;
	out->keys = malloc(m->cap * sizeof(*m->keys));
	out->vals = malloc(m->cap * sizeof(*m->vals));
	out->used = malloc(m->cap * sizeof(*m->used));
	if (!out->keys || !out->vals || !out->used) {
		rectab_map_free(out);
		return -ENOMEM;
	}
	memcpy(out->keys, m->keys, m->cap * sizeof(*m->keys));
	memcpy(out->vals, m->vals, m->cap * sizeof(*m->vals));
	memcpy(out->used, m->used, m->cap * sizeof(*m->used));
	return 0;
}

/* Whether row w has more than a count to keep. */
static bool has_ext(const struct recdec_row *dr)
{
	return dr->b_total || dr->row.sum_total || dr->row.min || dr->row.max;
}

/* Room for d's rows' totals, their ext and buckets in mk. */
static int mark_room(struct recmark *mk, const struct recdec *d)
{
	size_t next = 0, nb = 0;

	for (size_t i = 0; i < d->nrows; i++) {
		next += has_ext(&d->rows[i]);
		nb += d->rows[i].b_total ? PT_NBUCKETS : 0;
	}
	mk->total = malloc((d->nrows ? d->nrows : 1) * sizeof(*mk->total));
	mk->ext = malloc((next ? next : 1) * sizeof(*mk->ext));
	mk->b_total = malloc((nb ? nb : 1) * sizeof(*mk->b_total));
	if (!mk->total || !mk->ext || !mk->b_total ||
	    map_copy(&mk->pidcmds, &d->pidcmds))
		return -ENOMEM;
	mk->nb = nb;
	return 0;
}

int recmark_save(struct recmark *mk, const struct recdec *d)
{
	recmark_free(mk);
	if (mark_room(mk, d)) {
		recmark_free(mk);
		return -ENOMEM;
	}
	for (size_t i = 0, nb = 0; i < d->nrows; i++) {
		const struct recdec_row *dr = &d->rows[i];
		struct recmark_ext *e = &mk->ext[mk->next];

		mk->total[i] = dr->row.total;
		if (!has_ext(dr))
			continue;
		*e = (struct recmark_ext){ (uint32_t)i, ~0u, dr->row.sum_total,
					   dr->row.min, dr->row.max };
		if (dr->b_total) {
			e->b = (uint32_t)(nb / PT_NBUCKETS);
			memcpy(mk->b_total + nb, dr->b_total,
			       PT_NBUCKETS * sizeof(uint64_t));
			nb += PT_NBUCKETS;
		}
		mk->next++;
	}
	mk->nstrs = d->nstrs;
	mk->nrows = d->nrows;
	return 0;
}

int recmark_restore(struct recdec *d, const struct recmark *mk)
{
	struct rectab_map pidcmds;
	size_t j = 0;

	if (!recmark_fits(mk, d))
		return -EINVAL;
	if (map_copy(&pidcmds, &mk->pidcmds))
		return -ENOMEM;
	rectab_map_free(&d->pidcmds);
	d->pidcmds = pidcmds;
	d->nstrs = mk->nstrs; /* those past it kept (recdec.h) */
	d->nrows = mk->nrows;
	for (size_t i = 0; i < mk->nrows; i++) {
		struct recdec_row *dr = &d->rows[i];
		const struct recmark_ext *e =
			j < mk->next && mk->ext[j].row == i ? &mk->ext[j++]
							    : NULL;

		dr->row.total = mk->total[i];
		dr->row.sum_total = e ? e->sum_total : 0;
		dr->row.min = e ? e->min : 0;
		dr->row.max = e ? e->max : 0;
		if (dr->b_total && e && e->b != ~0u)
			memcpy(dr->b_total, mk->b_total + e->b * PT_NBUCKETS,
			       PT_NBUCKETS * sizeof(uint64_t));
		else if (dr->b_total)
			memset(dr->b_total, 0, PT_NBUCKETS * sizeof(uint64_t));
	}
	d->snap.nspecs = 0;
	return 0;
}

bool recmark_fits(const struct recmark *mk, const struct recdec *d)
{
	return mk->nstrs <= d->keptstrs && mk->nrows <= d->keptrows;
}

static int by_row(const void *key, const void *e)
{
	uint32_t k = *(const uint32_t *)key,
		 r = ((const struct recmark_ext *)e)->row;

	return k < r ? -1 : k > r;
}

bool recmark_row(const struct recmark *mk, size_t i, struct recmark_row *out)
{
	uint32_t key = (uint32_t)i;
	const struct recmark_ext *e;

	*out = (struct recmark_row){ 0 };
	if (i >= mk->nrows)
		return false;
	out->total = mk->total[i];
	e = mk->next ? bsearch(&key, mk->ext, mk->next, sizeof(*e), by_row)
		     : NULL;
	if (e) {
		out->sum_total = e->sum_total;
		out->min = e->min;
		out->max = e->max;
		if (e->b != ~0u)
			out->b_total = mk->b_total + e->b * PT_NBUCKETS;
	}
	return true;
}

size_t recmark_bytes(const struct recmark *mk)
{
	const struct rectab_map *m = &mk->pidcmds;

	return mk->nrows * sizeof(*mk->total) + mk->next * sizeof(*mk->ext) +
	       mk->nb * sizeof(uint64_t) +
	       m->cap *
		       (sizeof(*m->keys) + sizeof(*m->vals) + sizeof(*m->used));
}

void recmark_free(struct recmark *mk)
{
	free(mk->total);
	free(mk->ext);
	free(mk->b_total);
	rectab_map_free(&mk->pidcmds);
	*mk = (struct recmark){ 0 };
}
