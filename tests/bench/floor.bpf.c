// SPDX-License-Identifier: MIT
/* The floor of the per-event benchmark: a uprobe program that does
 * nothing, attached where probetop attaches its own; and one that does
 * only what every latency aggregation must do at each event (read its
 * cookie and the clock), the least a latency pair can cost. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* Written so that the reads in floor_clock are not optimised away. */
__u64 floor_sink;

SEC("uprobe")
int floor_empty(void *ctx)
{
	return 0;
}

SEC("uprobe")
int floor_clock(void *ctx)
{
	floor_sink += bpf_get_attach_cookie(ctx) + bpf_ktime_get_ns();
	return 0;
}
