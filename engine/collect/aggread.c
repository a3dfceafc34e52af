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
 */
#include "aggread.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <string.h>

#include "aggpriv.h"
#include "aggrows.h"

/* What takes one entry of a walked map: one of aggrows_*_entry(). */
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
		uint32_t count = AGG_BATCH;
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
				      i * agg_round8(m->vsz) *
					      (size_t)agg->ncpu);
		}
		if (err)
			return 0;
		in = out;
		first = false;
	}
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
		k.pid = (uint32_t)info->solo_pid;
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
			struct pt_key key = { .spec = (uint32_t)id,
					      .pid = (uint32_t)info->aslot_pid };
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

int aggread_rows(struct agg *agg, const struct tracer_maps *maps)
{
	bool use[3][2];
	int err = 0;

	maps_in_use(agg, use);
	const struct map_read READS[] = {
		{ use[PT_KEY_STR2][0], maps->counts, sizeof(struct pt_key),
		  sizeof(struct pt_count), aggrows_count_entry, false },
		{ use[PT_KEY_STR2][1], maps->hists, sizeof(struct pt_key),
		  sizeof(struct pt_hist), aggrows_hist_entry, false },
		{ use[PT_KEY_STR1][0], maps->scounts, sizeof(struct pt_skey),
		  sizeof(struct pt_count), aggrows_count_entry, true },
		{ use[PT_KEY_STR1][1], maps->shists, sizeof(struct pt_skey),
		  sizeof(struct pt_hist), aggrows_hist_entry, true },
		{ use[PT_KEY_NUMS][0], maps->ncounts, sizeof(struct pt_nkey),
		  sizeof(struct pt_count), aggrows_count_entry, true },
		{ use[PT_KEY_NUMS][1], maps->nhists, sizeof(struct pt_nkey),
		  sizeof(struct pt_hist), aggrows_hist_entry, true },
		{ true, maps->io, sizeof(struct pt_io_key),
		  sizeof(struct pt_io_val), aggrows_io_entry, false },
		{ true, maps->proc, sizeof(struct pt_proc_key),
		  sizeof(struct pt_proc_val), aggrows_proc_entry, false },
	};

	for (size_t i = 0; i < sizeof(READS) / sizeof(READS[0]) && !err; i++)
		if (READS[i].use)
			err = read_batches(agg, &READS[i]);
	if (!err)
		err = read_solo(agg, maps);
	if (!err)
		err = read_aslots(agg, maps);
	return err;
}
