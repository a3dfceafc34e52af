// SPDX-License-Identifier: MIT
/*
 * agg — map totals to per-interval snapshots; see agg.h.
 *
 * Rows are found by the raw BPF key (struct pt_key) in an open-addressing
 * hash table; each keeps the totals seen last time. A read walks each map
 * with bpf_map_lookup_batch() in chunks, sums the per-CPU values, and
 * updates rows in place; then each live spec's rows are collected and
 * sorted. Rows whose spec slot was freed or reused (generation) are
 * dropped. A count row may have several sources (its hash map entry and
 * address slots that read the same string): each source's totals are
 * diffed on their own and the differences added up.
 */
#include "agg.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "symbolize.h"

#define BATCH 1024

struct arow {
	struct pt_key key;
	int spec;
	unsigned int gen;
	unsigned int stamp; /* the read that last added to row.count */
	uint64_t map_total; /* count rows: what the hash map (or solo */
	int64_t map_sum; /* slot) held, of row.total and row.sum_total */
	struct agg_row row;
	uint64_t *buckets; /* hist kinds: [0..N) interval, [N..2N) total */
};

/* Where each spec's rows sit in agg->order, as of the last sort. */
struct layout {
	int id;
	unsigned int gen;
	size_t off, n;
};

struct agg {
	struct tracer *tr;
	int ncpu;
	struct timespec start;
	unsigned int interval;
	struct arow **rows; /* dense */
	size_t nrows, caprows;
	size_t *slots; /* hash: index + 1 into rows, 0 = empty */
	size_t nslots;
	struct agg_spec *specs;
	const struct agg_row **order; /* rows of every spec, grouped */
	struct agg_io_row *io;
	size_t nio, capio;
	struct agg_proc_row *proc;
	size_t nproc, capproc;
	struct symbolizer *sym; /* sym() keys */
	struct pt_stat prev_stat[PT_MAX_SPECS];
	uint64_t prev_kdrops[PT_KDROP_N];
	unsigned int stat_gen[PT_MAX_SPECS];
	struct pt_count *aprev; /* [spec][slot][cpu]: aslots last time */
	unsigned int aprev_gen[PT_MAX_SPECS];
	void *keys, *vals; /* batch buffers */
	bool changed, prev_changed; /* a row came or moved, now / before */
	struct layout layout[PT_MAX_SPECS];
	size_t nlayout;
	struct agg_snapshot snap;
};

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

struct agg *agg_new(struct tracer *tr)
{
	struct agg *agg = calloc(1, sizeof(*agg));
	size_t vsz;

	if (!agg)
		return NULL;
	agg->tr = tr;
	agg->ncpu = libbpf_num_possible_cpus();
	if (agg->ncpu < 1)
		agg->ncpu = 1;
	vsz = round8(sizeof(struct pt_io_val));
	if (vsz < round8(sizeof(struct pt_hist)))
		vsz = round8(sizeof(struct pt_hist));
	agg->keys = malloc(BATCH * sizeof(struct pt_key));
	agg->vals = malloc(BATCH * vsz * (size_t)agg->ncpu);
	agg->specs = calloc(PT_MAX_SPECS, sizeof(*agg->specs));
	agg->sym = symbolizer_new(tracer_objcache(tr));
	agg->aprev = calloc((size_t)PT_MAX_SPECS * PT_ASLOTS * agg->ncpu,
			    sizeof(*agg->aprev));
	if (!agg->keys || !agg->vals || !agg->specs || !agg->sym ||
	    !agg->aprev) {
		agg_free(agg);
		errno = ENOMEM;
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &agg->start);
	return agg;
}

static void free_row(struct arow *r)
{
	if (r) {
		free(r->buckets);
		free(r);
	}
}

