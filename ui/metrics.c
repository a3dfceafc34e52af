// SPDX-License-Identifier: MIT
/*
 * metrics — Prometheus text and OpenMetrics renderings of a snapshot;
 * see metrics.h for the names.
 *
 * The two formats differ in little: a counter's TYPE and HELP name the
 * family (OpenMetrics) or its _total sample (0.0.4), OpenMetrics escapes
 * '"' in HELP, calls the spec's description an info metric and ends with
 * "# EOF". Everything is written into one growing buffer; a key part is
 * made inert (valid UTF-8, no controls) before it is escaped.
 */
#include "metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inert.h"
#include "spec.h"

#define NAME_MAX_LEN 160
#define LABEL_MAX_LEN 48

/* The output buffer ------------------------------------------------------ */

struct out {
	char *p;
	size_t len, cap;
	bool oom;
};

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

static void puts_(struct out *o, const char *s)
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

size_t metrics_name_part(char *out, size_t n, size_t at, const char *s)
{
	bool gap = false;
	size_t start = at;

	for (; *s && at + 1 < n; s++) {
		char ch = *s;

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
			if (gap && at > start && at + 2 < n)
				out[at++] = '_';
			gap = false;
			out[at++] = ch;
		} else {
			gap = true;
		}
	}
	out[at] = '\0';
	return at;
}

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

struct spec_names {
	char family[NAME_MAX_LEN];
	int nlabels; /* = the rows' key parts */
	char labels[AGG_MAX_PARTS][LABEL_MAX_LEN];
	struct metrics_origin origin;
};

struct ctx {
	const struct metrics_src *src;
	const struct agg_snapshot *snap;
	bool om;
	struct out o;
	struct out lbl; /* the current row's labels */
	char *scratch; /* inert forms */
	size_t scratch_cap;
	struct spec_names *names; /* by index in snap->specs */
	char (*les)[40]; /* the current histogram family's le labels */
	size_t rows, max_rows, cut;
};

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
static void label(struct ctx *c, const char *name, const char *raw)
{
	const char *v, *run;
	size_t len;

	if (c->lbl.len)
		put(&c->lbl, ",", 1);
	puts_(&c->lbl, name);
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

static void label_u64(struct ctx *c, const char *name, uint64_t v)
{
	char buf[24];
	const char *t = u64_text(buf + sizeof(buf) - 1, v);

	if (c->lbl.len)
		put(&c->lbl, ",", 1);
	puts_(&c->lbl, name);
	put(&c->lbl, "=\"", 2);
	puts_(&c->lbl, t);
	put(&c->lbl, "\"", 1);
}

static void labels_clear(struct ctx *c)
{
	c->lbl.len = 0;
	if (c->lbl.p)
		c->lbl.p[0] = '\0';
}

enum kind {
	KIND_COUNTER,
	KIND_GAUGE,
	KIND_HISTOGRAM,
	KIND_INFO
};

/* # HELP and # TYPE of a family (help: a fixed text, then more, both
 * escaped; more may be NULL) */
static void family(struct ctx *c, const char *name, enum kind k,
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
static void sample(struct ctx *c, const char *name, const char *suffix,
		   const char *extra, const char *value)
{
	puts_(&c->o, name);
	puts_(&c->o, suffix);
	if (c->lbl.len || extra) {
		put(&c->o, "{", 1);
		if (c->lbl.len)
			put(&c->o, c->lbl.p, c->lbl.len);
		if (c->lbl.len && extra)
			put(&c->o, ",", 1);
		if (extra)
			puts_(&c->o, extra);
		put(&c->o, "}", 1);
	}
	put(&c->o, " ", 1);
	puts_(&c->o, value);
	put(&c->o, "\n", 1);
}

static void sample_u64(struct ctx *c, const char *name, const char *suffix,
		       uint64_t v)
{
	char buf[24];

	sample(c, name, suffix, NULL, u64_text(buf + sizeof(buf) - 1, v));
}

static void sample_i64(struct ctx *c, const char *name, const char *suffix,
		       int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	sample(c, name, suffix, NULL, buf);
}

static void sample_f(struct ctx *c, const char *name, const char *suffix,
		     double v)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%.9g", v);
	sample(c, name, suffix, NULL, buf);
}

/* ns as seconds, exactly: "0.000001024", "3", "-0.5" */
static void seconds_text(char *buf, size_t n, uint64_t ns, bool neg)
{
	int len = snprintf(buf, n, "%s%" PRIu64 ".%09" PRIu64, neg ? "-" : "",
			   ns / 1000000000u, ns % 1000000000u);

	while (len > 0 && buf[len - 1] == '0')
		buf[--len] = '\0';
	if (len > 0 && buf[len - 1] == '.')
		buf[--len] = '\0';
}

static void signed_seconds_text(char *buf, size_t n, int64_t ns)
{
	seconds_text(buf, n, ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns,
		     ns < 0);
}

/* A histogram's le labels: le="..." of each bucket but the last (+Inf) */
#define LE_MAX                                             \
	(PT_NBUCKETS > SPEC_LQ_MAX_STEPS + 2 ? PT_NBUCKETS \
					     : SPEC_LQ_MAX_STEPS + 2)
typedef char le_table[LE_MAX][40];

/* _bucket from the first used bucket to the last, +Inf, _sum, _count */
static void histogram_row(struct ctx *c, const char *name, const uint64_t *b,
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
		sample(c, name, "_bucket", les[i],
		       u64_text(buf + sizeof(buf) - 1, cum));
	}
	if (last == n - 1)
		cum += b[n - 1];
	t = u64_text(buf + sizeof(buf) - 1, cum);
	sample(c, name, "_bucket", "le=\"+Inf\"", t);
	sample(c, name, "_sum", NULL, sum);
	sample(c, name, "_count", NULL, t);
}

