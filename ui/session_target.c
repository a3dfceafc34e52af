// SPDX-License-Identifier: MIT
/*
 * session_target — the session's target: found (-b's file, in $PATH or
 * the library directories; -p's process) or started (a command, held
 * before exec until session_release()); its environment and command line,
 * which the probesets' requires are checked against; a command ended;
 * and -b's processes named. Called by session.c and
 * session_probesets.c; calls neither.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog.h"
#include "cmd.h"
#include "proc.h"
#include "session.h"
#include "session_impl.h"
#include "shebang.h"

int session_open_target(struct session *s, const struct session_args *a)
{
	char path[4096], elf[4096], why[600];
	bool alive;
	int err;

	if (a->binary) {
		if (catalog_find_file(a->binary, s->binary,
				      sizeof(s->binary))) {
			cli_error("-b %s: no such file (not in $PATH or the "
				  "library directories)",
				  a->binary);
			return -1;
		}
		s->tr = tracer_new(TRACER_FILE, 0, s->binary, a->aggsize);
		return s->tr ? 0 : -1; /* why is logged */
	}
	if (a->pid) {
		s->pid = a->pid;
		alive = proc_alive(a->pid);
		s->tr = tracer_new(TRACER_PID, a->pid, NULL, a->aggsize);
		if (!s->tr && errno == ESRCH && alive)
			cli_error(
				"pid %d exited before its probes were attached",
				(int)a->pid);
		else if (!s->tr && errno == ESRCH)
			cli_error("no such process: %d", (int)a->pid);
		else if (!s->tr && errno == EACCES)
			cli_maps_denied((int)a->pid);
		return s->tr ? 0 : -1;
	}
	if (catalog_find_file(a->command[0], path, sizeof(path)) ||
	    access(path, X_OK)) {
		cli_error("%s: command not found", a->command[0]);
		return -1;
	}
	if (shebang_resolve(path, elf, sizeof(elf), why, sizeof(why))) {
		cli_error("%s", why);
		return -1;
	}
	err = launch_start(a->command, a->quiet_command, s->nice, &s->l);
	if (err) {
		cli_error("cannot start %s: %s", a->command[0], strerror(-err));
		return -1;
	}
	s->launched = true;
	s->execs_said = 1; /* its own exec is not news */
	s->pid = s->l.pid;
	s->tr = tracer_new(TRACER_PID, s->pid, NULL, a->aggsize);
	if (!s->tr)
		return -1;
	if (tracer_add_command_files(s->tr, elf))
		return -1;
	/* else: found by the rescan, later */
	tracer_hold_dlopen(s->tr, elf);
	tracer_hold_exec(s->tr);
	return 0;
}

