// SPDX-License-Identifier: MIT
/*
 * trace_base — `trace --baseline OLD`: a row's rate held against the
 * baseline's (record/basetab.h), for the text and JSON renderers; see
 * trace_impl.h. A rate is the row's events over the seconds its numbers
 * cover: an interval's, or since attach for the final summary.
 */
#include <math.h>
#include <stdio.h>

#include "basetab.h"
#include "cmd.h"
#include "session.h"
#include "trace_impl.h"

int trace_base_open(struct trace_base *b, const char *path)
{
	b->t = session_baseline(path, b->note, sizeof(b->note));
	b->path = path;
	return b->t ? 0 : -1;
}

void trace_base_say(const struct trace_base *b)
{
	cli_error("baseline %s: %u intervals, %.2f s%s%s", b->path,
		  b->t->intervals, b->t->seconds, b->note[0] ? "; cut: " : "",
		  b->note);
}

void trace_base_close(struct trace_base *b)
{
	basetab_free(b->t);
	b->t = NULL;
}

double trace_base_span(const struct trace_out *out,
		       const struct agg_snapshot *snap, bool final)
{
	if (final || !out->base)
		return snap->elapsed_s;
	return snap->elapsed_s - out->base->last_s;
}

const struct basetab_spec *trace_base_spec(const struct trace_out *out,
					   const struct agg_spec *as)
{
	return out->base ? basetab_spec(out->base->t, as->spec->text) : NULL;
}

bool trace_base_row(const struct trace_out *out, const struct basetab_spec *bs,
		    const struct agg_row *r, bool final, double span,
		    struct basetab_cmp *c)
{
	const struct basetab_row *br = basetab_find(bs, r);
	double n = (double)(final ? r->total : r->count);

	*c = basetab_compare_marked(span > 0 ? n / span : 0,
				    final ? r->mark_total : r->mark,
				    out->base->t, br);
	return br != NULL;
}

const char *trace_base_text(const struct basetab_cmp *c, bool is_new, char *buf,
			    size_t n)
{
	if (is_new)
		snprintf(buf, n, "new");
	else if (c->bound) /* a ratio of bounds can be anything */
		snprintf(buf, n, "%+.2f/s, a bound: no ratio", c->delta);
	else if (fabs(c->delta) < 0.005) /* not "-0.00" */
		snprintf(buf, n, "0.00/s x%.2f", c->ratio);
	else
		snprintf(buf, n, "%+.2f/s x%.2f", c->delta, c->ratio);
	return buf;
}
