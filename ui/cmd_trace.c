// SPDX-License-Identifier: MIT
/*
 * probetop trace — attach specs, print a snapshot every interval, and a
 * final summary when the target exits, on SIGINT/SIGTERM, after -n
 * intervals or -d seconds.
 *
 * Every spec is parsed before anything is attached. A launched command is
 * held before exec until every spec is attached to its executable and the
 * libraries it needs (a script's: its interpreter's, shebang.h), and
 * again at each exec (tracer_hold_exec()). The process's mappings are
 * rescanned a few times a second so that libraries it dlopen()s, or a new
 * executable after exec, get the specs too; an exec is said on stderr.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agg.h"
#include "catalog.h"
#include "cmd.h"
#include "export.h"
#include "inert.h"
#include "recorder.h"
#include "session.h"
#include "spec.h"
#include "trace_out.h"
#include "tracer.h"

#define RESCAN_S 0.2

struct trace_args {
	struct session_args target;
	double interval_s, duration_s;
	long count;
	bool json, folded;
};

struct loop {
	struct session *s;
	struct tracer *tr;
	struct agg *agg;
	struct trace_out out;
	struct export *ex; /* --listen, or NULL */
	struct recorder *rec; /* --record, or NULL */
	pid_t pid; /* 0 for -b */
	int sigfd, pidfd;
	double rescanned; /* when the target was last rescanned */
};

static int parse_args(int argc, char **argv, struct trace_args *a)
{
	static const struct option LONG[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "binary", required_argument, NULL, 'b' },
		{ "spec", required_argument, NULL, 'e' },
		{ "probeset", required_argument, NULL, 'P' },
		{ "aggsize", required_argument, NULL, SESSION_OPT_AGGSIZE },
		{ "budget", required_argument, NULL, SESSION_OPT_BUDGET },
		{ "listen", required_argument, NULL, SESSION_OPT_LISTEN },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "folded", no_argument, NULL, 'F' },
		{ "record", required_argument, NULL, SESSION_OPT_RECORD },
		{ "baseline", required_argument, NULL, SESSION_OPT_BASELINE },
		{ 0 },
	};
	struct session_args *t = &a->target;
	int c, targets;
	char *end;

	*a = (struct trace_args){ .interval_s = 1.0 };
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:p:b:e:P:i:n:d:j", LONG, NULL)) !=
	       -1) {
		int taken = session_arg(t, c, optarg);

		if (taken < 0)
			return -1;
		if (!taken)
			continue;
		switch (c) {
		case 'i':
			if (cli_interval(optarg, &a->interval_s))
				return -1;
			break;
		case 'd':
			if (cli_seconds(optarg, "-d", &a->duration_s))
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
		case 'F':
			a->folded = true;
			break;
		default:
			cli_bad_option("trace", c, argv);
			return -1;
		}
	}
	if (a->json && a->folded) {
		cli_error("--json and --folded: give one of them");
		return -1;
	}
	if (optind < argc)
		t->command = argv + optind;
	targets = (t->pid > 0) + (t->binary != NULL) + (t->command != NULL);
	if (targets != 1) {
		cli_error("trace needs exactly one of -p PID, -b BINARY or "
			  "-- COMMAND");
		return -1;
	}
	return 0;
}

/* The command line of a -b row's pid (trace_out's command). */
static const char *pid_command(void *ctx, uint32_t pid)
{
	return session_pid_command(ctx, pid);
}

/* --listen: what scrapes get from now on */
static void publish(struct loop *lp, const struct agg_snapshot *snap)
{
	struct metrics_src src;

	if (!lp->ex)
		return;
	session_metrics_src(lp->s, snap, &src);
	if (export_publish(lp->ex, &src))
		cli_error("--listen: out of memory; serving the last metrics");
}

/* --listen: serve from now on (the specs, nothing counted yet, until
 * the first interval); says the URL, with the port bound, on stderr */
static int start_export(struct loop *lp, const char *listen)
{
	char err[512];

	if (!listen)
		return 0;
	lp->ex = export_start(listen, err, sizeof(err));
	if (!lp->ex) {
		cli_error("%s", err);
		return -1;
	}
	publish(lp, agg_empty(lp->agg));
	cli_error("serving metrics on %s", export_url(lp->ex));
	return 0;
}

/* recorder's say(): the recording's one failure, on stderr */
static void say(void *ctx, const char *msg)
{
	(void)ctx;
	cli_error("%s", msg);
}

static int print_snapshot(struct loop *lp, bool final)
{
	const struct agg_snapshot *snap = agg_read(lp->agg);

	if (!snap)
		return -1;
	publish(lp, snap);
	recorder_snapshot(lp->rec, snap, final);
	trace_out_print(&lp->out, snap, false);
	if (final)
		trace_out_print(&lp->out, snap, true);
	return 0;
}

