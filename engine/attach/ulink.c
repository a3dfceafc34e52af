// SPDX-License-Identifier: MIT
/*
 * ulink — attach a uprobe the cheapest way; see ulink.h.
 */
#include "ulink.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

/* From the Linux 6.6 UAPI; the headers of Debian 12 predate it. */
#define ULINK_TRACE_UPROBE_MULTI 48 /* enum bpf_attach_type */
#define ULINK_MULTI_RETURN 1 /* BPF_F_UPROBE_MULTI_RETURN */

/* union bpf_attr as BPF_LINK_CREATE reads it for a uprobe_multi link;
 * the kernel takes a shorter attr as zero-filled. */
struct ulink_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t multi_flags;
	uint32_t pid;
	uint32_t pad;
};

_Static_assert(offsetof(struct ulink_attr, path) == 16 &&
		       offsetof(struct ulink_attr, pid) == 56,
	       "link_create.uprobe_multi layout");

/*
 * A uprobe_multi link of prog_fd at offsets[0..n) of path, with the
 * semaphore offsets ref_ctrs and the cookies (either may be NULL),
 * uretprobes if ret, filtered to pid (0: every process). Its fd or a
 * negative errno.
 */
static int multi_link(int prog_fd, pid_t pid, const char *path,
		      const uint64_t *offsets, const uint64_t *ref_ctrs,
		      const uint64_t *cookies, size_t n, bool ret)
{
	struct ulink_attr attr = {
		.prog_fd = (uint32_t)prog_fd,
		.attach_type = ULINK_TRACE_UPROBE_MULTI,
		.path = (uintptr_t)path,
		.offsets = (uintptr_t)offsets,
		.ref_ctr_offsets = (uintptr_t)ref_ctrs,
		.cookies = (uintptr_t)cookies,
		.cnt = (uint32_t)n,
		.multi_flags = ret ? ULINK_MULTI_RETURN : 0,
		.pid = pid > 0 ? (uint32_t)pid : 0,
	};
	int fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));

	return fd < 0 ? -errno : fd;
}

/* An empty program loaded for uprobe_multi, loaded once and kept; a
 * negative errno if it cannot be. */
static int empty_prog(void)
{
	static int fd = -1;
	const struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = ULINK_TRACE_UPROBE_MULTI);

	if (fd < 0)
		fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", prog, 2,
				   &opts);
	return fd < 0 ? -errno : fd;
}

/* Whether the running kernel is at least major.minor. */
static bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

/*
 * Ask the kernel: the empty program linked to a directory. A kernel that
 * knows uprobe_multi looks the path up and refuses it as not a regular
 * file (EBADF), before anything is attached; one that does not refuses
 * the attach type itself (EINVAL). Before 6.12 its pid filter let only
 * the process's first thread run the program (fixed by "bpf: Fix uprobe
 * multi pid filter checks"): not used there.
 */
static bool ask_kernel(void)
{
	const uint64_t offset = 0;
	int fd, prog_fd;

	if (!kernel_at_least(6, 12))
		return false;
	prog_fd = empty_prog();
	if (prog_fd < 0)
		return false;
	fd = multi_link(prog_fd, 0, "/", &offset, NULL, NULL, 1, false);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	return fd == -EBADF;
}

bool ulink_multi_supported(void)
{
	static int known; /* 0 not asked, 1 yes, -1 no */
	const char *how = getenv("PROBETOP_UPROBE");

	if (how && !strcmp(how, "perf"))
		return false;
	if (!known)
		known = ask_kernel() ? 1 : -1;
	return known > 0;
}

void ulink_prepare(struct bpf_program *prog)
{
	bpf_program__set_expected_attach_type(prog, ULINK_TRACE_UPROBE_MULTI);
}

int ulink_attach_many(struct bpf_program *prog, pid_t pid, const char *path,
		      const uint64_t *offsets, const uint64_t *ref_ctrs,
		      const uint64_t *cookies, size_t n, bool ret,
		      struct ulink *out)
{
	int fd;

	out->fd = -1;
	out->perf = NULL;
	if (!n || n > UINT32_MAX)
		return -EINVAL;
	fd = multi_link(bpf_program__fd(prog), pid, path, offsets, ref_ctrs,
			cookies, n, ret);
	if (fd < 0)
		return fd;
	out->fd = fd;
	return 0;
}

int ulink_attach(struct bpf_program *prog, bool multi, pid_t pid,
		 const char *path, uint64_t offset, uint64_t ref_ctr,
		 uint64_t cookie, bool ret, struct ulink *out)
{
	out->fd = -1;
	out->perf = NULL;
	if (multi)
		return ulink_attach_many(prog, pid, path, &offset,
					 ref_ctr ? &ref_ctr : NULL, &cookie, 1,
					 ret, out);
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .ref_ctr_offset = ref_ctr,
		    .bpf_cookie = cookie, .retprobe = ret);
	out->perf = bpf_program__attach_uprobe_opts(
		prog, pid > 0 ? pid : -1, path, (size_t)offset, &opts);
	return out->perf ? 0 : -errno;
}

void ulink_detach(struct ulink *l)
{
	if (l->fd >= 0)
		close(l->fd);
	bpf_link__destroy(l->perf);
	l->fd = -1;
	l->perf = NULL;
}

int ulink_sweep(pid_t pid, const char *path, const uint64_t *offsets,
		const uint64_t *ref_ctrs, size_t n)
{
	int fd, prog_fd = empty_prog();

	if (prog_fd < 0)
		return prog_fd;
	if (!n)
		return 0;
	fd = multi_link(prog_fd, pid, path, offsets, ref_ctrs, NULL, n, false);
	if (fd < 0)
		return fd;
	close(fd); /* unregistering is what removes them */
	return 0;
}
