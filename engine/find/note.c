// SPDX-License-Identifier: MIT
/* note — `.note.stapsdt` section parser; see note.h. */
#include "note.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NOTE_OWNER "stapsdt"

static uint64_t read_addr(const unsigned char *p, int addr_size)
{
	uint32_t v32;
	uint64_t v64;

	if (addr_size == 4) {
		memcpy(&v32, p, sizeof(v32));
		return v32;
	}
	memcpy(&v64, p, sizeof(v64));
	return v64;
}

static int bad(char *err, size_t errlen, size_t off, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (errlen)
		snprintf(err, errlen, "bad note at offset %#zx: %s", off, why);
	return -EBADMSG;
}

/* Next NUL-terminated string in [*p, end); advances *p past it. */
static const char *take_str(const char **p, const char *end)
{
	const char *s = *p;
	const char *nul = memchr(s, '\0', (size_t)(end - s));

	if (!nul)
		return NULL;
	*p = nul + 1;
	return s;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static int parse_desc(const unsigned char *desc, size_t descsz, int addr_size,
		      struct usdt_note *note, char *err, size_t errlen)
{
	const char *p = (const char *)desc + 3 * (size_t)addr_size;
	const char *end = (const char *)desc + descsz;

	if (descsz < 3 * (size_t)addr_size)
		return bad(err, errlen, note->offset,
			   "descriptor of %zu bytes is too short", descsz);
	note->pc = read_addr(desc, addr_size);
	note->base = read_addr(desc + addr_size, addr_size);
	note->semaphore = read_addr(desc + 2 * addr_size, addr_size);
	note->provider = take_str(&p, end);
	note->name = note->provider ? take_str(&p, end) : NULL;
	if (!note->name)
		return bad(err, errlen, note->offset,
			   "provider or name is missing or not terminated");
	if (!*note->provider || !*note->name)
		return bad(err, errlen, note->offset,
			   "empty provider or probe name");
	/* very old notes have no argument string at all */
	note->args = p < end ? take_str(&p, end) : "";
	if (!note->args)
		return bad(err, errlen, note->offset,
			   "argument string is not terminated");
	return 0;
}

int note_parse(const void *data, size_t len, int addr_size, note_fn fn,
	       void *ctx, char *err, size_t errlen)
{
	const unsigned char *base = data;
	size_t off = 0;

	if (addr_size != 4 && addr_size != 8)
		return bad(err, errlen, 0, "address size %d", addr_size);
	while (off < len) {
		struct usdt_note note = { .offset = off };
		uint32_t hdr[3]; /* namesz, descsz, type */
		size_t name_off, desc_off, next;
		int ret;

		if (len - off < sizeof(hdr))
			return bad(err, errlen, off, "truncated header");
		memcpy(hdr, base + off, sizeof(hdr));
		name_off = off + sizeof(hdr);
		if (hdr[0] > len - name_off)
			return bad(err, errlen, off,
				   "name size %#x runs past the section end",
				   hdr[0]);
		desc_off = name_off + align4(hdr[0]);
		if (desc_off > len || hdr[1] > len - desc_off)
			return bad(
				err, errlen, off,
				"descriptor size %#x runs past the section end",
				hdr[1]);
		next = desc_off + align4(hdr[1]);
		if (hdr[2] == NT_STAPSDT && hdr[0] == sizeof(NOTE_OWNER) &&
		    !memcmp(base + name_off, NOTE_OWNER, sizeof(NOTE_OWNER))) {
			ret = parse_desc(base + desc_off, hdr[1], addr_size,
					 &note, err, errlen);
			if (ret)
				return ret;
			ret = fn(&note, ctx);
			if (ret)
				return ret;
		}
		off = next;
	}
	return 0;
}
