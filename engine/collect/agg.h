/* SPDX-License-Identifier: MIT */
/*
 * agg — one snapshot per interval of everything the tracer's maps hold.
 *
 * The kernel keeps running totals per key (summed over CPUs here); agg
 * keeps the previous totals in a hash table of its own and turns them into
 * per-interval values, so nothing is ever read and then deleted (which
 * would lose the events that land in between). Maps are read with batch
 * calls. Rows of a removed spec disappear with it.
 *
 * The snapshot is computed, not rendered: the text printer, --json and
 * the console's views are renderers of the same struct agg_snapshot.
 */
#ifndef PROBETOP_AGG_H
#define PROBETOP_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h> /* before probetop.h */
#include <stdint.h>

#include "probetop.h"
#include "spec.h"
#include "tracer.h"

struct agg;

/* What follows the bytes kept of a string key cut at PT_STR_LEN - 1:
 * only a cut key is longer than PT_STR_LEN - 1 bytes. */
#define AGG_STR_CUT "..."

struct agg_key_part {
	bool is_str;
	bool is_signed; /* numeric: print num as signed */
	bool is_stack; /* a call stack: text is its frames, root first,
			  joined by ';' (folded) */
	int64_t num;
	/* a string key: at most PT_STR_LEN - 1 bytes of the target's, then
	 * AGG_STR_CUT if the target's string was longer (agg_str_key()) */
	char str[PT_STR_LEN + sizeof(AGG_STR_CUT) - 1];
	const char *text; /* a longer string (a Python stack), kept by its
			     namer; NULL: str (agg_key_text()) */
	const char *mods; /* a native stack's (ustack, kstack): the module
			     of each frame of text, as many parts joined by
			     ';' (the object's base name, "" if unknown),
			     kept by its namer; NULL: not known (a Python
			     stack) */
};

/* A row's key parts: its spec's keys, a pyframe key shown as three
 * (function, file, first line). */
#define AGG_MAX_PARTS (SPEC_MAX_KEYS + 2)

/*
 * How a number stands to the truth. Exact: counted. An estimate (the
 * budget sampled it, budget.h): within AGG_PROMISE of the truth, shown
 * as ~N ("estimated" in JSON). A lower bound: what was counted, where an
 * estimate could not keep that promise, shown as >=N ("lower_bound").
 * An estimate is kept when its error of unknown sign and AGG_SIGMAS of
 * its standard deviation fit in AGG_PROMISE of it (agg_mark_of()).
 */
enum agg_mark {
	AGG_EXACT,
	AGG_ESTIMATE,
	AGG_BOUND,
};

#define AGG_PROMISE 0.15
#define AGG_SIGMAS 3.0
/* a lower bound carries its estimate (agg_row.guess) off by at most this */
#define AGG_GUESS_ERR 1.0

/* The sign before a number of mark m: "" exact, "~" an estimate, "≥"
 * a lower bound (">" where not utf8). */
const char *agg_mark_sign(unsigned char m, bool utf8);

/* A row's pid as shown: its number, or "all" for 0, a row over every
 * process (a spec keyed allpids). Into buf[0..n); returns buf. */
const char *agg_pid_text(uint32_t pid, char *buf, size_t n);

/* What est with error sys and variance var is (both 0: exact; var
 * INFINITY: a bound). */
enum agg_mark agg_mark_of(double est, double sys, double var);

struct agg_row {
	uint64_t id; /* a number no other row of this agg had, changed when
			the key parts are (0: a row agg did not make): what a
			view derives from the key it may keep by it */
	uint32_t pid;
	int nkeys; /* parts in key[] */
	struct agg_key_part key[AGG_MAX_PARTS];
	uint64_t count, total; /* this interval, since attach */
	int64_t sum, sum_total;
	int64_t min, max; /* since attach (quantize kinds) */
	const uint64_t *b; /* this interval's buckets, or NULL (count/sum) */
	const uint64_t *b_total; /* since attach */
	unsigned char mark, mark_total; /* enum agg_mark of count, sum and
					   buckets; of their totals (a
					   histogram's: each bucket keeps an
					   estimate's promise, aggbuckets.h) */
	/* a lower bound's count as the budget estimates it, and how far off
	 * that may be, relative (its error and AGG_SIGMAS of its standard
	 * deviation, as an estimate's promise is held): where it is off by
	 * no more than AGG_GUESS_ERR (not a histogram's); else 0, 0. Of the
	 * interval, and of the total */
	double guess, guess_err, guess_total, guess_err_total;
};