/* Spec names ------------------------------------------------------------- */

/* Families probetop names itself: a spec's name never takes one. */
static const char *const RESERVED[] = {
	"probetop_spec",
	"probetop_spec_events",
	"probetop_spec_drops",
	"probetop_spec_unmatched",
	"probetop_spec_estimated",
	"probetop_lower_bound",
	"probetop_spec_events_lower_bound",
	"probetop_spec_duty_ratio",
	"probetop_spec_cost_ratio",
	"probetop_spec_probes",
	"probetop_spec_locations",
	"probetop_probes_attached",
	"probetop_intervals",
	"probetop_events",
	"probetop_drops",
	"probetop_kernel_drops",
	"probetop_overhead_cpu_ratio",
	"probetop_overhead_target_ratio",
	"probetop_overhead_cpu_seconds",
	"probetop_self_cpu_ratio",
	"probetop_budget_cpu_ratio",
	"probetop_export_series_cut",
	"probetop_io_calls",
	"probetop_io_errors",
	"probetop_io_bytes",
	"probetop_io_latency_seconds",
	"probetop_process_events",
	"probetop_process_lifetime_seconds",
};

static bool taken(const struct ctx *c, size_t upto, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof(RESERVED) / sizeof(RESERVED[0]); i++)
		if (!strcmp(RESERVED[i], name))
			return true;
	for (size_t i = 0; i < upto; i++) {
		const char *f = c->names[i].family;

		/* a sum's second family is <name>_events */
		if (!strcmp(f, name) ||
		    (!strncmp(f, name, len) && !strcmp(f + len, "_events")) ||
		    (!strncmp(name, f, strlen(f)) &&
		     !strcmp(name + strlen(f), "_events")))
			return true;
	}
	return false;
}

