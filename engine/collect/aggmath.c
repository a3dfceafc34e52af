// SPDX-License-Identifier: MIT
/*
 * aggmath — the pure parts of agg.h: IO class and process event names,
 * histogram bucket arithmetic. Kept apart from agg.c so that the views, which must not
 * link libbpf, can use them.
 */
#include "agg.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const IO_NAMES[PT_IO_NCLASSES] = {
	[PT_IO_READ] = "read",
	[PT_IO_WRITE] = "write",
	[PT_IO_PREAD] = "pread",
	[PT_IO_PWRITE] = "pwrite",
	[PT_IO_READV] = "readv",
	[PT_IO_WRITEV] = "writev",
	[PT_IO_RECV] = "recv",
	[PT_IO_SEND] = "send",
	[PT_IO_FSYNC] = "fsync",
	[PT_IO_FDATASYNC] = "fdatasync",
	[PT_IO_OPEN] = "open",
	[PT_IO_CLOSE] = "close",
	[PT_IO_BLOCK_READ] = "block-read",
	[PT_IO_BLOCK_WRITE] = "block-write",
};

const char *agg_io_class_name(int cls)
{
	return cls >= 0 && cls < PT_IO_NCLASSES ? IO_NAMES[cls] : "?";
}

static const char *const PROC_NAMES[PT_PROC_NEVENTS] = {
	[PT_PROC_FORK] = "fork",
	[PT_PROC_THREAD] = "thread",
	[PT_PROC_EXEC] = "exec",
	[PT_PROC_EXIT] = "exit",
	[PT_PROC_THREAD_EXIT] = "thread-exit",
	[PT_PROC_LOST] = "lost",
};

const char *agg_proc_event_name(int event)
{
	return event >= 0 && event < PT_PROC_NEVENTS ? PROC_NAMES[event] : "?";
}

static const char *const DROP_NAMES[AGG_NDROPS] = {
	[AGG_DROP_FULL] = "map_full",
	[AGG_DROP_STR] = "string",
	[AGG_DROP_DEEP] = "depth",
};

const char *agg_drop_name(const struct spec *sp, int reason)
{
	static const char *const FRAMES[] = {
		[SPEC_FRAMES_PYTHON] = "python",
		[SPEC_FRAMES_PHP] = "php",
		[SPEC_FRAMES_RUBY] = "ruby",
	};

	if (reason == AGG_DROP_FRAME)
		return FRAMES[spec_frames_of(sp)];
	return reason >= 0 && reason < AGG_NDROPS ? DROP_NAMES[reason] : "?";
}

/* Histogram helpers --------------------------------------------------- */

int agg_nbuckets(const struct spec *spec)
{
	if (spec->agg == SPEC_AGG_LQUANTIZE)
		return 2 + spec->lq_nsteps;
	return PT_NBUCKETS;
}

int64_t agg_bucket_low(const struct spec *spec, const struct agg_row *row,
		       int i)
{
	if (spec->agg == SPEC_AGG_LQUANTIZE) {
		if (i == 0)
			return row->min < spec->lq_low ? row->min
						       : spec->lq_low;
		return spec->lq_low + (int64_t)(i - 1) * spec->lq_step;
	}
	if (i == 0)
		return row->min < 0 ? row->min : -1;
	if (i == 1)
		return 0;
	return (int64_t)((uint64_t)1 << (i - 2));
}

int agg_percentile_bucket(const uint64_t *b, int n, double p)
{
	uint64_t total = 0, want, run = 0;

	for (int i = 0; i < n; i++)
		total += b[i];
	if (!total)
		return -1;
	want = (uint64_t)((double)total * p / 100.0 + 0.999999);
	if (want < 1)
		want = 1;
	for (int i = 0; i < n; i++) {
		run += b[i];
		if (run >= want)
			return i;
	}
	return n - 1;
}

const char *agg_key_text(const struct agg_key_part *k)
{
	return k->text ? k->text : k->str;
}

/* Bytes at the end of s[0..len) that begin a UTF-8 character they do not
 * finish: a lead byte and fewer continuation bytes than it announces. */
static size_t split_tail(const char *s, size_t len)
{
	for (size_t back = 1; back <= 3 && back <= len; back++) {
		unsigned char c = (unsigned char)s[len - back];

		if ((c & 0xc0) == 0x80)
			continue; /* a continuation byte: look further back */
		if (c >= 0xc0) {
			size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;

			return need > back ? back : 0;
		}
		return 0;
	}
	return 0;
}

void agg_str_key(char *out, size_t n, const char *raw)
{
	size_t len = strnlen(raw, PT_STR_LEN - 1);
	bool cut = len == PT_STR_LEN - 1 && raw[PT_STR_LEN - 1] == PT_STR_CUT;

	if (cut)
		len -= split_tail(raw, len);
	snprintf(out, n, "%.*s%s", (int)len, raw, cut ? AGG_STR_CUT : "");
}

enum agg_mark agg_mark_of(double est, double sys, double var)
{
	if (var <= 0 && sys <= 0)
		return AGG_EXACT;
	if (isfinite(var) && isfinite(sys) && est > 0 &&
	    sys + AGG_SIGMAS * sqrt(var) <= AGG_PROMISE * est)
		return AGG_ESTIMATE;
	return AGG_BOUND;
}

bool agg_over_budget(const struct agg_overhead *o, double pct)
{
	return pct >= 0 && o->cpu_pct - o->kernel_pct > AGG_OVER * pct;
}

const char *agg_mark_sign(unsigned char m, bool utf8)
{
	if (m == AGG_ESTIMATE)
		return "~";
	if (m == AGG_BOUND)
		return utf8 ? "\u2265" : ">";
	return "";
}

const char *agg_pid_text(uint32_t pid, char *buf, size_t n)
{
	if (pid)
		snprintf(buf, n, "%" PRIu32, pid);
	else
		snprintf(buf, n, "all");
	return buf;
}

bool agg_proc_event_ends(int event)
{
	return event == PT_PROC_EXIT || event == PT_PROC_THREAD_EXIT;
}