/* Attach to what the target mapped since; 1 once it has gone. */
static int rescan(struct loop *lp)
{
	const struct tracer_exec *exec;
	int sets, n = session_rescan(lp->s, &sets, &exec);

	if (n == -ESRCH)
		return 1;
	if (exec) {
		size_t k = tracer_mapped_probes(lp->tr);

		/* cli_error() makes the whole line inert: the path goes raw */
		cli_error("%d exec'd %s: attached %zu probe%s", (int)lp->pid,
			  exec->path, k, k == 1 ? "" : "s");
		n = 0; /* said */
	}
	for (int i = lp->s->npicked - sets; i < lp->s->npicked; i++)
		cli_error("probeset %s: its probes appeared in %d",
			  lp->s->picked[i]->name, (int)lp->pid);
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
		struct pollfd pfd[3] = {
			{ lp->sigfd, POLLIN, 0 },
			{ lp->pidfd, POLLIN, 0 },
			{ tracer_event_fd(lp->tr), POLLIN, 0 },
		};
		double now = cli_now_s(), wake = until;
		int ms;

		if (deadline > 0 && deadline < wake)
			wake = deadline;
		if (now >= wake)
			return deadline > 0 && now >= deadline ? 1 : 0;
		if (wake - now > RESCAN_S)
			wake = now + RESCAN_S; /* rescans, the cost meter */
		if (agg_wake_s(lp->agg) > 0 && agg_wake_s(lp->agg) < wake)
			wake = agg_wake_s(lp->agg); /* the budget's slots */
		ms = wake > now ? (int)((wake - now) * 1000.0 + 0.999) : 0;
		if (poll(pfd, 3, ms) < 0 && errno != EINTR)
			return 1;
		if (pfd[0].revents || pfd[1].revents)
			return 1; /* signal, or the target exited */
		agg_tick(lp->agg);
		if (!pfd[2].revents && cli_now_s() - lp->rescanned < RESCAN_S)
			continue; /* woken for the budget only */
		lp->rescanned = cli_now_s();
		if (lp->pid && rescan(lp))
			return 1;
	}
}

static int run_loop(struct loop *lp, const struct trace_args *a)
{
	double start = cli_now_s(), next = start + a->interval_s;
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

/* Something must be attached: a spec, a probeset, or the IO pane. */
static int check_something(const struct session *s)
{
	if (tracer_nspecs(s->tr) || s->io || s->proc)
		return 0;
	if (s->launched && s->detecting) {
		cli_error("no probeset knows the probes of %d yet; waiting for "
			  "a runtime's library to be loaded",
			  (int)s->pid);
		return 0;
	}
	if (s->binary[0])
		cli_error("nothing to trace: no probeset knows the probes of "
			  "%s; give -e SPEC or -P NAME",
			  s->binary);
	else
		cli_error("nothing to trace: no probeset knows the probes of "
			  "%d; give -e SPEC or -P NAME",
			  (int)s->pid);
	return -1;
}

int cmd_trace(int argc, char **argv)
{
	struct session s;
	struct trace_args a;
	struct loop lp = { .sigfd = -1, .pidfd = -1 };
	struct trace_base base = { 0 };
	int ret;

	if (parse_args(argc, argv, &a))
		return 2;
	if (a.target.baseline && trace_base_open(&base, a.target.baseline))
		return 2;
	if (a.target.record && !(lp.rec = recorder_open(a.target.record))) {
		trace_base_close(&base);
		return 1;
	}
	lp.sigfd = cli_signalfd();
	ret = session_open(&s, &a.target);
	if (ret) {
		close(lp.sigfd);
		if (lp.rec)
			unlink(a.target.record); /* nothing was traced */
		recorder_free(lp.rec);
		trace_base_close(&base);
		return ret;
	}
	ret = 1;
	lp.s = &s;
	lp.tr = s.tr;
	lp.pid = s.pid;
	if (check_something(&s))
		goto out;
	lp.agg = agg_new(lp.tr);
	if (!lp.agg)
		goto out;
	recorder_start(lp.rec, &s, a.target.command, a.interval_s, say, NULL);
	agg_set_budget(lp.agg, session_budget(&a.target));
	if (start_export(&lp, a.target.listen))
		goto out;
	if (lp.pid)
		lp.pidfd = pidfd_open(lp.pid, 0);
	if (s.binary[0])
		cli_error("attached %zu probes to %s", tracer_nprobes(lp.tr),
			  a.target.binary);
	else
		cli_error("attached %zu probes to %d", tracer_nprobes(lp.tr),
			  (int)lp.pid);
	if (session_release(&s))
		goto out;
	session_warn_unmet(&s);
	lp.out = (struct trace_out){
		.f = stdout,
		.json = a.json,
		.folded = a.folded,
		.per_pid = s.binary[0] != 0,
		.command = pid_command,
		.ctx = &s,
		.pid = (int)lp.pid,
		.kernel = s.io || s.proc,
		.base = base.t ? &base : NULL,
	};
	if (base.t)
		trace_base_say(&base);
	ret = run_loop(&lp, &a) ? 1 : 0;
out:
	recorder_free(lp.rec);
	session_end_command(&s); /* -n, -d, ^C: the command ends with us */
	export_stop(lp.ex);
	agg_free(lp.agg);
	session_close(&s);
	trace_base_close(&base);
	if (lp.pidfd >= 0)
		close(lp.pidfd);
	if (lp.sigfd >= 0)
		close(lp.sigfd);
	return ret;
}
