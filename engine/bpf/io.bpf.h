// SPDX-License-Identifier: MIT
/*
 * io.bpf.h — the kernel IO of the processes watched for it
 * (PT_WATCH_IO, and their descendants): BTF tracepoints time each IO
 * syscall (sys_enter/sys_exit, classed by io_nr) and block request
 * (block_rq_issue/block_rq_complete) in io_start, and count calls,
 * errors, bytes and a log2 latency histogram per (process, class) in io.
 *
 * Part of probetop.bpf.c, included after maps.bpf.h and bucket.bpf.h.
 */

/* Time an IO call or request from now, under k in io_start. */
static __always_inline void io_begin(__u64 k, __u32 cls, __u32 pid)
{
	struct pt_io_start st = {
		.ts = bpf_ktime_get_ns(),
		.cls = cls,
		.pid = pid,
	};

	if (bpf_map_update_elem(&io_start, &k, &st, BPF_ANY))
		kdrop(PT_KDROP_INFLIGHT);
}

static __always_inline void io_add(__u32 pid, __u32 cls, __s64 ret, __u64 ns)
{
	struct pt_io_key k = { .pid = pid, .cls = cls };
	struct pt_io_val *v = lookup_or_init(&io, &k, &zero_io);

	if (!v) {
		kdrop(PT_KDROP_IO);
		return;
	}
	v->calls++;
	if (ret < 0)
		v->errors++;
	else if (cls <= PT_IO_SEND || cls >= PT_IO_BLOCK_READ)
		v->bytes += ret;
	v->ns += ns;
	v->b[bucket_index(log2_bucket((__s64)ns, 1))]++;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(pt_sys_enter, struct pt_regs *regs, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 pid = watch_owner(pid_tgid >> 32, PT_WATCH_IO), nr = (__u32)id;
	__u32 *cls;

	syscalls_seen[bpf_get_smp_processor_id() & (PT_ONCPU_CPUS - 1)]++;
	if (!pid)
		return 0;
	cls = bpf_map_lookup_elem(&io_nr, &nr);
	if (cls && *cls)
		io_begin(pid_tgid, *cls - 1, pid);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(pt_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct pt_io_start *st = bpf_map_lookup_elem(&io_start, &pid_tgid);

	if (!st)
		return 0;
	io_add(st->pid, st->cls, ret, bpf_ktime_get_ns() - st->ts);
	bpf_map_delete_elem(&io_start, &pid_tgid);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(pt_rq_issue, struct request *rq)
{
	__u32 pid = watch_owner(bpf_get_current_pid_tgid() >> 32, PT_WATCH_IO);

	if (pid)
		io_begin((__u64)rq,
			 (rq->cmd_flags & 0xff) == 1 ? PT_IO_BLOCK_WRITE
						     : PT_IO_BLOCK_READ,
			 pid);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(pt_rq_complete, struct request *rq, int error,
	     unsigned int nr_bytes)
{
	__u64 k = (__u64)rq;
	struct pt_io_start *st = bpf_map_lookup_elem(&io_start, &k);

	if (!st)
		return 0;
	io_add(st->pid, st->cls, error ? -1 : (__s64)nr_bytes,
	       bpf_ktime_get_ns() - st->ts);
	bpf_map_delete_elem(&io_start, &k);
	return 0;
}
