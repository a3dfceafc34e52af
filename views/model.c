// SPDX-License-Identifier: MIT
/* model — lookups on the console's model; see model.h. */
#include "model.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
		o += (size_t)snprintf(out, n, "%u", row->pid);
	for (int i = 0; i < row->nkeys && o < n; i++) {
		const struct agg_key_part *k = &row->key[i];
		const char *s = o ? sep : "";

		if (k->is_str)
			o += (size_t)snprintf(out + o, n - o, "%s%s", s,
					      k->str);
		else if (k->is_signed)
			o += (size_t)snprintf(out + o, n - o, "%s%" PRId64, s,
					      k->num);
		else
			o += (size_t)snprintf(out + o, n - o, "%s%" PRIu64, s,
					      (uint64_t)k->num);
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
