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

/* Histogram rows among d's first n. */
static size_t hist_rows(const struct recdec_row *rows, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += rows[i].b_total != NULL;
	return k;
}

int recmark_save(struct recmark *mk, const struct recdec *d)
{
	size_t nb = hist_rows(d->rows, d->nrows) * PT_NBUCKETS, at = 0;

	recmark_free(mk);
	mk->rows = malloc((d->nrows ? d->nrows : 1) * sizeof(*mk->rows));
	mk->b_total = malloc((nb ? nb : 1) * sizeof(*mk->b_total));
	if (!mk->rows || !mk->b_total || map_copy(&mk->pidcmds, &d->pidcmds)) {
		recmark_free(mk);
		return -ENOMEM;
	}
	for (size_t i = 0; i < d->nrows; i++) {
		const struct agg_row *w = &d->rows[i].row;

		mk->rows[i] = (struct recmark_row){ w->total, w->sum_total,
						    w->min, w->max };
		if (!d->rows[i].b_total)
			continue;
		memcpy(mk->b_total + at, d->rows[i].b_total,
		       PT_NBUCKETS * sizeof(uint64_t));
		at += PT_NBUCKETS;
	}
	mk->nstrs = d->nstrs;
	mk->nrows = d->nrows;
	mk->nb = nb;
	return 0;
}

int recmark_restore(struct recdec *d, const struct recmark *mk)
{
	struct rectab_map pidcmds;
	size_t at = 0;

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
		const struct recmark_row *r = &mk->rows[i];

		dr->row.total = r->total;
		dr->row.sum_total = r->sum_total;
		dr->row.min = r->min;
		dr->row.max = r->max;
		if (!dr->b_total)
			continue;
		memcpy(dr->b_total, mk->b_total + at,
		       PT_NBUCKETS * sizeof(uint64_t));
		at += PT_NBUCKETS;
	}
	d->snap.nspecs = 0;
	return 0;
}

bool recmark_fits(const struct recmark *mk, const struct recdec *d)
{
	return mk->nstrs <= d->keptstrs && mk->nrows <= d->keptrows;
}

const struct recmark_row *recmark_row(const struct recmark *mk, size_t i)
{
	return i < mk->nrows ? &mk->rows[i] : NULL;
}

size_t recmark_bytes(const struct recmark *mk)
{
	const struct rectab_map *m = &mk->pidcmds;

	return mk->nrows * sizeof(*mk->rows) + mk->nb * sizeof(uint64_t) +
	       m->cap *
		       (sizeof(*m->keys) + sizeof(*m->vals) + sizeof(*m->used));
}

void recmark_free(struct recmark *mk)
{
	free(mk->rows);
	free(mk->b_total);
	rectab_map_free(&mk->pidcmds);
	*mk = (struct recmark){ 0 };
}
