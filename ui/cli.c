// SPDX-License-Identifier: MIT
/*
 * cli — what the subcommands share: the one way to report an error, the
 * clock their loops run on, -i/-d parsing, a target's string as JSON,
 * and the signalfd that turns SIGINT/SIGTERM/SIGHUP into a readable fd
 * for their poll loops.
 */
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>

#include "cmd.h"
#include "inert.h"

static void (*tee_fn)(void *ctx, const char *msg);
static void *tee_ctx;
static FILE *held; /* cli_hold(): the lines said meanwhile */

void cli_tee(void (*fn)(void *ctx, const char *msg), void *ctx)
{
	tee_fn = fn;
	tee_ctx = ctx;
}

void cli_error(const char *fmt, ...)
{
	char msg[1024], shown[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(held ? held : stderr, "probetop: %s\n",
		inert_str(shown, sizeof(shown), msg));
	if (tee_fn)
		tee_fn(tee_ctx, msg);
}

void cli_hold(void)
{
	if (!held)
		held = tmpfile(); /* NULL: said at once, as before */
}

void cli_release(void)
{
	char line[4096];

	if (!held)
		return;
	rewind(held);
	while (fgets(line, sizeof(line), held))
		fputs(line, stderr);
	fclose(held);
	held = NULL;
}

struct json_object *cli_json_inert(const char *s)
{
	char buf[4096];

	return json_object_new_string(inert_str(buf, sizeof(buf), s));
}

void cli_bad_option(const char *cmd, int c, char *const argv[])
{
	const char *arg = argv[optind - 1], *sep = *cmd ? ": " : "";
	bool is_long = !strncmp(arg, "--", 2);
	char opt[8];

	if (c == ':') {
		cli_error("%s%soption '%s' needs a value", cmd, sep, arg);
	} else if (is_long && optopt) { /* known, but given "=VALUE" */
		cli_error("%s%soption '%.*s' takes no value", cmd, sep,
			  (int)strcspn(arg, "="), arg);
	} else {
		if (!is_long) { /* a short one, maybe inside "-xp" */
			snprintf(opt, sizeof(opt), "-%c", optopt);
			arg = opt;
		}
		cli_error("%s%sunknown option '%s'; see probetop --help", cmd,
			  sep, arg);
	}
}

void cli_maps_denied(int pid)
{
	cli_error("pid %d: not allowed to read its memory maps; run probetop "
		  "as root (or with CAP_SYS_PTRACE)",
		  pid);
}

double cli_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cli_seconds(const char *s, const char *opt, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || end == s || !isfinite(v)) {
		cli_error("%s: '%s' is not a number of seconds", opt, s);
		return -1;
	}
	if (v <= 0 || v > 86400 * 365) {
		cli_error(
			"%s: '%s' is not above 0 and at most a year (31536000)",
			opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_interval(const char *s, double *out)
{
	if (cli_seconds(s, "-i", out))
		return -1;
	if (*out < CLI_MIN_INTERVAL) {
		cli_error("-i: '%s' is below %g seconds, the shortest interval",
			  s, CLI_MIN_INTERVAL);
		return -1;
	}
	return 0;
}

int cli_signalfd(void)
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
