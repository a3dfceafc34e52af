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

/* probetop replay FILE [--json|--folded]: a recording, as trace printed
 * it */
int cmd_replay(int argc, char **argv);

/* probetop probesets [--json] */
int cmd_probesets(int argc, char **argv);

/* Print "probetop: MSG" on stderr, the one way the CLI reports; MSG
 * inert (engine/name/inert.h), as it may quote the target's names. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Keep what cli_error() says from now (the screen is curses') until
 * cli_release() prints it on stderr. */
void cli_hold(void);
void cli_release(void);

/* Hand every later cli_error() message (raw, before "probetop: " and
 * the inert escaping) to fn too; fn NULL: to none. For --record. */
void cli_tee(void (*fn)(void *ctx, const char *msg), void *ctx);

/*
 * cli_error() for what getopt_long() returned as c ('?' unknown, ':' no
 * value; parse with opterr = 0 and a ':' leading the short options):
 * "CMD: unknown option '--x'; see probetop --help". cmd may be "" (the
 * console).
 */
void cli_bad_option(const char *cmd, int c, char *const argv[]);

/* A new JSON string of a target's s: its inert form, as in text (valid
 * UTF-8 always, and inert when printed raw, jq -r). The caller owns it. */
struct json_object *cli_json_inert(const char *s);

/* cli_error(): not allowed to read pid's maps, and how to run instead. */
void cli_maps_denied(int pid);

/* CLOCK_MONOTONIC in seconds, the clock the loops run on. */
double cli_now_s(void);

/* Parse a positive number of seconds (at most a year) for option opt into
 * *out; 0, or -1 after reporting "OPT: 'S' is not a number of seconds"
 * (or, for a number, that it is out of range). */
int cli_seconds(const char *s, const char *opt, double *out);

/* The shortest interval -i takes: a console redraw or a trace print a
 * hundred times a second, the maps read as often. */
#define CLI_MIN_INTERVAL 0.01

/* cli_seconds() for -i, which also refuses less than CLI_MIN_INTERVAL. */
int cli_interval(const char *s, double *out);

/* Block SIGINT, SIGTERM and SIGHUP and return a signalfd for them (or -1). */
int cli_signalfd(void);

#endif
