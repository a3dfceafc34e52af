// SPDX-License-Identifier: MIT
/*
 * budget — duty cycles under a CPU budget, and the estimates they make;
 * see budget.h.
 *
 * A "mark" is a moment the budget looks: a slot's start, a park, the end
 * of an interval. At each it reads every live spec's hit counter and the
 * target's CPU time (cputime.h); spent sums what every spec's hits have
 * cost since budget_new(), each at its spec's price (cost.h).
 *
 * A slot is either whole (every spec's duty 1: what it counts is exact)
 * or sampled for a spec (duty < 1). An interval's estimate for a spec
 * scales only what it counted in its sampled slots: the hits of its
 * whole slots are exact, so a burst counted before the spec was cut
 * stays exact. Slots are GOV_SLOT_S long give or take a fifth, at
 * random, so that a target that does the same thing every so many ms
 * does not beat against the windows.
 */
#include "budget.h"

#include <errno.h>
#include <math.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg.h"
#include "cost.h"
#include "governor.h"
#include "log.h"
#include "probetop.h"
#include "cputime.h"
#include "pace.h"
#include "spec.h"
#include "tracer.h"
#include "winstat.h"

#define BUDGET_JITTER 0.2 /* a slot's length varies by this share */
#define BUDGET_IDLE_NS 1e5 /* less work out of the windows: none missed */
/* a hit's price is known to cost_price_err(); with semaphores the target
 * may do this much more work a hit (it prepares their arguments only
 * while attached): about a trap's price where a trap is cheap, the 100%
 * that made Ruby 3.1's estimates true (docs/architecture.md) */
#define BUDGET_SEM_NS 450.0
/* what of the budget the governor spends at the meter's prices: duty-
 * cycled hits cost more than calibrated (docs/architecture.md) */
#define BUDGET_AIM 0.6
#define BUDGET_RETRY_S 0.002 /* a spec waiting to be attached: tried again */
/* an interval of too few windows takes the spread of those before it,
 * a window weighing half as much a second older: a slow window of a
 * start-up (or of a moment the machine was busy) is forgotten in a few
 * seconds, not kept as long as the session */
#define BUDGET_SPREAD_HALF_S 1.0
/* a pace (pace.h) is the workload's: its windows weigh half as much 5 s
 * older */
#define BUDGET_PACE_HALF_S 5.0
/* by time, the target's CPU time in the windows may fall short of what
 * its hits cost there by this share of its work there (work_cut()): an
 * estimate by time that much low */
#define BUDGET_CUT_TOL 0.05
/* ... in a target that works at most this share of the time out of its
 * windows: a busier one's work cut to fit would hide in its own rate */
#define BUDGET_TIME_MAX_CPU 0.3
#define BUDGET_OUT_S 0.05 /* a park's uprobes go out in about this, at first */
#define BUDGET_OUT_DECAY 0.9 /* what is kept of the longest seen, an interval */

/* What a mark saw. */
struct mark {
	double t; /* CLOCK_MONOTONIC s */
	double cpu; /* the target's CPU time so far, ns */
	double spent; /* what they cost the target so far, ns: a trap for
			 each but those that shared one, and a program run */
	struct waits w; /* the waits of its threads ended so far (pace.h) */
};

/* A spec's windows as one estimator weighs them (winstat.h): this
 * interval's, all since attach, and all with the older weighing less
 * (BUDGET_SPREAD_HALF_S). */
struct wins {
	struct winstat now, all, recent;
};

struct bspec {
	unsigned int gen;
	bool live;
	bool on; /* attached now */
	double duty; /* of the slot under way */
	double off_at; /* when it parks in this slot (on, duty < 1) */
	double parked_at; /* when the budget parked it last */
	bool held_out; /* its last attach failed: its uprobes were still
			  going out (tracer_unpark()) */
	bool lead; /* sampled, to attach after the slot's lead: its window
		      begins when it is attached */
	struct mark since; /* when it was attached, or last accounted */
	uint64_t hits; /* its hit counter at the last mark */
	uint64_t parked; /* its hits while parked, then */
	uint64_t shared; /* its hits that shared a trap, then */
	uint64_t slot_hits; /* ... at the start of the slot */
	uint64_t slot_parked; /* parked, then */
	double slot_on_s; /* attached in the slot */
	struct mark part_from; /* the start of the part of the slot in this
				  interval (the later of the slot's, the
				  interval's and the spec's own) */
	uint64_t part_hits; /* its hit counter then */
	double part_on_s; /* attached in the part, if sampled */
	double part_on_cpu; /* the target's CPU time then, ns */
	double part_on_spent; /* what every spec's hits cost then */
	struct waits part_on_w; /* the target's waits ended then */
	/* this interval */
	uint64_t iv_hits; /* its hit counter at the interval's start */
	bool sampled; /* a slot of it was sampled */
	double samp_s; /* the time of its sampled slots */
	uint64_t samp_own; /* its own hits in them */
	double samp_cpu; /* the target's CPU time in them, ns */
	double samp_spent; /* what every spec's hits in them cost */
	double on_s; /* attached in them */
	double on_cpu; /* the target's CPU time then, ns */
	double on_spent; /* what every spec's hits cost then */
	struct waits samp_w, on_w; /* the target's waits ended in them,
				      and while it was attached */
	/* its windows and gaps since it was first sampled, the older the
	 * less (BUDGET_PACE_HALF_S): its pace (pace.h) */
	struct pace pace;
	double pace_on_cpu, pace_gap_cpu; /* the target's CPU time in them,
					     out of them */
	double pace_gap_spent; /* what every spec's hits cost out of them */
	struct wins cpu; /* its windows by the target's CPU time in them */
	struct wins time; /* ... by their length */
	bool by_time; /* its estimates are by time (choose()) */
	bool chosen; /* ... as an interval with a spread said */
	double m_lo, m_hi; /* the share of the hits' cost its waits took,
			      last seen (factors()) */
};

