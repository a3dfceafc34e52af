// SPDX-License-Identifier: MIT
/*
 * jvmcode — a HotSpot JVM's compiled frames as unwind rows; see
 * jvmcode.h.
 */
#include "jvmcode.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "jvmlayout.h"
#include "pymem.h"

#define BLOCK_READ 256 /* bytes read at a block: its header and blob */

/* One code heap: its blocks in [lo, hi), segments of 1 << log2 bytes. */
struct heap {
	uint64_t lo, hi;
	uint32_t log2;
};

/* Room for one row more in c. 0 or -ENOMEM. */
static int grow(struct jvmcode *c)
{
	struct pt_urow *r;
	size_t cap = c->cap ? 2 * c->cap : 1024;

	if (c->n < c->cap)
		return 0;
	r = realloc(c->rows, cap * sizeof(*r));
	if (!r)
		return -ENOMEM;
	c->rows = r;
	c->cap = cap;
	return 0;
}

/* Row (off, rule) after c's rows; one at the same offset replaced (a
 * blob's end is the next one's start). 0 or -ENOMEM. */
static int put(struct jvmcode *c, uint64_t at, uint32_t rule)
{
	uint32_t off = (uint32_t)(at - c->lo);

	if (c->n && c->rows[c->n - 1].off == off) {
		c->rows[c->n - 1].rule = rule;
		return 0;
	}
	if (grow(c))
		return -ENOMEM;
	c->rows[c->n++] = (struct pt_urow){ off, rule };
	return 0;
}

