// SPDX-License-Identifier: MIT
/*
 * probetop trace — attach specs, print a snapshot every interval, and a
 * final summary when the target exits, on SIGINT/SIGTERM, after -n
 * intervals or -d seconds.
 *
 * Every spec is parsed before anything is attached. A launched command is
 * held before exec until every spec is attached to its executable and the
 * libraries it needs. The process's mappings are rescanned a few times a
 * second so that libraries it dlopen()s, or a new executable after exec,
 * get the specs too.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agg.h"
#include "catalog.h"
#include "cmd.h"
#include "launch.h"
#include "proc.h"
#include "spec.h"
#include "trace_out.h"
#include "tracer.h"

#define MAX_SPECS 64
#define RESCAN_S 0.2

struct trace_args {
	pid_t pid;
	const char *binary;
	char **command;
	const char *specs[MAX_SPECS];
	int nspecs;
	bool io;
	double interval_s, duration_s;
	long count;
	bool json;
};

struct loop {
	struct tracer *tr;
	struct agg *agg;
	struct trace_out out;
	pid_t pid; /* 0 for -b */
	bool launched;
	int sigfd, pidfd;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_seconds(const char *s, const char *opt, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || end == s || !isfinite(v) || v <= 0 || v > 86400 * 365) {
		cli_error("%s: '%s' is not a number of seconds", opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct trace_args *a)
{
	static const struct option LONG[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "binary", required_argument, NULL, 'b' },
		{ "spec", required_argument, NULL, 'e' },
		{ "probeset", required_argument, NULL, 'P' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ 0 },
	};
	int c, targets;
	char *end;

	*a = (struct trace_args){ .interval_s = 1.0 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:b:e:P:i:n:d:j", LONG, NULL)) !=
	       -1) {
		switch (c) {
		case 'p':
			a->pid = proc_parse_pid(optarg);
			if (a->pid <= 0) {
				cli_error("-p: '%s' is not a process id",
					  optarg);
				return -1;
			}
			break;
		case 'b':
			a->binary = optarg;
			break;
		case 'e':
			if (a->nspecs == MAX_SPECS) {
				cli_error("more than %d -e specs", MAX_SPECS);
				return -1;
			}
			a->specs[a->nspecs++] = optarg;
			break;
		case 'P':
			if (strcmp(optarg, "io")) {
				cli_error("-P %s: unknown probe set; this "
					  "version has only 'io'",
					  optarg);
				return -1;
			}
			a->io = true;
			break;
		case 'i':
			if (parse_seconds(optarg, "-i", &a->interval_s))
				return -1;
			break;
		case 'd':
			if (parse_seconds(optarg, "-d", &a->duration_s))
				return -1;
			break;
		case 'n':
			a->count = strtol(optarg, &end, 10);
			if (*end || end == optarg || a->count <= 0) {
				cli_error("-n: '%s' is not a positive count",
					  optarg);
				return -1;
			}
			break;
		case 'j':
			a->json = true;
			break;
		default:
			cli_error("see probetop --help");
			return -1;
		}
	}
	if (optind < argc)
		a->command = argv + optind;
	targets = (a->pid > 0) + (a->binary != NULL) + (a->command != NULL);
	if (targets != 1) {
		cli_error("trace needs exactly one of -p PID, -b BINARY or "
			  "-- COMMAND");
		return -1;
	}
	if (!a->nspecs && !a->io) {
		cli_error("nothing to trace: give -e SPEC (or -P io)");
		return -1;
	}
	if (a->io && a->binary) {
		cli_error("-P io needs -p PID or a command, not -b");
		return -1;
	}
	return 0;
}

/* Parse every spec before anything is attached. */
static int parse_specs(const struct trace_args *a, struct spec *specs)
{
	char err[256];

	for (int i = 0; i < a->nspecs; i++) {
		if (spec_parse(a->specs[i], &specs[i], err, sizeof(err))) {
			cli_error("-e '%s': %s", a->specs[i], err);
			return -1;
		}
	}
	return 0;
}

static struct tracer *open_target(const struct trace_args *a, struct launch *l,
				  pid_t *pid)
{
	char path[4096];
	struct tracer *tr;
	int err;

	if (a->binary) {
		if (catalog_find_file(a->binary, path, sizeof(path))) {
			cli_error("-b %s: no such file (not in $PATH or the "
				  "library directories)",
				  a->binary);
			return NULL;
		}
		*pid = 0;
		tr = tracer_new(TRACER_FILE, 0, path);
		if (!tr && errno != EPERM)
			cli_error("-b %s: cannot trace: %s", path,
				  strerror(errno));
		return tr;
	}
	if (a->pid) {
		*pid = a->pid;
		tr = tracer_new(TRACER_PID, a->pid, NULL);
		if (!tr && errno == ESRCH)
			cli_error("no such process: %d", (int)a->pid);
		return tr;
	}
	if (catalog_find_file(a->command[0], path, sizeof(path)) ||
	    access(path, X_OK)) {
		cli_error("%s: command not found", a->command[0]);
		return NULL;
	}
	err = launch_start(a->command, l);
	if (err) {
		cli_error("cannot start %s: %s", a->command[0], strerror(-err));
		return NULL;
	}
	*pid = l->pid;
	tr = tracer_new(TRACER_PID, l->pid, NULL);
	if (!tr)
		return NULL;
	err = tracer_add_command_files(tr, path);
	if (err) {
		tracer_free(tr);
		return NULL;
	}
	return tr;
}

