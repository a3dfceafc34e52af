// SPDX-License-Identifier: MIT
/* beamsym — BEAM JIT symfiles for the tests; see beamsym.h. */
#include "beamsym.h"

#include <string.h>

static void put(struct beamsym *s, const void *p, size_t n)
{
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void put_u32(struct beamsym *s, uint32_t v)
{
	put(s, &v, sizeof(v));
}

/* A counted name (its NUL counted) and pad bytes after it. */
static void put_name(struct beamsym *s, const char *name, size_t pad)
{
	uint16_t len = (uint16_t)(strlen(name) + 1);

	put(s, &len, sizeof(len));
	put(s, name, len);
	memset(s->b + s->n, 0xa5, pad);
	s->n += pad;
}

void beamsym_module(struct beamsym *s, uint64_t base, uint32_t nranges,
		    uint32_t code, const char *name)
{
	s->n = 0;
	put_u32(s, 1); /* a module's */
	put_u32(s, 0xa5a5a5a5); /* padding before the 8-byte base */
	put(s, &base, sizeof(base));
	put_u32(s, nranges);
	put_u32(s, code);
	put_name(s, name, 6); /* the header is 32 bytes and its name at 26 */
}

void beamsym_range(struct beamsym *s, uint32_t start, uint32_t end,
		   uint32_t nlines, const char *name)
{
	put_u32(s, start);
	put_u32(s, end);
	put_u32(s, nlines);
	put_name(s, name, 2); /* 16 bytes, its name at 14 */
}

void beamsym_line(struct beamsym *s, uint32_t at, uint32_t line,
		  const char *file)
{
	put_u32(s, at);
	put_u32(s, line);
	put_name(s, file, 2); /* 12 bytes, its file at 10 */
}
