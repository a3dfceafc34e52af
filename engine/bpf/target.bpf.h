// SPDX-License-Identifier: MIT
/*
 * target.bpf.h — hooks that keep user space's view of the one-process
 * target true: pt_dlstop stops the target at each change of its loaded
 * objects (dl_events) so that new libraries are attached before they
 * run, pt_execstop counts its exec()s (and forgets its mappings for the
 * unwind walk) and (a launched command) stops it there the same way, pt_dlmark and pt_ro_exec bump ro_epoch when its
 * read-only ranges may have changed, pt_forked counts its forks for
 * ulink_sweep().
 *
 * Part of probetop.bpf.c, included after the per-event programs.
 */

/*
 * Stop the current process (tgid) and tell user space through
 * dl_events, which attaches to what it maps now and sends SIGCONT. The
 * SIGSTOP is raised before user space can see the event: the other
 * order let a fast SIGCONT (this program preempted by the woken reader)
 * come first, and the late SIGSTOP then stopped the target for good. If
 * the ring is full the process is not stopped (the periodic rescan
 * still finds what it mapped, later).
 */
static __always_inline void hold(__u32 tgid)
{
	__u32 *ev = bpf_ringbuf_reserve(&dl_events, sizeof(*ev), 0);

	if (!ev)
		return;
	*ev = tgid;
	bpf_send_signal(PT_SIGSTOP);
	bpf_ringbuf_submit(ev, 0);
}

/*
 * Attached at the dynamic linker's _dl_debug_state, which it calls before
 * and after each change to the list of loaded objects (dlopen, dlclose,
 * start-up): hold the process, before it runs another user instruction,
 * so nothing in a new library is missed.
 */
SEC("uprobe")
int pt_dlstop(struct pt_regs *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (task->pdeath_signal) /* see pt_execstop */
		hold(bpf_get_current_pid_tgid() >> 32);
	return 0;
}

/*
 * The target exec()ed: count it, and for a launched command (exec_hold)
 * hold it before the new image's first instruction, as pt_dlstop does,
 * so that the new executable's probes are attached before it runs.
 * Current is the exec()ing task, which has the target's tgid by now
 * (de_thread() is done).
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(pt_execstop, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	if (!exec_pid || BPF_CORE_READ(p, tgid) != exec_pid)
		return 0;
	__sync_fetch_and_add(&execs, 1);
	/* its mappings for the unwind walk are the old image's: gone until
	 * the rescan writes the new one's (walks look them up meanwhile) */
	bpf_map_delete_elem(&uprocs, &exec_pid);
	/* launch.c asked for SIGCONT when probetop dies; the kernel clears
	 * that at the exec of a set-user-ID (or capability) program, and
	 * then a probetop killed during the hold would leave it stopped:
	 * not held (the periodic rescan finds its objects) */
	if (exec_hold && BPF_CORE_READ(p, pdeath_signal))
		hold(exec_pid);
	return 0;
}

/* The dynamic linker is about to change, or changed, the loaded objects
 * of the target: its range table no longer holds (tracer's ro_refresh()
 * makes a new one). */
SEC("uprobe")
int pt_dlmark(struct pt_regs *ctx)
{
	__sync_fetch_and_add(&ro_epoch, 1);
	return 0;
}

/* The same for an exec of the target. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(pt_ro_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	if (ro_pid && BPF_CORE_READ(p, tgid) == ro_pid)
		__sync_fetch_and_add(&ro_epoch, 1);
	return 0;
}

/*
 * A process the one-process target forks inherits its breakpoints, and a
 * uprobe_multi link filtered to the target never removes them there
 * (only a perf-event uprobe's filter does, at the child's first hit):
 * count such forks, so that user space can sweep them away
 * (ulink_sweep()). A vfork child shares the target's memory, and a
 * thread is the target.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(pt_forked, struct task_struct *parent, struct task_struct *child)
{
	if (fork_pid && BPF_CORE_READ(parent, tgid) == fork_pid &&
	    BPF_CORE_READ(child, tgid) != fork_pid &&
	    BPF_CORE_READ(child, mm) != BPF_CORE_READ(parent, mm))
		__sync_fetch_and_add(&forks, 1);
	return 0;
}