/* The family stem of a spec: its role's names, or its probes' text. */
static void stem(const struct agg_spec *as, const struct metrics_origin *o,
		 char *out, size_t n)
{
	size_t at = (size_t)snprintf(out, n, "probetop");
	char probe[SPEC_NAME_MAX * 3];

	if (o->probeset) {
		const char *parts[3] = { o->probeset, o->section, o->role };

		for (int i = 0; i < 3; i++) {
			size_t was = at;

			if (!parts[i] || at + 2 >= n)
				continue;
			out[at++] = '_';
			at = metrics_name_part(out, n, at, parts[i]);
			if (at == was + 1)
				out[--at] = '\0';
		}
		return;
	}
	for (int i = 0; i < as->spec->nprobes && at + 2 < n; i++) {
		size_t was = at;

		spec_probe_text(&as->spec->probe[i], probe, sizeof(probe));
		out[at++] = '_';
		at = metrics_name_part(out, n, at, probe);
		if (at == was + 1)
			out[--at] = '\0';
	}
}

/* The default name of each key part: argN, or what a Python key shows. */
static int default_labels(const struct spec *sp, char names[][LABEL_MAX_LEN],
			  int max)
{
	static const char *const PYFRAME[] = { "function", "file", "line" };
	int n = 0;

	for (int k = 0; k < sp->nkeys && n < max; k++) {
		const struct spec_key *key = &sp->keys[k];

		if (key->kind == SPEC_KEY_PYFRAME)
			for (int j = 0; j < 3 && n < max; j++)
				snprintf(names[n++], LABEL_MAX_LEN, "%s",
					 PYFRAME[j]);
		else if (key->kind == SPEC_KEY_PYSTACK)
			snprintf(names[n++], LABEL_MAX_LEN, "stack");
		else
			snprintf(names[n++], LABEL_MAX_LEN, "arg%d", key->arg);
	}
	return n;
}