struct budget {
	struct tracer *tr;
	const struct cost *cost;
	double pct;
	struct cputime *cpu; /* the target's CPU time; NULL: none (-b) */
	struct gov gov;
	size_t sampled;
	int costliest;
	double spent;
	struct mark slot; /* the slot's start */
	struct mark iv; /* the interval's start */
	double slot_s; /* the length of the slot under way */
	bool last; /* it ends with the interval (slot_len()) */
	double on_at; /* when its sampled specs attach (window_lead()) */
	double checked; /* when check_burst() last looked */
	double iv_s; /* the last interval's length (0: none yet): the one
			under way ends about iv.t + iv_s */
	double out_s; /* how long a park's uprobes take to go out: the
			 longest seen, decaying */
	unsigned int seed; /* the slots' jitter */
	struct pt_stat look[2][PT_MAX_SPECS]; /* take_mark()'s readings */
	struct bspec s[PT_MAX_SPECS];
};

/* A spec seen for the first time in slot id (or its slot reused): its
 * counters start now, at mark m. */
static void new_spec(struct budget *b, int id, unsigned int gen, uint64_t hits,
		     const struct mark *m)
{
	struct bspec *s = &b->s[id];

	memset(s, 0, sizeof(*s));
	s->live = true;
	s->gen = gen;
	s->on = !tracer_parked(b->tr, id);
	s->duty = 1;
	s->since = s->part_from = *m;
	s->hits = s->slot_hits = s->part_hits = s->iv_hits = hits;
}

/* Spec s (info) has counters st now: add its hits since the last look,
 * and their cost (parked ones too; one sharing a trap only its program
 * run), to every spec's. */
static void spend(struct budget *b, struct bspec *s,
		  const struct tracer_spec_info *info, const struct pt_stat *st)
{
	uint64_t runs = (st->hits > s->hits ? st->hits - s->hits : 0) +
			(st->parked > s->parked ? st->parked - s->parked : 0);
	uint64_t shared = st->shared > s->shared ? st->shared - s->shared : 0;
	uint64_t traps = runs > shared ? runs - shared : 0;

	b->spent += (double)traps * cost_spec_trap_ns(info) +
		    (double)runs * cost_prog_ns(b->cost, info);
	s->hits = st->hits;
	s->parked = st->parked;
	s->shared = st->shared;
}

/* A look longer than this, and LOOK_SPEC_S a spec, was interrupted:
 * probetop preempted, on a busy machine for up to a scheduler's slice
 * (5 ms seen), between reading the target's CPU time and its hits, which
 * then stand against CPU time of another moment: a window of a few ms
 * cannot bear that. */
#define LOOK_MAX_S 200e-6
#define LOOK_SPEC_S 5e-6
#define LOOK_TRIES 4

/* The time, the target's CPU time and waits into m, and specs 0..n-1's
 * counters into st (zero where unreadable), read at about one moment.
 * Returns how long the reading took, s. */
static double look_once(struct budget *b, struct mark *m, struct pt_stat *st,
			int n)
{
	m->t = cputime_clock_s(CLOCK_MONOTONIC);
	m->cpu = (double)cputime_ns(b->cpu);
	cputime_waits(b->cpu, &m->w);
	for (int id = 0; id < n; id++)
		tracer_stat(b->tr, id, &st[id]);
	return cputime_clock_s(CLOCK_MONOTONIC) - m->t;
}

/* look_once() again while it took too long (LOOK_MAX_S), at most
 * LOOK_TRIES times: the quickest reading into m and st (b->look[] holds
 * the other). */
static void look(struct budget *b, struct mark *m, struct pt_stat **st, int n)
{
	struct mark other;
	double best = INFINITY, most = LOOK_MAX_S + n * LOOK_SPEC_S;
	int at = 0;

	*st = b->look[0];
	for (int i = 0; i < LOOK_TRIES && best > most; i++) {
		double took = look_once(b, &other, b->look[at], n);

		if (took < best) {
			best = took;
			*m = other;
			*st = b->look[at];
			at ^= 1;
		}
	}
}

/* Look now: every live spec's hits and the target's CPU time into m
 * and the specs' hits. */
static void take_mark(struct budget *b, struct mark *m)
{
	int n = tracer_nspecs(b->tr);
	struct pt_stat *st;

	look(b, m, &st, n < PT_MAX_SPECS ? n : PT_MAX_SPECS);
	for (int id = 0; id < PT_MAX_SPECS; id++) {
		const struct tracer_spec_info *info =
			id < n ? tracer_spec_info(b->tr, id) : NULL;
		struct bspec *s = &b->s[id];

		if (!info) {
			s->live = false;
			continue;
		}
		if (!s->live || s->gen != info->gen) {
			m->spent = b->spent;
			new_spec(b, id, info->gen, st[id].hits, m);
			s->parked = s->slot_parked = st[id].parked;
			s->shared = st[id].shared;
			continue;
		}
		spend(b, s, info, &st[id]);
	}
	m->spent = b->spent;
}

/* Spec s was attached from s->since to m: count that time, the
 * target's CPU time and what every spec's hits cost in it. */
static void account(struct bspec *s, const struct mark *m)
{
	double dt = m->t - s->since.t;
	struct waits w;

	s->slot_on_s += dt;
	s->part_on_s += dt;
	s->part_on_cpu += m->cpu - s->since.cpu;
	s->part_on_spent += m->spent - s->since.spent;
	waits_sub(&m->w, &s->since.w, &w);
	waits_add(&s->part_on_w, &w, 1);
	s->since = *m;
}

/* The part ending was sampled: its window (the spec's hits, the
 * target's own CPU time and the time while it was attached) into the
 * spec's spreads; none by CPU time where the target did no work and it
 * saw no hit. */
