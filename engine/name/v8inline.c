// SPDX-License-Identifier: MIT
/*
 * v8inline — an optimized frame's inlined functions; see v8inline.h.
 */
#include "v8inline.h"

#include <errno.h>
#include <stdlib.h>

#include "pymem.h"
#include "v8heap.h"
#include "v8meta.h"

#define BLOCK 4096 /* bytes read at once, looking for a code's start */
#define CODE_ALIGN 32 /* a code's first instruction aligned to this */
#define VLQ_BITS 7 /* a byte of a position table: 7 bits, and "more" */
#define POS_MAX (1ll << 48) /* source positions: 47 bits */
#define INLINE_POS 16 /* bytes of one inlining position */
#define INLINE_FN 8 /* its index into the literals, past its position */
/* Code's fields past its source_position_table (V8 11.3): */
#define CODE_ISTREAM 8 /* its InstructionStream */
#define CODE_ENTRY 16 /* its first instruction */
#define CODE_SIZE 32 /* its instruction_size (int32) */

/* The InstructionStream's map of a process, once one was verified
 * (checked again at each use: the pid may be another process's now). */
struct proc_map_of {
	pid_t pid;
	uint64_t map;
};

struct v8inline {
	struct proc_map_of procs[V8INLINE_PROCS];
	size_t next; /* the next slot to reuse */
	uint64_t block[BLOCK / 8];
	uint8_t table[V8INLINE_TABLE];
};

struct v8inline *v8inline_new(void)
{
	struct v8inline *vi = calloc(1, sizeof(*vi));

	if (!vi)
		errno = ENOMEM;
	return vi;
}

void v8inline_free(struct v8inline *vi)
{
	free(vi);
}

/* The next zigzag VLQ of b[0..n) from *at into *v. 0 or -1 (ends). */
static int vlq(const uint8_t *b, size_t n, size_t *at, int64_t *v)
{
	uint64_t u = 0;
	unsigned shift = 0;
	uint8_t byte;

	do {
		if (*at >= n || shift > 63)
			return -1;
		byte = b[(*at)++];
		u |= (uint64_t)(byte & 0x7f) << shift;
		shift += VLQ_BITS;
	} while (byte & 0x80);
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return 0;
}

int v8inline_position(const uint8_t *b, size_t n, bool whole, uint64_t off,
		      int64_t *pos)
{
	int64_t code = 0, src = 0, dc, ds;
	size_t at = 0;
	bool found = false;

	while (at < n) {
		if (vlq(b, n, &at, &dc) || vlq(b, n, &at, &ds) ||
		    dc > INT32_MAX || dc < INT32_MIN || ds > POS_MAX ||
		    ds < -POS_MAX)
			return -1; /* cut in an entry, or no V8's */
		code += dc >= 0 ? dc : -(dc + 1); /* the sign: a statement */
		src += ds;
		if (code > INT32_MAX || src < 0 || src > POS_MAX)
			return -1;
		if ((uint64_t)code > off)
			return found ? 0 : -1;
		*pos = src;
		found = true;
	}
	return found && whole ? 0 : -1;
}

/* The kept InstructionStream map of pid's slot, or NULL. */
static struct proc_map_of *slot_of(struct v8inline *vi, pid_t pid)
{
	for (size_t i = 0; i < V8INLINE_PROCS; i++)
		if (vi->procs[i].pid == pid)
			return &vi->procs[i];
	return NULL;
}

/* Whether tagged value map is the map of c's InstructionStreams. */
static bool istream_map(const struct v8ctx *c, uint64_t map)
{
	uint16_t type;

	return !v8heap_field(c, map, c->m->map_type, &type, sizeof(type)) &&
	       type == c->m->t_istream;
}

/* Whether at (untagged) starts an InstructionStream whose Code holds pc;
 * its Code into *code. known: the process's InstructionStream map (0:
 * not known yet; the map is checked then). */
static bool code_at(const struct v8ctx *c, uint64_t at, uint64_t word,
		    uint64_t known, uint64_t pc, uint64_t *code)
{
	const struct v8meta *m = c->m;
	uint64_t start = at + m->istream_start, back, entry;
	int32_t size;
	uint32_t f = m->code_positions;

	if (known ? word != known : !istream_map(c, word))
		return false;
	if (pymem_peek(c->pid, at + 8, code, sizeof(*code)) ||
	    v8heap_type(c, *code) != m->t_code)
		return false;
	back = v8heap_tagged(c, *code, f + CODE_ISTREAM);
	entry = v8heap_tagged(c, *code, f + CODE_ENTRY);
	return back == at + m->heap_tag && entry == start &&
	       !v8heap_field(c, *code, f + CODE_SIZE, &size, sizeof(size)) &&
	       size > 0 && pc - start < (uint64_t)size;
}

/* The tagged Code of the InstructionStream that holds pc: the nearest
 * before it, within V8INLINE_SCAN bytes; 0 if none. */