static bool label_taken(char names[][LABEL_MAX_LEN], int upto, const char *name)
{
	static const char *const FIXED[] = { "pid", "command", "le" };

	for (size_t i = 0; i < sizeof(FIXED) / sizeof(FIXED[0]); i++)
		if (!strcmp(FIXED[i], name))
			return true;
	for (int i = 0; i < upto; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* Each key part's label name: the probeset's, else after the key;
 * sanitised, and made unique ("_N": its position) */
static void name_labels(struct spec_names *sn, const struct spec *sp)
{
	char def[AGG_MAX_PARTS][LABEL_MAX_LEN];
	int ndef = default_labels(sp, def, AGG_MAX_PARTS);

	sn->nlabels = ndef;
	for (int i = 0; i < ndef; i++) {
		char *l = sn->labels[i];
		size_t at = 0;

		l[0] = '\0';
		if (i < sn->origin.nlabels && sn->origin.labels[i])
			at = metrics_name_part(l, LABEL_MAX_LEN, 0,
					       sn->origin.labels[i]);
		if (!at)
			at = metrics_name_part(l, LABEL_MAX_LEN, 0, def[i]);
		if (l[0] >= '0' && l[0] <= '9') { /* "key_" in front */
			char was[LABEL_MAX_LEN];

			memcpy(was, l, sizeof(was));
			memcpy(l, "key_", 4);
			memcpy(l + 4, was, LABEL_MAX_LEN - 5);
			l[LABEL_MAX_LEN - 1] = '\0';
		}
		if (label_taken(sn->labels, i, l)) {
			size_t len = strlen(l);

			if (len > LABEL_MAX_LEN - 8)
				len = LABEL_MAX_LEN - 8;
			snprintf(l + len, LABEL_MAX_LEN - len, "_%d", i);
		}
	}
}

static int name_specs(struct ctx *c)
{
	const struct agg_snapshot *snap = c->snap;

	c->names = calloc(snap->nspecs ? snap->nspecs : 1, sizeof(*c->names));
	if (!c->names)
		return -ENOMEM;
	for (size_t i = 0; i < snap->nspecs; i++) {
		const struct agg_spec *as = &snap->specs[i];
		struct spec_names *sn = &c->names[i];
		const char *unit = as->spec->timed ? "_seconds" : "";
		char base[NAME_MAX_LEN - 24];

		if (c->src->origin)
			c->src->origin(c->src->ctx, as->id, &sn->origin);
		stem(as, &sn->origin, base, sizeof(base));
		snprintf(sn->family, sizeof(sn->family), "%s%s", base, unit);
		for (int k = 2; taken(c, i, sn->family); k++)
			snprintf(sn->family, sizeof(sn->family), "%s_%d%s",
				 base, k, unit);
		name_labels(sn, as->spec);
	}
	return 0;
}

/* Spec rows -------------------------------------------------------------- */

/* pid, command (-b) and the key parts of r */
static void row_labels(struct ctx *c, const struct spec_names *sn,
		       const struct agg_row *r)
{
	char num[32];

	labels_clear(c);
	label_u64(c, "pid", r->pid);
	if (c->src->command)
		label(c, "command", c->src->command(c->src->ctx, r->pid));
	for (int i = 0; i < r->nkeys && i < sn->nlabels; i++) {
		const struct agg_key_part *k = &r->key[i];

		if (k->is_str) {
			label(c, sn->labels[i], agg_key_text(k));
			continue;
		}
		if (k->is_signed)
			snprintf(num, sizeof(num), "%" PRId64, k->num);
		else
			snprintf(num, sizeof(num), "%" PRIu64,
				 (uint64_t)k->num);
		label(c, sn->labels[i], num);
	}
}

/* Whether row r is rendered: it has counted, and the bound allows. */
static bool row_fits(struct ctx *c, const struct agg_row *r)
{
	if (!r->total)
		return false;
	if (c->rows >= c->max_rows) {
		c->cut++;
		return false;
	}
	c->rows++;
	return true;
}

/* The le labels of sp's buckets: a bucket [lo, hi) has le = hi - 1 for
 * integers, hi ns in seconds for times (hi does not depend on the row
 * but for the first bucket's low, which no le uses) */
static void spec_les(const struct spec *sp, le_table les)
{
	struct agg_row any = { 0 };
	int n = agg_nbuckets(sp);
	char buf[32];

	for (int i = 0; i + 1 < n && i < LE_MAX; i++) {
		int64_t hi = agg_bucket_low(sp, &any, i + 1);

		if (sp->timed) /* log2 ns: its lows are 0 and 2^k, unsigned */
			seconds_text(buf, sizeof(buf), (uint64_t)hi, false);
		else /* the top bucket's low is 2^63: its le is INT64_MAX */
			snprintf(buf, sizeof(buf), "%" PRId64,
				 hi == INT64_MIN ? INT64_MAX : hi - 1);
		snprintf(les[i], sizeof(les[i]), "le=\"%s\"", buf);
	}
}

/* log2 ns buckets: [2^(i-2), 2^(i-1)) for i >= 2, 0 at 1 */
static void log2_ns_les(le_table les)
{
	char buf[32];

	for (int i = 0; i + 1 < PT_NBUCKETS; i++) {
		seconds_text(buf, sizeof(buf),
			     i == 0 ? 0 : (uint64_t)1 << (i - 1), false);
		snprintf(les[i], sizeof(les[i]), "le=\"%s\"", buf);
	}
}

/* "SPEC (probeset P, [S] R)" or "-e SPEC" for a family's HELP */
static void spec_help(const struct spec_names *sn, const struct agg_spec *as,
		      const char *what, char *out, size_t n)
{
	char text[INERT_MAX_PER_BYTE * SPEC_TEXT_MAX];

	inert_str(text, sizeof(text), as->spec->text);
	if (sn->origin.probeset)
		snprintf(out, n, "%s%s (probeset %s, [%s] %s)%s", what, text,
			 sn->origin.probeset,
			 sn->origin.section ? sn->origin.section : "",
			 sn->origin.role ? sn->origin.role : "",
			 as->estimated_total
				 ? "; estimates, see probetop_spec_estimated"
				 : "");
	else
		snprintf(out, n, "%sspec %s%s", what, text,
			 as->estimated_total
				 ? "; estimates, see probetop_spec_estimated"
				 : "");
}

static void spec_rows(struct ctx *c, size_t idx)
{
	const struct agg_spec *as = &c->snap->specs[idx];
	const struct spec_names *sn = &c->names[idx];
	const struct spec *sp = as->spec;
	char help[INERT_MAX_PER_BYTE * SPEC_TEXT_MAX + 256];
	char buf[NAME_MAX_LEN + 16];
	size_t first_row = c->rows;

	if (spec_has_buckets(sp)) {
		spec_help(sn, as,
			  sp->timed ? "Time in seconds, " : "Values of ", help,
			  sizeof(help));
		family(c, sn->family, KIND_HISTOGRAM, help, NULL);
		spec_les(sp, c->les);
		for (size_t i = 0; i < as->nrows; i++) {
			const struct agg_row *r = as->rows[i];

			if (!row_fits(c, r))
				continue;
			row_labels(c, sn, r);
			if (sp->timed)
				signed_seconds_text(buf, sizeof(buf),
						    r->sum_total);
			else
				snprintf(buf, sizeof(buf), "%" PRId64,
					 r->sum_total);
			histogram_row(c, sn->family, r->b_total,
				      agg_nbuckets(sp), c->les, buf);
		}
		return;
	}
	spec_help(sn, as, sp->agg == SPEC_AGG_SUM ? "Sum of " : "Count of ",
		  help, sizeof(help));
	family(c, sn->family, KIND_COUNTER, help, NULL);
	for (size_t i = 0; i < as->nrows; i++) {
		const struct agg_row *r = as->rows[i];

		if (!row_fits(c, r))
			continue;
		row_labels(c, sn, r);
		if (sp->agg == SPEC_AGG_SUM)
			sample_i64(c, sn->family, "_total", r->sum_total);
		else
			sample_u64(c, sn->family, "_total", r->total);
	}
	if (sp->agg != SPEC_AGG_SUM)
		return;
	snprintf(buf, sizeof(buf), "%s_events", sn->family);
	spec_help(sn, as, "Events summed by ", help, sizeof(help));
	family(c, buf, KIND_COUNTER, help, NULL);
	c->rows = first_row; /* the same rows again */
	for (size_t i = 0; i < as->nrows; i++) {
		const struct agg_row *r = as->rows[i];

		if (!r->total || c->rows >= c->max_rows)
			continue;
		c->rows++;
		row_labels(c, sn, r);
		sample_u64(c, buf, "_total", r->total);
	}
}

/* Per-spec metrics, labelled metric="<family>" ---------------------------- */

/* probetop_lower_bound: 1 for each series whose value is a lower bound,
 * not an estimate (agg.h), with its family as label metric and its own
 * labels; none when every value is exact or an estimate. */
static void lower_bounds(struct ctx *c)
{
	bool any = false;

	for (size_t i = 0; i < c->snap->nspecs; i++) {
		const struct agg_spec *as = &c->snap->specs[i];

		for (size_t r = 0; r < as->nrows; r++) {
			const struct agg_row *row = as->rows[r];

			if (!row->total || row->mark_total != AGG_BOUND)
				continue;
			if (!any)
				family(c, "probetop_lower_bound", KIND_GAUGE,
				       "1 for each series that is a lower "
				       "bound: "
				       "no estimate could promise 15% (label "
				       "metric: its family)",
				       NULL);
			any = true;
			row_labels(c, &c->names[i], row);
			label(c, "metric", c->names[i].family);
			sample(c, "probetop_lower_bound", "", NULL, "1");
		}
	}
}

static void spec_label(struct ctx *c, size_t idx)
{
	labels_clear(c);
	label(c, "metric", c->names[idx].family);
}

static void spec_meta(struct ctx *c)
{
	const struct agg_snapshot *snap = c->snap;

	if (!snap->nspecs)
		return;
	family(c, "probetop_spec", KIND_INFO,
	       "Each aggregation's metric family and its spec", NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		const struct spec_names *sn = &c->names[i];

		spec_label(c, i);
		label(c, "spec", snap->specs[i].spec->text);
		if (sn->origin.probeset) {
			label(c, "probeset", sn->origin.probeset);
			label(c, "section",
			      sn->origin.section ? sn->origin.section : "");
			label(c, "role",
			      sn->origin.role ? sn->origin.role : "");
		}
		sample(c, "probetop_spec", "_info", NULL, "1");
	}
	family(c, "probetop_spec_events", KIND_COUNTER,
	       "Events of the aggregation since attach, recorded or dropped",
	       NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		spec_label(c, i);
		sample_u64(c, "probetop_spec_events", "_total",
			   snap->specs[i].events_total);
	}
	family(c, "probetop_spec_drops", KIND_COUNTER,
	       "Events the aggregation dropped since attach, by reason", NULL);
	for (size_t i = 0; i < snap->nspecs; i++)
		for (int r = 0; r < AGG_NDROPS; r++) {
			spec_label(c, i);
			label(c, "reason", agg_drop_name(r));
			sample_u64(c, "probetop_spec_drops", "_total",
				   snap->specs[i].why_total[r]);
		}
	family(c, "probetop_spec_unmatched", KIND_COUNTER,
	       "Ends of a latency pair without their start, since attach",
	       NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		if (!snap->specs[i].spec->timed)
			continue;
		spec_label(c, i);
		sample_u64(c, "probetop_spec_unmatched", "_total",
			   snap->specs[i].unmatched_total);
	}
	family(c, "probetop_spec_estimated", KIND_GAUGE,
	       "1 if the budget sampled the aggregation: its totals hold "
	       "estimates (within 15%) or lower bounds",
	       NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		spec_label(c, i);
		sample_u64(c, "probetop_spec_estimated", "",
			   snap->specs[i].estimated_total);
	}
	family(c, "probetop_spec_events_lower_bound", KIND_GAUGE,
	       "1 if the aggregation's probetop_spec_events_total is a lower "
	       "bound: no estimate could promise 15%",
	       NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		spec_label(c, i);
		sample_u64(c, "probetop_spec_events_lower_bound", "",
			   snap->specs[i].events_mark_total == AGG_BOUND);
	}
	family(c, "probetop_spec_duty_ratio", KIND_GAUGE,
	       "Share of the last interval the aggregation was attached", NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		spec_label(c, i);
		sample_f(c, "probetop_spec_duty_ratio", "",
			 snap->specs[i].duty);
	}
	family(c, "probetop_spec_cost_ratio", KIND_GAUGE,
	       "CPU the aggregation's probes took from the targets over the "
	       "last interval, in CPUs",
	       NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		spec_label(c, i);
		sample_f(c, "probetop_spec_cost_ratio", "",
			 snap->specs[i].cost_pct / 100.0);
	}
	family(c, "probetop_spec_probes", KIND_GAUGE,
	       "Probes the aggregation is attached to", NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		spec_label(c, i);
		sample_u64(c, "probetop_spec_probes", "",
			   snap->specs[i].info ? snap->specs[i].info->nprobes
					       : 0);
	}
	family(c, "probetop_spec_locations", KIND_GAUGE,
	       "Probe locations the aggregation is attached at", NULL);
	for (size_t i = 0; i < snap->nspecs; i++) {
		spec_label(c, i);
		sample_u64(c, "probetop_spec_locations", "",
			   snap->specs[i].info ? snap->specs[i].info->nsites
					       : 0);
	}
}

/* The kernel's io and process rows --------------------------------------- */

static void io_rows(struct ctx *c)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} COUNTERS[] = {
		{ "probetop_io_calls", "IO calls and block requests",
		  offsetof(struct pt_io_val, calls) },
		{ "probetop_io_errors", "IO calls that failed",
		  offsetof(struct pt_io_val, errors) },
		{ "probetop_io_bytes", "Bytes the IO calls moved",
		  offsetof(struct pt_io_val, bytes) },
	};
	const struct agg_snapshot *snap = c->snap;
	char sum[64];

	if (!snap->nio)
		return;
	for (size_t k = 0; k < sizeof(COUNTERS) / sizeof(COUNTERS[0]); k++) {
		family(c, COUNTERS[k].name, KIND_COUNTER, COUNTERS[k].help,
		       " (probeset io), since attach");
		for (size_t i = 0; i < snap->nio; i++) {
			const struct agg_io_row *io = &snap->io[i];

			labels_clear(c);
			label_u64(c, "pid", io->pid);
			label(c, "class", agg_io_class_name(io->cls));
			sample_u64(c, COUNTERS[k].name, "_total",
				   *(const __u64 *)((const char *)&io->total +
						    COUNTERS[k].off));
		}
	}
	family(c, "probetop_io_latency_seconds", KIND_HISTOGRAM,
	       "Time IO calls and block requests took (probeset io)", NULL);
	log2_ns_les(c->les);
	for (size_t i = 0; i < snap->nio; i++) {
		const struct agg_io_row *io = &snap->io[i];

		labels_clear(c);
		label_u64(c, "pid", io->pid);
		label(c, "class", agg_io_class_name(io->cls));
		seconds_text(sum, sizeof(sum), io->total.ns, false);
		histogram_row(c, "probetop_io_latency_seconds",
			      (const uint64_t *)io->total.b, PT_NBUCKETS,
			      c->les, sum);
	}
}

