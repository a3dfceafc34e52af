// SPDX-License-Identifier: MIT
/*
 * aggread — reading the tracer's maps for agg; see aggread.h.
 *
 * Hash maps are walked with bpf_map_lookup_batch() in chunks of AGG_BATCH
 * keys into agg's buffers; the narrower keys of specs with fewer strings
 * are widened to struct pt_key with zeros, so that every row has one key
 * type. Only the key maps a live spec can fill are walked, sparing the
 * walk of an empty map's buckets each interval. Solo specs (no keys, one
 * process) count in a slot of their own, address slots count one string
 * each per CPU: both are looked up slot by slot.
 *
 * The key maps can hold a hundred thousand keys, whose walk takes tens of
 * milliseconds in the kernel alone; so it goes in steps of a bounded time
 * (aggread_walk()), between which the console reads its keyboard. A step
 * takes each entry (aggrows_*_take(): its row found or added, its values
 * summed) into struct agg_walk; the rows are changed only when the walk
 * is done (aggread_rows()), so that the last snapshot stays as it was
 * until the next one is made. The small maps and slots are read then.
 */
#include "aggread.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aggkern.h"
#include "aggpriv.h"
#include "aggrows.h"

/* What takes one entry of a walked map: one of aggrows_*_entry(). */
typedef void (*entry_fn)(struct agg *agg, const void *key, const void *vals);

/* A small hash map agg reads whole (IO, processes): its fd, key and
 * value sizes, and what takes each entry. */
struct map_read {
	int fd;
	size_t ksz, vsz;
	entry_fn fn;
};

/* Read a whole hash map with batch lookups; 0 or a negative errno. */
static int read_batches(struct agg *agg, const struct map_read *m)
{
	uint32_t in = 0, out = 0;
	bool first = true;

	for (;;) {
		uint32_t count = AGG_BATCH;
		int err = bpf_map_lookup_batch(m->fd, first ? NULL : &in, &out,
					       agg->keys, agg->vals, &count,
					       NULL);

		if (err && errno != ENOENT)
			return -errno;
		for (uint32_t i = 0; i < count; i++)
			m->fn(agg, (const uint8_t *)agg->keys + i * m->ksz,
			      (const uint8_t *)agg->vals +
				      i * agg_round8(m->vsz) *
					      (size_t)agg->ncpu);
		if (err)
			return 0;
		in = out;
		first = false;
	}
}

/* A key map: its fd, its key's size (a prefix of struct pt_key, widened
 * with zeros), and whether its values are struct pt_hist (else struct
 * pt_count). */
struct key_map {
	int fd;
	size_t ksz;
	bool hist;
};

/* The key maps, in the order a walk takes them (struct agg_walk.map). */
static void key_maps(const struct tracer_maps *maps,
		     struct key_map km[AGG_KEY_MAPS])
{
	const struct key_map all[AGG_KEY_MAPS] = {
		{ maps->counts, sizeof(struct pt_key), false },
		{ maps->hists, sizeof(struct pt_key), true },
		{ maps->scounts, sizeof(struct pt_skey), false },
		{ maps->shists, sizeof(struct pt_skey), true },
		{ maps->ncounts, sizeof(struct pt_nkey), false },
		{ maps->nhists, sizeof(struct pt_nkey), true },
	};

	memcpy(km, all, sizeof(all));
}

/* Room in the walk for n more entries of the kind of m; 0 or -ENOMEM. */
static int walk_reserve(struct agg_walk *w, const struct key_map *m, size_t n)
{
	size_t *len = m->hist ? &w->nhists : &w->ncounts;
	size_t *cap = m->hist ? &w->caphists : &w->capcounts;
	void **v = m->hist ? (void **)&w->hists : (void **)&w->counts;
	size_t size = m->hist ? sizeof(*w->hists) : sizeof(*w->counts);
	size_t want = *cap ? *cap : AGG_BATCH;
	void *grown;

	if (*len + n <= *cap)
		return 0;
	while (want < *len + n)
		want *= 2;
	grown = realloc(*v, want * size);
	if (!grown)
		return -ENOMEM;
	*v = grown;
	*cap = want;
	return 0;
}

