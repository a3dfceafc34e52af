// SPDX-License-Identifier: MIT
/*
 * budget — duty cycles under a CPU budget, and the estimates they make;
 * see budget.h.
 *
 * A "mark" is a moment the budget looks: a slot's start, a park, the end
 * of an interval. At each it reads the target's CPU time and every live
 * spec's hit counter once; a spec's work while attached is the CPU time
 * between the mark it was attached at and the next, less the price of
 * every hit (of all specs) in between.
 */
#include "budget.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost.h"
#include "governor.h"
#include "probetop.h"
#include "proc.h"
#include "spec.h"
#include "tracer.h"

/* What a mark saw. */
struct mark {
	double t; /* CLOCK_MONOTONIC s */
	double cpu_ns; /* the target's CPU time (intervals' marks); < 0:
			  unknown */
	uint64_t hits[PT_MAX_SPECS]; /* each spec's hit counter */
};

struct bspec {
	unsigned int gen;
	bool live;
	bool on; /* attached now */
	double duty; /* of the current slot */
	double off_at; /* when it parks in this slot (on, duty < 1) */
	struct mark since; /* the mark it was last attached (or looked) at */
	uint64_t slot_hits; /* hits counter at the slot's start */
	double slot_on_s; /* attached in the current slot */
	/* this interval */
	bool cut; /* sampled at some point */
	double on_s; /* attached */
	double hits_on_ns; /* the price of the hits (of all specs) then */
};