static void proc_labels(struct ctx *c, const struct agg_proc_row *r)
{
	labels_clear(c);
	label_u64(c, "pid", r->pid);
	label(c, "event", agg_proc_event_name(r->event));
	if (r->event == PT_PROC_EXIT) {
		char code[16];

		snprintf(code, sizeof(code), "%d", r->code);
		label(c, "code", code);
	}
	label(c, "name", r->name);
}

static bool proc_ended(int event)
{
	return event == PT_PROC_EXIT || event == PT_PROC_THREAD_EXIT;
}

static void proc_rows(struct ctx *c)
{
	const struct agg_snapshot *snap = c->snap;
	bool ends = false;
	char sum[64];

	if (!snap->nproc)
		return;
	family(c, "probetop_process_events", KIND_COUNTER,
	       "Forks, threads, execs and exits of the watched processes "
	       "(probeset process), since attach",
	       NULL);
	for (size_t i = 0; i < snap->nproc; i++) {
		proc_labels(c, &snap->proc[i]);
		sample_u64(c, "probetop_process_events", "_total",
			   snap->proc[i].total.count);
		ends |= proc_ended(snap->proc[i].event);
	}
	if (!ends)
		return;
	family(c, "probetop_process_lifetime_seconds", KIND_HISTOGRAM,
	       "How long the processes and threads that ended lived "
	       "(probeset process)",
	       NULL);
	log2_ns_les(c->les);
	for (size_t i = 0; i < snap->nproc; i++) {
		const struct agg_proc_row *r = &snap->proc[i];

		if (!proc_ended(r->event))
			continue;
		proc_labels(c, r);
		seconds_text(sum, sizeof(sum), r->total.ns, false);
		histogram_row(c, "probetop_process_lifetime_seconds",
			      (const uint64_t *)r->total.b, PT_NBUCKETS, c->les,
			      sum);
	}
}