void agg_free(struct agg *agg)
{
	if (!agg)
		return;
	for (size_t i = 0; i < agg->nrows; i++)
		free_row(agg->rows[i]);
	free(agg->rows);
	free(agg->slots);
	free(agg->specs);
	free(agg->order);
	free(agg->io);
	free(agg->proc);
	symbolizer_free(agg->sym);
	free(agg->keys);
	free(agg->vals);
	free(agg->aprev);
	free(agg);
}

/* Hash table ---------------------------------------------------------- */

/* A multiply-xorshift hash over the key's 64-bit words. */
static uint64_t key_hash(const struct pt_key *k)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL, w;

	for (size_t i = 0; i < sizeof(*k); i += sizeof(w)) {
		memcpy(&w, (const uint8_t *)k + i, sizeof(w));
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

static void slot_insert(struct agg *agg, size_t i)
{
	size_t h = key_hash(&agg->rows[i]->key) & (agg->nslots - 1);

	while (agg->slots[h])
		h = (h + 1) & (agg->nslots - 1);
	agg->slots[h] = i + 1;
}

/* Rebuild the index with nslots (a power of two > 2 * nrows). */
static int rehash(struct agg *agg, size_t nslots)
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

static struct arow *find_row(struct agg *agg, const struct pt_key *k)
{
	size_t h;

	if (!agg->nslots)
		return NULL;
	h = key_hash(k) & (agg->nslots - 1);
	while (agg->slots[h]) {
		struct arow *r = agg->rows[agg->slots[h] - 1];

		if (!memcmp(&r->key, k, sizeof(*k)))
			return r;
		h = (h + 1) & (agg->nslots - 1);
	}
	return NULL;
}

/* The row's key parts from its BPF key; sym() keys are named here, once
 * per row. */
static void row_keys(struct agg *agg, struct arow *r,
		     const struct tracer_spec_info *info)
{
	const struct spec *sp = info->spec;

	r->row.pid = r->key.pid;
	r->row.nkeys = sp->nkeys;
	for (int i = 0; i < sp->nkeys; i++) {
		struct agg_key_part *kp = &r->row.key[i];
		int slot = info->key_slot[i];

		if (sp->keys[i].kind == SPEC_KEY_SYM) {
			kp->num = (int64_t)r->key.num[slot];
			kp->is_str = true;
			symbolizer_name(
				agg->sym, (pid_t)r->key.pid, r->key.num[slot],
				tracer_known_maps(agg->tr, (pid_t)r->key.pid),
				kp->str, sizeof(kp->str));
		} else if (sp->keys[i].kind == SPEC_KEY_NUM) {
			kp->num = (int64_t)r->key.num[slot];
			kp->is_signed = info->key_signed[i];
		} else {
			kp->is_str = true;
			memcpy(kp->str, r->key.str[slot], PT_STR_LEN);
			kp->str[PT_STR_LEN - 1] = '\0';
		}
	}
}

static struct arow *add_row(struct agg *agg, const struct pt_key *k,
			    const struct tracer_spec_info *info, bool hist)
{
	struct arow *r;

	if ((agg->nrows + 1) * 2 > agg->nslots &&
	    rehash(agg, agg->nslots ? agg->nslots * 2 : 1024))
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
		r->buckets = calloc(2 * PT_NBUCKETS, sizeof(*r->buckets));
		if (!r->buckets) {
			free(r);
			return NULL;
		}
		r->row.b = r->buckets;
		r->row.b_total = r->buckets + PT_NBUCKETS;
	}
	r->key = *k;
	r->spec = (int)k->spec;
	r->gen = info->gen;
	row_keys(agg, r, info);
	agg->rows[agg->nrows++] = r;
	slot_insert(agg, agg->nrows - 1);
	agg->changed = true;
	return r;
}

