/* SPDX-License-Identifier: MIT */
/*
 * trace_impl — what trace's text (trace_out.c) and JSON
 * (trace_json.c) renderers share, private to them: which rows and which
 * process events they show, and the JSON renderer that trace_out_print()
 * calls. Nothing else includes it.
 */
#ifndef PROBETOP_TRACE_IMPL_H
#define PROBETOP_TRACE_IMPL_H

#include <stdbool.h>

#include "agg.h"
#include "basetab.h"
#include "trace_out.h"

/* Whether row r is shown: it counted in the interval, or (final) since
 * attach. */
static inline bool row_shown(const struct agg_row *r, bool final)
{
	return final ? r->total > 0 : r->count > 0;
}

/* One interval (final = false: interval values, rows that changed) or
 * the final summary (totals since attach, every row) as one JSON object
 * on a line of out->f (docs/probetop.1). */
void trace_json_print(const struct trace_out *out,
		      const struct agg_snapshot *snap, bool final);

/* trace_base.c: --baseline ------------------------------------------ */

/* The seconds snap's rates are over: since the last interval printed,
 * or (final) since attach. */
double trace_base_span(const struct trace_out *out,
		       const struct agg_snapshot *snap, bool final);

/* The baseline's aggregation of as, or NULL (no baseline, or not in it:
 * every row is new). */
const struct basetab_spec *trace_base_spec(const struct trace_out *out,
					   const struct agg_spec *as);

/* Row r (final: its total) held against the baseline over span seconds
 * into *c; false if its key is not in the baseline (new: c->base 0). */
bool trace_base_row(const struct trace_out *out, const struct basetab_spec *bs,
		    const struct agg_row *r, bool final, double span,
		    struct basetab_cmp *c);

/* The text column of a row: "+12.50/s x1.80", "-3.00/s x0.25", "new". */
const char *trace_base_text(const struct basetab_cmp *c, bool is_new, char *buf,
			    size_t n);

#endif