static void window(struct bspec *s)
{
	double h = (double)(s->hits - s->part_hits);
	double w = s->part_on_cpu - s->part_on_spent;

	if (h > 0 || w > BUDGET_IDLE_NS)
		winstat_add(&s->cpu.now, h, w > 0 ? w : 0);
	if (s->part_on_s > 0)
		winstat_add(&s->time.now, h, s->part_on_s * 1e9);
}

/* The part of the slot under way that is in this interval ends at m:
 * for each spec sampled in it (a duty under 1, or off for a while
 * whatever its duty: its uprobes still going out when it was to be
 * attached again), the target's CPU time and every spec's hits over the
 * part and in the spec's windows. */
static void end_part(struct budget *b, const struct mark *m)
{
	for (int id = 0; id < PT_MAX_SPECS; id++) {
		struct bspec *s = &b->s[id];
		const struct mark *from = &s->part_from;
		double dt = m->t - from->t;
		struct waits w;
		bool off;

		if (!s->live)
			continue;
		if (s->on)
			account(s, m);
		off = s->part_on_s < dt - 1e-3;
		if (s->duty < 1 || off) {
			/* estimated if it was off for a while in the part */
			s->sampled |= off;
			s->samp_s += dt;
			s->samp_own += s->hits - s->part_hits;
			s->samp_cpu += m->cpu - from->cpu;
			s->samp_spent += m->spent - from->spent;
			window(s);
			s->on_s += s->part_on_s;
			s->on_cpu += s->part_on_cpu;
			s->on_spent += s->part_on_spent;
			waits_sub(&m->w, &from->w, &w);
			waits_add(&s->samp_w, &w, 1);
			waits_add(&s->on_w, &s->part_on_w, 1);
		}
		s->part_from = *m;
		s->part_hits = s->hits;
		s->part_on_s = s->part_on_cpu = 0;
		s->part_on_spent = 0;
		s->part_on_w = (struct waits){ 0 };
	}
}

static bool near_end(const struct budget *b, double t);

/*
 * The length of the slot starting at t: GOV_SLOT_S, give or take
 * BUDGET_JITTER; but one after which less than half a slot would be
 * left before the park margin at the interval's end (near_end()) runs
 * to that end (the interval's end begins the next slot). A slot must not
 * start near the end: its windows begin in it, and a spec parked in
 * the margin stays attached to the end, as long as uprobes take to go
 * out (tens of ms). Measured: specs attached whole the last 70-86 ms of
 * every interval, which spent the budget and left the next slots'
 * windows a few ms each, too few hits to estimate.
 */
static double slot_len(struct budget *b, double t)
{
	double r = (double)rand_r(&b->seed) / RAND_MAX;
	double len = GOV_SLOT_S * (1 - BUDGET_JITTER + 2 * BUDGET_JITTER * r);

	b->last = near_end(b, t + len + GOV_SLOT_S / 2);
	return b->last ? b->iv.t + b->iv_s - t : len;
}

static bool is_fixed(const struct tracer_spec_info *info)
{
	return info->exact;
}

/* Attach every live spec the budget parked (but for those sampled in
 * the slot, if whole: their windows begin later, window_lead());
 * whether there was one. Each is then on from the mark its caller takes
 * (start_on()), its hits dropped until then. One whose uprobes are
 * still going out stays parked, unless wait. */
static bool unpark_all(struct budget *b, bool wait, bool whole)
{
	bool attached = false;

	for (int id = 0; id < PT_MAX_SPECS; id++) {
		struct bspec *s = &b->s[id];

		if (!s->live || s->on)
			continue;
		s->lead = whole && s->duty < 1;
		if (s->lead) {
			s->held_out = false; /* not tried yet */
			continue;
		}
		s->held_out = tracer_unpark(b->tr, id, wait) != 0;
		attached |= !s->held_out;
	}
	return attached;
}

/* Whether spec s is to be attached at t: after the slot's lead (its
 * window then as long as its duty says, from when it is attached) to
 * the slot's end; or its window has begun and not ended, but its
 * uprobes of its last park were still going out when it was to be. */
static bool waiting(const struct budget *b, const struct bspec *s, double t)
{
	if (!s->live || s->on)
		return false;
	if (s->lead)
		return t >= b->on_at && t < b->slot.t + b->slot_s;
	return t < s->off_at;
}

/* Attach every spec waiting at t; whether one was. On from the mark
 * its caller takes then (start_on()). What a wait for uprobes going out
 * took, from its park, is how long they take now (b->out_s). */
static bool unpark_waiting(struct budget *b, double t)
{
	bool attached = false;

	for (int id = 0; id < PT_MAX_SPECS; id++) {
		struct bspec *s = &b->s[id];
		bool held = s->held_out;

		if (!waiting(b, s, t))
			continue;
		s->held_out = tracer_unpark(b->tr, id, false) != 0;
		if (s->held_out)
			continue;
		attached = true;
		if (held)
			b->out_s = fmax(b->out_s, t - s->parked_at);
	}
	return attached;
}

/*
 * Whether a park at t would leave a spec's uprobes going out when the
 * interval under way ends: it could not be attached as the next one
 * begins, and work that ends before it is would fall in a gap of an
 * interval none of whose windows saw it (its rows then bounds). Such a
 * spec stays attached to the interval's end; the margin is at most half
 * an interval.
 */
static bool near_end(const struct budget *b, double t)
{
	return b->iv_s > 0 &&
	       t + fmin(b->out_s + BUDGET_RETRY_S, b->iv_s / 2) >=
		       b->iv.t + b->iv_s;
}

/* Park spec id, attached, at mark m. */
static void park(struct budget *b, int id, const struct mark *m)
{
	struct bspec *s = &b->s[id];

	account(s, m);
	tracer_park(b->tr, id);
	s->on = false;
	s->parked_at = m->t;
}