/* A row left by a removed spec whose slot and key bytes came back. */
static void reset_row(struct agg *agg, struct arow *r,
		      const struct tracer_spec_info *info, bool hist)
{
	uint64_t *buckets = r->buckets;
	struct pt_key key = r->key;

	if (hist && !buckets)
		buckets = malloc(2 * PT_NBUCKETS * sizeof(*buckets));

	memset(r, 0, sizeof(*r));
	r->key = key;
	r->spec = (int)key.spec;
	r->gen = info->gen;
	r->buckets = buckets;
	if (buckets) {
		memset(buckets, 0, 2 * PT_NBUCKETS * sizeof(*buckets));
		r->row.b = buckets;
		r->row.b_total = buckets + PT_NBUCKETS;
	}
	row_keys(agg, r, info);
}

/* Reading maps -------------------------------------------------------- */

typedef void (*entry_fn)(struct agg *agg, const void *key, const void *vals);

/* A hash map agg walks: key and value sizes, what takes each entry,
 * and whether the key is a prefix of struct pt_key (the shorter keys of
 * specs with fewer strings), which fn gets widened with zeros. */
struct map_read {
	bool use;
	int fd;
	size_t ksz, vsz;
	entry_fn fn;
	bool prefix;
};

/* Walk a whole hash map with batch lookups; 0 or a negative errno. */
static int read_batches(struct agg *agg, const struct map_read *m)
{
	uint32_t in = 0, out = 0;
	bool first = true;

	for (;;) {
		uint32_t count = BATCH;
		int err = bpf_map_lookup_batch(m->fd, first ? NULL : &in, &out,
					       agg->keys, agg->vals, &count,
					       NULL);

		if (err && errno != ENOENT)
			return -errno;
		for (uint32_t i = 0; i < count; i++) {
			const void *key =
				(const uint8_t *)agg->keys + i * m->ksz;
			struct pt_key wide = { 0 };

			if (m->prefix) {
				memcpy(&wide, key, m->ksz);
				key = &wide;
			}
			m->fn(agg, key,
			      (const uint8_t *)agg->vals +
				      i * round8(m->vsz) * (size_t)agg->ncpu);
		}
		if (err)
			return 0;
		in = out;
		first = false;
	}
}

static struct arow *row_for(struct agg *agg, const struct pt_key *k, bool hist)
{
	const struct tracer_spec_info *info =
		tracer_spec_info(agg->tr, (int)k->spec);
	struct arow *r;

	if (!info)
		return NULL; /* removed a moment ago */
	r = find_row(agg, k);
	if (r && r->gen != info->gen) {
		reset_row(agg, r, info, hist);
		agg->changed = true;
	}
	if (r && hist && !r->buckets)
		return NULL; /* out of memory */
	return r ? r : add_row(agg, k, info, hist);
}

/* Add what one source of count row r gained since the last read. */
static void count_gain(struct agg *agg, struct arow *r, uint64_t count,
		       int64_t sum)
{
	unsigned int stamp = agg->interval + 1; /* this read */

	if (r->stamp != stamp) {
		r->stamp = stamp;
		r->row.count = 0;
		r->row.sum = 0;
	}
	r->row.count += count;
	r->row.sum += sum;
	r->row.total += count;
	r->row.sum_total += sum;
	agg->changed |= count != 0;
}

static void count_entry(struct agg *agg, const void *key, const void *vals)
{
	struct arow *r = row_for(agg, key, false);
	uint64_t count = 0;
	int64_t sum = 0;

	if (!r)
		return;
	for (int c = 0; c < agg->ncpu; c++) {
		const struct pt_count *v =
			(const void *)((const uint8_t *)vals +
				       c * round8(sizeof(*v)));

		count += v->count;
		sum += v->sum;
	}
	count_gain(agg, r, count - r->map_total, sum - r->map_sum);
	r->map_total = count;
	r->map_sum = sum;
}

