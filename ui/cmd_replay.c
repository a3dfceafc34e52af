// SPDX-License-Identifier: MIT
/*
 * probetop replay — a recording (trace --record, the console's --record;
 * record/replay.h) printed as trace printed it live: the same JSON
 * lines (--json) or folded stacks (--folded), by trace's own renderers
 * (trace_out.h), and trace's messages on stderr where they were said;
 * without either, the console on it (console.h's console_replay()).
 * Reads only the file. Options are parsed here alone, so that one for
 * the console passes through as a field of struct replay_args.
 *
 * Exit status: 0 when the file was read to its end, also when it ends
 * inside a record (a recording cut by a crash or still being written:
 * one line on stderr says where) or without a final summary (one line
 * says its end is missing); 1 for a file that is not a recording,
 * of a format this probetop does not read, or corrupt (what was before
 * the corruption is printed first); 2 for a bad command line. The
 * console's are console_replay()'s.
 */
#include <getopt.h>
#include <stdio.h>

#include "cmd.h"
#include "console.h"
#include "replay.h"
#include "trace_out.h"

struct replay_args {
	const char *path;
	const char *baseline; /* --baseline OLD, or NULL */
	bool json, folded;
};

static int parse_args(int argc, char **argv, struct replay_args *a)
{
	static const struct option LONG[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "folded", no_argument, NULL, 'F' },
		{ "baseline", required_argument, NULL, 'B' },
		{ 0 },
	};
	int c;

	*a = (struct replay_args){ 0 };
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":j", LONG, NULL)) != -1) {
		if (c == 'j') {
			a->json = true;
		} else if (c == 'F') {
			a->folded = true;
		} else if (c == 'B') {
			a->baseline = optarg;
		} else {
			cli_bad_option("replay", c, argv);
			return -1;
		}
	}
	if (optind != argc - 1) {
		cli_error("replay needs one FILE, a recording of trace "
			  "--record");
		return -1;
	}
	if (a->json && a->folded) {
		cli_error("replay: give --json or --folded, not both");
		return -1;
	}
	a->path = argv[optind];
	return 0;
}

static const char *pid_command(void *ctx, uint32_t pid)
{
	return replay_command(ctx, pid);
}

/* The records after the header, printed; the exit status. */
static int replay_all(struct replay *rp, const char *path,
		      struct trace_out *out)
{
	char why[512];

	for (;;) {
		enum replay_event ev = replay_next(rp, why, sizeof(why));
		const struct record_target *t = replay_target(rp);

		switch (ev) {
		case REPLAY_TARGET:
			out->per_pid = t->per_pid;
			out->pid = t->pid;
			out->kernel = t->kernel;
			break;
		case REPLAY_MESSAGE:
			cli_error("%s", replay_message(rp));
			break;
		case REPLAY_INTERVAL:
		case REPLAY_FINAL:
			trace_out_print(out, replay_snapshot(rp),
					ev == REPLAY_FINAL);
			break;
		case REPLAY_END:
			if (!replay_has_final(rp))
				cli_error("%s: no final summary: the recording "
					  "ends after interval %u, what came "
					  "after is missing (its writer was "
					  "killed, or a write failed, or it is "
					  "still being written)",
					  path, replay_intervals(rp));
			return 0;
		case REPLAY_CUT:
			cli_error("%s: %s: the recording ends there, after "
				  "interval %u",
				  path, why, replay_intervals(rp));
			return 0;
		case REPLAY_BAD:
			cli_error("%s: %s", path, why);
			return 1;
		}
	}
}

int cmd_replay(int argc, char **argv)
{
	struct replay_args a;
	struct replay *rp;
	struct trace_out out = { .f = stdout, .command = pid_command };
	struct trace_base base = { 0 };
	char why[512];
	int ret;

	if (parse_args(argc, argv, &a))
		return 2;
	if (!a.json && !a.folded)
		return console_replay(a.path, a.baseline);
	if (a.baseline && trace_base_open(&base, a.baseline))
		return 2;
	if (base.t)
		trace_base_say(&base);
	rp = replay_open(a.path, why, sizeof(why));
	if (!rp) {
		cli_error("%s: %s", a.path, why);
		trace_base_close(&base);
		return 1;
	}
	out.json = a.json;
	out.folded = a.folded;
	out.ctx = rp;
	out.base = base.t ? &base : NULL;
	ret = replay_all(rp, a.path, &out);
	replay_free(rp);
	trace_base_close(&base);
	return ret;
}