/* Why an event was dropped (struct pt_stat). */
enum agg_drop {
	AGG_DROP_FULL, /* its key map was full */
	AGG_DROP_STR, /* a string key could not be read */
	AGG_DROP_DEEP, /* latency starts nested over PT_STACK_DEPTH deep */
	AGG_DROP_FRAME, /* no interpreter frame could be read (pyframe,
			   phpframe, rbstack ...) */
	AGG_NDROPS,
};

struct agg_spec {
	int id;
	const struct spec *spec;
	const struct tracer_spec_info *info;
	size_t nrows; /* sorted: count, then total, descending */
	const struct agg_row *const *rows;
	uint64_t events, events_total; /* recorded + dropped */
	uint64_t drops, drops_total;
	uint64_t why[AGG_NDROPS], why_total[AGG_NDROPS]; /* drops by reason */
	uint32_t capacity; /* keys its map holds (shared by the specs of
			      its kind and key width); 0: a slot of its own */
	uint64_t unmatched, unmatched_total; /* latency ends without start */
	uint64_t cut, cut_total; /* latency halves the budget's windows cut
				    from their other half (struct pt_stat):
				    in no row, neither dropped nor unmatched */
	double shared, shared_total; /* the share of its hits that shared
					another spec's trap (counted while a
					budget is on: 0 without one) */
	double cost_pct; /* CPU its hits took from the targets this
			    interval, % of one CPU (cost.h) */
	double cost_pct_total; /* since attach, at this interval's price */
	bool estimated; /* the budget sampled it: its rows (and events) this
			   interval are estimates or bounds (budget.h) */
	unsigned char events_mark, events_mark_total; /* enum agg_mark */
	bool estimated_total; /* its totals hold estimates */
	double duty; /* share of the interval it was attached (1: all) */
	double duty_total; /* since attach */
};

/* calls, errors, bytes, summed latency (ns) and its log2 buckets, in
 * struct pt_io_val: this interval's and the totals since attach */
struct agg_io_row {
	uint32_t pid;
	int cls; /* enum pt_io_class */
	struct pt_io_val now, total;
};

/* One process event key (struct pt_proc_key): counts and lifetimes in
 * struct pt_proc_val, this interval's and the totals since attach */
struct agg_proc_row {
	uint32_t pid; /* the watched process */
	int event; /* enum pt_proc_event */
	int code; /* exits: status, or -signal */
	char name[PT_STR_LEN];
	struct pt_proc_val now, total;
};

/* What tracing cost over the interval (cost.h). */
/* A program's runs and run time, as the kernel's statistics counted them
 * (cost.h: over its windows). */
#define AGG_PROGS 40 /* the cost meter's: site, kernel and syscall ones */
struct agg_prog {
	char name[16]; /* the kernel's (bpf_prog_info.name) */
	uint64_t runs;
	uint64_t ns;
};

struct agg_overhead {
	double cpu_pct; /* % of one CPU: the specs' cost_pct and kernel_pct */
	double kernel_pct; /* of it, the kernel-side programs' (watches),
			      machine-wide: every process's, not the
			      target's */
	double target_pct; /* the specs' cost (cpu_pct less kernel_pct) as a
			      % of the targets' own CPU time over the
			      interval; < 0: unknown */
	double self_pct; /* probetop's own CPU, % of one CPU */
	double syscall_ns; /* what the IO watch adds to every syscall of
			      every process, ns (0: no IO watch) */
	bool measured; /* programs timed by the kernel's statistics (else
			  estimated, COST_EST_PROG_NS) */
	double stats_s; /* the seconds those statistics covered (cost.h's
			   windows; the interval whole if they were on) */
	size_t nprogs;
	struct agg_prog progs[AGG_PROGS]; /* every program loaded, in that
					     time */
};

/* Whether o's cost is over budget pct (% of one CPU; < 0: none) by more
 * than the reserve lets an interval spend (AGG_OVER). */
#define AGG_OVER 1.5
bool agg_over_budget(const struct agg_overhead *o, double pct);

struct agg_snapshot {
	unsigned int interval; /* 1, 2, ... */
	double elapsed_s; /* since agg_new */
	uint64_t events, events_total;
	uint64_t drops, drops_total; /* the specs' and kdrops' */
	/* IO and process records the kernel lost, by enum pt_kdrop, and the
	 * keys of the map that had no room (io_start, io, proc) */
	uint64_t kdrops[PT_KDROP_N], kdrops_total[PT_KDROP_N];
	uint32_t kcapacity[PT_KDROP_N];
	size_t nspecs;
	const struct agg_spec *specs; /* by id, live specs only */
	size_t nio;
	const struct agg_io_row *io; /* by pid, class */
	size_t nproc;
	const struct agg_proc_row *proc; /* by pid, event, then total desc */
	struct agg_overhead overhead, overhead_total; /* since agg_new */
	double budget_pct; /* the budget, % of one CPU; < 0: none */
	size_t sampled; /* specs the budget sampled in the interval */
	/* events, events_total: enum agg_mark (a lower bound, every spec's
	 * events as counted, when one spec's is) */
	unsigned char events_mark, events_mark_total;
	struct tracer_unwind unwind; /* the unwind tables (ustack) */
};

