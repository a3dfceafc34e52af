// SPDX-License-Identifier: MIT
/* model — lookups on the console's model; see model.h. */
#include "model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "inert.h"

const struct agg_spec *model_spec(const struct model *m, int id)
{
	if (!m->snap || id < 0)
		return NULL;
	for (size_t i = 0; i < m->snap->nspecs; i++)
		if (m->snap->specs[i].id == id)
			return &m->snap->specs[i];
	return NULL;
}

const struct basetab_spec *model_base_spec(const struct model *m, int id)
{
	const struct agg_spec *as = m->base ? model_spec(m, id) : NULL;

	return as ? basetab_spec(m->base, as->spec->text) : NULL;
}

void model_key_text(const struct model *m, const struct agg_row *row,
		    const char *sep, char *out, size_t n)
{
	size_t o = 0;

	out[0] = '\0';
	if (m->binary_mode) {
		char pid[16];

		o = fmt_put(out, n, o,
			    agg_pid_text(row->pid, pid, sizeof(pid)));
	}
	for (int i = 0; i < row->nkeys; i++) {
		const struct agg_key_part *k = &row->key[i];
		bool neg = k->is_signed && k->num < 0;

		if (o)
			o = fmt_put(out, n, o, sep);
		if (k->is_str)
			o = inert_put(out, n, o, agg_key_text(k));
		else
			o = fmt_put_num(out, n, o,
					neg ? -(uint64_t)k->num
					    : (uint64_t)k->num,
					neg);
	}
}

/* One row of the index: its key text's hash, and the row. */
struct model_keyed {
	uint64_t hash;
	const struct agg_row *row;
};

struct model_index {
	const struct agg_snapshot *snap; /* what it indexes: snap's */
	unsigned int interval; /* ... interval's */
	int id; /* ... spec id's rows */
	size_t n, cap;
	struct model_keyed *v; /* by hash */
};

/* FNV-1a of a key's text. */
static uint64_t key_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static int keyed_cmp(const void *a, const void *b)
{
	const struct model_keyed *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/* ix made for spec as of m's snapshot: its rows' hashes, sorted. 0, or
 * -1 out of memory (ix then indexes nothing). */
static int index_rows(const struct model *m, struct model_index *ix,
		      const struct agg_spec *as)
{
	char text[512];

	ix->snap = m->snap;
	ix->interval = m->snap->interval;
	ix->id = as->id;
	ix->n = 0;
	if (as->nrows > ix->cap) {
		struct model_keyed *v = realloc(ix->v, as->nrows * sizeof(*v));

		if (!v) {
			ix->id = -1;
			return -1;
		}
		ix->v = v;
		ix->cap = as->nrows;
	}
	for (size_t i = 0; i < as->nrows; i++) {
		model_key_text(m, as->rows[i], " ", text, sizeof(text));
		ix->v[ix->n++] =
			(struct model_keyed){ key_hash(text), as->rows[i] };
	}
	qsort(ix->v, ix->n, sizeof(*ix->v), keyed_cmp);
	return 0;
}

const struct agg_row *model_find_row(const struct model *m, int id,
				     const char *key)
{
	const struct agg_spec *as = model_spec(m, id);
	struct model_index *ix = m->index;
	uint64_t h = key_hash(key);
	char text[512];
	size_t lo = 0, hi;

	if (!as)
		return NULL;
	if (!ix) { /* no index (out of memory, a test's model): look */
		for (size_t i = 0; i < as->nrows; i++) {
			model_key_text(m, as->rows[i], " ", text, sizeof(text));
			if (!strcmp(text, key))
				return as->rows[i];
		}
		return NULL;
	}
	if ((ix->snap != m->snap || ix->interval != m->snap->interval ||
	     ix->id != id) &&
	    index_rows(m, ix, as))
		return NULL;
	hi = ix->n;
	while (lo < hi) { /* the first of hash h */
		size_t mid = lo + (hi - lo) / 2;

		if (ix->v[mid].hash < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ix->n && ix->v[lo].hash == h; lo++) {
		model_key_text(m, ix->v[lo].row, " ", text, sizeof(text));
		if (!strcmp(text, key))
			return ix->v[lo].row;
	}
	return NULL;
}

struct model_index *model_index_new(void)
{
	struct model_index *ix = calloc(1, sizeof(*ix));

	if (ix)
		ix->id = -1;
	return ix;
}

void model_index_free(struct model_index *ix)
{
	if (ix) {
		free(ix->v);
		free(ix);
	}
}

size_t model_pidcmd_at(const struct model_pidcmd *v, size_t n, uint32_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const char *model_pid_cmd(const struct model *m, uint32_t pid)
{
	size_t at = model_pidcmd_at(m->pidcmds, m->npidcmds, pid);

	return at < m->npidcmds && m->pidcmds[at].pid == pid
		       ? m->pidcmds[at].cmd
		       : "";
}

bool model_calls_bounded(const struct model *m)
{
	const struct agg_spec *as = model_spec(m, m->frames_calls.id);

	return as && as->estimated && as->nrows &&
	       as->rows[0]->mark == AGG_BOUND;
}

const struct model_role *model_frames(const struct model *m)
{
	bool samples = m->frames_chosen ? m->frames_by_samples
					: model_calls_bounded(m);

	if (m->frames_calls.id >= 0 && !(samples && m->frames_samples.id >= 0))
		return &m->frames_calls;
	return m->frames_samples.id >= 0 ? &m->frames_samples : NULL;
}

const char *model_rate(const struct model *m, double n, char *buf, size_t len)
{
	if (m->exited) {
		snprintf(buf, len, "ended");
		return buf;
	}
	return fmt_rate(m->snap_s > 0 ? n / m->snap_s : 0, buf, len);
}