/* The specs unpark_all() attached are on since mark m, taken after
 * the last of them was attached: their hits are counted from now, and
 * the windows of those attached after the slot's lead end a duty of it
 * later. */
static void start_on(struct budget *b, const struct mark *m)
{
	for (int id = 0; id < PT_MAX_SPECS; id++) {
		struct bspec *s = &b->s[id];

		if (s->live && !s->on && !tracer_parked(b->tr, id)) {
			tracer_count_again(b->tr, id);
			s->on = true;
			s->since = *m;
			if (s->lead) /* within the slot (budget_tick()) */
				s->off_at = fmin(m->t + s->duty * b->slot_s,
						 b->slot.t + b->slot_s);
			s->lead = false;
		}
	}
}

/*
 * How long after the start of a slot of duties duty[0..n) its sampled
 * specs attach: at random, from 0 to what the longest window leaves of
 * the slot, less a look's time (GOV_CHECK_S: the tick that attaches
 * them may come that late) and, in an interval's last slot, the margin
 * at its end (near_end(), where a window would be kept to the end).
 * Their windows nest as they did at the slot's start, and attach and
 * park once a slot each as they did; but a workload that repeats itself
 * every interval, or every other (truthwork's phases of 1 s, intervals
 * of 0.5 s), is not seen at the same moments of it every time. A spec
 * still attached at the slot's start (kept to the last interval's end,
 * or its tick late) begins its window there. Not in an interval's first
 * slot (start_slot()'s caller says): its first windows begin with it,
 * so that work that ends early in it (a phase's tail, the target's
 * exit) is seen by one of them.
 */
static double window_lead(struct budget *b, const double *duty, int n)
{
	double most = -1, room, lead;

	for (int id = 0; id < n; id++)
		if (b->s[id].live && duty[id] < 1 && duty[id] > most)
			most = duty[id];
	if (most < 0)
		return 0;
	room = (1 - most) * b->slot_s - GOV_CHECK_S;
	if (b->last)
		room -= fmin(b->out_s + BUDGET_RETRY_S, b->iv_s / 2);
	lead = room > 0 ? room * rand_r(&b->seed) / RAND_MAX : 0;
	log_msg(LOG_DEBUG,
		"budget: a slot of %.1f ms: its windows after %.1f ms of "
		"%.1f ms free",
		b->slot_s * 1e3, lead * 1e3, fmax(room, 0) * 1e3);
	return lead;
}

/* A slot starts at mark m: ask the governor, attach every spec (those
 * sampled after its lead, window_lead(), if lead: not the first slot of
 * an interval), and time the parks. */
static void start_slot(struct budget *b, const struct mark *m, bool lead)
{
	struct gov_in in[PT_MAX_SPECS];
	double duty[PT_MAX_SPECS], best = -1;
	struct mark after = *m;
	int n = tracer_nspecs(b->tr);

	end_part(b, m);
	for (int id = 0; id < n; id++) {
		struct bspec *s = &b->s[id];
		const struct tracer_spec_info *info =
			tracer_spec_info(b->tr, id);

		in[id] = (struct gov_in){
			.live = s->live && info,
			.fixed = info && is_fixed(info),
			.preferred = info && info->preferred,
			/* the hits it dropped parked cost a trap each too:
			 * those while its uprobes were going out after its
			 * window (a grace period), and in before it */
			.hits = s->hits - s->slot_hits + s->parked -
				s->slot_parked,
			.on_s = s->slot_on_s,
			.hit_ns = cost_hit_ns(b->cost, info),
		};
	}
	b->slot_s = slot_len(b, m->t);
	b->sampled = gov_slot(&b->gov, in, (size_t)n, m->t - b->slot.t,
			      b->pct * 1e9 / 100.0 * BUDGET_AIM, duty);
	b->costliest = -1;
	for (int id = 0; id < n; id++) {
		struct bspec *s = &b->s[id];

		if (!s->live)
			continue;
		s->slot_hits = s->hits;
		s->slot_parked = s->parked;
		s->slot_on_s = 0;
		s->duty = duty[id];
		if (duty[id] < 1 && b->gov.spec[id].price > best) {
			best = b->gov.spec[id].price;
			b->costliest = id;
		}
	}
	b->on_at = m->t + (lead ? window_lead(b, duty, n) : 0);
	/* attaching takes the kernel a grace period or so (ms): the
	 * windows start when every spec is attached, as the hits counted
	 * do (park.h) */
	if (unpark_all(b, false, b->on_at > m->t))
		take_mark(b, &after);
	start_on(b, &after);
	for (int id = 0; id < n; id++) {
		struct bspec *s = &b->s[id];

		if (s->live) /* one still parked: as if attached at after,
				or its lead's end */
			s->off_at =
				(s->on ? s->since.t : fmax(after.t, b->on_at)) +
				s->duty * b->slot_s;
	}
	b->slot = *m;
}

struct budget *budget_new(struct tracer *tr, const struct cost *c, double pct)
{
	struct budget *b = calloc(1, sizeof(*b));

	if (!b) {
		errno = ENOMEM;
		return NULL;
	}
	b->tr = tr;
	b->cost = c;
	b->cpu = cputime_new(tr);
	b->costliest = -1;
	b->checked = cputime_clock_s(CLOCK_MONOTONIC);
	b->seed = (unsigned int)(b->checked * 1e6);
	b->slot_s = GOV_SLOT_S;
	b->out_s = BUDGET_OUT_S;
	b->pct = -1;
	budget_set(b, pct);
	take_mark(b, &b->iv);
	return b;
}

void budget_free(struct budget *b)
{
	if (!b)
		return;
	for (int id = 0; id < tracer_nspecs(b->tr); id++) {
		tracer_unpark(b->tr, id, true);
		tracer_count_again(b->tr, id);
	}
	tracer_count_hits(b->tr, TRACER_HITS_BUDGET, false);
	cputime_free(b->cpu);
	free(b);
}

