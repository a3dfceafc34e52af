// SPDX-License-Identifier: MIT
/* watch — kernel-side IO and process watches; see watch.h. */
#include "watch.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/types.h>
#include <math.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "proc.h"

#define TAX_CALLS 10000 /* getppid() calls a loop times the syscall tax */
#define TAX_PAIRS 7 /* loops bare and traced, in turn: the median pair */

/* x86-64 syscall numbers of each IO class */
static const struct {
	uint16_t nr;
	uint8_t cls;
} IO_SYSCALLS[] = {
	{ 0, PT_IO_READ },     { 1, PT_IO_WRITE },    { 17, PT_IO_PREAD },
	{ 18, PT_IO_PWRITE },  { 19, PT_IO_READV },   { 20, PT_IO_WRITEV },
	{ 295, PT_IO_READV },  { 296, PT_IO_WRITEV }, { 327, PT_IO_READV },
	{ 328, PT_IO_WRITEV }, { 45, PT_IO_RECV },    { 47, PT_IO_RECV },
	{ 299, PT_IO_RECV },   { 44, PT_IO_SEND },    { 46, PT_IO_SEND },
	{ 307, PT_IO_SEND },   { 74, PT_IO_FSYNC },   { 75, PT_IO_FDATASYNC },
	{ 2, PT_IO_OPEN },     { 85, PT_IO_OPEN },    { 257, PT_IO_OPEN },
	{ 437, PT_IO_OPEN },   { 3, PT_IO_CLOSE },
};

/* Attach progs[0..n) into links[]; the first required ones must attach
 * (0 or the negative errno of the first that does not), the others may
 * fail with a warning. Failures are logged. */
static int attach_progs(struct bpf_program *const *progs,
			struct bpf_link **links, size_t n, size_t required)
{
	for (size_t i = 0; i < n; i++) {
		links[i] = bpf_program__attach(progs[i]);
		if (!links[i]) {
			int err = -errno;

			log_msg(i < required ? LOG_ERROR : LOG_WARN,
				"cannot attach %s: %s",
				bpf_program__name(progs[i]), strerror(-err));
			if (i < required)
				return err;
		}
	}
	return 0;
}

