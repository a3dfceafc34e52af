// SPDX-License-Identifier: MIT
/*
 * bucket.bpf.h — histogram buckets: the log2 bucket of quantize and of
 * every latency, the linear one of lquantize, and bucket_index(), which
 * lets the verifier see a bucket number is inside struct pt_hist's array.
 * Bucket 0 is below the range, 1 is zero (log2) or the first step.
 *
 * Part of probetop.bpf.c, included after maps.bpf.h.
 */

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

static __always_inline __u32 log2_bucket(__s64 v, __u8 is_signed)
{
	if (is_signed && v < 0)
		return 0;
	if (v == 0)
		return 1;
	return 2 + log2_u64((__u64)v);
}

static __always_inline __u32 lin_bucket(__s64 v, const struct pt_site *s)
{
	__s64 step = s->lq_step > 0 ? s->lq_step : 1;

	if (v < s->lq_low)
		return 0;
	if ((__u64)(v - s->lq_low) / (__u64)step >= s->lq_nsteps)
		return 1 + s->lq_nsteps;
	return 1 + (__u64)(v - s->lq_low) / (__u64)step;
}

/* The bucket of v for a quantize or lquantize site. */
static __always_inline __u32 val_bucket(__s64 v, const struct pt_site *s)
{
	return s->action == PT_ACT_QUANTIZE ? log2_bucket(v, s->val.is_signed)
					    : lin_bucket(v, s);
}

/* A bucket number the verifier can see is in range. */
static __always_inline __u64 bucket_index(__u32 bucket)
{
	__u64 b = bucket;

	asm volatile("" : "+r"(b));
	if (b >= PT_NBUCKETS)
		b = PT_NBUCKETS - 1;
	return b;
}
