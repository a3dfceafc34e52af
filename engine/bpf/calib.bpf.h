// SPDX-License-Identifier: MIT
/*
 * calib.bpf.h — pt_calib, an empty uprobe program: engine/collect/cost.c attaches
 * it to a function of probetop itself and times calls of it, which gives
 * the cost of one uprobe hit (the trap and a program's dispatch) on this
 * machine. It never runs in a target.
 *
 * Part of probetop.bpf.c.
 */
SEC("uprobe")
int pt_calib(struct pt_regs *ctx)
{
	return 0;
}
