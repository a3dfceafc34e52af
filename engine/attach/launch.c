// SPDX-License-Identifier: MIT
/*
 * launch — a held fork/exec; see launch.h.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child: become the user who ran sudo, if that is who we are. */
static int drop_to_sudo_user(void)
{
	const char *uid = getenv("SUDO_UID"), *gid = getenv("SUDO_GID");
	uid_t u;
	gid_t g;

	if (geteuid() != 0 || !uid || !gid)
		return 0;
	u = (uid_t)strtoul(uid, NULL, 10);
	g = (gid_t)strtoul(gid, NULL, 10);
	if (setgroups(0, NULL) || setgid(g) || setuid(u))
		return -errno;
	return 0;
}

/* stdin, stdout and stderr to /dev/null: the console owns the terminal */
static void detach_tty(void)
{
	int fd = open("/dev/null", O_RDWR);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

static void child(char *const argv[], int go, int err, bool quiet, int nice)
{
	sigset_t none;
	char byte;
	int e;

	if (read(go, &byte, 1) != 1)
		_exit(127); /* the tracer went away: do not run untraced */
	close(go);
	if (quiet)
		detach_tty();
	/* the tracer blocks SIGINT/SIGTERM/SIGHUP for its signalfd; the
	 * command must get them as if started from the shell */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* before the drop: raising it back takes privilege */
	setpriority(PRIO_PROCESS, 0, nice);
	e = drop_to_sudo_user();
	/* after the drop: changing credentials clears the death signal */
	if (!e && prctl(PR_SET_PDEATHSIG, SIGCONT))
		e = -errno;
	if (!e) {
		execvp(argv[0], argv);
		e = -errno;
	}
	e = -e;
	if (write(err, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int launch_start(char *const argv[], bool quiet, int nice, struct launch *l)
{
	int go[2] = { -1, -1 }, err[2] = { -1, -1 };

	l->pid = -1;
	l->go_fd = l->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		goto fail;
	l->pid = fork();
	if (l->pid < 0)
		goto fail;
	if (l->pid == 0) {
		close(go[1]);
		close(err[0]);
		child(argv, go[0], err[1], quiet, nice);
	}
	close(go[0]);
	close(err[1]);
	l->go_fd = go[1];
	l->err_fd = err[0];
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	return -errno;
}

int launch_release(struct launch *l)
{
	char byte = 1;
	int e = 0;
	ssize_t n;

	if (write(l->go_fd, &byte, 1) != 1)
		e = errno;
	close(l->go_fd);
	l->go_fd = -1;
	if (!e) {
		do
			n = read(l->err_fd, &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		if (n != sizeof(e))
			e = 0; /* closed on exec: it runs */
	}
	close(l->err_fd);
	l->err_fd = -1;
	if (e)
		waitpid(l->pid, NULL, 0);
	return -e;
}

void launch_abort(struct launch *l)
{
	if (l->go_fd >= 0)
		close(l->go_fd);
	if (l->err_fd >= 0)
		close(l->err_fd);
	l->go_fd = l->err_fd = -1;
	if (l->pid > 0)
		waitpid(l->pid, NULL, 0);
}
