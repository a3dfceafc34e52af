// SPDX-License-Identifier: MIT
/*
 * probetop — a live tracing console for USDT probes.
 *
 * main() parses the subcommand and hands over; it is the only place that
 * exits. See probetop(1) and docs/ for the whole command line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "log.h"

#define PROBETOP_USAGE                                                         \
	"Usage:\n"                                                             \
	"  probetop [-p PID | -b BINARY | -- COMMAND [ARGS...]] [-P SET]... "  \
	"[-e SPEC]...\n"                                                       \
	"           [-i SECS] [-d SECS] [--aggsize SIZE] [--budget PCT|off]\n" \
	"           [--listen [ADDR:]PORT] [--record FILE] [--baseline OLD]\n" \
	"                        the console (no target: pick a process "      \
	"first)\n"                                                             \
	"  probetop --demo       the console on the bundled Python 3.11 "      \
	"workload\n"                                                           \
	"  probetop probesets [--json]\n"                                      \
	"                        the probesets available, where from, what "   \
	"they show\n"                                                          \
	"  probetop list -p PID [--json] [-v] [PATTERN]\n"                     \
	"                        every USDT probe of a running process and "   \
	"its libraries\n"                                                      \
	"  probetop list -b BINARY [--json] [-v] [PATTERN]\n"                  \
	"                        the probes of one ELF file (a path, or a "    \
	"name found\n"                                                         \
	"                        in $PATH or the library directories)\n"       \
	"  probetop list -p PID|-b BINARY --functions [--json] [PATTERN]\n"    \
	"                        function symbols, for fn: probes\n"           \
	"  probetop trace -p PID|-b BINARY|-- COMMAND [ARGS...] [-e SPEC]... " \
	"[-P SET]...\n"                                                        \
	"                 [-i SECS] [-n COUNT] [-d SECS] [--aggsize SIZE] "    \
	"[--json]\n"                                                           \
	"                 [--folded] [--budget PCT|off] [--listen "            \
	"[ADDR:]PORT]\n"                                                       \
	"                 [--record FILE] [--baseline OLD]\n"                  \
	"                        aggregate probes in the kernel, print every " \
	"interval\n"                                                           \
	"  probetop replay FILE [--json|--folded] [--baseline OLD]\n"          \
	"                        a recording of --record: the console on it "  \
	"(a time\n"                                                            \
	"                        bar: space play, , . step, [ ] a range), or " \
	"printed\n"                                                            \
	"                        as trace did\n"                               \
	"\n"                                                                   \
	"list prints one probe per line: PROVIDER NAME OBJECT ADDRESS "        \
	"SEMAPHORE ARGS.\n"                                                    \
	"A probe with several locations shows its first address followed by "  \
	"the\n"                                                                \
	"count, e.g. 0x4011d6(3); -v prints every location and its decoded\n"  \
	"arguments. PATTERN is a glob on PROVIDER:NAME (or on NAME alone).\n"  \
	"As in DTrace, '-' in a USDT name stands for the note's '__'\n"        \
	"(python:function-entry is python:function__entry).\n"                 \
	"\n"                                                                   \
	"SPEC (trace -e), one aggregation per spec:\n"                         \
	"  PROBE[..PROBE][=AGG(ARG,...)]\n"                                    \
	"  PROBE  [OBJECT:]PROVIDER:NAME     a USDT probe; * and ? globs\n"    \
	"         ...NAME@FUNCTION            its locations in FUNCTION "      \
	"alone\n"                                                              \
	"         fn:[OBJECT:]SYMBOL          a function's entry (argN: its "  \
	"arguments)\n"                                                         \
	"         fn:[OBJECT:]SYMBOL%return   its return (arg0: the return "   \
	"value)\n"                                                             \
	"         profile:HZ                  HZ CPU-clock samples a second, " \
	"per CPU,\n"                                                           \
	"                                     of the process (-p, a "          \
	"command); "                                                           \
	"no args\n"                                                            \
	"  AGG    count(KEYS)  sum(argN, KEYS)  quantize(argN, KEYS)\n"        \
	"         lquantize(argN, LOW, HIGH, STEP, KEYS)  latency(KEYS)\n"     \
	"  KEYS   argN | (int32)argN (int8..int64, uint8..uint64: argN as "    \
	"that\n"                                                               \
	"         integer) | str(argN) | str(argN, argM: length) | sql(argN: " \
	"a\n"                                                                  \
	"         statement by its shape, literals $1 $2 ...) | sym(argN: "    \
	"an\n"                                                                 \
	"         address, named by its symbol) | `SYMBOL wherever argN may "  \
	"be\n"                                                                 \
	"         (a variable of the probe's object, read as it fires; not "   \
	"at\n"                                                                 \
	"         %return) | pyframe (the thread's "                           \
	"innermost\n"                                                          \
	"         Python frame: function, file, first line) | pyline (the "    \
	"same,\n"                                                              \
	"         its current line) | pyfirstline (its function's first "      \
	"line, a\n"                                                            \
	"         number) | pystack (its Python stack, 32 frames): "           \
	"CPython\n"                                                            \
	"         3.8-3.14, with or without USDT | phpframe, phpline, "        \
	"phpstack\n"                                                           \
	"         (the same for PHP 8.0-8.4, non-ZTS, with or without USDT) "  \
	"| rbframe,\n"                                                         \
	"         rbline, rbstack (the same for Ruby 3.0-3.3, C methods in\n"  \
	"         the stack) |\n"                                              \
	"         ustack (the native user stack, 64 frames, by unwind "        \
	"tables) |\n"                                                          \
	"         kstack (the kernel stack) |\n"                               \
	"         mixstack (the native stack with each CPython eval frame\n"   \
	"         replaced by the Python frames it ran: C extensions under "   \
	"their\n"                                                              \
	"         Python callers, -p or a command) | jitframe (ustack's\n"     \
	"         innermost frame of JIT code: a JVM's by method, from\n"      \
	"         its code cache (inlined methods too) and interpreter,\n"     \
	"         Erlang's by the BEAM's JIT tables, node's JavaScript by\n"   \
	"         V8's own metadata, or a perf map's (Erlang's with\n"         \
	"         +JPperf true); else its leaf); at\n"                         \
	"         most 4 (2 strings of 63 bytes; a longer one is cut, then\n"  \
	"         ...); and allpids, not a key: with -b one row a key over\n"  \
	"         every process (PID all), not one a process\n"                \
	"  A..B=latency() times A to the matching B on the same thread "       \
	"(nesting-\n"                                                          \
	"  aware; keys read at A); fn:SYM=latency() times SYM's calls. No "    \
	"AGG\n"                                                                \
	"  means count().\n"                                                   \
	"  e.g. 'python:function__return=count(str(arg1),str(arg0),"           \
	"pyfirstline)'\n"                                                      \
	"       'fn:libc.so.6:malloc=quantize(arg0)'\n"                        \
	"       'profile:99=count(pyframe)'  "                                 \
	"'fn:libc.so.6:write=count(pystack)'\n"                                \
	"       'profile:99=count(ustack)'  "                                  \
	"'fn:libc.so.6:malloc=sum(arg0, ustack)'\n"                            \
	"       'profile:99=count(mixstack)'\n"                                \
	"\n"                                                                   \
	"Options:\n"                                                           \
	"  -p, --pid PID        a running process (and what it maps later)\n"  \
	"  -b, --binary BINARY  an ELF executable or shared library; trace: "  \
	"every\n"                                                              \
	"                       process running or mapping it, now and "       \
	"later\n"                                                              \
	"  -- COMMAND           start COMMAND, held until every probe is on "  \
	"(also\n"                                                              \
	"                       in each library it loads, and at each exec; "  \
	"a "                                                                   \
	"script\n"                                                             \
	"                       is followed to its #! interpreter); trace "    \
	"and the\n"                                                            \
	"                       console end it when they stop\n"               \
	"  -e, --spec SPEC      trace: what to aggregate (repeatable, at "     \
	"most 64)\n"                                                           \
	"  -P, --probeset SET   a probeset (python, java, postgresql, io...; " \
	"see\n"                                                                \
	"                       probetop probesets); without -P and -e, "      \
	"those\n"                                                              \
	"                       whose probes the target has; io and process\n" \
	"                       (forks, execs, exits) come from the kernel\n"  \
	"      --aggsize SIZE   kernel memory for the aggregation maps and "   \
	"IO under\n"                                                           \
	"                       way (default 128m; k, m, g, t); more CPUs, "   \
	"fewer keys\n"                                                         \
	"      --budget PCT|off what tracing may take from the targets, % of " \
	"one CPU\n"                                                            \
	"                       (default 5): above it the costliest specs "    \
	"are "                                                                 \
	"attached\n"                                                           \
	"                       part of each slot; their numbers are "         \
	"estimates within\n"                                                   \
	"                       15% (~N, \"estimated\" in JSON) or lower "     \
	"bounds where\n"                                                       \
	"                       no estimate can promise that (≥N, "          \
	"\"lower_bound\");\n"                                                  \
	"                       off: every hit counted exactly\n"              \
	"      --listen [ADDR:]PORT\n"                                         \
	"                       serve GET /metrics for Prometheus (text "      \
	"0.0.4, "                                                              \
	"or\n"                                                                 \
	"                       OpenMetrics when asked) on ADDR (default "     \
	"127.0.0.1);\n"                                                        \
	"                       PORT 0 picks a free port, said on stderr "     \
	"(the "                                                                \
	"console:\n"                                                           \
	"                       Messages); counters since attach, names in "   \
	"probetop(1)\n"                                                        \
	"  -i, --interval SECS  refresh or print every SECS (default 1, at "   \
	"least 0.01)\n"                                                        \
	"  -n, --count COUNT    trace: stop after COUNT intervals\n"           \
	"  -d, --duration SECS  detach and exit after SECS (the fail-safe)\n"  \
	"      --demo           the console on ui/demo_workload.py\n"          \
	"  -j, --json           JSON (list: one array; trace: one object per " \
	"line)\n"                                                              \
	"      --folded         trace: stack keys as folded lines "            \
	"(root;...;leaf N)\n"                                                  \
	"                       for flamegraph.pl, inferno, speedscope\n"      \
	"      --record FILE    every interval also into FILE (a new file, "   \
	"0600, never\n"                                                        \
	"                       overwritten), for probetop replay\n"           \
	"      --baseline OLD   hold each row against the recording OLD: its " \
	"rate then\n"                                                          \
	"                       (its events over OLD's seconds), the delta "   \
	"and ratio,\n"                                                         \
	"                       new and gone keys; the console's Histogram "   \
	"overlays\n"                                                           \
	"                       OLD's, Stacks colours frames that grew red, "  \
	"shrank blue\n"                                                        \
	"  -v, --verbose        list: every location, with decoded "           \
	"arguments\n"                                                          \
	"  -f, --functions      list: function symbols instead of probes\n"    \
	"  -h, --help           this text\n"                                   \
	"  -V, --version        the version\n"                                 \
	"\n"                                                                   \
	"Limits (kernel maps, sized up front): 256 specs, 16384 locations, "   \
	"65536\n"                                                              \
	"keys of count/sum and 16384 of quantize/latency per key kind as "     \
	"long as\n"                                                            \
	"--aggsize holds them (up to 2 CPUs it does; on 64 CPUs about 10000 "  \
	"and\n"                                                                \
	"735), 16384 IO calls under way, strings of 63 bytes, latency "        \
	"nesting\n"                                                            \
	"32 deep per thread, 8192 threads at once in keyed latency pairs "     \
	"(freed\n"                                                             \
	"as threads end), 4096 Python stacks of 32 frames, 8192 native "       \
	"stacks of\n"                                                          \
	"64; what does not fit is counted as drops, with the reason, never "   \
	"lost\n"                                                               \
	"silently. The other maps take about 12 MB, and 0.6 MB more per "      \
	"CPU.\n"                                                               \
	"\n"                                                                   \
	"Exit status: 0 on success (also for a process without probes, and "   \
	"when\n"                                                               \
	"a traced process exits), 1 on an error or when PATTERN matches "      \
	"nothing,\n"                                                           \
	"2 on a usage error (a bad SPEC included).\n"                          \
	"\n"                                                                   \
	"Console keys: 1-7 views, arrows/jk move, Enter drill down/zoom, Esc " \
	"back,\n"                                                              \
	"/ filter, s F6 < > sort, Space toggle a probe, a build a spec, f "    \
	"functions,\n"                                                         \
	"z zero, p pause, + - interval, b budget, c compare, L messages, ? "   \
	"F1 help,\nq quit. Stacks (7): arrows/hjkl move between frames, "      \
	"Enter zoom,\n"                                                        \
	"Esc out, / find frames, t totals/interval, Tab next stack "           \
	"aggregation;\n"                                                       \
	"S on a Top row shows its function there.\n"

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (getenv("PROBETOP_DEBUG"))
		log_set_level(LOG_DEBUG);
	if (cmd && (!strcmp(cmd, "-h") || !strcmp(cmd, "--help"))) {
		fputs(PROBETOP_USAGE, stdout);
		return 0;
	}
	if (cmd && (!strcmp(cmd, "-V") || !strcmp(cmd, "--version"))) {
		printf("probetop %s\n", PROBETOP_VERSION);
		return 0;
	}
	if (!cmd || cmd[0] == '-')
		return cmd_console(argc, argv); /* no command: the picker */
	if (!strcmp(cmd, "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "trace"))
		return cmd_trace(argc - 1, argv + 1);
	if (!strcmp(cmd, "replay"))
		return cmd_replay(argc - 1, argv + 1);
	if (!strcmp(cmd, "probesets"))
		return cmd_probesets(argc - 1, argv + 1);
	cli_error("unknown command '%s'; see probetop --help", cmd);
	return 2;
}
