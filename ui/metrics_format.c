// SPDX-License-Identifier: MIT
/*
 * metrics_format — how a rendering is written in the format asked for
 * (c->om): the growing output buffer, a family's # HELP and # TYPE (where
 * the two formats differ), a sample after the current series' labels, a
 * histogram's buckets, seconds written exactly; and metrics.h's
 * metrics_escape() and metrics_wants_openmetrics(). Called by metrics.c;
 * calls no other metrics file.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inert.h"
#include "metrics_impl.h"

/* The output buffer ------------------------------------------------------ */

static bool grow(struct out *o, size_t more)
{
	size_t cap = o->cap ? o->cap : 4096;
	char *p;

	if (o->oom)
		return false;
	if (o->len + more + 1 <= o->cap)
		return true;
	while (cap < o->len + more + 1)
		cap *= 2;
	p = realloc(o->p, cap);
	if (!p) {
		o->oom = true;
		return false;
	}
	o->p = p;
	o->cap = cap;
	return true;
}

static void put(struct out *o, const char *s, size_t n)
{
	if (!grow(o, n))
		return;
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
}

void metrics_puts(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void putf(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void putf(struct out *o, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(buf)) {
		put(o, buf, (size_t)n);
		return;
	}
	if (!grow(o, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(o->p + o->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->len += (size_t)n;
}

/* v in decimal, written backwards ending at end (which gets the NUL);
 * returns its first digit. end needs 20 bytes before it. */
static char *u64_text(char *end, uint64_t v)
{
	*end = '\0';
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* Pure helpers ----------------------------------------------------------- */

static const char *escape_of(char ch)
{
	switch (ch) {
	case '\\':
		return "\\\\";
	case '"':
		return "\\\"";
	case '\n':
		return "\\n";
	default:
		return NULL;
	}
}

size_t metrics_escape(char *out, size_t n, const char *s)
{
	size_t at = 0;

	for (; *s; s++) {
		const char *e = escape_of(*s);
		size_t k = e ? 2 : 1;

		if (at + k + 1 > n)
			break;
		if (e)
			memcpy(out + at, e, 2);
		else
			out[at] = *s;
		at += k;
	}
	out[at] = '\0';
	return at;
}

bool metrics_wants_openmetrics(const char *accept)
{
	return accept && strstr(accept, "application/openmetrics-text");
}

/* The rendering ---------------------------------------------------------- */

/* Escape s for a HELP line: \\ and \n, and \" in OpenMetrics. */
static void put_help_text(struct ctx *c, const char *s)
{
	for (; *s; s++) {
		const char *e = escape_of(*s);

		if (e && (*s != '"' || c->om))
			put(&c->o, e, 2);
		else
			put(&c->o, s, 1);
	}
}

/* The inert form of raw, in c->scratch (valid until the next call). */
static const char *inert_of(struct ctx *c, const char *raw)
{
	size_t need = strlen(raw) * INERT_MAX_PER_BYTE + 1;

	if (need > c->scratch_cap) {
		char *p = realloc(c->scratch, need);

		if (!p) {
			c->o.oom = true;
			return "";
		}
		c->scratch = p;
		c->scratch_cap = need;
	}
	inert_str(c->scratch, need, raw);
	return c->scratch;
}

/* Whether s is printable ASCII without a quote or a backslash: its own
 * inert and escaped form. */
static bool plain(const char *s, size_t *len)
{
	const char *p = s;

	for (; *p; p++)
		if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\')
			return false;
	*len = (size_t)(p - s);
	return true;
}

/* name="value" (value made inert, then escaped) after the labels so far */
void metrics_label(struct ctx *c, const char *name, const char *raw)
{
	const char *v, *run;
	size_t len;

	if (c->lbl.len)
		put(&c->lbl, ",", 1);
	metrics_puts(&c->lbl, name);
	put(&c->lbl, "=\"", 2);
	if (plain(raw, &len)) {
		put(&c->lbl, raw, len);
		put(&c->lbl, "\"", 1);
		return;
	}
	v = inert_of(c, raw);
	for (run = v; *v; v++) {
		const char *e = escape_of(*v);

		if (!e)
			continue;
		put(&c->lbl, run, (size_t)(v - run));
		put(&c->lbl, e, 2);
		run = v + 1;
	}
	put(&c->lbl, run, (size_t)(v - run));
	put(&c->lbl, "\"", 1);
}

void metrics_label_u64(struct ctx *c, const char *name, uint64_t v)
{
	char buf[24];
	const char *t = u64_text(buf + sizeof(buf) - 1, v);

	if (c->lbl.len)
		put(&c->lbl, ",", 1);
	metrics_puts(&c->lbl, name);
	put(&c->lbl, "=\"", 2);
	metrics_puts(&c->lbl, t);
	put(&c->lbl, "\"", 1);
}

void metrics_labels_clear(struct ctx *c)
{
	c->lbl.len = 0;
	if (c->lbl.p)
		c->lbl.p[0] = '\0';
}

/* # HELP and # TYPE of a family (help: a fixed text, then more, both
 * escaped; more may be NULL) */
void metrics_family(struct ctx *c, const char *name, enum kind k,
		    const char *help, const char *more)
{
	static const char *const TYPES[] = { "counter", "gauge", "histogram",
					     "info" };
	const char *suffix = "";
	const char *type = TYPES[k];

	if (k == KIND_COUNTER && !c->om)
		suffix = "_total";
	if (k == KIND_INFO && !c->om) {
		suffix = "_info";
		type = "gauge";
	}
	putf(&c->o, "# HELP %s%s ", name, suffix);
	put_help_text(c, help);
	if (more)
		put_help_text(c, more);
	putf(&c->o, "\n# TYPE %s%s %s\n", name, suffix, type);
}

/* NAME[SUFFIX][{labels[,extra]}] VALUE */
void metrics_sample(struct ctx *c, const char *name, const char *suffix,
		    const char *extra, const char *value)
{
	metrics_puts(&c->o, name);
	metrics_puts(&c->o, suffix);
	if (c->lbl.len || extra) {
		put(&c->o, "{", 1);
		if (c->lbl.len)
			put(&c->o, c->lbl.p, c->lbl.len);
		if (c->lbl.len && extra)
			put(&c->o, ",", 1);
		if (extra)
			metrics_puts(&c->o, extra);
		put(&c->o, "}", 1);
	}
	put(&c->o, " ", 1);
	metrics_puts(&c->o, value);
	put(&c->o, "\n", 1);
}

void metrics_sample_u64(struct ctx *c, const char *name, const char *suffix,
			uint64_t v)
{
	char buf[24];

	metrics_sample(c, name, suffix, NULL,
		       u64_text(buf + sizeof(buf) - 1, v));
}

void metrics_sample_i64(struct ctx *c, const char *name, const char *suffix,
			int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	metrics_sample(c, name, suffix, NULL, buf);
}

void metrics_sample_f(struct ctx *c, const char *name, const char *suffix,
		      double v)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%.9g", v);
	metrics_sample(c, name, suffix, NULL, buf);
}

/* ns as seconds, exactly: "0.000001024", "3", "-0.5" */
void metrics_seconds_text(char *buf, size_t n, uint64_t ns, bool neg)
{
	int len = snprintf(buf, n, "%s%" PRIu64 ".%09" PRIu64, neg ? "-" : "",
			   ns / 1000000000u, ns % 1000000000u);

	while (len > 0 && buf[len - 1] == '0')
		buf[--len] = '\0';
	if (len > 0 && buf[len - 1] == '.')
		buf[--len] = '\0';
}

void metrics_signed_seconds_text(char *buf, size_t n, int64_t ns)
{
	metrics_seconds_text(buf, n,
			     ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns,
			     ns < 0);
}

/* _bucket from the first used bucket to the last, +Inf, _sum, _count */
void metrics_histogram_row(struct ctx *c, const char *name, const uint64_t *b,
			   int n, const le_table les, const char *sum)
{
	int first = -1, last = -1;
	uint64_t cum = 0;
	char buf[24];
	const char *t;

	for (int i = 0; i < n; i++)
		if (b[i]) {
			if (first < 0)
				first = i;
			last = i;
		}
	for (int i = first; first >= 0 && i <= last && i < n - 1; i++) {
		cum += b[i];
		metrics_sample(c, name, "_bucket", les[i],
			       u64_text(buf + sizeof(buf) - 1, cum));
	}
	if (last == n - 1)
		cum += b[n - 1];
	t = u64_text(buf + sizeof(buf) - 1, cum);
	metrics_sample(c, name, "_bucket", "le=\"+Inf\"", t);
	metrics_sample(c, name, "_sum", NULL, sum);
	metrics_sample(c, name, "_count", NULL, t);
}
