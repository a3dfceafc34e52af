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

#endif
