/* SPDX-License-Identifier: MIT */
/*
 * cmd — the subcommands main() dispatches to. Each takes the arguments
 * after its own name (argv[0] is the subcommand) and returns the process
 * exit status; each prints its own one-line errors on stderr.
 */
#ifndef PROBETOP_CMD_H
#define PROBETOP_CMD_H

/* probetop [-p PID|-b BINARY|-- COMMAND|--demo] [options]: the console */
int cmd_console(int argc, char **argv);

/* probetop list -p PID | -b BINARY [--json] [-v] [--functions] [PATTERN] */
int cmd_list(int argc, char **argv);

/* probetop trace -p PID|-b BINARY|-- COMMAND -e SPEC... [options] */
int cmd_trace(int argc, char **argv);

/* probetop probesets [--json] */
int cmd_probesets(int argc, char **argv);

/* Print "probetop: MSG" on stderr, the one way the CLI reports. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
