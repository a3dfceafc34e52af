/* SPDX-License-Identifier: MIT */
/*
 * log — where the engine's (and libbpf's) messages go.
 *
 * The engine never writes to stderr itself: in `list`/`trace` modes the
 * ui installs a sink that prints "probetop: MSG" on stderr; while curses is
 * up it installs one that keeps messages in memory for the status line and
 * the log view. Without a sink, messages go to stderr.
 */
#ifndef PROBETOP_LOG_H
#define PROBETOP_LOG_H

enum log_level {
	LOG_ERROR,
	LOG_WARN,
	LOG_INFO,
	LOG_DEBUG,
};

typedef void (*log_sink_fn)(enum log_level level, const char *msg, void *ctx);

/* Route messages to fn (NULL restores the stderr default). */
void log_set_sink(log_sink_fn fn, void *ctx);

/* Messages above this level are dropped (default LOG_INFO). */
void log_set_level(enum log_level max);

/* Format one message (no trailing newline) and hand it to the sink,
 * inert (engine/name/inert.h): it may quote a target's names. */
void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
