// SPDX-License-Identifier: MIT
/*
 * inert — target strings made safe to show; see inert.h.
 *
 * One pass over the bytes: each either starts a valid UTF-8 sequence
 * that is not a C1 control (copied whole) or is one byte of output
 * (itself, or its escape). Validity follows RFC 3629 (Table 3-7 of the
 * Unicode standard): no overlong forms, no surrogates, nothing above
 * U+10FFFF; an invalid sequence escapes its first byte and the scan
 * resumes at the next one.
 */
#include "inert.h"

#include <string.h>

/* The length of the valid UTF-8 sequence at s[0..len) (s[0] >= 0x80),
 * or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s, size_t len)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* The escape of byte c into esc (NUL-terminated), or "" if c shows as
 * itself. */
static void escape_byte(unsigned char c, char esc[5])
{
	static const char HEX[] = "0123456789abcdef";

	esc[0] = '\0';
	if (c == '\\' || c == '\n' || c == '\t' || c == '\r') {
		esc[0] = '\\';
		esc[1] = c == '\\'   ? '\\'
			 : c == '\n' ? 'n'
			 : c == '\t' ? 't'
				     : 'r';
		esc[2] = '\0';
	} else if (c < 0x20 || c >= 0x7f) {
		esc[0] = '\\';
		esc[1] = 'x';
		esc[2] = HEX[c >> 4];
		esc[3] = HEX[c & 15];
		esc[4] = '\0';
	}
}

/*
 * The next piece of s[0..len): *keep bytes of s shown as they are, or
 * (*keep == 0) the escape in esc; returns the bytes of s it covers.
 */
static size_t next_piece(const unsigned char *s, size_t len, size_t *keep,
			 char esc[5])
{
	size_t u;

	*keep = 0;
	esc[0] = '\0';
	if (s[0] < 0x80) {
		escape_byte(s[0], esc);
		if (!esc[0])
			*keep = 1;
		return 1;
	}
	u = utf8_len(s, len);
	/* C1 controls (U+0080..U+009F) are 0xc2 0x80..0x9f */
	if (u && !(s[0] == 0xc2 && s[1] < 0xa0)) {
		*keep = u;
		return u;
	}
	escape_byte(s[0], esc);
	return 1;
}

size_t inert_put_mem(char *out, size_t n, size_t o, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		char esc[5];
		size_t keep, used = next_piece(p + i, len - i, &keep, esc);
		const char *from = keep ? s + i : esc;
		size_t w = keep ? keep : strlen(esc);

		if (o + w >= n)
			break;
		memcpy(out + o, from, w);
		o += w;
		i += used;
	}
	out[o] = '\0';
	return o;
}

size_t inert_put(char *out, size_t n, size_t o, const char *s)
{
	return inert_put_mem(out, n, o, s, strlen(s));
}

const char *inert_str(char *out, size_t n, const char *s)
{
	inert_put(out, n, 0, s);
	return out;
}