/* Take the i-th entry of the batch in agg's buffers, of map m, into the
 * walk. */
static void walk_take(struct agg *agg, const struct key_map *m, uint32_t i)
{
	struct agg_walk *w = &agg->walk;
	struct pt_key key = { 0 };
	const void *vals;

	memcpy(&key, (const uint8_t *)agg->keys + i * m->ksz, m->ksz);
	vals = (const uint8_t *)agg->vals +
	       i *
		       agg_round8(m->hist ? sizeof(struct pt_hist)
					  : sizeof(struct pt_count)) *
		       (size_t)agg->ncpu;
	if (m->hist)
		w->nhists += aggrows_hist_take(agg, &key, vals,
					       &w->hists[w->nhists]);
	else
		w->ncounts += aggrows_count_take(agg, &key, vals,
						 &w->counts[w->ncounts]);
}

/* One batch of map m from where the walk is, taken into the walk: 1 if
 * the map has more, 0 at its end, or a negative errno. */
static int walk_batch(struct agg *agg, const struct key_map *m)
{
	struct agg_walk *w = &agg->walk;
	uint32_t count = AGG_BATCH, out = 0;
	int err = bpf_map_lookup_batch(m->fd, w->first ? NULL : &w->next, &out,
				       agg->keys, agg->vals, &count, NULL);

	if (err && errno != ENOENT)
		return -errno;
	if (walk_reserve(w, m, count))
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++)
		walk_take(agg, m, i);
	w->next = out;
	w->first = false;
	return err ? 0 : 1;
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
		vsz = agg_round8(hist ? sizeof(struct pt_hist)
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
		k.pid = info->spec->allpids ? 0 : (uint32_t)info->solo_pid;
		if (hist)
			aggrows_hist_entry(agg, &k, agg->vals);
		else
			aggrows_count_entry(agg, &k, agg->vals);
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
	size_t vsz = agg_round8(sizeof(struct pt_aslot));

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
			struct pt_key key = {
				.spec = (uint32_t)id,
				.pid = info->spec->allpids
					       ? 0
					       : (uint32_t)info->aslot_pid
			}; /* as fill_key() keys the misses */
			struct arow *r;

			if (!a->addr)
				continue;
			memcpy(key.str[info->key_slot[0]], a->str,
			       strnlen(a->str, PT_STR_LEN - 1));
			key.str[info->key_slot[0]][PT_STR_LEN - 1] =
				a->str[PT_STR_LEN - 1];
			r = aggrows_get(agg, &key, false);
			if (!r)
				continue;
			aggrows_gain(agg, r, a->c.count - p->count,
				     a->c.sum - p->sum);
			*p = a->c;
		}
	}
	return 0;
}

/* The address slots of every spec that has them (read_spec_aslots()). */
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
					 now->drop_deep, now->drop_py };
	const uint64_t w[AGG_NDROPS] = { was->drop_full, was->drop_str,
					 was->drop_deep, was->drop_py };

	as->drops = as->drops_total = 0;
	for (int r = 0; r < AGG_NDROPS; r++) {
		as->why_total[r] = n[r];
		as->why[r] = n[r] - w[r];
		as->drops_total += n[r];
		as->drops += as->why[r];
	}
}

/* part of all, 0..1 (0 of none). */
static double share(uint64_t part, uint64_t all)
{
	return all && part <= all ? (double)part / (double)all : 0;
}