static void hist_entry(struct agg *agg, const void *key, const void *vals)
{
	struct arow *r = row_for(agg, key, true);
	uint64_t count = 0, b[PT_NBUCKETS] = { 0 };
	int64_t sum = 0, min = INT64_MAX, max = INT64_MIN;

	if (!r)
		return;
	for (int c = 0; c < agg->ncpu; c++) {
		const struct pt_hist *v =
			(const void *)((const uint8_t *)vals +
				       c * round8(sizeof(*v)));

		if (!v->count)
			continue;
		count += v->count;
		sum += v->sum;
		min = v->min < min ? v->min : min;
		max = v->max > max ? v->max : max;
		for (int i = 0; i < PT_NBUCKETS; i++)
			b[i] += v->b[i];
	}
	r->row.count = count - r->row.total;
	r->row.sum = sum - r->row.sum_total;
	r->row.total = count;
	r->row.sum_total = sum;
	agg->changed |= r->row.count != 0;
	r->row.min = count ? min : 0;
	r->row.max = count ? max : 0;
	for (int i = 0; i < PT_NBUCKETS; i++) {
		r->buckets[i] = b[i] - r->buckets[PT_NBUCKETS + i];
		r->buckets[PT_NBUCKETS + i] = b[i];
	}
}

static struct agg_io_row *io_row(struct agg *agg, const struct pt_io_key *k)
{
	for (size_t i = 0; i < agg->nio; i++)
		if (agg->io[i].pid == k->pid && agg->io[i].cls == (int)k->cls)
			return &agg->io[i];
	if (agg->nio == agg->capio) {
		size_t cap = agg->capio ? agg->capio * 2 : 32;
		struct agg_io_row *io = realloc(agg->io, cap * sizeof(*io));

		if (!io)
			return NULL;
		agg->io = io;
		agg->capio = cap;
	}
	memset(&agg->io[agg->nio], 0, sizeof(agg->io[0]));
	agg->io[agg->nio].pid = k->pid;
	agg->io[agg->nio].cls = (int)k->cls;
	return &agg->io[agg->nio++];
}

/*
 * For values made only of 64-bit counters (struct pt_io_val,
 * struct pt_proc_val) of size bytes: sum the per-CPU copies in vals,
 * set *now to the sum minus *total and *total to the sum.
 */
_Static_assert(sizeof(struct pt_io_val) % sizeof(uint64_t) == 0 &&
		       sizeof(struct pt_proc_val) % sizeof(uint64_t) == 0,
	       "IO and process values are 64-bit counters");

static void counters_delta(const struct agg *agg, const void *vals, size_t size,
			   void *now, void *total)
{
	size_t nw = size / sizeof(uint64_t);
	uint64_t *n = now, *t = total;

	for (size_t w = 0; w < nw; w++) {
		uint64_t sum = 0;

		for (int c = 0; c < agg->ncpu; c++)
			sum += ((const uint64_t *)((const uint8_t *)vals +
						   c * round8(size)))[w];
		n[w] = sum - t[w];
		t[w] = sum;
	}
}

static void io_entry(struct agg *agg, const void *key, const void *vals)
{
	struct agg_io_row *r = io_row(agg, key);

	if (r)
		counters_delta(agg, vals, sizeof(r->now), &r->now, &r->total);
}

static struct agg_proc_row *proc_row(struct agg *agg,
				     const struct pt_proc_key *k)
{
	struct agg_proc_row *r;

	for (size_t i = 0; i < agg->nproc; i++) {
		r = &agg->proc[i];
		if (r->pid == k->pid && r->event == (int)k->event &&
		    r->code == k->code &&
		    !strncmp(r->name, k->name, sizeof(r->name)))
			return r;
	}
	if (agg->nproc == agg->capproc) {
		size_t cap = agg->capproc ? agg->capproc * 2 : 32;

		r = realloc(agg->proc, cap * sizeof(*r));
		if (!r)
			return NULL;
		agg->proc = r;
		agg->capproc = cap;
	}
	r = &agg->proc[agg->nproc++];
	memset(r, 0, sizeof(*r));
	r->pid = k->pid;
	r->event = (int)k->event;
	r->code = k->code;
	memcpy(r->name, k->name, sizeof(r->name));
	r->name[sizeof(r->name) - 1] = '\0';
	return r;
}

