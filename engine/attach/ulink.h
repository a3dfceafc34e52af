/* SPDX-License-Identifier: MIT */
/*
 * ulink — uprobes (or uretprobes) of a BPF program at locations of an
 * ELF file, attached the cheapest way the running kernel offers.
 *
 * Since Linux 6.6 (used from 6.12, whose pid filter lets every thread of
 * the process through) a uprobe_multi link (BPF_TRACE_UPROBE_MULTI) runs the
 * program straight from the uprobe handler; a perf-event uprobe (the
 * only kind before) also goes through trace_uprobe's dispatch and the
 * perf pid filter's lock: some 27 ns more per hit on this machine kind,
 * 6% of what a hit costs (docs/testing.md). libbpf 1.1 has no API for
 * uprobe_multi, so the link is made with the bpf() syscall here.
 *
 * A program attached by uprobe_multi must be loaded for it
 * (ulink_prepare()), and a kernel that has uprobe_multi then refuses it
 * a perf-event uprobe: the way is chosen once, before the programs are
 * loaded, by ulink_multi_supported().
 *
 * A perf-event link holds one location; a uprobe_multi link any number
 * of one file (ulink_attach_many()). Closing a link has the kernel wait
 * out a grace period of the uprobe handlers once per link, some 56 ms
 * on this machine: 529 links of one location took 29 s to close, one
 * link of 529 takes 0.05 s (docs/testing.md).
 */
#ifndef PROBETOP_ULINK_H
#define PROBETOP_ULINK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct bpf_program;
struct bpf_link;

/* An attachment: a uprobe_multi link's fd (one or more locations), or
 * libbpf's perf-event link (one location). */
struct ulink {
	int fd; /* -1 if none */
	struct bpf_link *perf;
};

/* Whether to attach by uprobe_multi: the kernel makes such links (asked
 * once, then remembered; needs the privileges loading BPF needs), and
 * PROBETOP_UPROBE=perf does not ask for perf-event uprobes instead. */
bool ulink_multi_supported(void);

/* Before the object is loaded: make prog attachable by uprobe_multi. */
void ulink_prepare(struct bpf_program *prog);

/*
 * Attach prog at offset (a file offset) of the ELF file at path, as a
 * uprobe, or a uretprobe if ret; multi: by uprobe_multi (prog prepared),
 * else by a perf-event uprobe. pid filters to one process (its threads
 * included), -1 means every process. ref_ctr (or 0) is the file offset
 * of a USDT semaphore the kernel raises while attached; cookie is what
 * bpf_get_attach_cookie() returns. 0 and *out filled, or a negative
 * errno (*out then holds nothing).
 */
int ulink_attach(struct bpf_program *prog, bool multi, pid_t pid,
		 const char *path, uint64_t offset, uint64_t ref_ctr,
		 uint64_t cookie, bool ret, struct ulink *out);

/*
 * By uprobe_multi (prog prepared): one link attaching prog at
 * offsets[0..n) of path, n > 0, with the semaphores ref_ctrs[i] (0:
 * none) and the cookies cookies[i]; ret, pid as ulink_attach(). All or
 * nothing: if the kernel refuses any location, nothing is attached and
 * a negative errno is returned (attach them one by one with
 * ulink_attach() to find the bad ones). 0 and *out filled; detaching it
 * takes all n out at the cost of one.
 */
int ulink_attach_many(struct bpf_program *prog, pid_t pid, const char *path,
		      const uint64_t *offsets, const uint64_t *ref_ctrs,
		      const uint64_t *cookies, size_t n, bool ret,
		      struct ulink *out);

/* Detach and release; an empty one ({ -1, NULL }) is a no-op. */
void ulink_detach(struct ulink *l);

/*
 * uprobe_multi links filtered to pid: take the breakpoints at
 * offsets[0..n) of path (ref_ctrs[i]: the semaphore offsets they were
 * attached with, or 0) out of every process no link asks for, that is
 * out of the processes pid forked since (a child inherits the pages its
 * parent's breakpoints are in, and the filter keeps it from running
 * the program, so nothing ever takes them out there). One more link at
 * those places is made and closed: unregistering it has the kernel
 * remove each breakpoint wherever no remaining link wants it. 0 or a
 * negative errno.
 */
int ulink_sweep(pid_t pid, const char *path, const uint64_t *offsets,
		const uint64_t *ref_ctrs, size_t n);

#endif