static uint64_t code_of(struct v8inline *vi, const struct v8ctx *c, uint64_t pc)
{
	struct proc_map_of *p = slot_of(vi, c->pid);
	uint64_t known = p && istream_map(c, p->map) ? p->map : 0, code;
	uint64_t base = pc & ~(uint64_t)(BLOCK - 1);

	for (uint64_t done = 0; done < V8INLINE_SCAN; done += BLOCK) {
		if (done >= base || pymem_peek(c->pid, base - done, vi->block,
					       sizeof(vi->block)))
			return 0;
		for (size_t i = BLOCK / 8; i-- > 0;) {
			uint64_t at = base - done + 8 * i;

			if (at > pc ||
			    (at + c->m->istream_start) % CODE_ALIGN ||
			    !code_at(c, at, vi->block[i], known, pc, &code))
				continue;
			if (!p) {
				p = &vi->procs[vi->next];
				vi->next = (vi->next + 1) % V8INLINE_PROCS;
			}
			*p = (struct proc_map_of){ c->pid, vi->block[i] };
			return code;
		}
	}
	return 0;
}

/* The tagged value at slot i of FixedArray-like array a (its length
 * checked); 0 if none. */
static uint64_t slot(const struct v8ctx *c, uint64_t a, uint32_t i)
{
	int64_t len = v8heap_smi(c, v8heap_tagged(c, a, c->m->arr_len));

	return i < len ? v8heap_tagged(c, a, c->m->arr_data + 8 * i) : 0;
}

/* The inlining id of raw source position pos (-1: not inlined). */
static int32_t inlining_id(int64_t pos)
{
	return (int32_t)(((uint64_t)pos >> 31) & 0xffff) - 1;
}

/* The SharedFunctionInfos of inlining id id's function and its callers
 * (to the frame's own, left out) by deoptimization data dd into out:
 * their number; 0 if one cannot be read or there are more than
 * V8INLINE_MAX - 1. */
static size_t inlined(const struct v8ctx *c, uint64_t dd, int32_t id,
		      uint64_t *out)
{
	const struct v8meta *m = c->m;
	uint64_t lits = slot(c, dd, m->dd_literals);
	uint64_t ips = slot(c, dd, m->dd_inlining);
	int64_t nips = v8heap_smi(c, v8heap_tagged(c, ips, m->arr_len));
	size_t k = 0;

	if (v8heap_type(c, lits) != m->t_weak_array ||
	    v8heap_type(c, ips) != m->t_bytes)
		return 0;
	for (; id >= 0; k++) {
		struct {
			int64_t pos;
			int32_t fn;
		} ip;
		uint64_t f;

		if (k == V8INLINE_MAX - 1 || (int64_t)id >= nips / INLINE_POS ||
		    v8heap_field(c, ips,
				 m->arr_data + INLINE_POS * (uint32_t)id,
				 &ip.pos, sizeof(ip.pos)) ||
		    v8heap_field(c, ips,
				 m->arr_data + INLINE_POS * (uint32_t)id +
					 INLINE_FN,
				 &ip.fn, sizeof(ip.fn)) ||
		    ip.fn < 0)
			return 0;
		f = slot(c, lits, (uint32_t)ip.fn);
		if ((f & 3) == 3)
			f &= ~(uint64_t)2; /* a weak reference */
		if (v8heap_type(c, f) != m->t_sfi)
			return 0;
		out[k] = f;
		id = inlining_id(ip.pos);
	}
	return k;
}

size_t v8inline_chain(struct v8inline *vi, pid_t pid, const struct v8meta *m,
		      uint64_t pc, uint64_t sfi, uint64_t *out)
{
	struct v8ctx c = { pid, m };
	uint64_t code = m->inl ? code_of(vi, &c, pc) : 0, dd, table, start;
	int64_t len, n, pos;
	size_t k;

	if (!code)
		return 0;
	dd = v8heap_tagged(&c, code, m->code_deopt);
	table = v8heap_tagged(&c, code, m->code_positions);
	if (v8heap_type(&c, dd) != m->t_array ||
	    slot(&c, dd, m->dd_sfi) != sfi ||
	    v8heap_smi(&c, slot(&c, dd, m->dd_count)) <= 0 ||
	    v8heap_type(&c, table) != m->t_bytes)
		return 0;
	len = v8heap_smi(&c, v8heap_tagged(&c, table, m->arr_len));
	n = len < V8INLINE_TABLE ? len : V8INLINE_TABLE;
	start = v8heap_tagged(&c, code, m->code_positions + CODE_ENTRY);
	if (n <= 0 ||
	    v8heap_field(&c, table, m->arr_data, vi->table, (size_t)n) ||
	    v8inline_position(vi->table, (size_t)n, n == len, pc - start,
			      &pos) ||
	    inlining_id(pos) < 0)
		return 0;
	k = inlined(&c, dd, inlining_id(pos), out);
	if (!k)
		return 0;
	out[k] = sfi;
	return k + 1;
}