/* Global metrics --------------------------------------------------------- */

static void globals(struct ctx *c)
{
	static const char *const KDROPS[PT_KDROP_N] = {
		[PT_KDROP_INFLIGHT] = "in_flight",
		[PT_KDROP_IO] = "io",
		[PT_KDROP_PROC] = "process",
	};
	const struct agg_snapshot *snap = c->snap;
	const struct agg_overhead *o = &snap->overhead;

	labels_clear(c);
	family(c, "probetop_probes_attached", KIND_GAUGE,
	       "Probes attached to the target", NULL);
	sample_u64(c, "probetop_probes_attached", "", c->src->probes);
	family(c, "probetop_intervals", KIND_COUNTER,
	       "Intervals read since attach (this rendering's)", NULL);
	sample_u64(c, "probetop_intervals", "_total", snap->interval);
	family(c, "probetop_events", KIND_COUNTER,
	       "Events of every aggregation since attach, recorded or dropped",
	       NULL);
	sample_u64(c, "probetop_events", "_total", snap->events_total);
	family(c, "probetop_drops", KIND_COUNTER,
	       "Events dropped since attach (the aggregations' and the "
	       "kernel's)",
	       NULL);
	sample_u64(c, "probetop_drops", "_total", snap->drops_total);
	family(c, "probetop_kernel_drops", KIND_COUNTER,
	       "IO and process records the kernel lost since attach, by reason",
	       NULL);
	for (int k = 0; k < PT_KDROP_N; k++) {
		labels_clear(c);
		label(c, "reason", KDROPS[k]);
		sample_u64(c, "probetop_kernel_drops", "_total",
			   snap->kdrops_total[k]);
	}
	labels_clear(c);
	family(c, "probetop_overhead_cpu_ratio", KIND_GAUGE,
	       "CPU tracing took from the targets over the last interval, in "
	       "CPUs",
	       NULL);
	sample_f(c, "probetop_overhead_cpu_ratio", "", o->cpu_pct / 100.0);
	if (o->target_pct >= 0) {
		family(c, "probetop_overhead_target_ratio", KIND_GAUGE,
		       "That CPU as a share of the targets' own over the last "
		       "interval",
		       NULL);
		sample_f(c, "probetop_overhead_target_ratio", "",
			 o->target_pct / 100.0);
	}
	family(c, "probetop_overhead_cpu_seconds", KIND_COUNTER,
	       "CPU time tracing took from the targets since attach", NULL);
	sample_f(c, "probetop_overhead_cpu_seconds", "_total",
		 snap->overhead_total.cpu_pct / 100.0 * snap->elapsed_s);
	family(c, "probetop_self_cpu_ratio", KIND_GAUGE,
	       "probetop's own CPU over the last interval, in CPUs", NULL);
	sample_f(c, "probetop_self_cpu_ratio", "", o->self_pct / 100.0);
	if (snap->budget_pct >= 0) {
		family(c, "probetop_budget_cpu_ratio", KIND_GAUGE,
		       "The budget (--budget), in CPUs", NULL);
		sample_f(c, "probetop_budget_cpu_ratio", "",
			 snap->budget_pct / 100.0);
	}
}

