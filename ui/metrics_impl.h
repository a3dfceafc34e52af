/* SPDX-License-Identifier: MIT */
/*
 * metrics_impl — a rendering's state, private to the files that render
 * metrics.h: metrics.c (the walk over a snapshot's families and
 * series), metrics_names.c (each spec's family and label names) and
 * metrics_format.c (how families, samples and labels are written in
 * either format). Nothing else includes it.
 *
 * Calls go one way: metrics.c calls the two others, which call neither
 * each other nor metrics.c.
 */
#ifndef PROBETOP_METRICS_IMPL_H
#define PROBETOP_METRICS_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"
#include "metrics.h"
#include "spec.h"

#define NAME_MAX_LEN 160
#define LABEL_MAX_LEN 48

struct out {
	char *p;
	size_t len, cap;
	bool oom;
};

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

enum kind {
	KIND_COUNTER,
	KIND_GAUGE,
	KIND_HISTOGRAM,
	KIND_INFO
};

/* A histogram's le labels: le="..." of each bucket but the last (+Inf) */
#define LE_MAX                                             \
	(PT_NBUCKETS > SPEC_LQ_MAX_STEPS + 2 ? PT_NBUCKETS \
					     : SPEC_LQ_MAX_STEPS + 2)
typedef char le_table[LE_MAX][40];

/* metrics_format.c --------------------------------------------------- */

/* s appended to o (nothing once o is out of memory). */
void metrics_puts(struct out *o, const char *s);

/* name="value" after the labels so far (value made inert, then
 * escaped) */
void metrics_label(struct ctx *c, const char *name, const char *raw);

/* name="v" after the labels so far */
void metrics_label_u64(struct ctx *c, const char *name, uint64_t v);

/* No labels so far: the next series' start. */
void metrics_labels_clear(struct ctx *c);

/* # HELP and # TYPE of a family (help: a fixed text, then more, both
 * escaped; more may be NULL) */
void metrics_family(struct ctx *c, const char *name, enum kind k,
		    const char *help, const char *more);

/* NAME[SUFFIX][{labels[,extra]}] VALUE */
void metrics_sample(struct ctx *c, const char *name, const char *suffix,
		    const char *extra, const char *value);

/* metrics_sample() of a number */
void metrics_sample_u64(struct ctx *c, const char *name, const char *suffix,
			uint64_t v);
void metrics_sample_i64(struct ctx *c, const char *name, const char *suffix,
			int64_t v);
void metrics_sample_f(struct ctx *c, const char *name, const char *suffix,
		      double v);

/* ns as seconds, exactly: "0.000001024", "3", "-0.5" */
void metrics_seconds_text(char *buf, size_t n, uint64_t ns, bool neg);
void metrics_signed_seconds_text(char *buf, size_t n, int64_t ns);

/* _bucket from the first used bucket of b[0..n) to the last, +Inf,
 * _sum, _count; les: the le label of each bucket but the last */
void metrics_histogram_row(struct ctx *c, const char *name, const uint64_t *b,
			   int n, const le_table les, const char *sum);

/* metrics_names.c ---------------------------------------------------- */

/* c->names: each spec's family (from the origin callback's role, else
 * its probes; none taken twice, none probetop's own) and its key parts'
 * labels, by index in c->snap->specs. 0 or -ENOMEM. */
int metrics_name_specs(struct ctx *c);

#endif
