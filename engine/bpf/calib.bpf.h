// SPDX-License-Identifier: MIT
/*
 * calib.bpf.h — the cost meter's calibration programs; engine/collect/
 * cost.c attaches them to functions of probetop itself and times calls
 * of them. They never run in a target.
 *
 * pt_calib, an empty uprobe program, gives the cost of one uprobe hit
 * (the trap and a program's dispatch) on this machine. pt_calib_in and
 * pt_calib_out, at the start and end of a pair (a function's entry and
 * return, or two nops), time what a latency pair measures of a function
 * that takes no time: what its probes add to every time it measures.
 *
 * Part of probetop.bpf.c.
 */
SEC("uprobe")
int pt_calib(struct pt_regs *ctx)
{
	return 0;
}

/* the pair under calibration: its start's timestamp (0: none open), its
 * times' least, and the count and sum of those up to calib_cap (0: all;
 * calib.c sets, reads and resets them) */
__u64 calib_t0, calib_min, calib_cap, calib_n, calib_sum;

SEC("uprobe")
int pt_calib_in(struct pt_regs *ctx)
{
	calib_t0 = bpf_ktime_get_ns();
	return 0;
}

SEC("uprobe")
int pt_calib_out(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns();

	if (calib_t0) {
		__u64 ns = now - calib_t0;

		if (!calib_min || ns < calib_min)
			calib_min = ns;
		if (!calib_cap || ns <= calib_cap) {
			calib_n++;
			calib_sum += ns;
		}
		calib_t0 = 0;
	}
	return 0;
}
