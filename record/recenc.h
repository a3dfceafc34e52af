/* SPDX-License-Identifier: MIT */
/*
 * recenc — an agg snapshot into the body of an interval record, and the
 * final summary's row order into a final record (docs/record-format.md),
 * for record.c. It keeps what the file already holds: the string table,
 * each row's number and its last written totals, each pid's command, so
 * that names and keys are written once and a row only when it changed.
 * Nothing here writes a file.
 */
#ifndef PROBETOP_RECENC_H
#define PROBETOP_RECENC_H

#include "agg.h"
#include "record.h"
#include "recbuf.h"
#include "rectab.h"

/* A row as the file last had it: its totals, to write the next ones as
 * differences (an interval's count is most of a total's change). */
struct recenc_row {
	uint64_t total;
	int64_t sum_total, min, max;
	unsigned char mark_total;
	uint64_t *b_total; /* a histogram's, PT_NBUCKETS; NULL: none */
};

struct recenc {
	struct rectab_strs strs;
	struct rectab_map rowids; /* agg row id -> index into rows */
	struct recenc_row *rows;
	size_t nrows, caprows;
	struct rectab_map pidcmds; /* pid -> string id of its command */
	struct recbuf part; /* scratch: a body after its string table */
};

/*
 * snap as an interval record's body into body (emptied first); names
 * (NULL: none) the pids of rows and the specs' origins. The string
 * table's new strings
 * are in it: the caller marks them written (strs.nwritten = strs.n)
 * once the body is in the file. 0 or -ENOMEM.
 */
int recenc_interval(struct recenc *e, const struct agg_snapshot *snap,
		    const struct record_names *names, struct recbuf *body);

/* The final summary of snap (recenc_interval()'s last) into body: per
 * spec the numbers of its rows counted since attach, in snap's order.
 * 0 or -ENOMEM. */
int recenc_final(struct recenc *e, const struct agg_snapshot *snap,
		 struct recbuf *body);

void recenc_free(struct recenc *e);

#endif