struct budget {
	struct tracer *tr;
	const struct cost *cost;
	double pct;
	pid_t pid; /* whose CPU time is the target's work; 0: none */
	int ncpu;
	struct gov gov;
	double slot_t0;
	size_t sampled;
	int costliest;
	struct mark iv; /* the interval's start */
	struct mark after; /* start_slot()'s, once the specs are attached */
	struct bspec s[PT_MAX_SPECS];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spec id's hit counter, summed over CPUs (0 if it cannot be read). */
static uint64_t read_hits(const struct budget *b, int fd, int id)
{
	struct pt_stat v[b->ncpu];
	uint32_t key = (uint32_t)id;
	uint64_t n = 0;

	if (bpf_map_lookup_elem(fd, &key, v))
		return 0;
	for (int c = 0; c < b->ncpu; c++)
		n += v[c].hits;
	return n;
}

/* Look now: every live spec's hits (and, if cpu, the target's CPU time)
 * into m; specs whose slot was reused are reset. */
static void take_mark(struct budget *b, struct mark *m, bool cpu)
{
	struct tracer_maps maps;
	uint64_t ns;

	tracer_maps(b->tr, &maps);
	m->t = now_s();
	m->cpu_ns = cpu && b->pid && !proc_cpu_ns(b->pid, &ns) ? (double)ns
								: -1;
	for (int id = 0; id < PT_MAX_SPECS; id++) {
		const struct tracer_spec_info *info =
			id < tracer_nspecs(b->tr) ? tracer_spec_info(b->tr, id)
						  : NULL;
		struct bspec *s = &b->s[id];

		if (!info) {
			s->live = false;
			m->hits[id] = 0;
			continue;
		}
		m->hits[id] = read_hits(b, maps.stats, id);
		if (!s->live || s->gen != info->gen) {
			memset(s, 0, sizeof(*s));
			s->live = true;
			s->gen = info->gen;
			s->on = !tracer_parked(b->tr, id);
			s->duty = 1;
			s->since = *m;
			s->slot_hits = m->hits[id];
		}
	}
}

/* CPU of every spec's hits between marks a and z, ns. */
static double hits_ns(const struct budget *b, const struct mark *a,
		      const struct mark *z)
{
	uint64_t n = 0;

	for (int id = 0; id < PT_MAX_SPECS; id++)
		if (b->s[id].live && z->hits[id] >= a->hits[id])
			n += z->hits[id] - a->hits[id];
	return (double)n * cost_hit_ns(b->cost);
}

/* Spec s was attached from s->since to m: count that time, and the
 * price of every hit in it. */
static void account(struct budget *b, struct bspec *s, const struct mark *m)
{
	double dt = m->t - s->since.t;

	s->on_s += dt;
	s->slot_on_s += dt;
	s->hits_on_ns += hits_ns(b, &s->since, m);
	s->since = *m;
}

static bool is_fixed(const struct tracer_spec_info *info)
{
	return info->exact || info->spec->agg == SPEC_AGG_LATENCY;
}

/* A slot starts at mark m: ask the governor, attach every spec, and
 * time the parks. */
static void start_slot(struct budget *b, const struct mark *m)
{
	struct gov_in in[PT_MAX_SPECS];
	double duty[PT_MAX_SPECS], best = -1;
	bool attached = false;
	int n = tracer_nspecs(b->tr);

	for (int id = 0; id < n; id++) {
		struct bspec *s = &b->s[id];
		const struct tracer_spec_info *info =
			tracer_spec_info(b->tr, id);

		if (s->on)
			account(b, s, m);
		in[id] = (struct gov_in){
			.live = s->live && info,
			.fixed = info && is_fixed(info),
			.hits = m->hits[id] - s->slot_hits,
			.on_s = s->slot_on_s,
			.hit_ns = cost_hit_ns(b->cost),
		};
	}
	b->sampled = gov_slot(&b->gov, in, (size_t)n, 0,
			      b->pct * 1e9 / 100.0, duty);
	if (getenv("PT_BUDGET_DEBUG"))
		fprintf(stderr, "slot %.3f: sampled %zu duty0 %.3f price0 %.0f hits0 %llu on0 %.4f\n", m->t, b->sampled, duty[0], b->gov.spec[0].price, (unsigned long long)in[0].hits, in[0].on_s);
	b->costliest = -1;
	for (int id = 0; id < n; id++) {
		struct bspec *s = &b->s[id];

		if (!s->live)
			continue;
		s->slot_hits = m->hits[id];
		s->slot_on_s = 0;
		s->duty = duty[id];
		if (duty[id] < 1) {
			s->cut = true;
			if (b->gov.spec[id].price > best) {
				best = b->gov.spec[id].price;
				b->costliest = id;
			}
		}
		if (!s->on) {
			tracer_park(b->tr, id, false);
			attached = true;
		}
	}
	/* attaching takes the kernel a grace period or so (ms): the
	 * windows start when it is done, as the hits counted do (park.h) */
	if (attached)
		take_mark(b, &b->after, false);
	for (int id = 0; id < n; id++) {
		struct bspec *s = &b->s[id];

		if (!s->live)
			continue;
		if (!s->on) {
			s->on = true;
			s->since = b->after;
		}
		s->off_at = s->since.t + s->duty * GOV_SLOT_S;
	}
	b->slot_t0 = m->t;
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
	b->pid = tracer_target_pid(tr);
	b->ncpu = libbpf_num_possible_cpus();
	b->ncpu = b->ncpu < 1 ? 1 : b->ncpu;
	b->costliest = -1;
	gov_init(&b->gov);
	b->pct = -1;
	budget_set(b, pct);
	take_mark(b, &b->iv, true);
	return b;
}

/* Attach every parked spec. */
static void unpark_all(struct budget *b)
{
	for (int id = 0; id < tracer_nspecs(b->tr); id++)
		if (tracer_parked(b->tr, id))
			tracer_park(b->tr, id, false);
}

void budget_free(struct budget *b)
{
	if (!b)
		return;
	if (getenv("PT_BUDGET_DEBUG"))
		fprintf(stderr, "hit %.0f trap %.0f\n", cost_hit_ns(b->cost), cost_trap_ns());
	unpark_all(b);
	tracer_count_hits(b->tr, false);
	free(b);
}

void budget_set(struct budget *b, double pct)
{
	struct mark m;

	b->pct = pct;
	tracer_count_hits(b->tr, pct >= 0);
	gov_init(&b->gov);
	b->sampled = 0;
	b->costliest = -1;
	take_mark(b, &m, false);
	for (int id = 0; id < PT_MAX_SPECS; id++) {
		struct bspec *s = &b->s[id];

		if (!s->live)
			continue;
		if (!s->on) {
			tracer_park(b->tr, id, false);
			s->on = true;
			s->since = m;
		}
		s->duty = 1;
		s->slot_hits = m.hits[id];
		s->slot_on_s = 0;
	}
	b->slot_t0 = m.t;
}

double budget_pct(const struct budget *b)
{
	return b->pct;
}

double budget_wake_s(const struct budget *b)
{
	double t;

	if (b->pct < 0)
		return -1;
	t = b->slot_t0 + GOV_SLOT_S;
	for (int id = 0; id < PT_MAX_SPECS; id++)
		if (b->s[id].live && b->s[id].on && b->s[id].duty < 1 &&
		    b->s[id].off_at < t)
			t = b->s[id].off_at;
	return t;
}

void budget_tick(struct budget *b)
{
	struct mark m;
	double t = now_s();
	bool due = false;

	if (b->pct < 0)
		return;
	for (int id = 0; id < PT_MAX_SPECS && !due; id++)
		due = b->s[id].live && b->s[id].on && b->s[id].duty < 1 &&
		      t >= b->s[id].off_at;
	if (!due && t < b->slot_t0 + GOV_SLOT_S)
		return;
	take_mark(b, &m, false);
	if (m.t >= b->slot_t0 + GOV_SLOT_S) {
		start_slot(b, &m);
		return;
	}
	for (int id = 0; id < PT_MAX_SPECS; id++) {
		struct bspec *s = &b->s[id];

		if (!s->live || !s->on || s->duty >= 1 || m.t < s->off_at)
			continue;
		account(b, s, &m);
		tracer_park(b->tr, id, true);
		s->on = false;
	}
}

size_t budget_sampled(const struct budget *b, int *costliest)
{
	if (costliest)
		*costliest = b->costliest;
	return b->pct < 0 ? 0 : b->sampled;
}

/*
 * What spec s's counts over the interval [b->iv, m] are multiplied by:
 * the target's work over the interval over its work while s was
 * attached. The target's CPU time is read at the ends of intervals only
 * (another process's is as of its last tick: windows of a few ms cannot
 * be timed by it), so the target is taken to use CPU at the interval's
 * mean rate u throughout: work is u times the wall time, less the price
 * of the hits in it. Without the target's CPU time (-b), u is 1: for a
 * target that takes a small share of a CPU, the share of wall time.
 */
static double factor(const struct budget *b, const struct bspec *s,
		     const struct mark *m)
{
	double secs = m->t - b->iv.t, u = 1, all, on, f;

	if (s->on_s <= 0 || secs <= 0)
		return 1;
	if (m->cpu_ns >= 0 && b->iv.cpu_ns >= 0 && m->cpu_ns > b->iv.cpu_ns)
		u = (m->cpu_ns - b->iv.cpu_ns) / 1e9 / secs;
	all = u * secs * 1e9 - hits_ns(b, &b->iv, m);
	on = u * s->on_s * 1e9 - s->hits_on_ns;
	/* a hit priced too high leaves no work: keep a floor */
	if (on < 0.02 * u * s->on_s * 1e9)
		on = 0.02 * u * s->on_s * 1e9;
	f = on > 0 ? all / on : secs / s->on_s;
	return f < 1 ? 1 : f;
}

void budget_interval(struct budget *b, struct budget_est *out, size_t n)
{
	struct mark m;
	double secs;

	take_mark(b, &m, true);
	secs = m.t - b->iv.t;
	for (size_t id = 0; id < n; id++) {
		struct bspec *s = &b->s[id];

		out[id] = (struct budget_est){ .duty = 1, .factor = 1 };
		if (!s->live)
			continue;
		if (s->on)
			account(b, s, &m);
		if (s->cut && b->pct >= 0) {
			out[id].estimated = true;
			out[id].duty = secs > 0 ? s->on_s / secs : 1;
			out[id].factor = factor(b, s, &m);
			if (getenv("PT_BUDGET_DEBUG"))
				fprintf(stderr, "budget: spec %zu on %.3f of %.3f s, hits_on_ns %.0f all_cpu %.0f hits_ns %.0f hit %.0f (trap %.0f) f %.2f\n", id, s->on_s, secs, s->hits_on_ns, m.cpu_ns - b->iv.cpu_ns, hits_ns(b, &b->iv, &m), cost_hit_ns(b->cost), cost_trap_ns(), out[id].factor);
		}
		s->cut = s->duty < 1; /* sampled in the slot under way */
		s->on_s = s->hits_on_ns = 0;
	}
	b->iv = m;
}