char *metrics_render(const struct metrics_src *src, enum metrics_format fmt,
		     size_t *len)
{
	struct ctx c = {
		.src = src,
		.snap = src->snap,
		.om = fmt == METRICS_OPENMETRICS,
		.max_rows =
			src->max_series ? src->max_series : METRICS_MAX_SERIES,
	};
	char *text = NULL, help[128];

	c.les = calloc(LE_MAX, sizeof(c.les[0]));
	if (!c.les || name_specs(&c))
		goto out;
	for (size_t i = 0; i < c.snap->nspecs; i++)
		spec_rows(&c, i);
	lower_bounds(&c);
	spec_meta(&c);
	io_rows(&c);
	proc_rows(&c);
	globals(&c);
	labels_clear(&c);
	snprintf(help, sizeof(help),
		 "Aggregation rows left out of this rendering (over %zu rows)",
		 c.max_rows);
	family(&c, "probetop_export_series_cut", KIND_GAUGE, help, NULL);
	sample_u64(&c, "probetop_export_series_cut", "", c.cut);
	if (c.om)
		puts_(&c.o, "# EOF\n");
	if (!c.o.oom && c.o.p) {
		text = c.o.p;
		c.o.p = NULL;
		*len = c.o.len;
	}
out:
	free(c.o.p);
	free(c.lbl.p);
	free(c.scratch);
	free(c.names);
	free(c.les);
	if (!text)
		errno = ENOMEM;
	return text;
}