/* Blob b after c's. 0 or -ENOMEM. */
static int blob_put(struct jvmcode *c, const struct jvmcode_blob *b)
{
	if (c->blobs == c->blobs_cap) {
		size_t cap = c->blobs_cap ? 2 * c->blobs_cap : 256;
		struct jvmcode_blob *nb = realloc(c->blob, cap * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		c->blob = nb;
		c->blobs_cap = cap;
	}
	c->blob[c->blobs++] = *b;
	return 0;
}

/* The int32 at off of buf. */
static int32_t i32_at(const uint8_t *buf, uint32_t off)
{
	int32_t v;

	memcpy(&v, buf + off, sizeof(v));
	return v;
}

/* The uint64 at off of buf. */
static uint64_t u64_at(const uint8_t *buf, uint32_t off)
{
	uint64_t v;

	memcpy(&v, buf + off, sizeof(v));
	return v;
}

/* Whether a blob named by the C string at name is a method's (the
 * JVM names them all by one literal: once found, compared by address). */
static bool is_nmethod(pid_t pid, struct jvmcode *c, uint64_t name)
{
	char s[8];

	if (!name)
		return false;
	if (name == c->nm_name)
		return true;
	if (c->nm_name || pymem_peek(pid, name, s, sizeof(s)) ||
	    memcmp(s, "nmethod", sizeof(s)))
		return false;
	c->nm_name = name;
	return true;
}

/* The rows of the blob in the used block [block, end), read into buf:
 * its frame's, if it has one the walk can use, else frame pointer (the
 * interpreter, adapters, the call stub), to its end; the blob kept in
 * c. 0 or -ENOMEM. */
static int blob_rows(pid_t pid, const struct jvmcodelayout *l, uint64_t block,
		     uint64_t end, const uint8_t *buf, struct jvmcode *c)
{
	const uint8_t *b = buf + l->block_size;
	uint64_t begin = u64_at(b, l->blob_begin);
	uint64_t code_end = u64_at(b, l->blob_end);
	int32_t frame = i32_at(b, l->blob_frame);
	int32_t complete = i32_at(b, l->blob_complete);
	struct jvmcode_blob blob;
	int err;

	if (begin < block + l->block_size || code_end > end ||
	    begin >= code_end)
		return put(c, block,
			   PT_UR_MAKE(PT_UR_STOP, 0, 0, 0)); /* torn */
	blob = (struct jvmcode_blob){
		.at = block + l->block_size,
		.begin = begin,
		.end = code_end,
		.name = u64_at(b, l->blob_name),
	};
	if (frame < 2 || frame > PT_UR_OFF_MAX / 8 || complete < 0 ||
	    (uint64_t)complete > code_end - begin) {
		err = put(c, block, PT_UR_MAKE(PT_UR_FP, 0, 0, 0));
		return err ? err : blob_put(c, &blob);
	}
	if (is_nmethod(pid, c, blob.name))
		blob.method = u64_at(b, l->nm_method);
	err = put(c, block, PT_UR_MAKE(PT_UR_STOP, 0, 0, 0));
	if (!err)
		err = put(c, begin + (uint64_t)complete,
			  PT_UR_MAKE(PT_UR_RSP, 0, 2, frame * 8));
	if (!err)
		err = blob_put(c, &blob);
	return err;
}

/* The rows of heap h's blocks, one by one, into c: a free block's and
 * what follows the last block read end the walk (code compiled since
 * is not known yet). 0 or -ENOMEM; a block unreadable or out of bounds
 * ends the heap. */
static int heap_rows(pid_t pid, const struct jvmcodelayout *l,
		     const struct heap *h, struct jvmcode *c)
{
	uint8_t buf[BLOCK_READ];
	uint64_t at = h->lo;
	int err;

	while (at < h->hi && c->blobs < JVMCODE_BLOBS) {
		uint64_t len, next;
		size_t n = h->hi - at < sizeof(buf) ? h->hi - at : sizeof(buf);

		if (n < l->block_size || pymem_peek(pid, at, buf, n))
			break;
		len = u64_at(buf, l->block_length);
		next = at + (len << h->log2);
		if (!len || len > (h->hi - at) >> h->log2)
			break; /* past what is allocated, or torn */
		err = buf[l->block_used] && n == sizeof(buf)
			      ? blob_rows(pid, l, at, next, buf, c)
			      : put(c, at, PT_UR_MAKE(PT_UR_STOP, 0, 0, 0));
		if (err)
			return err;
		at = next;
	}
	return put(c, at, PT_UR_MAKE(PT_UR_STOP, 0, 0, 0));
}

/* The heaps of the code cache into h (at most JVMCODE_HEAPS), sorted by
 * address; their number. */
static size_t heaps_read(pid_t pid, const struct jvmcodelayout *l,
			 struct heap *h)
{
	uint64_t arr = pymem_ptr(pid, l->heaps), data;
	int32_t len = 0;
	size_t n = 0;

	if (!arr || pymem_peek(pid, arr + l->array_len, &len, 4) || len <= 0)
		return 0;
	data = pymem_ptr(pid, arr + l->array_data);
	for (int32_t i = 0; data && i < len && n < JVMCODE_HEAPS; i++) {
		uint64_t heap = pymem_ptr(pid, data + 8 * (uint64_t)i);
		uint64_t vs = heap + l->heap_memory;
		struct heap one = {
			.lo = heap ? pymem_ptr(pid, vs + l->vs_low) : 0,
			.hi = heap ? pymem_ptr(pid, vs + l->vs_high) : 0,
		};
		size_t at = n;

		if (!one.lo || one.hi <= one.lo ||
		    pymem_peek(pid, heap + l->heap_log2_seg, &one.log2, 4) ||
		    one.log2 < 4 || one.log2 > 20)
			continue;
		while (at && h[at - 1].lo > one.lo) { /* insertion sort */
			h[at] = h[at - 1];
			at--;
		}
		h[at] = one;
		n++;
	}
	return n;
}

/* Whether every field a block's read is taken from lies in it (the
 * offsets are the target's to give). */
static bool fits(const struct jvmcodelayout *l)
{
	const uint32_t blob[] = {
		l->blob_begin, l->blob_end,   l->blob_name,
		l->nm_method,  l->blob_frame, l->blob_complete
	};

	if ((uint64_t)l->block_length + 8 > BLOCK_READ ||
	    l->block_used >= BLOCK_READ)
		return false;
	for (size_t i = 0; i < sizeof(blob) / sizeof(blob[0]); i++)
		if ((uint64_t)l->block_size + blob[i] + 8 > BLOCK_READ)
			return false;
	return true;
}

int jvmcode_read(pid_t pid, const struct jvmcodelayout *l, struct jvmcode *c)
{
	struct heap h[JVMCODE_HEAPS];
	size_t n = heaps_read(pid, l, h);

	c->n = 0;
	c->blobs = 0;
	if (!n || h[n - 1].hi - h[0].lo > UINT32_MAX || !fits(l))
		return -ENOENT;
	c->lo = h[0].lo;
	c->nheaps = n;
	for (size_t i = 0; i < n; i++) {
		c->heap[i].lo = h[i].lo;
		c->heap[i].hi = h[i].hi;
		if (heap_rows(pid, l, &h[i], c))
			return -ENOMEM;
	}
	return 0;
}

const struct jvmcode_blob *jvmcode_find(const struct jvmcode *c, uint64_t addr)
{
	size_t lo = 0, hi = c->blobs;

	while (lo < hi) { /* the first blob ending above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (c->blob[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->blobs && c->blob[lo].begin <= addr ? &c->blob[lo] : NULL;
}

void jvmcode_free(struct jvmcode *c)
{
	free(c->rows);
	free(c->blob);
	memset(c, 0, sizeof(*c));
}
