// SPDX-License-Identifier: MIT
/* model — lookups on the console's model; see model.h. */
#include "model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

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
			o = fmt_put(out, n, o, k->str);
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

static int cmp_pidcmd(const void *a, const void *b)
{
	uint32_t x = ((const struct model_pidcmd *)a)->pid;
	uint32_t y = ((const struct model_pidcmd *)b)->pid;

	return x < y ? -1 : x > y;
}

const char *model_pid_cmd(const struct model *m, uint32_t pid)
{
	struct model_pidcmd key = { .pid = pid };
	const struct model_pidcmd *c =
		m->npidcmds ? bsearch(&key, m->pidcmds, m->npidcmds,
				      sizeof(key), cmp_pidcmd)
			    : NULL;

	return c ? c->cmd : "";
}