void budget_set(struct budget *b, double pct)
{
	struct mark m;

	b->pct = pct;
	tracer_count_hits(b->tr, TRACER_HITS_BUDGET, pct >= 0);
	gov_init(&b->gov);
	b->sampled = 0;
	b->costliest = -1;
	take_mark(b, &m);
	end_part(b, &m);
	b->on_at = m.t;
	unpark_all(b, true, false);
	start_on(b, &m);
	for (int id = 0; id < PT_MAX_SPECS; id++) {
		struct bspec *s = &b->s[id];

		if (!s->live)
			continue;
		s->duty = 1;
		s->slot_hits = s->hits;
		s->slot_parked = s->parked;
		s->slot_on_s = 0;
	}
	/* the first slot is short: a costly spec is cut in GOV_FIRST_S */
	b->slot = m;
	b->slot_s = GOV_SLOT_S;
	b->last = false;
	b->slot.t = m.t - GOV_SLOT_S + GOV_FIRST_S;
}

double budget_pct(const struct budget *b)
{
	return b->pct;
}

const struct cputime *budget_cputime(const struct budget *b)
{
	return b->cpu;
}

double budget_wake_s(const struct budget *b)
{
	double t, now;

	if (b->pct < 0)
		return -1;
	t = b->slot.t + b->slot_s;
	if (b->checked + GOV_CHECK_S < t)
		t = b->checked + GOV_CHECK_S;
	now = cputime_clock_s(CLOCK_MONOTONIC);
	for (int id = 0; id < PT_MAX_SPECS; id++) {
		const struct bspec *s = &b->s[id];

		if (s->live && s->on && s->duty < 1 && s->off_at < t)
			t = s->off_at;
		if (waiting(b, s, now) && now + BUDGET_RETRY_S < t)
			t = now + BUDGET_RETRY_S;
	}
	if (b->on_at > now && b->on_at < t)
		t = b->on_at; /* the slot's windows begin */
	return t;
}

/* What spec id's hits in the slot under way cost, ns, if it may be cut
 * for a burst (attached whole, and not one another needs), else 0. */
static double burst_price(const struct budget *b, int id)
{
	const struct tracer_spec_info *info = tracer_spec_info(b->tr, id);
	const struct bspec *s = &b->s[id];

	if (!info || !s->live || !s->on || s->duty < 1 || is_fixed(info))
		return 0;
	return (double)(s->hits - s->slot_hits) * cost_hit_ns(b->cost, info);
}

/*
 * Within a slot, at mark m: if every spec's hits have cost more of it
 * than the governor allows the whole slot (gov_room_ns()), a burst is
 * under way: the spec attached whole that hit most in the slot (but one
 * that cannot be sampled, or one whose hits cost under GOV_FLOOR of the
 * room) is parked now, its duty what of the slot has gone. The next
 * look, GOV_CHECK_S later, cuts the next if need be; the cheap stay
 * exact.
 */
static void check_burst(struct budget *b, const struct mark *m)
{
	double room = gov_room_ns(&b->gov);
	double gone = (m->t - b->slot.t) / b->slot_s;
	double most = 0;
	int id = -1;

	if (room < 0 || m->spent - b->slot.spent <= room)
		return;
	for (int i = 0; i < tracer_nspecs(b->tr); i++) {
		double p = burst_price(b, i);

		if (p > most) {
			most = p;
			id = i;
		}
	}
	if (id < 0 || most <= GOV_FLOOR * room || near_end(b, m->t))
		return; /* the cheap are not what spent it */
	b->s[id].duty = gone < GOV_MIN_DUTY ? GOV_MIN_DUTY
			: gone < 1	    ? gone
					    : 0.99;
	b->s[id].off_at = m->t;
	park(b, id, m);
	b->sampled++;
	if (b->costliest < 0)
		b->costliest = id;
}

void budget_tick(struct budget *b)
{
	struct mark m;
	double t = cputime_clock_s(CLOCK_MONOTONIC);
	/* the last slot: the interval's end begins the next (unless it
	 * is late by a slot: paused, or the first interval's length) */
	bool due = false,
	     slot = t >= b->slot.t + b->slot_s + (b->last ? GOV_SLOT_S : 0);
	bool check = t >= b->checked + GOV_CHECK_S, attached;

	if (b->pct < 0)
		return;
	for (int id = 0; id < PT_MAX_SPECS && !due; id++)
		due = (b->s[id].live && b->s[id].on && b->s[id].duty < 1 &&
		       t >= b->s[id].off_at) ||
		      waiting(b, &b->s[id], t);
	if (!due && !slot && !check)
		return;
	attached = !slot && unpark_waiting(b, t);
	take_mark(b, &m);
	b->checked = m.t;
	if (slot) {
		start_slot(b, &m, true);
		return;
	}
	if (attached)
		start_on(b, &m);
	check_burst(b, &m);
	for (int id = 0; id < PT_MAX_SPECS; id++) {
		struct bspec *s = &b->s[id];

		if (!s->live || !s->on || s->duty >= 1 || m.t < s->off_at)
			continue;
		if (!b->last && m.t >= b->slot.t + b->slot_s)
			continue; /* attached late, past the slot: the next
				     slot's start times its window */
		if (near_end(b, m.t))
			s->off_at = INFINITY; /* on to the interval's end */
		else
			park(b, id, &m);
	}
}

size_t budget_sampled(const struct budget *b, int *costliest)
{
	if (costliest)
		*costliest = b->costliest;
	return b->pct < 0 ? 0 : b->sampled;
}

/*
 * What spec s's hits in its windows stand for, by the target's CPU time:
 * its work over its sampled slots over its work in the windows, work
 * being the CPU time less what every hit in it cost, at k times the
 * meter's prices. INFINITY where no work is left in the windows at
 * that; at least 1.
 */