void aggread_stats(struct agg *agg, struct agg_spec *as)
{
	struct pt_stat *prev = &agg->prev_stat[as->id], t;

	if (agg->stat_gen[as->id] != as->info->gen) {
		memset(prev, 0, sizeof(*prev));
		agg->stat_gen[as->id] = as->info->gen;
	}
	if (tracer_stat(agg->tr, as->id, &t))
		return;
	set_drops(as, &t, prev);
	as->unmatched = t.unmatched - prev->unmatched;
	as->unmatched_total = t.unmatched;
	as->cut = t.cut - prev->cut;
	as->cut_total = t.cut;
	as->shared = share(t.shared - prev->shared,
			   t.hits - prev->hits + t.parked - prev->parked);
	as->shared_total = share(t.shared, t.hits + t.parked);
	as->events += as->drops;
	as->events_total += as->drops_total;
	*prev = t;
}

void aggread_kdrops(struct agg *agg, int fd, struct agg_snapshot *snap)
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

uint32_t aggread_capacity(const struct agg *agg,
			  const struct tracer_spec_info *info)
{
	int m = (is_hist(info->spec) ? MAPSIZE_HISTS : MAPSIZE_COUNTS) +
		(int)info->width;

	return info->solo_pid ? 0 : tracer_mapsize(agg->tr)->entries[m];
}

/*
 * Which key maps can hold rows, use[map] in key_maps()'s order: those of
 * a live spec's width and kind (a removed spec's keys go with it), so
 * that a walk of the buckets of an empty map is not paid each interval.
 */
static void maps_in_use(const struct agg *agg, bool use[AGG_KEY_MAPS])
{
	static const int MAP[3][2] = { [PT_KEY_STR2] = { 0, 1 },
				       [PT_KEY_STR1] = { 2, 3 },
				       [PT_KEY_NUMS] = { 4, 5 } };

	memset(use, 0, AGG_KEY_MAPS * sizeof(use[0]));
	for (int id = 0; id < tracer_nspecs(agg->tr); id++) {
		const struct tracer_spec_info *info =
			tracer_spec_info(agg->tr, id);

		if (info && !info->solo_pid)
			use[MAP[info->width][is_hist(info->spec)]] = true;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Past the key maps the walk does not use, from w->map on. */
static void walk_skip(struct agg_walk *w)
{
	while (w->map < AGG_KEY_MAPS && !w->use[w->map])
		w->map++;
}

int aggread_walk(struct agg *agg, const struct tracer_maps *maps, double until)
{
	struct agg_walk *w = &agg->walk;
	struct key_map km[AGG_KEY_MAPS];

	if (!w->on) {
		maps_in_use(agg, w->use);
		w->on = true;
		w->map = 0;
		w->first = true;
		w->ncounts = w->nhists = 0;
	}
	key_maps(maps, km);
	for (walk_skip(w); w->map < AGG_KEY_MAPS; walk_skip(w)) {
		int more = walk_batch(agg, &km[w->map]);

		if (more < 0) {
			w->on = false;
			return more;
		}
		if (!more) {
			w->map++;
			w->first = true;
		}
		if (now_s() >= until) {
			walk_skip(w);
			return w->map < AGG_KEY_MAPS;
		}
	}
	return 0;
}

int aggread_rows(struct agg *agg, const struct tracer_maps *maps)
{
	struct agg_walk *w = &agg->walk;
	const struct map_read READS[] = {
		{ maps->io, sizeof(struct pt_io_key), sizeof(struct pt_io_val),
		  aggkern_io_entry },
		{ maps->proc, sizeof(struct pt_proc_key),
		  sizeof(struct pt_proc_val), aggkern_proc_entry },
	};
	int err = 0;

	for (size_t i = 0; i < w->ncounts; i++) {
		if (i + AGG_AHEAD < w->ncounts)
			aggrows_prefetch(w->counts[i + AGG_AHEAD].r);
		aggrows_count_put(agg, &w->counts[i]);
	}
	for (size_t i = 0; i < w->nhists; i++)
		aggrows_hist_put(agg, &w->hists[i]);
	w->on = false;
	for (size_t i = 0; i < sizeof(READS) / sizeof(READS[0]) && !err; i++)
		err = read_batches(agg, &READS[i]);
	if (!err)
		err = read_solo(agg, maps);
	if (!err)
		err = read_aslots(agg, maps);
	return err;
}
