// SPDX-License-Identifier: MIT
/*
 * pymem — CPython's objects read from another process's memory; see
 * pymem.h.
 */
#include "pymem.h"

#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "pylayout.h"

int pymem_peek(pid_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n };
	struct iovec remote = { (void *)(uintptr_t)addr, n };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)n
		       ? 0
		       : -1;
}

uint64_t pymem_ptr(pid_t pid, uint64_t addr)
{
	uint64_t v = 0;

	return pymem_peek(pid, addr, &v, sizeof(v)) ? 0 : v;
}

/* Append code point c as UTF-8 to out (room for 4 more bytes). */
static size_t put_utf8(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (c >> 18 & 7));
	out[1] = (char)(0x80 | (c >> 12 & 0x3f));
	out[2] = (char)(0x80 | (c >> 6 & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

int pymem_decode(const uint8_t *raw, size_t n, uint32_t kind, char *buf)
{
	size_t at = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t c =
			kind == 1 ? raw[i]
			: kind == 2
				? (uint32_t)(raw[2 * i] | raw[2 * i + 1] << 8)
				: (uint32_t)(raw[4 * i] | raw[4 * i + 1] << 8 |
					     raw[4 * i + 2] << 16 |
					     (uint32_t)raw[4 * i + 3] << 24);

		at += put_utf8(buf + at, c > 0x10ffff ? 0xfffd : c);
	}
	buf[at] = '\0';
	return (int)at;
}

int pymem_str(pid_t pid, const struct pylayout *l, uint64_t obj, char *buf)
{
	uint32_t state, kind;
	int64_t len;
	uint64_t utf8;
	static uint8_t raw[4 * PYMEM_STR_MAX];

	if (!obj ||
	    pymem_peek(pid, obj + l->unicode_state, &state, sizeof(state)) ||
	    pymem_peek(pid, obj + l->unicode_length, &len, sizeof(len)) ||
	    !(state >> l->state_compact_shift & 1) || len < 0)
		return -1;
	kind = state >> l->state_kind_shift & 7;
	len = len > PYMEM_STR_MAX ? PYMEM_STR_MAX : len;
	if (state >> l->state_ascii_shift & 1) {
		if (pymem_peek(pid, obj + l->unicode_ascii_data, buf,
			       (size_t)len))
			return -1;
		buf[len] = '\0';
		return (int)len;
	}
	utf8 = pymem_ptr(pid, obj + l->unicode_utf8);
	if (kind != 1 && kind != 2 && kind != 4)
		return -1;
	if (!utf8 && pymem_peek(pid, obj + l->unicode_compact_data, raw,
				(size_t)len * kind))
		return -1;
	if (utf8) {
		int64_t n = 0;

		if (pymem_peek(pid, obj + l->unicode_utf8_length, &n,
			       sizeof(n)) ||
		    n < 0 ||
		    pymem_peek(pid, utf8, buf,
			       (size_t)(n > PYMEM_STR_MAX ? PYMEM_STR_MAX : n)))
			return -1;
		n = n > PYMEM_STR_MAX ? PYMEM_STR_MAX : n;
		buf[n] = '\0';
		return (int)n;
	}
	return pymem_decode(raw, (size_t)len, kind, buf);
}

void pymem_cut(const char *s, char *out, size_t n, bool tail)
{
	size_t len = strlen(s), keep;

	if (len < n) {
		memcpy(out, s, len + 1);
		return;
	}
	keep = n - 4; /* "..." and the NUL */
	if (tail) {
		const char *p = s + len - keep;

		while (((unsigned char)*p & 0xc0) == 0x80)
			p++;
		snprintf(out, n, "...%s", p);
		return;
	}
	while (keep && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--;
	snprintf(out, n, "%.*s...", (int)keep, s);
}