static double cpu_factor_at(const struct bspec *s, double k)
{
	double all = s->samp_cpu - k * s->samp_spent;
	double on = s->on_cpu - k * s->on_spent;

	if (on <= 0)
		return s->samp_own ? INFINITY : 1;
	return all > on ? all / on : 1;
}

/*
 * The least spec s's CPU factor can be, whatever a hit costs in its
 * windows: there the traps' time counts as work, which only adds the
 * same to the work over the sampled slots and in the windows and so
 * brings their ratio down; out of them, where a parked spec's last hits
 * fall, each is taken at the meter's price. At least 1.
 */
static double cpu_least(const struct bspec *s)
{
	double all = s->samp_cpu - (s->samp_spent - s->on_spent);

	if (s->on_cpu <= 0)
		return s->samp_own ? INFINITY : 1;
	return all > s->on_cpu ? all / s->on_cpu : 1;
}

/*
 * What spec s's hits in its windows stand for, by time: the sampled
 * slots' time over the windows', each less k times what the hits in it
 * cost (ns of CPU taken as ns of the target's time). A target whose
 * threads do their work as fast as they can (a loop, a client waiting
 * for each reply) is slowed in the windows by all the hits cost there
 * (k = 1, or at most the dearest price); one whose work comes at a pace
 * of its own (requests arriving) is not slowed (k = 0). INFINITY where
 * no time is left in the windows at that; at least 1.
 */
static double time_factor_at(const struct bspec *s, double k)
{
	double all = s->samp_s - k * s->samp_spent / 1e9;
	double on = s->on_s - k * s->on_spent / 1e9;

	if (on <= 0)
		return s->samp_own ? INFINITY : 1;
	return all > on ? all / on : 1;
}

/* Spec s's relative variance by the windows w (winstat.h): this
 * interval's; with too few, theirs with the spread of its recent windows
 * (INFINITY: too few of those, its first second sampled). */
static double spread(const struct wins *w)
{
	return w->now.seen >= WINSTAT_MIN
		       ? winstat_rel_var(&w->now)
		       : winstat_rel_var_of(&w->recent, &w->now);
}

/* An estimator's factor, its range at any price it allows, the least it
 * can be and its spreads (budget_est's fields of the same names). */
struct est_by {
	double factor, f_lo, f_hi, f_min, rel_var, rel_all;
};

/* The meter's prices may be off by what share (budget.h): either way by
 * cost_price_err(), and up by BUDGET_SEM_NS more a hit of a spec (info)
 * whose semaphores the target tests (its code may prepare their
 * arguments only while attached: work that adds to a hit's cost, never
 * takes from it), as a share of its trap's price. */
static void price_range(const struct tracer_spec_info *info, double *lo,
			double *hi)
{
	double err = cost_price_err();

	*lo = 1 - err;
	*hi = 1 + err +
	      (info && info->semaphore ? BUDGET_SEM_NS / cost_spec_trap_ns(info)
				       : 0);
}

/* Spec s's estimate by CPU time: at the meter's prices, and at those
 * times rlo and rhi. */
static void by_cpu(const struct bspec *s, double rlo, double rhi,
		   struct est_by *x)
{
	double lo = cpu_factor_at(s, rlo), hi = cpu_factor_at(s, rhi);

	x->factor = cpu_factor_at(s, 1);
	x->f_lo = fmin(lo, hi);
	x->f_hi = fmax(lo, hi);
	x->f_min = cpu_least(s);
	x->rel_var = spread(&s->cpu);
	x->rel_all = winstat_rel_var(&s->cpu.all);
}

/*
 * How much the hits in spec s's windows slowed the target, as a share k
 * of what they cost at the meter's prices, a range: the prices times
 * rlo..rhi (never more than the target's CPU time in the windows: what
 * the hits cost it, it spent there), less the share m its waits took
 * (s->m_lo..m_hi, pace.h; below 0 where they grew, a target slowed by
 * more than its hits' CPU time: Java's). k from 0 (a target not slowed)
 * to INFINITY (nothing known: no estimate by time).
 */
static void slowed(const struct budget *b, struct bspec *s, double rlo,
		   double rhi, double *klo, double *khi)
{
	if (b->cpu && s->on_spent > 0 && s->on_cpu / s->on_spent < rhi)
		rhi = s->on_cpu / s->on_spent;
	rlo = fmin(rlo, rhi);
	*klo = fmax(0, rlo - fmin(s->m_hi, rhi));
	*khi = rhi - s->m_lo;
	if (!(*khi >= *klo)) /* waits shorter by more than the hits cost */
		*khi = INFINITY;
}

/*
 * Whether spec s's windows show the target's work cut to fit its time:
 * by time, a target the hits slow does its work later (or waits less),
 * so that its CPU time in the windows exceeds what its CPU time's rate
 * out of them makes of their length by what the hits cost there beyond
 * what hits out of them cost in as long (own: every spec's hits count,
 * and another's may fall in this one's gaps), less what its slowing (up
 * to khi) took of its work's rate (r); one that works for so long
 * whatever it gets done (truthwork's busy phases) has the same CPU time
 * in the windows as out of them, hits and all, and its hits there stand
 * for work that was never done. A part cut (truthwork reads its clock
 * every 2 us of work, so that its calls overran their time by 0.3 to
 * 0.85 of the hits' cost where a trap costs 4 us) leaves the estimate
 * low by the work cut over the work done in the windows (their CPU time
 * less the hits' cost): a shortfall of BUDGET_CUT_TOL of that work is
 * let pass, as the estimate's premise (docs/architecture.md). So is the
 * price's error (rlo), where it is smaller: else the hits' cost is taken
 * at the meter's price (a cut hidden in the error would be too much:
 * truthwork at 0.05 us a call read a 20th of the truth by time; CPython's
 * slowed calls rose by 1.4 of it). Read over its windows and gaps of the
 * last seconds, as its pace is (one interval's alone may not tell: a
 * workload that ends part way through it runs at another rate in its
 * windows than in its gaps). Told only of a target that works at most
 * BUDGET_TIME_MAX_CPU of the time out of its windows (a cut of a busier
 * one would hide in its own rate: truthwork busy half the time read 0.56
 * of the truth by time). The slowing is taken at most at the dearest
 * price (rhi) but where the target's waits grew in the windows
 * (held_up()): waits too few to say (a range of -4..2) would hide a
 * cut. Windows without a hit cut nothing.
 */
