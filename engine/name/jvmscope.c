// SPDX-License-Identifier: MIT
/*
 * jvmscope — a compiled frame's inlined scopes; see jvmscope.h.
 */
#include "jvmscope.h"

#include <stdbool.h>
#include <string.h>

#include <linux/types.h> /* before probetop.h */

#include "jvmcode.h"
#include "jvmlayout.h"
#include "probetop.h"
#include "pymem.h"

#define UNSIGNED5_L 192 /* a byte below this ends an int */
#define PCS_MAX 4096 /* PcDescs of an nmethod read at most */
#define SCOPE_READ 64 /* bytes of a scope read at most */

uint32_t cstream_u5(struct cstream *s)
{
	uint32_t sum = 0, b;

	for (int i = 0, shift = 0; i < 5 && s->at < s->n; i++, shift += 6) {
		b = s->b[s->at++];
		sum += b << shift;
		if (b < UNSIGNED5_L)
			break;
	}
	return sum;
}

int32_t cstream_s5(struct cstream *s)
{
	uint32_t u = cstream_u5(s);

	return (int32_t)(u >> 1) ^ -(int32_t)(u & 1);
}

/* The int32 at addr of pid into *v. 0 or -1. */
static int peek_i32(pid_t pid, uint64_t addr, int32_t *v)
{
	return pymem_peek(pid, addr, v, sizeof(*v));
}

/* The scope decode offset of the first PcDesc of nmethod nm at or after
 * code offset off: 0 if none (or none readable). */
static int32_t scope_at(pid_t pid, const struct jvmcodelayout *l, uint64_t nm,
			uint64_t off)
{
	static uint8_t pcs[PCS_MAX * 32];
	int32_t from, to, lo = 0, hi, v;
	uint32_t size = l->pcdesc_size;

	if (size > 32 || (uint64_t)l->pc_pc + 4 > size ||
	    (uint64_t)l->pc_scope + 4 > size ||
	    peek_i32(pid, nm + l->nm_pcs, &from) ||
	    peek_i32(pid, nm + l->nm_deps, &to) || from <= 0 || to <= from)
		return 0;
	hi = (to - from) / (int32_t)size;
	if (hi > PCS_MAX)
		hi = PCS_MAX;
	if (pymem_peek(pid, nm + (uint64_t)from, pcs, (size_t)hi * size))
		return 0;
	while (lo < hi) { /* the first at or after off */
		int32_t mid = lo + (hi - lo) / 2;

		memcpy(&v, pcs + (size_t)mid * size + l->pc_pc, 4);
		if ((int64_t)v < (int64_t)off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == (to - from) / (int32_t)size || lo >= PCS_MAX)
		return 0;
	memcpy(&v, pcs + (size_t)lo * size + l->pc_scope, 4);
	return v > 0 ? v : 0;
}

/* Scope at offset at of an nmethod's scopes data (from data; its
 * metadata from meta) into *s, its caller's offset into *sender (0:
 * none). 0 or -1. */
static int scope_read(pid_t pid, uint64_t meta, uint64_t data, int32_t at,
		      struct jvmscope *s, int32_t *sender)
{
	uint8_t b[SCOPE_READ];
	struct cstream cs = { b, sizeof(b), 0 };
	uint32_t idx, bci;

	while (cs.n >= 16 && pymem_peek(pid, data + (uint64_t)at, b, cs.n))
		cs.n /= 2; /* near the end of its mapping */
	if (cs.n < 16)
		return -1;
	*sender = (int32_t)cstream_u5(&cs);
	idx = cstream_u5(&cs);
	bci = cstream_u5(&cs); /* the bytecode index + 1 */
	if (!idx || idx > 1u << 20 || *sender < 0 || *sender >= at)
		return -1; /* a caller's scope is written before it */
	s->method = pymem_ptr(pid, meta + 8ull * (idx - 1));
	s->bci = bci && bci - 1 < PT_JAVA_BCI_NONE ? bci - 1
						   : (uint32_t)PT_JAVA_BCI_NONE;
	return s->method && !(s->method & 7) ? 0 : -1;
}

size_t jvmscope_read(pid_t pid, const struct jvmcodelayout *l,
		     const struct jvmcode_blob *b, uint64_t pc,
		     struct jvmscope *out)
{
	uint64_t data = pymem_ptr(pid, b->at + l->nm_scopes_data);
	int32_t at = data && pc >= b->begin
			     ? scope_at(pid, l, b->at, pc - b->begin)
			     : 0;
	int32_t meta = 0;
	size_t n = 0;

	if (at > 0 && (peek_i32(pid, b->at + l->nm_meta, &meta) || meta <= 0))
		return 0; /* where its methods are not known */
	while (at > 0 && n < JVMSCOPE_MAX) {
		int32_t sender;

		if (scope_read(pid, b->at + (uint64_t)meta, data, at, &out[n],
			       &sender))
			return 0;
		n++;
		at = sender;
	}
	return n;
}
