// SPDX-License-Identifier: MIT
/*
 * aggrows — agg's row table; see aggrows.h.
 *
 * Key rows are found by the raw BPF key (struct pt_key) in an
 * open-addressing hash table over agg->rows, kept under half full; only
 * the bytes its spec's key width can fill are hashed and compared (the
 * rest are zeros), 40 of the 168 for a spec without strings. A row
 * whose spec slot was freed and then reused (another generation) is reset
 * in place. A count row may have several sources (its hash map entry and
 * address slots that read the same string): each source's totals are
 * diffed on their own (map entries here, address slots by aggread) and
 * aggrows_gain() adds the differences up.
 */
#include "aggrows.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggbuckets.h"
#include "aggpriv.h"
#include "budget.h"
#include "mixstack.h"
#include "phpframe.h"
#include "pyframe.h"
#include "rbframe.h"
#include "stackname.h"
#include "symbolize.h"

/* A multiply-xorshift hash over the first len bytes of the key (64-bit
 * words). */
static uint64_t key_hash(const struct pt_key *k, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL, w;

	for (size_t i = 0; i < len; i += sizeof(w)) {
		memcpy(&w, (const uint8_t *)k + i, sizeof(w));
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

/* Index agg->rows[i]: the first free slot from its key's hash on. */
static void slot_insert(struct agg *agg, size_t i)
{
	const struct arow *r = agg->rows[i];
	size_t h = key_hash(&r->key, r->klen) & (agg->nslots - 1);

	while (agg->slots[h])
		h = (h + 1) & (agg->nslots - 1);
	agg->slots[h] = i + 1;
}

int aggrows_rehash(struct agg *agg, size_t nslots)
{
	size_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	free(agg->slots);
	agg->slots = slots;
	agg->nslots = nslots;
	for (size_t i = 0; i < agg->nrows; i++)
		slot_insert(agg, i);
	return 0;
}

/* The bytes of key k that its spec's key width can fill (struct pt_nkey,
 * pt_skey or pt_key: the rest are zeros); all if the spec is gone. */
static uint32_t key_len(const struct agg *agg, const struct pt_key *k)
{
	static const uint32_t LEN[] = {
		[PT_KEY_STR2] = sizeof(struct pt_key),
		[PT_KEY_STR1] = sizeof(struct pt_skey),
		[PT_KEY_NUMS] = sizeof(struct pt_nkey),
	};
	const struct tracer_spec_info *info =
		tracer_spec_info(agg->tr, (int)k->spec);

	return info ? LEN[info->width] : sizeof(*k);
}

_Static_assert(sizeof(struct pt_nkey) % 8 == 0 &&
		       sizeof(struct pt_skey) % 8 == 0 &&
		       sizeof(struct pt_key) % 8 == 0,
	       "keys hash in 64-bit words");

/* The row of key k, or NULL. A row whose spec's width was another (its
 * slot since reused) is not k's. */
static struct arow *find_row(struct agg *agg, const struct pt_key *k)
{
	uint32_t len = key_len(agg, k);
	size_t h;

	if (!agg->nslots)
		return NULL;
	h = key_hash(k, len) & (agg->nslots - 1);
	while (agg->slots[h]) {
		struct arow *r = agg->rows[agg->slots[h] - 1];

		if (r->klen == len && !memcmp(&r->key, k, len))
			return r;
		h = (h + 1) & (agg->nslots - 1);
	}
	return NULL;
}

#define LOW_BITS ((1ULL << PT_PYLINE_OFF_BITS) - 1)

/* A line key's function: a pyline key's code object, an rbline key's
 * PT_RBLINE_FN(). */
#define LINE_FN(key) ((key) >> PT_PYLINE_OFF_BITS << 4)

/* A frame's names as three parts at kp: function, file, first line;
 * num, the first part's number, keeps the kernel's key. */
static void frame_parts(struct agg_key_part *kp, uint64_t num, const char *func,
			const char *file, int line)
{
	kp[0] = (struct agg_key_part){ .is_str = true, .num = (int64_t)num };
	snprintf(kp[0].str, sizeof(kp[0].str), "%s", func);
	kp[1] = (struct agg_key_part){ .is_str = true };
	snprintf(kp[1].str, sizeof(kp[1].str), "%s", file);
	kp[2] = (struct agg_key_part){ .num = line };
}

/* A pyframe key (a code object's address), a pyline or rbline key (with
 * its line), a phpframe, a phpline or an rbframe key as three parts at
 * kp. */
static void frame_key_parts(struct agg *agg, enum spec_key_kind kind, pid_t pid,
			    uint64_t key, struct agg_key_part *kp)
{
	struct pyname py;
	struct phpname php;
	struct rbname rb;

	if (kind == SPEC_KEY_PHPFRAME) {
		phpframe_name(tracer_phpframe(agg->tr), pid, key, &php);
		frame_parts(kp, key, php.func, php.file, php.line);
	} else if (kind == SPEC_KEY_PHPLINE) {
		phpframe_line(tracer_phpframe(agg->tr), pid, key, &php);
		frame_parts(kp, key, php.func, php.file, php.line);
	} else if (kind == SPEC_KEY_RBFRAME) {
		rbframe_name(tracer_rbframe(agg->tr), pid, key, &rb);
		frame_parts(kp, key, rb.func, rb.file, rb.line);
	} else if (kind == SPEC_KEY_RBLINE) {
		rbframe_line(tracer_rbframe(agg->tr), pid, LINE_FN(key),
			     (uint32_t)(key & LOW_BITS), &rb);
		frame_parts(kp, key & ~LOW_BITS, rb.func, rb.file, rb.line);
	} else if (kind == SPEC_KEY_PYLINE) {
		pyframe_line(tracer_pyframe(agg->tr), pid, LINE_FN(key),
			     (uint32_t)(key & LOW_BITS), &py);
		frame_parts(kp, key & ~LOW_BITS, py.func, py.file, py.line);
	} else {
		pyframe_name(tracer_pyframe(agg->tr), pid, key, &py);
		frame_parts(kp, key, py.func, py.file, py.line);
	}
}

/* The text of stack key id of pid (a spec_key_is_stack() kind), its
 * frames' modules into kp->mods for ustack and kstack; NULL if out of
 * memory. */
static const char *stack_text(struct agg *agg, enum spec_key_kind kind,
			      pid_t pid, uint64_t id, struct agg_key_part *kp)
{
	switch (kind) {
	case SPEC_KEY_PYSTACK:
		return pyframe_stack(tracer_pyframe(agg->tr), pid, id);
	case SPEC_KEY_PHPSTACK:
		return phpframe_stack(tracer_phpframe(agg->tr), pid, id);
	case SPEC_KEY_RBSTACK:
		return rbframe_stack(tracer_rbframe(agg->tr), pid, id);
	case SPEC_KEY_MIXSTACK:
		return mixstack_text(agg->mix, pid, id,
				     tracer_known_maps(agg->tr, pid));
	default:
		return stackname_text(
			agg->stacks, pid, id, kind == SPEC_KEY_KSTACK,
			tracer_known_maps(agg->tr, pid), &kp->mods);
	}
}

/* The row's key parts from its BPF key; sym(), pyframe and stack keys
 * are named here, once per row. */
static void row_keys(struct agg *agg, struct arow *r,
		     const struct tracer_spec_info *info)
{
	const struct spec *sp = info->spec;
	int part = 0;

	r->row.pid = r->key.pid;
	for (int i = 0; i < sp->nkeys; i++) {
		struct agg_key_part *kp = &r->row.key[part++];
		int slot = info->key_slot[i];

		if (spec_key_is_frame(&sp->keys[i])) {
			frame_key_parts(agg, sp->keys[i].kind,
					(pid_t)r->key.pid, r->key.num[slot],
					kp);
			part += 2;
		} else if (spec_key_is_stack(&sp->keys[i])) {
			kp->is_str = true;
			kp->is_stack = true;
			kp->num = (int64_t)r->key.num[slot];
			kp->text = stack_text(agg, sp->keys[i].kind,
					      (pid_t)r->key.pid,
					      r->key.num[slot], kp);
			if (!kp->text)
				strcpy(kp->str, "?");
		} else if (sp->keys[i].kind == SPEC_KEY_JITFRAME) {
			const char *mods = NULL,
				   *text = stackname_text(
					   agg->stacks, (pid_t)r->key.pid,
					   r->key.num[slot], false,
					   tracer_known_maps(agg->tr,
							     (pid_t)r->key.pid),
					   &mods);

			kp->is_str = true;
			kp->num = (int64_t)r->key.num[slot];
			stackname_jit_frame(text, mods, kp->str,
					    sizeof(kp->str));
		} else if (sp->keys[i].kind == SPEC_KEY_SYM) {
			kp->num = (int64_t)r->key.num[slot];
			kp->is_str = true;
			symbolizer_name(
				agg->sym, (pid_t)r->key.pid, r->key.num[slot],
				tracer_known_maps(agg->tr, (pid_t)r->key.pid),
				kp->str, sizeof(kp->str));
		} else if (sp->keys[i].kind == SPEC_KEY_NUM ||
			   sp->keys[i].kind == SPEC_KEY_PYFIRSTLINE) {
			kp->num = (int64_t)r->key.num[slot];
			kp->is_signed = info->key_signed[i];
		} else {
			kp->is_str = true;
			agg_str_key(kp->str, sizeof(kp->str), r->key.str[slot]);
		}
	}
	r->row.nkeys = part;
}

/* Row r's key parts: like's (the row it shows, see shown_row()), or
 * named from its key; and a new id. */
static void name_row(struct agg *agg, struct arow *r,
		     const struct tracer_spec_info *info,
		     const struct arow *like)
{
	r->row.id = ++agg->next_id;
	if (!like) {
		row_keys(agg, r, info);
		return;
	}
	r->row.pid = like->row.pid;
	r->row.nkeys = like->row.nkeys;
	memcpy(r->row.key, like->row.key, sizeof(r->row.key));
}

/* A new, zeroed row of key k in agg->rows and the index (buckets if hist),
 * its key parts name_row()'s; NULL if out of memory. */
static struct arow *add_row(struct agg *agg, const struct pt_key *k,
			    const struct tracer_spec_info *info, bool hist,
			    const struct arow *like)
{
	struct arow *r;

	if ((agg->nrows + 1) * 2 > agg->nslots &&
	    aggrows_rehash(agg, agg->nslots ? agg->nslots * 2 : 1024))
		return NULL;
	if (agg->nrows == agg->caprows) {
		size_t cap = agg->caprows ? agg->caprows * 2 : 256;
		struct arow **rows = realloc(agg->rows, cap * sizeof(*rows));

		if (!rows)
			return NULL;
		agg->rows = rows;
		agg->caprows = cap;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	if (hist) {
		r->buckets = calloc(4 * PT_NBUCKETS, sizeof(*r->buckets));
		if (!r->buckets) {
			free(r);
			return NULL;
		}
		r->row.b = r->buckets;
		r->row.b_total = r->buckets + PT_NBUCKETS;
	}
	r->key = *k;
	r->klen = key_len(agg, k);
	r->spec = (int)k->spec;
	r->gen = info->gen;
	r->seq = agg->next_seq++;
	name_row(agg, r, info, like);
	agg->rows[agg->nrows++] = r;
	slot_insert(agg, agg->nrows - 1);
	agg->changed = true;
	return r;
}

/* A row left by a removed spec whose slot and key bytes came back; its
 * key parts name_row()'s. */
static void reset_row(struct agg *agg, struct arow *r,
		      const struct tracer_spec_info *info, bool hist,
		      const struct arow *like)
{
	uint64_t *buckets = r->buckets, seq = r->seq;
	uint32_t klen = r->klen;
	struct pt_key key = r->key;

	free(r->berr); /* memset() below forgets it */

	if (hist && !buckets)
		buckets = malloc(4 * PT_NBUCKETS * sizeof(*buckets));

	memset(r, 0, sizeof(*r));
	r->key = key;
	r->spec = (int)key.spec;
	r->gen = info->gen;
	r->seq = seq; /* its place in agg->rows */
	r->klen = klen; /* how it is indexed */
	r->buckets = buckets;
	if (buckets) {
		memset(buckets, 0, 4 * PT_NBUCKETS * sizeof(*buckets));
		r->row.b = buckets;
		r->row.b_total = buckets + PT_NBUCKETS;
	}
	name_row(agg, r, info, like);
}

void aggrows_prefetch(const struct arow *r)
{
	if (!r)
		return;
	__builtin_prefetch(&r->stamp, 1);
	__builtin_prefetch(&r->raw_total, 1);
	__builtin_prefetch(&r->row.count, 1);
}

void aggrows_free_row(struct arow *r)
{
	if (r) {
		free(r->buckets);
		free(r->berr);
		free(r);
	}
}

/*
 * A shown row's key slot holds what it shows, with the top bit set,
 * which no kernel key has (pointers and PT_PYLINE end below it, and a
 * stack's id is the hash of its addresses, not of its names).
 */
#define SHOWN (1ULL << 63)

/* Where each key i of sp starts among a row's parts: part[i]. */
static void key_parts(const struct spec *sp, int *part)
{
	for (int i = 0, p = 0; i < sp->nkeys; i++) {
		part[i] = p;
		p += spec_key_is_frame(&sp->keys[i]) ? 3 : 1;
	}
}

/* FNV-1a of text, below SHOWN. */
static uint64_t text_hash(const char *text)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *text; text++)
		h = (h ^ (uint8_t)*text) * 0x100000001b3ULL;
	return h & ~SHOWN;
}

/* FNV-1a of a frame's three parts at kp (function, file, line), below
 * SHOWN. */
static uint64_t frame_hash(const struct agg_key_part *kp)
{
	char text[sizeof(kp[0].str) + sizeof(kp[1].str) + 24];

	snprintf(text, sizeof(text), "%s\n%s\n%lld", kp[0].str, kp[1].str,
		 (long long)kp[2].num);
	return text_hash(text);
}

/*
 * Whether spec's rows are shown by what their keys name rather than by
 * the kernel's keys: a pyline or rbline key (the kernel keys a line by
 * bytecode offset or pc: one line has several), a phpframe or phpline
 * key (each closure, each eval'd code is a function of its own), a stack
 * (the kernel keys one by its
 * addresses: one call path has several, a sample anywhere in a
 * function's loop), a jitframe (one frame of such a stack).
 */
static bool merges(const struct spec *sp)
{
	for (int i = 0; i < sp->nkeys; i++)
		if (spec_key_is_line(&sp->keys[i]) ||
		    sp->keys[i].kind == SPEC_KEY_PYSTACK ||
		    sp->keys[i].kind == SPEC_KEY_PHPSTACK ||
		    sp->keys[i].kind == SPEC_KEY_PHPFRAME ||
		    sp->keys[i].kind == SPEC_KEY_PHPLINE ||
		    sp->keys[i].kind == SPEC_KEY_RBSTACK ||
		    sp->keys[i].kind == SPEC_KEY_RBFRAME ||
		    sp->keys[i].kind == SPEC_KEY_USTACK ||
		    sp->keys[i].kind == SPEC_KEY_JITFRAME ||
		    sp->keys[i].kind == SPEC_KEY_KSTACK ||
		    sp->keys[i].kind == SPEC_KEY_MIXSTACK)
			return true;
	return false;
}

/*
 * The row that shows source row r of a merges() spec, where r adds its
 * events: the row of r's key with each such key slot by what it names
 * (SHOWN), its key parts r's, added if new; r itself if it cannot be.
 */
static struct arow *shown_row(struct agg *agg, struct arow *r,
			      const struct tracer_spec_info *info, bool hist)
{
	const struct spec *sp = info->spec;
	struct pt_key k = r->key;
	int part[SPEC_MAX_KEYS];
	struct arow *to;

	key_parts(sp, part);
	for (int i = 0; i < sp->nkeys; i++) {
		const struct agg_key_part *kp = &r->row.key[part[i]];
		__u64 *v = &k.num[info->key_slot[i]];

		if (spec_key_is_line(&sp->keys[i]))
			*v = SHOWN | (*v & ~LOW_BITS) |
			     ((uint64_t)kp[2].num & LOW_BITS);
		else if (kp->is_stack)
			*v = SHOWN | text_hash(agg_key_text(kp));
		else if (sp->keys[i].kind == SPEC_KEY_PHPFRAME ||
			 sp->keys[i].kind == SPEC_KEY_PHPLINE ||
			 sp->keys[i].kind == SPEC_KEY_RBFRAME)
			*v = SHOWN | frame_hash(kp);
		else if (sp->keys[i].kind == SPEC_KEY_JITFRAME)
			*v = SHOWN | text_hash(kp->str);
	}
	to = find_row(agg, &k);
	if (to && to->gen != info->gen)
		reset_row(agg, to, info, hist, r);
	else if (!to)
		to = add_row(agg, &k, info, hist, r);
	return to && (!hist || to->buckets) ? to : r;
}

struct arow *aggrows_get(struct agg *agg, const struct pt_key *k, bool hist)
{
	const struct tracer_spec_info *info =
		tracer_spec_info(agg->tr, (int)k->spec);
	struct arow *r;

	if (!info)
		return NULL; /* removed a moment ago */
	r = find_row(agg, k);
	if (r && r->gen == info->gen)
		return !hist || r->buckets ? r : NULL; /* NULL: out of memory */
	if (r) {
		reset_row(agg, r, info, hist, NULL);
		agg->changed = true;
		if (hist && !r->buckets)
			return NULL;
	} else if (!(r = add_row(agg, k, info, hist, NULL))) {
		return NULL;
	}
	if (merges(info->spec)) {
		struct arow *to = shown_row(agg, r, info, hist);

		r->into = to != r ? to : NULL;
	}
	return r;
}

/* Start this read's interval values of shown row r, the first time a
 * source adds to it in this read. */
static void begin_read(struct agg *agg, struct arow *r)
{
	unsigned int stamp = agg->interval + 1; /* this read */

	if (r->stamp == stamp)
		return;
	r->stamp = stamp;
	r->row.count = 0;
	r->row.sum = 0;
	if (r->buckets)
		memset(r->buckets, 0, PT_NBUCKETS * sizeof(*r->buckets));
}

void aggrows_gain(struct agg *agg, struct arow *r, uint64_t count, int64_t sum)
{
	if (r->into)
		r = r->into;
	begin_read(agg, r);
	r->row.count += count;
	r->row.sum += sum;
	r->row.total += count;
	r->row.sum_total += sum;
	agg->changed |= count != 0;
}

bool aggrows_count_take(struct agg *agg, const void *key, const void *vals,
			struct aggrows_count *e)
{
	e->r = aggrows_get(agg, key, false);
	if (!e->r)
		return false;
	e->gen = e->r->gen;
	e->count = 0;
	e->sum = 0;
	for (int c = 0; c < agg->ncpu; c++) {
		const struct pt_count *v =
			(const void *)((const uint8_t *)vals +
				       c * agg_round8(sizeof(*v)));

		e->count += v->count;
		e->sum += v->sum;
	}
	return true;
}

/* Whether row r still stands for what was taken of it in generation
 * gen: neither it nor its spec changed generation since. */
static bool still_current(const struct agg *agg, const struct arow *r,
			  unsigned int gen)
{
	const struct tracer_spec_info *info =
		tracer_spec_info(agg->tr, r->spec);

	return r->gen == gen && info && info->gen == gen;
}

void aggrows_count_put(struct agg *agg, const struct aggrows_count *e)
{
	struct arow *r = e->r;

	if (!still_current(agg, r, e->gen))
		return;
	aggrows_gain(agg, r, e->count - r->map_total, e->sum - r->map_sum);
	r->map_total = e->count;
	r->map_sum = e->sum;
}

void aggrows_count_entry(struct agg *agg, const void *key, const void *vals)
{
	struct aggrows_count e;

	if (aggrows_count_take(agg, key, vals, &e))
		aggrows_count_put(agg, &e);
}

bool aggrows_hist_take(struct agg *agg, const void *key, const void *vals,
		       struct aggrows_hist *e)
{
	struct pt_hist *h = &e->v;

	e->r = aggrows_get(agg, key, true);
	if (!e->r)
		return false;
	e->gen = e->r->gen;
	memset(h, 0, sizeof(*h));
	h->min = INT64_MAX;
	h->max = INT64_MIN;
	for (int c = 0; c < agg->ncpu; c++) {
		const struct pt_hist *v =
			(const void *)((const uint8_t *)vals +
				       c * agg_round8(sizeof(*v)));

		if (!v->count)
			continue;
		h->count += v->count;
		h->sum += v->sum;
		h->min = v->min < h->min ? v->min : h->min;
		h->max = v->max > h->max ? v->max : h->max;
		for (int i = 0; i < PT_NBUCKETS; i++)
			h->b[i] += v->b[i];
	}
	return true;
}

void aggrows_hist_put(struct agg *agg, const struct aggrows_hist *e)
{
	const struct pt_hist *h = &e->v;
	struct arow *r = e->r, *to;

	if (!still_current(agg, r, e->gen))
		return;
	aggrows_gain(agg, r, h->count - r->map_total, h->sum - r->map_sum);
	r->map_total = h->count;
	r->map_sum = h->sum;
	to = r->into ? r->into : r;
	if (h->count && !to->minmax) { /* since attach, over the sources */
		to->row.min = h->min;
		to->row.max = h->max;
		to->minmax = true;
	} else if (h->count) {
		to->row.min = h->min < to->row.min ? h->min : to->row.min;
		to->row.max = h->max > to->row.max ? h->max : to->row.max;
	}
	for (int i = 0; i < PT_NBUCKETS; i++) {
		uint64_t *map = &r->buckets[2 * PT_NBUCKETS + i];

		to->buckets[i] += h->b[i] - *map;
		to->buckets[PT_NBUCKETS + i] += h->b[i] - *map;
		*map = h->b[i];
	}
}

void aggrows_hist_entry(struct agg *agg, const void *key, const void *vals)
{
	struct aggrows_hist e;

	if (aggrows_hist_take(agg, key, vals, &e))
		aggrows_hist_put(agg, &e);
}

void aggrows_raw(struct arow *r)
{
	r->row.total = r->raw_total;
	r->row.sum_total = r->raw_sum_total;
	if (r->buckets)
		r->row.b_total = r->buckets + PT_NBUCKETS;
}

/* A number of mark m, shown as shown, estimated est (its error sys,
 * variance var): where m is a lower bound, the estimate as its guess,
 * *g, and its relative error *err, if that is at most AGG_GUESS_ERR and
 * the estimate is more than the bound; else 0 and 0. */
static void guess(unsigned char m, uint64_t shown, double est, double sys,
		  double var, double *g, double *err)
{
	double e = est > 0 && isfinite(sys) && isfinite(var)
			   ? (sys + AGG_SIGMAS * sqrt(var)) / est
			   : INFINITY;

	*g = *err = 0;
	if (m == AGG_BOUND && e <= AGG_GUESS_ERR && est > (double)shown) {
		*g = est;
		*err = e;
	}
}

bool aggrows_show(struct arow *r, bool touched, const struct budget_est *e)
{
	double c, est, sys, var, lo, f, pvar, out;

	if (!touched) {
		r->row.count = 0;
		r->row.sum = 0;
		if (r->buckets)
			memset(r->buckets, 0,
			       PT_NBUCKETS * sizeof(*r->buckets));
	}
	c = (double)r->row.count;
	budget_row(e, c, &est, &sys, &var, &lo);
	budget_row_parts(e, c, &pvar, &out);
	f = c > 0 ? est / c : 1;
	r->raw_total = r->row.total;
	r->raw_sum_total = r->row.sum_total;
	r->est_sum_total += (double)r->row.sum * f;
	r->sys_total += sys;
	/* the hits out of the windows: as scattered as all the windows' */
	r->pvar_total += pvar;
	r->out_total += out;
	r->var_total = budget_row_var(r->pvar_total, r->out_total, e->rel_all);
	r->lo_total += lo;
	r->row.mark = (unsigned char)agg_mark_of(est, sys, var);
	if (r->buckets) /* the estimate is the sum of its scaled buckets */
		est = aggbuckets_interval(r, e, f);
	r->est_total += est;
	if (r->row.mark == AGG_ESTIMATE) {
		r->row.count = (uint64_t)(est + 0.5);
		r->row.sum = (int64_t)llround((double)r->row.sum * f);
	} else if (r->row.mark == AGG_BOUND && !r->buckets) {
		r->row.count = (uint64_t)lo; /* a histogram's: as counted */
	}
	r->row.mark_total = (unsigned char)agg_mark_of(
		r->est_total, r->sys_total, r->var_total);
	if (r->row.mark_total == AGG_ESTIMATE && r->buckets &&
	    !aggbuckets_totals_keep(r))
		r->row.mark_total = AGG_BOUND; /* as counted */
	if (r->row.mark_total == AGG_ESTIMATE) {
		r->row.total = (uint64_t)(r->est_total + 0.5);
		r->row.sum_total = (int64_t)llround(r->est_sum_total);
		if (r->buckets)
			r->row.b_total = r->buckets + 3 * PT_NBUCKETS;
	} else if (r->row.mark_total == AGG_BOUND && !r->buckets) {
		r->row.total = (uint64_t)r->lo_total;
	}
	/* a histogram's bound is its buckets as counted: none (its count's
	 * estimate is its scaled buckets', whose errors are their own) */
	guess(r->buckets ? AGG_EXACT : r->row.mark, r->row.count, est, sys, var,
	      &r->row.guess, &r->row.guess_err);
	guess(r->buckets ? AGG_EXACT : r->row.mark_total, r->row.total,
	      r->est_total, r->sys_total, r->var_total, &r->row.guess_total,
	      &r->row.guess_err_total);
	return r->row.mark_total != AGG_EXACT;
}