static bool work_cut(const struct budget *b, const struct bspec *s, double rlo,
		     double rhi, double khi)
{
	double gap_ns = s->pace.gap_s * 1e9, on_ns = s->pace.on_s * 1e9;
	double r, own, work, excess, price = rlo;

	if (!b->cpu || gap_ns <= 0)
		return true; /* nothing to tell it by */
	if (s->pace.spent <= BUDGET_IDLE_NS)
		return false; /* no hit in the windows to cut work for */
	r = fmax(0, s->pace_gap_cpu - s->pace_gap_spent) / gap_ns;
	if (r > BUDGET_TIME_MAX_CPU)
		return true; /* a cut would not show */
	if (!(s->m_hi < 0))
		khi = fmin(khi, rhi);
	own = s->pace.spent - s->pace_gap_spent / gap_ns * on_ns;
	work = fmax(0, s->pace_on_cpu - s->pace.spent);
	if ((1 - rlo) * own > BUDGET_CUT_TOL * work)
		price = 1; /* the price's error too much (see above) */
	excess = s->pace_on_cpu - s->pace_gap_cpu / gap_ns * on_ns;
	return excess <
	       price * own - r * khi * s->pace.spent - BUDGET_CUT_TOL * work;
}

/* Spec s's estimate by time: the middle of its factor's range over the
 * share of the hits' cost that slowed the target (slowed()); that range
 * is its error. None where its work was cut to fit (work_cut()). */
static void by_time(const struct budget *b, struct bspec *s, double rlo,
		    double rhi, struct est_by *x)
{
	double klo, khi, lo, hi;

	slowed(b, s, rlo, rhi, &klo, &khi);
	lo = time_factor_at(s, klo);
	hi = work_cut(b, s, rlo, rhi, khi) ? INFINITY : time_factor_at(s, khi);
	x->f_lo = x->f_min = fmin(lo, hi);
	x->f_hi = fmax(lo, hi);
	x->factor = (x->f_lo + x->f_hi) / 2;
	x->rel_var = spread(&s->time);
	x->rel_all = winstat_rel_var(&s->time.all);
}

/* The relative error of an estimate x's factor (INFINITY: none). */
static double by_range(const struct est_by *x)
{
	return isfinite(x->factor) && isfinite(x->f_hi)
		       ? fmax(x->f_hi - x->factor, x->factor - x->f_lo) /
				 x->factor
		       : INFINITY;
}

/* What a row of an estimate x is off by at most, relative, but for its
 * own hits' sample: its factor's error and AGG_SIGMAS of the spread of
 * what it stands for out of the windows (INFINITY: no estimate). */
static double by_err(const struct est_by *x)
{
	if (!isfinite(x->rel_var) || !isfinite(by_range(x)))
		return INFINITY;
	return by_range(x) +
	       AGG_SIGMAS * sqrt(x->rel_var) * (x->factor - 1) / x->factor;
}

/* Whether estimate t errs less than c. */
static bool errs_less(const struct est_by *t, const struct est_by *c)
{
	return by_err(t) < by_err(c);
}

/*
 * Spec s's estimates by time (t) and CPU time (c) of an interval it
 * missed work in: which it takes. The one that errs less; in an interval
 * where neither can say (too few windows), the one it took in the last
 * that could, unless that one has no factor now: a total's spread is
 * its estimator's of all the windows, and an interval that says nothing
 * (the target's last) does not change it; before any could, the one
 * whose factor errs less (the interval's part of a total).
 */
static void choose(struct bspec *s, const struct est_by *t,
		   const struct est_by *c)
{
	if (isfinite(by_err(t)) || isfinite(by_err(c))) {
		s->by_time = errs_less(t, c);
		s->chosen = true;
	} else if (!s->chosen || isinf(by_range(s->by_time ? t : c))) {
		s->by_time = by_range(t) < by_range(c);
	}
}

/*
 * What more than their price spec s's hits may have cost the target in
 * its windows, by CPU time, as a share of that price: where its waits
 * grew there (pace.h: the hits held it up beyond their own time, a lock
 * held longer), its other threads may have spun for what a hit held, on
 * as many CPUs as it kept busy there; else nothing. Where a trap costs
 * 4 us, pgbench's buffer reads, their waits grown by 2.5 to 7 times
 * the hits' cost, read 0.6 to 0.84 of the truth as estimates within 21
 * to 23%, and its statements beside -P postgresql's 20 specs (whose
 * windows nest in theirs, and with them what the others' hits held up)
 * 0.84 to 0.85 as estimates within 15% (0.985 alone). Reads m as
 * factors() last took it (s->m_hi).
 */
static double held_up(const struct bspec *s)
{
	if (!(s->m_hi < 0) || s->on_s <= 0)
		return 0;
	return s->on_cpu / (s->on_s * 1e9);
}

/*
 * Spec s's (info) estimate into e: by CPU time, or by time where that
 * errs less. The CPU's is the better where the target's work is
 * uneven over time (it sleeps between bursts), but it is lost where the
 * hits cost about what the target's own work in the windows is: a
 * CPython loop's calls cost 0.7 us of trap and program each against
 * 0.2 us of work, so that the price off by 15% leaves no work in the
 * windows. By time, the same price off moves the factor a few %.
 */
