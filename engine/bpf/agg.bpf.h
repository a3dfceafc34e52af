// SPDX-License-Identifier: MIT
/*
 * agg.bpf.h — recording an event: a count and sum (struct pt_count) or a
 * histogram (struct pt_hist) under a key, in the hash map of the key's
 * width (counts/hists, scounts/shists, ncounts/nhists; a new key is
 * created from zero and names its process, a full map is a drop), and the
 * solo sites' per-CPU array slots (solo_counts, solo_hists), which need no
 * key at all.
 *
 * Part of probetop.bpf.c, included after maps, bucket, fetch and pidname.
 */

/* lookup_or_init() for the key maps; a new key names its process. */
static __always_inline void *key_value(void *map, const struct pt_key *key,
				       const void *zero)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	pid_name_note(key->pid);
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

static __always_inline void hist_put(struct pt_hist *h, __s64 v, __u32 bucket)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (!h->count || v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	h->b[bucket_index(bucket)]++;
}

static __always_inline void hist_add(void *map, const struct pt_key *key,
				     __s64 v, __u32 bucket)
{
	struct pt_hist *h = key_value(map, key, &zero_hist);

	if (!h) {
		stat_inc(key->spec, STAT_FULL);
		return;
	}
	hist_put(h, v, bucket);
}

/* A solo site's histogram: its spec's slot (spec < PT_MAX_SPECS). */
static __always_inline void solo_hist_add(__u32 spec, __s64 v, __u32 bucket)
{
	struct pt_hist *h = bpf_map_lookup_elem(&solo_hists, &spec);

	if (h)
		hist_put(h, v, bucket);
}

static __always_inline void count_put(struct pt_count *c, __s64 v)
{
	c->count++;
	c->sum += v;
}

static __always_inline void count_add(void *map, const struct pt_key *key,
				      __s64 v)
{
	struct pt_count *c = key_value(map, key, &zero_count);

	if (!c) {
		stat_inc(key->spec, STAT_FULL);
		return;
	}
	count_put(c, v);
}

/* Zero the part of key that a spec of this width uses. */
static __always_inline void key_zero(struct pt_key *key, __u64 width)
{
	if (width == PT_KEY_NUMS)
		__builtin_memset(key, 0, sizeof(struct pt_nkey));
	else if (width == PT_KEY_STR1)
		__builtin_memset(key, 0, sizeof(struct pt_skey));
	else
		__builtin_memset(key, 0, sizeof(*key));
}

/* Count into the map of the key's width. */
static __always_inline void key_count(const struct pt_key *key, __u64 width,
				      __s64 v)
{
	if (width == PT_KEY_NUMS)
		count_add(&ncounts, key, v);
	else if (width == PT_KEY_STR1)
		count_add(&scounts, key, v);
	else
		count_add(&counts, key, v);
}

/* Add to the histogram in the map of the key's width. */
static __always_inline void key_hist(const struct pt_key *key, __u64 width,
				     __s64 v, __u32 bucket)
{
	if (width == PT_KEY_NUMS)
		hist_add(&nhists, key, v, bucket);
	else if (width == PT_KEY_STR1)
		hist_add(&shists, key, v, bucket);
	else
		hist_add(&hists, key, v, bucket);
}

/* A solo site's event: no key to build, one array slot to update. */
static __always_inline void solo_handle(const struct pt_regs *ctx,
					const struct pt_site *s)
{
	struct pt_count *c;
	__u32 spec = s->spec;
	__s64 v = 0;

	if (s->has_val && fetch(ctx, &s->val, &v)) {
		stat_inc(spec, STAT_STR);
		return;
	}
	if (s->action != PT_ACT_COUNT) {
		solo_hist_add(spec, v, val_bucket(v, s));
		return;
	}
	c = bpf_map_lookup_elem(&solo_counts, &spec);
	if (c)
		count_put(c, v);
}
