// SPDX-License-Identifier: MIT
/*
 * rbmem — Ruby's objects from another process's memory; see rbmem.h.
 */
#include "rbmem.h"

#include <string.h>

#include "pymem.h"
#include "rblayout.h"

#define HEAD 40 /* an object's header read at once (flags, class, 24) */

/* The header of the object at obj in pid into h; its flags, or 0 if it
 * is unreadable or not of type t. */
static uint64_t head(pid_t pid, uint64_t obj, uint32_t t, uint8_t *h)
{
	uint64_t flags;

	if (!obj || (obj & 7) || pymem_peek(pid, obj, h, HEAD))
		return 0;
	memcpy(&flags, h, 8);
	return (flags & 0x1f) == t ? flags : 0;
}

static uint64_t u64_at(const uint8_t *h, uint32_t off)
{
	uint64_t v = 0;

	if (off + 8 <= HEAD)
		memcpy(&v, h + off, 8);
	return v;
}

int rbmem_str(pid_t pid, const struct rblayout *l, uint64_t str, char *buf,
	      size_t n, bool tail)
{
	uint8_t h[HEAD];
	uint64_t flags = head(pid, str, l->t_string, h), len, ptr, k;

	if (!flags || !n)
		return -1;
	if (flags & l->str_noembed) {
		len = u64_at(h, l->str_heap_len);
		ptr = u64_at(h, l->str_heap_ptr);
	} else {
		len = l->str_embed_len_mask ? flags >> l->str_embed_len_shift &
						      l->str_embed_len_mask
					    : u64_at(h, l->str_heap_len);
		ptr = str + l->str_embed;
	}
	if (len > (1ULL << 32))
		return -1;
	k = len < n - 1 ? len : n - 1;
	if (k && pymem_peek(pid, ptr + (tail ? len - k : 0), buf, k))
		return -1;
	buf[k] = '\0';
	return 0;
}

uint64_t rbmem_ary_at(pid_t pid, const struct rblayout *l, uint64_t ary,
		      uint64_t idx)
{
	uint8_t h[HEAD];
	uint64_t flags = head(pid, ary, l->t_array, h), len, at;

	if (!flags)
		return 0;
	if (flags & l->ary_embed_flag) {
		len = flags >> l->ary_embed_len_shift & l->ary_embed_len_mask;
		at = ary + l->ary_embed;
	} else {
		len = u64_at(h, l->ary_heap_len);
		at = u64_at(h, l->ary_heap_ptr);
	}
	return idx < len ? pymem_ptr(pid, at + idx * 8) : 0;
}

int rbmem_id_name(pid_t pid, const struct rblayout *l, uint64_t syms,
		  uint64_t id, char *buf, size_t n)
{
	uint64_t serial = id > l->last_op_id ? id >> l->id_scope_shift : id;
	uint64_t ids = syms ? pymem_ptr(pid, syms + l->syms_ids) : 0;
	uint64_t ary = rbmem_ary_at(pid, l, ids, serial / 512);

	return rbmem_str(pid, l, rbmem_ary_at(pid, l, ary, serial % 512 * 2),
			 buf, n, false);
}

/* The target of a RIP-relative operand whose 4 bytes are at c[at] and
 * whose instruction ends at c[end], c being at addr. */
static uint64_t rip_target(const uint8_t *c, size_t at, size_t end,
			   uint64_t addr)
{
	int32_t disp;

	memcpy(&disp, c + at, 4);
	return addr + end + (uint64_t)(int64_t)disp;
}

/* The table's address if the code c (n bytes, at addr) compares a
 * 32-bit register with a RIP-relative dword (cmp, 39 /r, mod 00 r/m
 * 101: last_id) and later loads the 8 bytes l->syms_ids further (REX.W
 * 8b /r, RIP-relative: ids); 0 if not. */
static uint64_t syms_in(const struct rblayout *l, const uint8_t *c, size_t n,
			uint64_t addr)
{
	for (size_t i = 0; i + 6 <= n; i++) {
		uint64_t last;

		if (c[i] != 0x39 || (c[i + 1] & 0xc7) != 0x05)
			continue;
		last = rip_target(c, i + 2, i + 6, addr);
		for (size_t j = i + 6; j + 7 <= n; j++)
			if ((c[j] & 0xf8) == 0x48 && c[j + 1] == 0x8b &&
			    (c[j + 2] & 0xc7) == 0x05 &&
			    rip_target(c, j + 3, j + 7, addr) ==
				    last + l->syms_ids)
				return last;
	}
	return 0;
}

int rbmem_find_syms(pid_t pid, const struct rblayout *l, uint64_t id2str,
		    uint64_t *syms)
{
	uint8_t head[32], c[160];

	if (pymem_peek(pid, id2str, head, sizeof(head)))
		return -1;
	/* rb_id2str() jumps to (or calls) the lookup: every e9 or e8 byte
	 * of its start taken for a jmp or call rel32, the one whose target
	 * reads the table kept */
	for (size_t i = 0; i + 5 <= sizeof(head); i++) {
		uint64_t fn;

		if (head[i] != 0xe9 && head[i] != 0xe8)
			continue;
		fn = rip_target(head, i + 1, i + 5, id2str);
		if (pymem_peek(pid, fn, c, sizeof(c)))
			continue;
		*syms = syms_in(l, c, sizeof(c), fn);
		if (*syms)
			return 0;
	}
	return -1;
}
