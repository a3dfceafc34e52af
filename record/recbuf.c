// SPDX-License-Identifier: MIT
/*
 * recbuf — a record body's numbers put and taken; see recbuf.h.
 */
#include "recbuf.h"

#include <stdlib.h>
#include <string.h>

void recbuf_reset(struct recbuf *b)
{
	b->len = 0;
	b->failed = false;
}

void recbuf_free(struct recbuf *b)
{
	free(b->p);
	*b = (struct recbuf){ 0 };
}

bool recbuf_room(struct recbuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	unsigned char *p;

	if (b->failed)
		return false;
	if (b->len + n <= b->cap)
		return true;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void recbuf_u8(struct recbuf *b, uint8_t v)
{
	if (recbuf_room(b, 1))
		b->p[b->len++] = v;
}

void recbuf_uv(struct recbuf *b, uint64_t v)
{
	if (!recbuf_room(b, 10))
		return;
	while (v >= 0x80) {
		b->p[b->len++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b->p[b->len++] = (unsigned char)v;
}

void recbuf_sv(struct recbuf *b, int64_t v)
{
	recbuf_uv(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void recbuf_f64(struct recbuf *b, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	if (!recbuf_room(b, 8))
		return;
	for (int i = 0; i < 8; i++)
		b->p[b->len++] = (unsigned char)(u >> (8 * i));
}

void recbuf_bytes(struct recbuf *b, const void *p, size_t n)
{
	if (!n || !recbuf_room(b, n))
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void recbuf_str(struct recbuf *b, const char *s)
{
	size_t n = strlen(s);

	recbuf_uv(b, n);
	recbuf_bytes(b, s, n);
}

size_t recbuf_hole(struct recbuf *b)
{
	size_t at = b->len;

	for (int i = 0; i < 5; i++)
		recbuf_u8(b, 0x80);
	return at;
}

void recbuf_fill(struct recbuf *b, size_t at, uint64_t n)
{
	if (b->failed)
		return;
	for (int i = 0; i < 5; i++)
		b->p[at + i] = (unsigned char)(((n >> (7 * i)) & 0x7f) |
					       (i < 4 ? 0x80 : 0));
}

void recbuf_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

uint32_t recbuf_get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

uint8_t recread_u8(struct recread *r)
{
	if (r->at >= r->len) {
		r->bad = true;
		return 0;
	}
	return r->p[r->at++];
}

uint64_t recread_uv(struct recread *r)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t c = recread_u8(r);

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return r->bad ? 0 : v;
	}
	r->bad = true;
	return 0;
}

int64_t recread_sv(struct recread *r)
{
	uint64_t u = recread_uv(r);

	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

double recread_f64(struct recread *r)
{
	uint64_t u = 0;
	double v;

	if (r->at > r->len || r->len - r->at < 8) {
		r->bad = true;
		return 0;
	}
	for (int i = 0; i < 8; i++)
		u |= (uint64_t)r->p[r->at++] << (8 * i);
	memcpy(&v, &u, sizeof(v));
	return v;
}

size_t recread_count(struct recread *r, size_t min_bytes)
{
	uint64_t n = recread_uv(r);

	if (r->bad || n > (r->len - r->at) / (min_bytes ? min_bytes : 1)) {
		r->bad = true;
		return 0;
	}
	return (size_t)n;
}

const char *recread_str(struct recread *r, size_t *n)
{
	size_t len = recread_count(r, 1);
	const char *s = (const char *)r->p + r->at;

	*n = 0;
	if (r->bad)
		return NULL;
	r->at += len;
	*n = len;
	return s;
}