/* Read tr's maps; tr must outlive the agg. NULL with errno on ENOMEM. */
struct agg *agg_new(struct tracer *tr);
void agg_free(struct agg *agg);

/* Call a few times a second between agg_read()s, and at agg_wake_s():
 * the cost meter closes its window of run-time statistics
 * (cost_tick()), the budget parks and attaches specs (budget_tick()),
 * profile:HZ's clocks restart (tracer_profile_tick()). */
void agg_tick(struct agg *agg);

/* The CLOCK_MONOTONIC second agg_tick() is due at, or < 0 if only "a few
 * times a second" (no budget, no profile:HZ). */
double agg_wake_s(const struct agg *agg);

/* Keep tracing's cost under pct % of one CPU (< 0: no budget, counts
 * exact; the default after agg_new()). See budget.h. */
void agg_set_budget(struct agg *agg, double pct);

/* The budget (% of one CPU) or < 0 for none. */
double agg_budget(const struct agg *agg);

/* Specs sampled now to stay under the budget, and the id of the
 * costliest of them into *costliest (-1: none). */
size_t agg_sampled(const struct agg *agg, int *costliest);

/*
 * Before the first agg_read(): a snapshot of interval 0 that lists the
 * live specs, with no rows and nothing counted (what --listen serves
 * until the first interval); after it, the last agg_read()'s. Valid as
 * agg_read()'s.
 */
const struct agg_snapshot *agg_empty(struct agg *agg);

/*
 * Read the maps now and return the snapshot of the interval since the last
 * call (the first covers the time since attach). The snapshot and every
 * pointer in it stay valid until the next agg_read() or agg_free().
 * NULL with errno if a map cannot be read (logged).
 */
const struct agg_snapshot *agg_read(struct agg *agg);

/*
 * agg_read() in steps, for a caller that must answer its user meanwhile
 * (the console): each call walks the key maps for about step_s seconds
 * (at least one batch of keys) and returns NULL with errno EAGAIN while
 * there is more to walk; the call that ends the walk returns what
 * agg_read() would. Until then the last snapshot stays valid and shows
 * what it showed (but for the rows of a spec removed since, whose slot a
 * new spec took: those may be reset). Call agg_tick() between steps as
 * between reads; agg_read() ends a walk under way.
 */
const struct agg_snapshot *agg_read_step(struct agg *agg, double step_s);

/* The string of a string key part. */
const char *agg_key_text(const struct agg_key_part *k);

/*
 * A string key as the kernel keeps it (raw: PT_STR_LEN bytes, the last
 * PT_STR_CUT if the target's string was longer) into out[0..n), n at
 * least PT_STR_LEN + sizeof(AGG_STR_CUT) - 1: the bytes up to the NUL
 * and, for a cut one, AGG_STR_CUT after them, less the bytes of a UTF-8
 * character the cut split (which would print as escapes).
 */
void agg_str_key(char *out, size_t n, const char *raw);

/* Name of a drop reason (enum agg_drop) of spec sp, as JSON's drops_by
 * and the exported metrics spell it: "map_full", "string", "depth", and
 * for AGG_DROP_FRAME the runtime of sp's frame keys, "php", "ruby" or
 * "python" (also for a spec without such keys, as before PHP and Ruby
 * had frames). */
const char *agg_drop_name(const struct spec *sp, int reason);

/* Name of an IO class ("read", "block-write", ...). */
const char *agg_io_class_name(int cls);

/* Name of a process event ("fork", "thread", "exec", "exit",
 * "thread-exit", "lost"). */
const char *agg_proc_event_name(int event);

/* Whether a process event is an end, with a lifetime (exit, thread-exit). */
bool agg_proc_event_ends(int event);

/*
 * The lower bound of bucket i of a row of spec: log2 kinds give 0 for the
 * zero bucket, 2^(i-2) above, and the row's min for the negative bucket;
 * lquantize gives LOW + (i-1)*STEP, min below LOW and HIGH above.
 */
int64_t agg_bucket_low(const struct spec *spec, const struct agg_row *row,
		       int i);

/* Number of buckets a spec's rows use (66 for log2 kinds). */
int agg_nbuckets(const struct spec *spec);

/*
 * The bucket holding the p-th percentile (0 < p <= 100) of buckets b[0..n),
 * or -1 if they are all empty.
 */
int agg_percentile_bucket(const uint64_t *b, int n, double p);

#endif