static void factors(const struct budget *b, struct bspec *s,
		    const struct tracer_spec_info *info, struct budget_est *e)
{
	double gap = (s->samp_cpu - s->on_cpu) - (s->samp_spent - s->on_spent);
	double rlo, rhi;
	struct est_by c, t;

	price_range(info, &rlo, &rhi);
	pace_range(&s->pace, &s->m_lo, &s->m_hi); /* held_up(), slowed() */
	by_cpu(s, rlo, rhi + held_up(s), &c);
	by_time(b, s, rlo, rhi, &t);
	if (e->estimated && (!b->cpu || gap > BUDGET_IDLE_NS))
		choose(s, &t, &c);
	e->by_time = s->by_time;
	if (e->by_time)
		c = t;
	/* spreads whatever the interval: a total's is of all the windows */
	e->rel_var = c.rel_var;
	e->rel_all = c.rel_all;
	if (!e->estimated)
		return;
	e->factor = c.factor;
	e->f_lo = c.f_lo;
	e->f_hi = c.f_hi;
	e->f_min = c.f_min;
	e->measured = b->cpu != NULL;
	/* by time, a window with no hit says the hits are few, whatever
	 * the target did in it */
	e->blind = e->by_time ? s->on_s <= 0
			      : s->on_cpu - s->on_spent <= BUDGET_IDLE_NS;
	e->missed = !e->measured || gap > BUDGET_IDLE_NS;
}

/* What spec id's estimate e of the interval ending stands on, at debug
 * level (PROBETOP_DEBUG): when a row is a bound, which part said so. */
static void log_est(int id, const struct bspec *s, const struct budget_est *e)
{
	log_msg(LOG_DEBUG,
		"budget: spec %d: duty %.3f, %u windows (%u in all), by %s: "
		"factor %.3f (%.3f..%.3f, least %.3f), spread %.4f (all "
		"%.4f), CPU %.1f ms in windows of %.1f, hits' cost %.1f of "
		"%.1f ms, %.1f ms in windows of %.1f, waits took %.2f..%.2f "
		"of the hits' cost (%.0f waits in windows, %.0f out)%s%s%s",
		id, e->duty, s->cpu.now.seen, s->cpu.all.seen,
		e->by_time ? "time" : "CPU", e->factor, e->f_lo, e->f_hi,
		e->f_min, e->rel_var, e->rel_all, s->on_cpu / 1e6,
		s->samp_cpu / 1e6, s->on_spent / 1e6, s->samp_spent / 1e6,
		s->on_s * 1e3, s->samp_s * 1e3, s->m_lo, s->m_hi, s->pace.on.n,
		s->pace.gap.n, e->measured ? "" : ", CPU time unmeasured",
		e->missed ? "" : ", idle out of its windows",
		e->blind ? ", no work in its windows" : "");
}

/* Spec s's windows and gaps of the interval ending, secs long, into
 * those its pace is read from, the older weighing less. */
static void pace_merge(struct bspec *s, double secs)
{
	double keep = pow(0.5, secs / BUDGET_PACE_HALF_S);
	struct waits gap;

	waits_sub(&s->samp_w, &s->on_w, &gap);
	pace_add(&s->pace, &s->on_w, &gap, s->on_spent, s->time.now.seen,
		 s->on_s, s->samp_s - s->on_s, keep);
	s->pace_on_cpu = s->pace_on_cpu * keep + s->on_cpu;
	s->pace_gap_cpu = s->pace_gap_cpu * keep + (s->samp_cpu - s->on_cpu);
	s->pace_gap_spent =
		s->pace_gap_spent * keep + (s->samp_spent - s->on_spent);
}

/* The windows of the interval ending, secs long, into all and recent. */
static void wins_merge(struct wins *w, double secs)
{
	winstat_merge(&w->all, &w->now);
	winstat_decay(&w->recent, pow(0.5, secs / BUDGET_SPREAD_HALF_S));
	winstat_merge(&w->recent, &w->now);
}

void budget_interval(struct budget *b, struct budget_est *out, size_t n)
{
	struct mark m;
	double secs;

	take_mark(b, &m);
	end_part(b, &m);
	secs = m.t - b->iv.t;
	for (size_t id = 0; id < n; id++) {
		struct bspec *s = &b->s[id];
		uint64_t own = s->hits - s->iv_hits;

		out[id] = (struct budget_est){ .duty = 1, .factor = 1 };
		if (!s->live)
			continue;
		if (s->sampled && b->pct >= 0 && secs > 0) {
			out[id].estimated = true;
			out[id].duty = (secs - s->samp_s + s->on_s) / secs;
			out[id].in_windows =
				own ? (double)s->samp_own / (double)own : 0;
		}
		if (out[id].estimated)
			pace_merge(s, secs);
		wins_merge(&s->cpu, secs);
		wins_merge(&s->time, secs);
		factors(b, s, tracer_spec_info(b->tr, (int)id), &out[id]);
		if (out[id].estimated)
			log_est((int)id, s, &out[id]);
		s->cpu.now = s->time.now = (struct winstat){ 0 };
		s->iv_hits = s->hits;
		s->sampled = false;
		s->samp_s = s->on_s = s->samp_cpu = s->on_cpu = 0;
		s->samp_own = 0;
		s->samp_spent = s->on_spent = 0;
		s->samp_w = s->on_w = (struct waits){ 0 };
	}
	b->iv_s = m.t - b->iv.t;
	b->out_s *= BUDGET_OUT_DECAY;
	if (b->out_s < BUDGET_OUT_S)
		b->out_s = BUDGET_OUT_S;
	b->iv = m;
	/* every interval begins a slot, so that its first windows are its
	 * own: the rest of a slot whose window was in the last interval
	 * would be a gap with none, and work that ends in it (a phase's
	 * tail) would leave the interval's rows bounds */
	if (b->pct >= 0)
		start_slot(b, &m, false);
}
