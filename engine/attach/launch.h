/* SPDX-License-Identifier: MIT */
/*
 * launch — start a command held before exec(), so that every probe can be
 * attached before its first instruction runs.
 *
 * launch_start() forks; the child waits on a pipe. The caller attaches
 * (by pid: the uprobes' pid filter outlives exec) and calls
 * launch_release(), which lets the child exec and reports whether the
 * exec worked. If the caller dies first, the child sees the pipe close
 * and exits without running the command. Run through sudo as root, the
 * child drops to the invoking user (SUDO_UID/SUDO_GID) before exec.
 *
 * Once running, the command outlives its tracer, but the tracer stops
 * it now and then (the dynamic linker's hold, tracer.h): the child asks
 * for SIGCONT when its parent dies (PR_SET_PDEATHSIG), so that a tracer
 * killed while the command is held never leaves it stopped for good.
 */
#ifndef PROBETOP_LAUNCH_H
#define PROBETOP_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

struct launch {
	pid_t pid;
	int go_fd; /* write end: one byte releases the child */
	int err_fd; /* read end: the child's errno if exec failed */
};

/*
 * Fork a held child for argv (argv[0] looked up in $PATH); quiet: its
 * stdin, stdout and stderr go to /dev/null; nice: the priority it runs
 * at (the caller's own may be lower while it starts). 0 or -errno.
 */
int launch_start(char *const argv[], bool quiet, int nice, struct launch *l);

/*
 * Let the child exec. Returns 0 once it has exec()ed, or the negative
 * errno of the failed exec (the child has then exited with 127; it is
 * reaped here).
 */
int launch_release(struct launch *l);

/* Abandon a held child (closes the pipes; it exits). */
void launch_abort(struct launch *l);

#endif
