// SPDX-License-Identifier: MIT
/*
 * probetop [-p PID | -b BINARY | -- COMMAND] [-P SET]... [-e SPEC]...
 *          [-i SECS] [-d SECS]     and     probetop --demo
 * Arguments for the console; see console.c.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "console.h"

#define DEMO_PYTHON "/usr/bin/python3.11"

/* The bundled demo workload: installed, or in the source tree. */
static const char *demo_script(void)
{
	struct stat st;

	if (!stat(PROBETOP_DEMO_INSTALLED, &st))
		return PROBETOP_DEMO_INSTALLED;
	return PROBETOP_DEMO_SOURCE;
}

int cmd_console(int argc, char **argv)
{
	static const struct option LONG[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "binary", required_argument, NULL, 'b' },
		{ "spec", required_argument, NULL, 'e' },
		{ "probeset", required_argument, NULL, 'P' },
		{ "aggsize", required_argument, NULL, SESSION_OPT_AGGSIZE },
		{ "budget", required_argument, NULL, SESSION_OPT_BUDGET },
		{ "listen", required_argument, NULL, SESSION_OPT_LISTEN },
		{ "record", required_argument, NULL, SESSION_OPT_RECORD },
		{ "baseline", required_argument, NULL, SESSION_OPT_BASELINE },
		{ "interval", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 'd' },
		{ "demo", no_argument, NULL, 'D' },
		{ 0 },
	};
	static char *demo_argv[3];
	struct session_args a = { 0 };
	double interval = 1.0, duration = 0;
	bool demo = false;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:p:b:e:P:i:d:", LONG, NULL)) !=
	       -1) {
		int taken = session_arg(&a, c, optarg);

		if (taken < 0)
			return 2;
		if (!taken)
			continue;
		switch (c) {
		case 'i':
			if (cli_interval(optarg, &interval))
				return 2;
			break;
		case 'd':
			if (cli_seconds(optarg, "-d", &duration))
				return 2;
			break;
		case 'D':
			demo = true;
			break;
		default:
			cli_bad_option("", c, argv);
			return 2;
		}
	}
	if (optind < argc)
		a.command = argv + optind;
	if ((a.pid > 0) + (a.binary != NULL) + (a.command != NULL) + demo > 1) {
		cli_error(
			"give one of -p PID, -b BINARY, -- COMMAND or --demo");
		return 2;
	}
	if (demo) {
		demo_argv[0] = DEMO_PYTHON;
		demo_argv[1] = (char *)demo_script();
		a.command = demo_argv;
		if (access(DEMO_PYTHON, X_OK)) {
			cli_error(
				"--demo needs %s (apt-get install python3.11)",
				DEMO_PYTHON);
			return 1;
		}
	}
	return console_run(&a, interval, duration);
}