/* Attach every spec; a spec that matches nothing yet waits (-p, command)
 * or is an error (-b: the file will not change). */
static int attach_specs(const struct trace_args *a, struct tracer *tr,
			const struct spec *specs)
{
	for (int i = 0; i < a->nspecs; i++) {
		const struct tracer_spec_info *info;
		int id = tracer_add(tr, &specs[i]);

		if (id < 0) {
			cli_error("-e '%s': cannot attach: %s", specs[i].text,
				  strerror(-id));
			return -1;
		}
		info = tracer_spec_info(tr, id);
		if (info->nsites)
			continue;
		if (info->nskipped) {
			cli_error("-e '%s': no location of its probes can "
				  "serve it (see above)",
				  specs[i].text);
			return -1;
		}
		if (a->binary) {
			cli_error("-e '%s': no probe of %s matches",
				  specs[i].text, a->binary);
			return -1;
		}
		cli_error("-e '%s': no probe matches yet; waiting for it to "
			  "be mapped",
			  specs[i].text);
	}
	return 0;
}

static int setup_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC);
}

static int print_snapshot(struct loop *lp, bool final)
{
	const struct agg_snapshot *snap = agg_read(lp->agg);

	if (!snap)
		return -1;
	trace_out_print(&lp->out, snap, false);
	if (final)
		trace_out_print(&lp->out, snap, true);
	return 0;
}

/* Attach to what the target mapped since; 1 once it has gone. */
static int rescan(struct loop *lp)
{
	int n = tracer_rescan(lp->tr);

	if (n == -ESRCH)
		return 1;
	if (n > 0)
		cli_error("attached %d more locations in new mappings of %d", n,
			  (int)lp->pid);
	return 0;
}

/* Wait until the next interval, the target's exit or a signal.
 * Returns 1 to stop, 0 to print an interval. */
static int wait_interval(struct loop *lp, double until, double deadline)
{
	for (;;) {
		struct pollfd pfd[2] = { { lp->sigfd, POLLIN, 0 },
					 { lp->pidfd, POLLIN, 0 } };
		double now = now_s(), wake = until;
		int ms;

		if (deadline > 0 && deadline < wake)
			wake = deadline;
		if (now >= wake)
			return deadline > 0 && now >= deadline ? 1 : 0;
		if (lp->pid && wake - now > RESCAN_S)
			wake = now + RESCAN_S;
		ms = (int)((wake - now) * 1000.0 + 0.999);
		if (poll(pfd, lp->pidfd >= 0 ? 2 : 1, ms) < 0 && errno != EINTR)
			return 1;
		if (pfd[0].revents || pfd[1].revents)
			return 1; /* signal, or the target exited */
		if (lp->pid && rescan(lp))
			return 1;
	}
}

static int run_loop(struct loop *lp, const struct trace_args *a)
{
	double start = now_s(), next = start + a->interval_s;
	double deadline = a->duration_s > 0 ? start + a->duration_s : 0;
	long n = 0;

	for (;;) {
		int stop = wait_interval(lp, next, deadline);

		n++;
		if (stop || (a->count && n >= a->count))
			return print_snapshot(lp, true);
		if (print_snapshot(lp, false))
			return -1;
		next += a->interval_s;
	}
}

int cmd_trace(int argc, char **argv)
{
	struct spec *specs = NULL;
	struct launch l = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	struct trace_args a;
	struct loop lp = { .sigfd = -1, .pidfd = -1 };
	int ret = 1, err;

	if (parse_args(argc, argv, &a))
		return 2;
	specs = calloc((size_t)a.nspecs + 1, sizeof(*specs));
	if (!specs)
		return 1;
	if (parse_specs(&a, specs)) {
		free(specs);
		return 2;
	}
	lp.sigfd = setup_signals();
	lp.tr = open_target(&a, &l, &lp.pid);
	if (!lp.tr)
		goto out;
	lp.launched = a.command != NULL;
	if (attach_specs(&a, lp.tr, specs))
		goto out;
	if (a.io && tracer_io_add_pid(lp.tr, lp.pid))
		goto out;
	lp.agg = agg_new(lp.tr);
	if (!lp.agg)
		goto out;
	if (lp.pid)
		lp.pidfd = pidfd_open(lp.pid, 0);
	if (a.binary)
		cli_error("attached %zu probes to %s", tracer_nprobes(lp.tr),
			  a.binary);
	else
		cli_error("attached %zu probes to %d", tracer_nprobes(lp.tr),
			  (int)lp.pid);
	if (lp.launched) {
		err = launch_release(&l);
		if (err) {
			cli_error("cannot run %s: %s", a.command[0],
				  strerror(-err));
			l.pid = -1;
			goto out;
		}
	}
	lp.out = (struct trace_out){
		.f = stdout,
		.json = a.json,
		.per_pid = a.binary != NULL,
		.pid = (int)lp.pid,
	};
	ret = run_loop(&lp, &a) ? 1 : 0;
out:
	if (l.pid > 0 && l.go_fd >= 0)
		launch_abort(&l); /* never released: it exits, unrun */
	else if (l.pid > 0)
		waitpid(l.pid, NULL, WNOHANG); /* reap it if it is done */
	agg_free(lp.agg);
	tracer_free(lp.tr);
	if (lp.pidfd >= 0)
		close(lp.pidfd);
	if (lp.sigfd >= 0)
		close(lp.sigfd);
	free(specs);
	return ret;
}