/* NUL-separated copies of strs (NULL-terminated) into *out, *len. */
static int join_strings(char *const *strs, char **out, size_t *len)
{
	size_t n = 0;
	char *buf;

	for (char *const *p = strs; *p; p++)
		n += strlen(*p) + 1;
	buf = malloc(n + 1);
	if (!buf)
		return -ENOMEM;
	*len = n;
	n = 0;
	for (char *const *p = strs; *p; p++) {
		size_t l = strlen(*p) + 1;

		memcpy(buf + n, *p, l);
		n += l;
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

/* The target's environment and command line, for session_unmet(): a
 * process's from /proc, a command's from ours and its argv. Without them
 * (-b, or /proc hidden) nothing is said. */
void session_read_target_env(struct session *s, const struct session_args *a)
{
	int err;

	if (a->pid)
		err = proc_strings(s->pid, "environ", &s->env, &s->envlen) ||
		      proc_strings(s->pid, "cmdline", &s->argv, &s->argvlen);
	else if (a->command)
		err = join_strings(environ, &s->env, &s->envlen) ||
		      join_strings(a->command, &s->argv, &s->argvlen);
	else
		return;
	if (err) {
		free(s->env);
		free(s->argv);
		s->env = s->argv = NULL;
	}
}

/* Whether the target meets n's requires; unknown (no environ) is "yes",
 * so nothing is said or attached on a guess. */
bool session_target_meets(const struct session *s, const struct ps_note *n)
{
	return !s->env ||
	       probeset_note_met(n, s->env, s->envlen, s->argv, s->argvlen);
}

int session_release(struct session *s)
{
	int err;

	if (s->launched && s->l.go_fd >= 0) {
		err = launch_release(&s->l);
		if (err) {
			cli_error("cannot run the command: %s", strerror(-err));
			s->l.pid = -1;
			return 1;
		}
	}
	return 0;
}

void session_end_command(struct session *s)
{
	if (!s->launched || s->l.pid <= 0 || s->l.go_fd >= 0)
		return; /* not ours, gone, or never released */
	if (kill(s->l.pid, SIGTERM))
		return;
	kill(s->l.pid, SIGCONT); /* held at a dlopen or exec: let it end */
	for (int i = 0; i < 100; i++) { /* 1 s to finish, then SIGKILL */
		if (waitpid(s->l.pid, NULL, WNOHANG) == s->l.pid) {
			s->l.pid = -1;
			return;
		}
		usleep(10000);
	}
	kill(s->l.pid, SIGKILL);
	waitpid(s->l.pid, NULL, 0);
	s->l.pid = -1;
}

/* Name pid into buf[0..n) (session_pid_command()). */
static void name_pid(const struct session *s, uint32_t pid, char *buf, size_t n)
{
	char line[512];
	const char *slash, *sp;

	if (!pid) { /* a row over every process (allpids) */
		snprintf(buf, n, "(every process)");
		return;
	}
	if ((proc_cmdline((pid_t)pid, line, sizeof(line)) || !line[0]) &&
	    tracer_pid_name(s->tr, pid, line, sizeof(line))) {
		snprintf(buf, n, "(exited)");
		return;
	}
	sp = strchr(line, ' ');
	slash = memrchr(line, '/', sp ? (size_t)(sp - line) : strlen(line));
	snprintf(buf, n, "%s", slash ? slash + 1 : line);
}

/* Room for one more in s->pidcmds; false when it is full. */
static bool pidcmd_room(struct session *s)
{
	size_t cap = s->cappidcmds ? 2 * s->cappidcmds : 16;
	struct model_pidcmd *v;

	if (s->npidcmds < s->cappidcmds)
		return true;
	if (s->npidcmds == SESSION_PIDCMDS)
		return false;
	v = realloc(s->pidcmds, cap * sizeof(*v));
	if (!v)
		return false;
	s->pidcmds = v;
	s->cappidcmds = cap;
	return true;
}

const char *session_pid_command(struct session *s, uint32_t pid)
{
	size_t at = model_pidcmd_at(s->pidcmds, s->npidcmds, pid);
	struct model_pidcmd *c;

	if (at < s->npidcmds && s->pidcmds[at].pid == pid)
		return s->pidcmds[at].cmd;
	if (!pidcmd_room(s)) {
		name_pid(s, pid, s->pidcmd_spare, sizeof(s->pidcmd_spare));
		return s->pidcmd_spare;
	}
	c = &s->pidcmds[at];
	memmove(c + 1, c, (s->npidcmds++ - at) * sizeof(*c));
	c->pid = pid;
	name_pid(s, pid, c->cmd, sizeof(c->cmd));
	return c->cmd;
}

int session_probes(const struct session *s, struct model_probe **out, size_t *n)
{
	const struct cat_object **objs =
		calloc(SESSION_MAX_OBJECTS, sizeof(*objs));
	size_t nobj, total = 0, k = 0;

	*n = 0;
	*out = NULL;
	if (!objs)
		return -ENOMEM;
	nobj = tracer_objects(s->tr, objs, SESSION_MAX_OBJECTS);
	for (size_t i = 0; i < nobj; i++)
		total += objs[i]->nprobes;
	*out = calloc(total ? total : 1, sizeof(**out));
	if (!*out) {
		free(objs);
		return -ENOMEM;
	}
	/* oldest catalog last in objs: the executable's objects first */
	for (size_t i = nobj; i-- > 0;) {
		for (size_t p = 0; p < objs[i]->nprobes; p++) {
			const struct cat_probe *cp = &objs[i]->probes[p];
			const struct cat_loc *loc = &cp->locs[0];

			(*out)[k++] = (struct model_probe){
				.object = objs[i]->path,
				.provider = cp->provider,
				.name = cp->name,
				.args = loc->args,
				.nargs = loc->nargs,
				.semaphore = loc->sem_addr != 0,
				.nlocs = cp->nlocs,
				.spec_id = -1,
			};
		}
	}
	*n = k;
	free(objs);
	return 0;
}
