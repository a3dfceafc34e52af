// SPDX-License-Identifier: MIT
/*
 * pidname.bpf.h — -b's process names: the first key a process makes
 * records its comm and the start of its arguments in pid_names, so that a
 * process that exits before user space looks is still named as the
 * kernel saw it (tracer_pid_name() reads it). Off the per-event path: a
 * subprogram called only when a key is new.
 *
 * Part of probetop.bpf.c, included after maps.bpf.h.
 */

/* Record the current process under pid in pid_names unless it is there
 * or pid is 0:
 * its name and the start of its arguments (read from its own memory,
 * which a uprobe runs in). */
static __noinline void pid_name_note(__u32 pid)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct pt_pid_name n = {};
	__u64 start, len;

	if (!pid || bpf_map_lookup_elem(&pid_names, &pid))
		return; /* pid 0: every process's row (allpids) */
	BPF_CORE_READ_STR_INTO(&n.comm, task, group_leader, comm);
	start = BPF_CORE_READ(task, mm, arg_start);
	len = BPF_CORE_READ(task, mm, arg_end) - start;
	if (len > PT_ARGS_LEN)
		len = PT_ARGS_LEN;
	if (start && !bpf_probe_read_user(n.args, len, (void *)start))
		n.args_len = len;
	bpf_map_update_elem(&pid_names, &pid, &n, BPF_NOEXIST);
}
