// SPDX-License-Identifier: MIT
/* The floor of the per-event benchmark: a uprobe program that does
 * nothing, attached where probetop attaches its own. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("uprobe")
int floor_empty(void *ctx)
{
	return 0;
}
