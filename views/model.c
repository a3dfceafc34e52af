// SPDX-License-Identifier: MIT
/* model — lookups on the console's model; see model.h. */
#include "model.h"

#include <inttypes.h>
#include <stdio.h>
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

void model_key_text(const struct model *m, const struct agg_row *row,
		    const char *sep, char *out, size_t n)
{
	size_t o = 0;

	out[0] = '\0';
	if (m->binary_mode)
		o = fmt_put_num(out, n, o, row->pid, false);
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

const struct agg_row *model_find_row(const struct model *m, int id,
				     const char *key)
{
	const struct agg_spec *as = model_spec(m, id);
	char text[512];

	for (size_t i = 0; as && i < as->nrows; i++) {
		model_key_text(m, as->rows[i], " ", text, sizeof(text));
		if (!strcmp(text, key))
			return as->rows[i];
	}
	return NULL;
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

const struct model_role *model_frames(const struct model *m)
{
	if (m->frames_calls.id >= 0 &&
	    !(m->frames_by_samples && m->frames_samples.id >= 0))
		return &m->frames_calls;
	return m->frames_samples.id >= 0 ? &m->frames_samples : NULL;
}
