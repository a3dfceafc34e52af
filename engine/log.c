// SPDX-License-Identifier: MIT
/* log — message sink for the engine; see log.h. */
#include "log.h"

#include "inert.h"

#include <stdarg.h>
#include <stdio.h>

static log_sink_fn sink;
static void *sink_ctx;
static enum log_level max_level = LOG_INFO;

void log_set_sink(log_sink_fn fn, void *ctx)
{
	sink = fn;
	sink_ctx = ctx;
}

void log_set_level(enum log_level max)
{
	max_level = max;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	char raw[512], msg[INERT_MAX_PER_BYTE * sizeof(raw)];
	va_list ap;

	if (level > max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	inert_str(msg, sizeof(msg), raw);
	if (sink)
		sink(level, msg, sink_ctx);
	else
		fprintf(stderr, "probetop: %s\n", msg);
}
