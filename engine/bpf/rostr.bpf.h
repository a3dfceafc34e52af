// SPDX-License-Identifier: MIT
/*
 * rostr.bpf.h — string keys counted by address: for a site with aslot,
 * a string whose address lies in the target's read-only ranges (ro_tables,
 * filled by user space, see engine/attach/rostr.c) cannot change, so it is read
 * once and its events are counted in an address slot of the spec
 * (aslots); ro_epoch, bumped by target.bpf.h's hooks, says when the
 * ranges may no longer hold. Anything else falls back to the string key.
 *
 * Part of probetop.bpf.c, included after agg.bpf.h.
 */

/* The generation of the valid range table if the PT_STR_LEN bytes at
 * addr lie in one of its ranges; 0 if not (or no table is valid). */
static __always_inline __u32 ro_gen(__u64 addr)
{
	const struct pt_ro *t = &ro_tables[ro_sel & 1];
	__u32 epoch = *(volatile const __u32 *)&t->epoch;
	__u32 lo = 0, hi = t->n, mid;

	if (epoch != ro_epoch || !hi || hi > PT_RO_RANGES)
		return 0;
	/* the last range starting at or below addr */
	for (int i = 0; i < 7 && hi - lo > 1; i++) {
		mid = (lo + hi) / 2;
		if (t->lo[mid & (PT_RO_RANGES - 1)] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	lo &= PT_RO_RANGES - 1;
	if (t->lo[lo] <= addr && addr + PT_STR_LEN <= t->hi[lo] &&
	    *(volatile const __u32 *)&t->epoch == epoch) /* not rewritten */
		return t->gen;
	return 0;
}

/*
 * Count an event of an aslot site in the slot of its string's address
 * (taking a free one, and reading the string, the first time); false if
 * the address is not in a read-only range or its slots are all taken by
 * other addresses: then the caller keys by the string itself.
 */
static __always_inline bool aslot_count(const struct pt_regs *ctx,
					const struct pt_site *s)
{
	__s64 addr, v = 0;
	struct pt_aslot *a;
	__u32 gen, h, idx;

	if (fetch(ctx, &s->key[0], &addr) || !addr)
		return false;
	gen = ro_gen((__u64)addr);
	if (!gen || (s->has_val && fetch(ctx, &s->val, &v)))
		return false;
	h = (__u32)(((__u64)addr * 0x9e3779b97f4a7c15ULL) >> 32);
	for (int i = 0; i < PT_ASLOT_PROBES; i++) {
		idx = s->spec * PT_ASLOTS + ((h + i) & (PT_ASLOTS - 1));
		a = bpf_map_lookup_elem(&aslots, &idx);
		if (!a)
			return false;
		if (a->addr == (__u64)addr && a->gen == gen) {
			count_put(&a->c, v);
			return true;
		}
		if (a->addr)
			continue;
		if (read_str_key(a->str, (__u64)addr) < 0)
			return false;
		a->addr = (__u64)addr;
		a->gen = gen;
		count_put(&a->c, v);
		return true;
	}
	return false;
}
