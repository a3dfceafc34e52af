/* SPDX-License-Identifier: MIT */
/*
 * recbuf — the bytes of a recording's record body: a growable buffer
 * that numbers are put into (LEB128 varints, zigzag for signed ones,
 * doubles as their 8 IEEE-754 bytes, little-endian) and a reader that
 * takes them out again, bounds-checked (docs/record-format.md).
 *
 * A put that cannot grow the buffer sets its failed flag and puts
 * nothing more; a get past the end sets the reader's bad flag and
 * returns 0. Callers check the flag once, after a whole body.
 */
#ifndef PROBETOP_RECBUF_H
#define PROBETOP_RECBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct recbuf {
	unsigned char *p;
	size_t len, cap;
	bool failed; /* out of memory: the body is incomplete */
};

/* Empty the buffer, keeping its memory. */
void recbuf_reset(struct recbuf *b);

/* Free its memory; the buffer is then empty. */
void recbuf_free(struct recbuf *b);

/* Room for n more bytes at b->p + b->len; false (and failed) if not. */
bool recbuf_room(struct recbuf *b, size_t n);

void recbuf_u8(struct recbuf *b, uint8_t v);
void recbuf_uv(struct recbuf *b, uint64_t v); /* varint */
void recbuf_sv(struct recbuf *b, int64_t v); /* zigzag varint */
void recbuf_f64(struct recbuf *b, double v);
void recbuf_bytes(struct recbuf *b, const void *p, size_t n);
/* A string as its length (varint) and its bytes, no NUL. */
void recbuf_str(struct recbuf *b, const char *s);

/* Room for a count known only later: 5 bytes that recbuf_fill() sets.
 * Returns their offset. */
size_t recbuf_hole(struct recbuf *b);

/* The hole at offset at set to n (below 2^35) as a 5-byte varint, as
 * recread_uv() reads it. */
void recbuf_fill(struct recbuf *b, size_t at, uint64_t n);

/* Little-endian fixed-width numbers at p (frame headers). */
void recbuf_le32(unsigned char *p, uint32_t v);
uint32_t recbuf_get_le32(const unsigned char *p);

/* A body being read: p[at..len). */
struct recread {
	const unsigned char *p;
	size_t len, at;
	bool bad; /* read past the end, or a varint too long */
};

uint8_t recread_u8(struct recread *r);
uint64_t recread_uv(struct recread *r);
int64_t recread_sv(struct recread *r);
double recread_f64(struct recread *r);
/* A count of items each at least min_bytes long that the rest of the
 * body can hold; more (a corrupt count) sets bad and returns 0. */
size_t recread_count(struct recread *r, size_t min_bytes);
/* A string recbuf_str() put: a pointer into the body (not
 * NUL-terminated) and its length into *n; NULL with bad if cut. */
const char *recread_str(struct recread *r, size_t *n);

#endif