/* Thread CPU ns of one loop of TAX_CALLS getppid(). */
static double syscall_loop_ns(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (int i = 0; i < TAX_CALLS; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	return (double)(b.tv_sec - a.tv_sec) * 1e9 +
	       (double)(b.tv_nsec - a.tv_nsec);
}

/* The median of m[0..TAX_PAIRS), which it sorts. */
static double median_tax(double *m)
{
	for (int i = 1; i < TAX_PAIRS; i++)
		for (int j = i; j > 0 && m[j - 1] > m[j]; j--) {
			double t = m[j];

			m[j] = m[j - 1];
			m[j - 1] = t;
		}
	return m[TAX_PAIRS / 2];
}

/*
 * What the syscall entry and exit programs (progs[0..2), attached into
 * links[0..2)) add to every process's syscalls, ns a syscall: probetop's
 * own, which they do not count, as an unrelated process's. Timed in
 * pairs, a loop with them detached and one with them attached again,
 * every other pair the attached loop first (a price drifting over the
 * pair then moves one pair's difference up and the next one's down),
 * and the median of the pairs' differences taken: where a syscall
 * flushes the TLB the host's load moves its price by more than the tax
 * between loops further apart (the best of seven loops before and of
 * seven after showed +115 to +294 ns where dd paid +181 to +383; pairs
 * each bare first 0.30 to 0.78 of what dd paid, 1.61 once; in turn 0.70
 * to 1.35). A negative errno if they could not be attached again
 * (logged).
 */
static double syscall_tax_ns(struct bpf_program *const *progs,
			     struct bpf_link **links)
{
	double d[TAX_PAIRS];
	int err;

	for (int r = 0; r < TAX_PAIRS; r++) {
		double bare, traced = 0;

		if (r % 2)
			traced = syscall_loop_ns();
		for (int i = 0; i < 2; i++) {
			bpf_link__destroy(links[i]);
			links[i] = NULL;
		}
		bare = syscall_loop_ns();
		err = attach_progs(progs, links, 2, 2);
		if (err)
			return err;
		if (!(r % 2))
			traced = syscall_loop_ns();
		d[r] = (traced - bare) / TAX_CALLS;
	}
	return fmax(median_tax(d), 0);
}

static int io_start(struct watch *wa, struct probetop_bpf *skel)
{
	struct bpf_program *progs[] = {
		skel->progs.pt_sys_enter,
		skel->progs.pt_sys_exit,
		skel->progs.pt_rq_issue,
		skel->progs.pt_rq_complete,
	};
	int fd = bpf_map__fd(skel->maps.io_nr), err;

	for (size_t i = 0; i < sizeof(IO_SYSCALLS) / sizeof(IO_SYSCALLS[0]);
	     i++) {
		uint32_t nr = IO_SYSCALLS[i].nr, cls = IO_SYSCALLS[i].cls + 1;

		if (bpf_map_update_elem(fd, &nr, &cls, BPF_ANY))
			return -errno;
	}
	/* block requests are a bonus: a kernel without them still counts */
	err = attach_progs(progs, wa->io_links, 4, 2);
	if (!err) {
		double tax = syscall_tax_ns(progs, wa->io_links);

		if (tax < 0)
			return (int)tax;
		wa->syscall_ns = tax;
	}
	return err;
}

static int proc_start(struct watch *wa, struct probetop_bpf *skel)
{
	struct bpf_program *progs[] = {
		skel->progs.pt_fork,
		skel->progs.pt_exec,
		skel->progs.pt_exit,
	};

	return attach_progs(progs, wa->proc_links, 3, 3);
}

/* The processes w's owner has started already are followed like those it
 * will start (a shell's running job, a server's workers), with w's bits;
 * a process watched on its own stays its own owner. */
static void follow_descendants(struct probetop_bpf *skel,
			       const struct pt_watched *w)
{
	int fd = bpf_map__fd(skel->maps.watched);
	pid_t kids[PT_PROC_KIDS / 4];
	size_t n = proc_descendants((pid_t)w->owner, kids,
				    sizeof(kids) / sizeof(kids[0]));

	for (size_t i = 0; i < n; i++) {
		uint32_t k = (uint32_t)kids[i];
		struct pt_watched was;

		if (!bpf_map_lookup_elem(fd, &k, &was) && was.owner == k)
			continue;
		bpf_map_update_elem(fd, &k, w, BPF_ANY);
	}
}

int watch_add(struct watch *wa, struct probetop_bpf *skel, pid_t pid,
	      unsigned int what)
{
	int fd = bpf_map__fd(skel->maps.watched);
	uint32_t key = (uint32_t)pid;
	struct pt_watched w = { .owner = key };
	int err;

	if ((what & PT_WATCH_IO) && !(wa->watching & PT_WATCH_IO)) {
		err = io_start(wa, skel);
		if (err)
			return err;
		wa->watching |= PT_WATCH_IO;
	}
	if (what && !(wa->watching & PT_WATCH_PROC)) {
		err = proc_start(wa, skel); /* follows descendants for both */
		if (err)
			return err;
		wa->watching |= PT_WATCH_PROC;
	}
	if (!bpf_map_lookup_elem(fd, &key, &w) && w.owner != key)
		w = (struct pt_watched){ .owner = key }; /* was a descendant */
	w.bits |= (uint8_t)what;
	if (bpf_map_update_elem(fd, &key, &w, BPF_ANY))
		return -errno;
	follow_descendants(skel, &w);
	return 0;
}

void watch_drop_io(struct watch *wa)
{
	for (size_t i = 0; i < sizeof(wa->io_links) / sizeof(wa->io_links[0]);
	     i++) {
		bpf_link__destroy(wa->io_links[i]);
		wa->io_links[i] = NULL;
	}
	wa->watching &= (uint8_t)~PT_WATCH_IO;
	wa->syscall_ns = 0;
}

void watch_free(struct watch *wa)
{
	for (size_t i = 0; i < sizeof(wa->io_links) / sizeof(wa->io_links[0]);
	     i++)
		bpf_link__destroy(wa->io_links[i]);
	for (size_t i = 0;
	     i < sizeof(wa->proc_links) / sizeof(wa->proc_links[0]); i++)
		bpf_link__destroy(wa->proc_links[i]);
}
