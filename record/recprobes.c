// SPDX-License-Identifier: MIT
/*
 * recprobes — a 'P' record's body; see recprobes.h.
 */
#include "recprobes.h"

#include <stdlib.h>
#include <string.h>

#define PROBE_MIN_BYTES 7 /* four empty strings and three numbers */

void recprobes_put(struct recbuf *b, const struct record_probe *v, size_t n)
{
	recbuf_uv(b, n);
	for (size_t i = 0; i < n; i++) {
		recbuf_str(b, v[i].object);
		recbuf_str(b, v[i].provider);
		recbuf_str(b, v[i].name);
		recbuf_str(b, v[i].args ? v[i].args : "");
		recbuf_uv(b, v[i].nargs);
		recbuf_u8(b, v[i].semaphore);
		recbuf_uv(b, v[i].nlocs);
	}
}

/* A copy of the next string of r; NULL if cut or out of memory. */
static char *get_str(struct recread *r)
{
	size_t len;
	const char *s = recread_str(r, &len);

	return s ? strndup(s, len) : NULL;
}

/* The next probe of r into *p (its strings owned); 0 or -1. */
static int get_probe(struct recread *r, struct record_probe *p)
{
	char *object = get_str(r), *provider = get_str(r), *name = get_str(r),
	     *args = get_str(r);

	p->object = object;
	p->provider = provider;
	p->name = name;
	p->args = args;
	p->nargs = (unsigned int)recread_uv(r);
	p->semaphore = recread_u8(r) != 0;
	p->nlocs = (size_t)recread_uv(r);
	return object && provider && name && args && !r->bad ? 0 : -1;
}

int recprobes_get(struct recprobes *out, struct recread *r)
{
	size_t n;

	recprobes_free(out);
	n = recread_count(r, PROBE_MIN_BYTES);
	if (r->bad)
		return -1;
	out->v = calloc(n ? n : 1, sizeof(*out->v));
	if (!out->v)
		return -1;
	for (out->n = 0; out->n < n;) {
		if (get_probe(r, &out->v[out->n++])) {
			recprobes_free(out);
			return -1;
		}
	}
	return 0;
}

void recprobes_free(struct recprobes *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free((char *)p->v[i].object);
		free((char *)p->v[i].provider);
		free((char *)p->v[i].name);
		free((char *)p->v[i].args);
	}
	free(p->v);
	*p = (struct recprobes){ 0 };
}
