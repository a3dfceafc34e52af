/* SPDX-License-Identifier: MIT */
/*
 * metrics — an agg snapshot rendered as Prometheus metrics: the text
 * exposition format 0.0.4 or OpenMetrics 1.0 text, for `--listen`
 * (export.h serves what this renders).
 *
 * Pure: no I/O, no libbpf, no session. Where a spec came from (a
 * probeset role or a bare -e) and what a pid is called (-b) come from
 * the caller's callbacks, so the unit tests render synthetic snapshots.
 *
 * Names (docs/probetop.1, "METRICS"): a probeset role's aggregation is
 * the family probetop_<probeset>_<section>_<role>, a bare spec's
 * probetop_<its probes' text>, sanitised to [a-z0-9_] (runs of other
 * bytes become one '_'); a name already taken in the same rendering
 * gets _2, _3 ... in spec id order. count() is a counter (<name>_total,
 * the total since attach), sum() a counter of the sum (<name>_total) and
 * one of its events (<name>_events_total), quantize/lquantize a
 * histogram, latency a histogram <name>_seconds. Histogram buckets are
 * the aggregation's own: a bucket holding the integers [lo, hi) has
 * le="hi-1" (exact for integers), a time bucket [lo, hi) ns has
 * le="hi" in seconds; buckets from the row's first used one to its
 * last, then +Inf. Labels: pid, command (with -b), then one per key
 * part, named by the probeset's labels or after the key (arg0..,
 * function/file/line for pyframe, stack for pystack); values are the
 * inert form of the key (inert.h: valid UTF-8, no controls) escaped as
 * the format wants (\\, \", \n). Everything is cumulative since attach.
 *
 * Per spec, labelled metric="<family>": probetop_spec_info (spec text,
 * probeset, section, role), _events_total, _drops_total{reason},
 * _unmatched_total (latency), _estimated (1: its totals hold the
 * budget's estimates), _duty_ratio, _cost_ratio, _probes, _locations.
 * Globally: probetop_probes_attached, probetop_intervals_total,
 * probetop_events_total, probetop_drops_total,
 * probetop_kernel_drops_total{reason}, overhead gauges and
 * probetop_overhead_cpu_seconds_total, the io and process probesets'
 * rows, and probetop_export_series_cut: rows left out because the
 * rendering reached max_series.
 */
#ifndef PROBETOP_METRICS_H
#define PROBETOP_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"

enum metrics_format {
	METRICS_TEXT, /* text/plain; version=0.0.4 */
	METRICS_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
};

#define METRICS_TEXT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define METRICS_OPENMETRICS_TYPE \
	"application/openmetrics-text; version=1.0.0; charset=utf-8"

/* rows rendered at most by default (every spec, io and process row
 * together; a histogram row is one) */
#define METRICS_MAX_SERIES 200000

/* Where a spec came from: a probeset role, or none (a bare spec). */
struct metrics_origin {
	const char *probeset, *section, *role; /* NULL: a bare spec */
	int nlabels;
	const char *labels[AGG_MAX_PARTS]; /* its key parts' names, in order */
};

struct metrics_src {
	const struct agg_snapshot *snap;
	/* fill *o for spec id; NULL callback: every spec is bare */
	void (*origin)(void *ctx, int id, struct metrics_origin *o);
	/* -b: what pid is called (a command label); NULL: no such label */
	const char *(*command)(void *ctx, uint32_t pid);
	void *ctx;
	size_t probes; /* attached probes */
	size_t max_series; /* 0: METRICS_MAX_SERIES */
};

/*
 * Render src in fmt: a malloc()ed NUL-terminated text the caller frees,
 * its length in *len. NULL with errno ENOMEM.
 */
char *metrics_render(const struct metrics_src *src, enum metrics_format fmt,
		     size_t *len);

/*
 * Append s to out[0..n) (at out[at], n > at) as a name part: lower-case
 * ASCII letters and digits kept, every run of other bytes one '_', none
 * leading or trailing. Returns the new end; out stays NUL-terminated.
 */
size_t metrics_name_part(char *out, size_t n, size_t at, const char *s);

/*
 * s escaped as a label value: backslash, double quote and newline as
 * \\, \" and \n, into out[0..n) (n > 0, cut before an escape that does
 * not fit). Returns the length written.
 */
size_t metrics_escape(char *out, size_t n, const char *s);

/* Whether an HTTP Accept header asks for OpenMetrics text. */
bool metrics_wants_openmetrics(const char *accept);

#endif
