// SPDX-License-Identifier: MIT
/*
 * procevents.bpf.h — the processes and threads that the processes
 * watched start, exec and end (pt_fork, pt_exec, pt_exit), counted per
 * (owner, event, code, name) in proc, with lifetimes. pt_fork and pt_exit
 * also keep watched: a new process follows its parent's owner and bits,
 * an ended descendant is taken out, for IO and process counting alike.
 *
 * Part of probetop.bpf.c, included after maps.bpf.h and bucket.bpf.h.
 */

/* Count one event of owner, named by the kernel string at name; life > 0
 * is the lifetime (ns) of what ended. */
static __always_inline void proc_add(__u32 owner, __u32 event, __s32 code,
				     const char *name, __u64 life)
{
	struct pt_proc_key k = { .pid = owner, .event = event, .code = code };
	struct pt_proc_val *v;

	if (name)
		bpf_probe_read_kernel_str(k.name, sizeof(k.name), name);
	v = lookup_or_init(&proc, &k, &zero_proc);
	if (!v) {
		kdrop(PT_KDROP_PROC);
		return;
	}
	v->count++;
	if (life) {
		v->ns += life;
		v->b[bucket_index(log2_bucket((__s64)life, 1))]++;
	}
}

/*
 * A watched process (or a descendant) starts a thread or a process: count
 * it (PT_WATCH_PROC), and follow a new process with the parent's owner and
 * bits. One that cannot be followed (watched full) is counted as lost
 * whatever is watched, so that IO not counted is never silent.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(pt_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	struct pt_watched *w = bpf_map_lookup_elem(&watched, &ptgid), kid;
	bool procs;

	if (!w)
		return 0;
	kid = *w;
	procs = kid.bits & PT_WATCH_PROC;
	if (ctgid == ptgid) {
		if (procs)
			proc_add(kid.owner, PT_PROC_THREAD, 0, parent->comm, 0);
		return 0;
	}
	if (procs)
		proc_add(kid.owner, PT_PROC_FORK, 0, parent->comm, 0);
	if (bpf_map_update_elem(&watched, &ctgid, &kid, BPF_ANY))
		proc_add(kid.owner, PT_PROC_LOST, 0, NULL, 0);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(pt_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 owner = watch_owner(BPF_CORE_READ(p, tgid), PT_WATCH_PROC);

	if (owner)
		proc_add(owner, PT_PROC_EXEC, 0, BPF_CORE_READ(bprm, filename),
			 0);
	return 0;
}

/*
 * Every task's exit. A thread other than the leader counts as
 * thread-exit; the last task of a process (signal->live reached 0) as the
 * exit of the process, with its status (or -signal) and lifetime; a
 * descendant is then no longer followed (a watched process itself stays
 * until user space lets it go).
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(pt_exit, struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	struct pt_watched *w = bpf_map_lookup_elem(&watched, &tgid);
	struct task_struct *leader;
	__u32 owner;
	bool last;
	__u64 now;
	int code;

	if (!w)
		return 0;
	owner = w->owner;
	last = !BPF_CORE_READ(p, signal, live.counter);
	if (!(w->bits & PT_WATCH_PROC))
		goto gone;
	now = bpf_ktime_get_ns();
	if (BPF_CORE_READ(p, pid) != tgid)
		proc_add(owner, PT_PROC_THREAD_EXIT, 0, p->comm,
			 now - BPF_CORE_READ(p, start_time));
	if (!last)
		return 0;
	leader = BPF_CORE_READ(p, group_leader);
	code = BPF_CORE_READ(p, exit_code);
	proc_add(owner, PT_PROC_EXIT, code & 0x7f ? -(code & 0x7f) : code >> 8,
		 leader->comm, now - BPF_CORE_READ(leader, start_time));
gone:
	if (owner != tgid && last)
		bpf_map_delete_elem(&watched, &tgid);
	return 0;
}