static void proc_entry(struct agg *agg, const void *key, const void *vals)
{
	struct agg_proc_row *r = proc_row(agg, key);

	if (r)
		counters_delta(agg, vals, sizeof(r->now), &r->now, &r->total);
}

/* Snapshot ------------------------------------------------------------ */

static int cmp_proc(const void *a, const void *b)
{
	const struct agg_proc_row *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->total.count != y->total.count)
		return x->total.count > y->total.count ? -1 : 1;
	if (x->code != y->code)
		return x->code < y->code ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_io(const void *a, const void *b)
{
	const struct agg_io_row *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->cls > y->cls) - (x->cls < y->cls);
}

static int cmp_rows(const void *a, const void *b)
{
	const struct agg_row *x = *(const struct agg_row *const *)a;
	const struct agg_row *y = *(const struct agg_row *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	for (int i = 0; i < x->nkeys; i++) {
		int c = x->key[i].is_str
				? strcmp(x->key[i].str, y->key[i].str)
				: (x->key[i].num > y->key[i].num) -
					  (x->key[i].num < y->key[i].num);

		if (c)
			return c;
	}
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/*
 * Whether last interval's grouping and order still hold: no row changed in
 * this interval or the one before (rows are sorted by interval count, so
 * an interval after a busy one reorders), no row came or went, and the
 * same specs are live. Then the sort, the costliest step with many idle
 * keys, is skipped.
 */
static bool order_holds(struct agg *agg, size_t nlive)
{
	if (agg->changed || agg->prev_changed || nlive != agg->nrows ||
	    agg->snap.nspecs != agg->nlayout)
		return false;
	for (size_t s = 0; s < agg->snap.nspecs; s++)
		if (agg->layout[s].id != agg->specs[s].id ||
		    agg->layout[s].gen != agg->specs[s].info->gen)
			return false;
	return true;
}

static void reuse_order(struct agg *agg)
{
	for (size_t s = 0; s < agg->snap.nspecs; s++) {
		struct agg_spec *as = &agg->specs[s];

		as->rows = agg->order + agg->layout[s].off;
		as->nrows = agg->layout[s].n;
		for (size_t i = 0; i < as->nrows; i++)
			as->events_total += as->rows[i]->total;
	}
}

/* Drop stale rows, then group the live ones by spec into agg->order. */
static int collect_rows(struct agg *agg)
{
	size_t n = 0, at = 0;
	const struct agg_row **order;
	bool holds;

	for (size_t i = 0; i < agg->nrows; i++) {
		struct arow *r = agg->rows[i];
		const struct tracer_spec_info *info =
			tracer_spec_info(agg->tr, r->spec);

		if (!info || info->gen != r->gen) {
			free_row(r);
			continue;
		}
		agg->rows[n++] = r;
	}
	holds = order_holds(agg, n);
	agg->prev_changed = agg->changed;
	agg->changed = false;
	if (holds) {
		reuse_order(agg);
		return 0;
	}
	if (n != agg->nrows) {
		agg->nrows = n;
		if (rehash(agg, agg->nslots ? agg->nslots : 1024))
			return -ENOMEM;
	}
	order = realloc(agg->order, (n ? n : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	agg->order = order;
	for (size_t s = 0; s < agg->snap.nspecs; s++) {
		struct agg_spec *as = &agg->specs[s];

		as->rows = order + at;
		for (size_t i = 0; i < agg->nrows; i++) {
			struct arow *r = agg->rows[i];

			if (r->spec != as->id)
				continue;
			order[at++] = &r->row;
			as->events += r->row.count;
			as->events_total += r->row.total;
		}
		as->nrows = (size_t)(order + at - as->rows);
		qsort((void *)as->rows, as->nrows, sizeof(*as->rows), cmp_rows);
		agg->layout[s] = (struct layout){
			.id = as->id,
			.gen = as->info->gen,
			.off = (size_t)(as->rows - order),
			.n = as->nrows,
		};
	}
	agg->nlayout = agg->snap.nspecs;
	return 0;
}

/* Whether spec's rows are histograms (else counts and sums). */
static bool is_hist(const struct spec *sp)
{
	return sp->agg != SPEC_AGG_COUNT && sp->agg != SPEC_AGG_SUM;
}

/*
 * The rows of the solo specs (no keys, one process): slot id of the solo
 * maps is the row (id, solo_pid), once it has counted something (both
 * value types start with the event count). 0 or a negative errno.
 */
_Static_assert(offsetof(struct pt_count, count) == 0 &&
		       offsetof(struct pt_hist, count) == 0,
	       "solo values start with the count");

static int read_solo(struct agg *agg, const struct tracer_maps *maps)
{
	for (int id = 0; id < tracer_nspecs(agg->tr); id++) {
		const struct tracer_spec_info *info =
			tracer_spec_info(agg->tr, id);
		struct pt_key k = { .spec = (uint32_t)id };
		uint64_t count = 0;
		bool hist;
		size_t vsz;

		if (!info || !info->solo_pid)
			continue;
		hist = is_hist(info->spec);
		vsz = round8(hist ? sizeof(struct pt_hist)
				  : sizeof(struct pt_count));
		if (bpf_map_lookup_elem(hist ? maps->solo_hists
					     : maps->solo_counts,
					&k.spec, agg->vals))
			return -errno;
		for (int c = 0; c < agg->ncpu; c++)
			count +=
				*(const uint64_t *)((const uint8_t *)agg->vals +
						    c * vsz);
		if (!count)
			continue;
		k.pid = (uint32_t)info->solo_pid;
		if (hist)
			hist_entry(agg, &k, agg->vals);
		else
			count_entry(agg, &k, agg->vals);
	}
	return 0;
}

/*
 * The address slots of spec id (with an aslot_pid): each taken slot of each CPU
 * counted one string, read when it was taken; what it gained since last
 * time goes to the row of that string (every read, so that an idle row
 * shows 0). 0 or a negative errno.
 */
static int read_spec_aslots(struct agg *agg, int fd, int id,
			    const struct tracer_spec_info *info)
{
	struct pt_count *prev = agg->aprev + (size_t)id * PT_ASLOTS * agg->ncpu;
	size_t vsz = round8(sizeof(struct pt_aslot));

	if (agg->aprev_gen[id] != info->gen) {
		memset(prev, 0, PT_ASLOTS * agg->ncpu * sizeof(*prev));
		agg->aprev_gen[id] = info->gen;
	}
	for (uint32_t k = 0; k < PT_ASLOTS; k++) {
		uint32_t slot = (uint32_t)id * PT_ASLOTS + k;

		if (bpf_map_lookup_elem(fd, &slot, agg->vals))
			return -errno;
		for (int c = 0; c < agg->ncpu; c++) {
			const struct pt_aslot *a =
				(const void *)((const uint8_t *)agg->vals +
					       c * vsz);
			struct pt_count *p = &prev[k * agg->ncpu + c];
			struct pt_key key = { .spec = (uint32_t)id,
					      .pid = (uint32_t)info->aslot_pid };
			struct arow *r;

			if (!a->addr)
				continue;
			memcpy(key.str[info->key_slot[0]], a->str,
			       strnlen(a->str, PT_STR_LEN - 1));
			r = row_for(agg, &key, false);
			if (!r)
				continue;
			count_gain(agg, r, a->c.count - p->count,
				   a->c.sum - p->sum);
			*p = a->c;
		}
	}
	return 0;
}

static int read_aslots(struct agg *agg, const struct tracer_maps *maps)
{
	int err = 0;

	for (int id = 0; id < tracer_nspecs(agg->tr) && !err; id++) {
		const struct tracer_spec_info *info =
			tracer_spec_info(agg->tr, id);

		if (info && info->aslot_pid)
			err = read_spec_aslots(agg, maps->aslots, id, info);
	}
	return err;
}

/* as's drops by reason and in all, from the totals now (summed over
 * CPUs) and at the last read (was). */
static void set_drops(struct agg_spec *as, const struct pt_stat *now,
		      const struct pt_stat *was)
{
	const uint64_t n[AGG_NDROPS] = { now->drop_full, now->drop_str,
					 now->drop_deep };
	const uint64_t w[AGG_NDROPS] = { was->drop_full, was->drop_str,
					 was->drop_deep };

	as->drops = as->drops_total = 0;
	for (int r = 0; r < AGG_NDROPS; r++) {
		as->why_total[r] = n[r];
		as->why[r] = n[r] - w[r];
		as->drops_total += n[r];
		as->drops += as->why[r];
	}
}

/* Per-spec drop counters, summed over CPUs, diffed against last time. */
static void read_stats(struct agg *agg, int fd, struct agg_spec *as)
{
	struct pt_stat v[agg->ncpu], t = { 0 };
	struct pt_stat *prev = &agg->prev_stat[as->id];
	uint32_t key = (uint32_t)as->id;

	if (agg->stat_gen[as->id] != as->info->gen) {
		memset(prev, 0, sizeof(*prev));
		agg->stat_gen[as->id] = as->info->gen;
	}
	if (bpf_map_lookup_elem(fd, &key, v))
		return;
	for (int c = 0; c < agg->ncpu; c++) {
		t.drop_full += v[c].drop_full;
		t.drop_str += v[c].drop_str;
		t.drop_deep += v[c].drop_deep;
		t.unmatched += v[c].unmatched;
	}
	set_drops(as, &t, prev);
	as->unmatched = t.unmatched - prev->unmatched;
	as->unmatched_total = t.unmatched;
	as->events += as->drops;
	as->events_total += as->drops_total;
	*prev = t;
}

/* The kernel's lost IO and process records (kdrops), summed over CPUs,
 * into snap with their maps' capacities and added to its drops. */
static void read_kdrops(struct agg *agg, int fd, struct agg_snapshot *snap)
{
	static const enum mapsize_map full[PT_KDROP_N] = {
		[PT_KDROP_INFLIGHT] = MAPSIZE_INFLIGHT,
		[PT_KDROP_IO] = MAPSIZE_IO,
		[PT_KDROP_PROC] = MAPSIZE_PROC,
	};
	const struct mapsize *sizes = tracer_mapsize(agg->tr);

	for (uint32_t k = 0; k < PT_KDROP_N; k++) {
		uint64_t v[agg->ncpu], t = 0;

		snap->kcapacity[k] = sizes->entries[full[k]];
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (int c = 0; c < agg->ncpu; c++)
			t += v[c];
		snap->kdrops_total[k] = t;
		snap->kdrops[k] = t - agg->prev_kdrops[k];
		agg->prev_kdrops[k] = t;
		snap->drops += snap->kdrops[k];
		snap->drops_total += t;
	}
}

/* The keys the map of info's rows holds; 0 for a solo spec's slot. */
static uint32_t capacity(const struct agg *agg,
			 const struct tracer_spec_info *info)
{
	int m = (is_hist(info->spec) ? MAPSIZE_HISTS : MAPSIZE_COUNTS) +
		(int)info->width;

	return info->solo_pid ? 0 : tracer_mapsize(agg->tr)->entries[m];
}

/*
 * Which key maps can hold rows, use[width][hist]: those of a live spec's
 * width and kind (a removed spec's keys go with it), so that a walk of
 * the buckets of an empty map is not paid each interval.
 */
static void maps_in_use(const struct agg *agg, bool use[3][2])
{
	memset(use, 0, 3 * sizeof(use[0]));
	for (int id = 0; id < tracer_nspecs(agg->tr); id++) {
		const struct tracer_spec_info *info =
			tracer_spec_info(agg->tr, id);

		if (info && !info->solo_pid)
			use[info->width][is_hist(info->spec)] = true;
	}
}

const struct agg_snapshot *agg_read(struct agg *agg)
{
	struct agg_snapshot *snap = &agg->snap;
	struct tracer_maps maps;
	struct timespec now;
	bool use[3][2];
	int err;

	tracer_maps(agg->tr, &maps);
	maps_in_use(agg, use);
	const struct map_read READS[] = {
		{ use[PT_KEY_STR2][0], maps.counts, sizeof(struct pt_key),
		  sizeof(struct pt_count), count_entry, false },
		{ use[PT_KEY_STR2][1], maps.hists, sizeof(struct pt_key),
		  sizeof(struct pt_hist), hist_entry, false },
		{ use[PT_KEY_STR1][0], maps.scounts, sizeof(struct pt_skey),
		  sizeof(struct pt_count), count_entry, true },
		{ use[PT_KEY_STR1][1], maps.shists, sizeof(struct pt_skey),
		  sizeof(struct pt_hist), hist_entry, true },
		{ use[PT_KEY_NUMS][0], maps.ncounts, sizeof(struct pt_nkey),
		  sizeof(struct pt_count), count_entry, true },
		{ use[PT_KEY_NUMS][1], maps.nhists, sizeof(struct pt_nkey),
		  sizeof(struct pt_hist), hist_entry, true },
		{ true, maps.io, sizeof(struct pt_io_key),
		  sizeof(struct pt_io_val), io_entry, false },
		{ true, maps.proc, sizeof(struct pt_proc_key),
		  sizeof(struct pt_proc_val), proc_entry, false },
	};

	err = 0;
	for (size_t i = 0; i < sizeof(READS) / sizeof(READS[0]) && !err; i++)
		if (READS[i].use)
			err = read_batches(agg, &READS[i]);
	if (!err)
		err = read_solo(agg, &maps);
	if (!err)
		err = read_aslots(agg, &maps);
	if (err) {
		log_msg(LOG_ERROR, "cannot read the BPF maps: %s",
			strerror(-err));
		errno = -err;
		return NULL;
	}
	snap->nspecs = 0;
	for (int id = 0; id < tracer_nspecs(agg->tr); id++) {
		const struct tracer_spec_info *info =
			tracer_spec_info(agg->tr, id);

		if (!info)
			continue;
		agg->specs[snap->nspecs++] = (struct agg_spec){
			.id = id,
			.spec = info->spec,
			.info = info,
			.capacity = capacity(agg, info),
		};
	}
	if (collect_rows(agg)) {
		errno = ENOMEM;
		return NULL;
	}
	snap->events = snap->events_total = snap->drops = snap->drops_total = 0;
	for (size_t s = 0; s < snap->nspecs; s++) {
		struct agg_spec *as = &agg->specs[s];

		read_stats(agg, maps.stats, as);
		snap->events += as->events;
		snap->events_total += as->events_total;
		snap->drops += as->drops;
		snap->drops_total += as->drops_total;
	}
	read_kdrops(agg, maps.kdrops, snap);
	qsort(agg->io, agg->nio, sizeof(*agg->io), cmp_io);
	snap->specs = agg->specs;
	snap->io = agg->io;
	snap->nio = agg->nio;
	qsort(agg->proc, agg->nproc, sizeof(*agg->proc), cmp_proc);
	snap->proc = agg->proc;
	snap->nproc = agg->nproc;
	snap->interval = ++agg->interval;
	clock_gettime(CLOCK_MONOTONIC, &now);
	snap->elapsed_s = (double)(now.tv_sec - agg->start.tv_sec) +
			  (double)(now.tv_nsec - agg->start.tv_nsec) / 1e9;
	return snap;
}
