// SPDX-License-Identifier: MIT
/*
 * probetop — a live tracing console for USDT probes.
 *
 * main() parses the subcommand and hands over; it is the only place that
 * exits. See probetop(1) and docs/ for the whole command line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "log.h"

#define PROBETOP_USAGE                                                        \
	"Usage:\n"                                                            \
	"  probetop list -p PID [--json] [-v] [PATTERN]\n"                    \
	"                        every USDT probe of a running process and "  \
	"its libraries\n"                                                     \
	"  probetop list -b BINARY [--json] [-v] [PATTERN]\n"                 \
	"                        the probes of one ELF file (a path, or a "   \
	"name found\n"                                                        \
	"                        in $PATH or the library directories)\n"      \
	"  probetop list -p PID|-b BINARY --functions [--json] [PATTERN]\n"   \
	"                        function symbols, for fn: probes\n"          \
	"\n"                                                                  \
	"list prints one probe per line: PROVIDER NAME OBJECT ADDRESS "       \
	"SEMAPHORE ARGS.\n"                                                   \
	"A probe with several locations shows its first address followed by " \
	"the\n"                                                               \
	"count, e.g. 0x4011d6(3); -v prints every location and its decoded\n" \
	"arguments. PATTERN is a glob on PROVIDER:NAME (or on NAME alone).\n" \
	"\n"                                                                  \
	"Options:\n"                                                          \
	"  -p, --pid PID        a running process\n"                          \
	"  -b, --binary BINARY  an ELF executable or shared library\n"        \
	"  -j, --json           a JSON array instead of text\n"               \
	"  -v, --verbose        every location, with decoded arguments\n"     \
	"  -f, --functions      function symbols instead of probes\n"         \
	"  -h, --help           this text\n"                                  \
	"  -V, --version        the version\n"                                \
	"\n"                                                                  \
	"Exit status: 0 on success (also for a process without probes), 1 "   \
	"on\n"                                                                \
	"an error or when PATTERN matches nothing, 2 on a usage error.\n"     \
	"\n"                                                                  \
	"The console (probetop -p PID) and 'probetop trace' are not in this " \
	"version yet.\n"

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("probetop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd || !strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		fputs(PROBETOP_USAGE, cmd ? stdout : stderr);
		return cmd ? 0 : 2;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("probetop %s\n", PROBETOP_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "trace"))
		return cmd_trace(argc - 1, argv + 1);
	if (!strcmp(cmd, "probesets") ||
	    cmd[0] == '-') {
		cli_error("'%s' is not available in this version yet; "
			  "see probetop --help",
			  cmd);
		return 2;
	}
	cli_error("unknown command '%s'; see probetop --help", cmd);
	return 2;
}
