// SPDX-License-Identifier: GPL-2.0
/*
 * probetop.bpf.c — the kernel side.
 *
 * Today: one generic uprobe program that counts hits per attachment. Each
 * attachment (one USDT location) carries a BPF cookie that indexes the
 * `hits` array. The tracing engine (SPEC compilation, argument fetch,
 * aggregation) builds on this program.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "probetop.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PROBETOP_MAX_ATTACH);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

SEC("uprobe")
int probetop_hit(struct pt_regs *ctx)
{
	__u32 slot = (__u32)bpf_get_attach_cookie(ctx);
	__u64 *count = bpf_map_lookup_elem(&hits, &slot);

	if (count)
		__sync_fetch_and_add(count, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
