// SPDX-License-Identifier: MIT
/*
 * v8heap — a V8 process's heap objects read by its metadata; see
 * v8heap.h.
 */
#include "v8heap.h"

#include "pymem.h"
#include "v8meta.h"

bool v8heap_is_object(const struct v8ctx *c, uint64_t v)
{
	return v && (v & c->m->heap_tag_mask) == c->m->heap_tag;
}

bool v8heap_is_smi(const struct v8ctx *c, uint64_t v)
{
	return (v & c->m->heap_tag_mask) != c->m->heap_tag &&
	       !(v & ((1ull << c->m->smi_shift) - 1));
}

int64_t v8heap_smi(const struct v8ctx *c, uint64_t v)
{
	return (int64_t)v >> c->m->smi_shift;
}

int v8heap_field(const struct v8ctx *c, uint64_t obj, uint32_t off, void *buf,
		 size_t n)
{
	return v8heap_is_object(c, obj)
		       ? pymem_peek(c->pid, obj - c->m->heap_tag + off, buf, n)
		       : -1;
}

uint64_t v8heap_tagged(const struct v8ctx *c, uint64_t obj, uint32_t off)
{
	uint64_t v;

	return v8heap_field(c, obj, off, &v, sizeof(v)) ? 0 : v;
}

uint32_t v8heap_type(const struct v8ctx *c, uint64_t obj)
{
	uint64_t map = v8heap_tagged(c, obj, c->m->obj_map);
	uint16_t t;

	return v8heap_field(c, map, c->m->map_type, &t, sizeof(t)) ? UINT32_MAX
								   : t;
}
