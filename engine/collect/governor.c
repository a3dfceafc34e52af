// SPDX-License-Identifier: MIT
/*
 * governor — duties under a budget; see governor.h.
 */
#include "governor.h"

#include <string.h>

double gov_room_ns(const struct gov *g)
{
	return g->room_ns;
}

void gov_init(struct gov *g)
{
	memset(g, 0, sizeof(*g));
	g->level = -1;
	g->room_ns = -1;
	g->reserve = -1e300; /* full at the first slot_s */
}

/* Update spec s's price from what it measured in the slot. */
static void price(struct gov_spec *s, const struct gov_in *in)
{
	if (!in->live) {
		memset(s, 0, sizeof(*s));
		return;
	}
	if (in->on_s <= 0)
		return; /* not attached: nothing learnt */
	s->price = (double)in->hits / in->on_s * in->hit_ns;
	s->known = true;
}

/* Whether spec in is one the pass for the preferred (pref) or for the
 * others shares room between. */
static bool in_pass(const struct gov_in *in, bool pref)
{
	return in->live && !in->fixed && in->preferred == pref;
}

/* What the specs of a pass take at level l: sum(min(price, l)), or every
 * price if l < 0. */
static double spent_at(const struct gov *g, const struct gov_in *in, size_t n,
		       double l, bool pref)
{
	double used = 0;

	for (size_t i = 0; i < n; i++)
		if (in_pass(&in[i], pref))
			used += l >= 0 && g->spec[i].price > l
					? l
					: g->spec[i].price;
	return used;
}

/* The level L at which the specs of a pass take room, or -1 if every
 * one fits whole. */
static double level(const struct gov *g, const struct gov_in *in, size_t n,
		    double room, bool pref)
{
	double lo = 0, hi = 0;

	for (size_t i = 0; i < n; i++)
		if (in_pass(&in[i], pref) && g->spec[i].price > hi)
			hi = g->spec[i].price;
	if (spent_at(g, in, n, -1, pref) <= room)
		return -1;
	if (room <= 0)
		return 0;
	for (int it = 0; it < 60; it++) { /* bisection: hi - lo < hi / 2^60 */
		double mid = (lo + hi) / 2;

		if (spent_at(g, in, n, mid, pref) > room)
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

/* Keep what the slot that ended (slot_s long) spent under the budget,
 * up to GOV_BURST_S of it, or owe what it spent over (as much at most). */
static void fill_reserve(struct gov *g, const struct gov_in *in, size_t n,
			 double slot_s, double budget_ns)
{
	double spent = 0, cap = budget_ns * GOV_BURST_S;

	for (size_t i = 0; i < n; i++)
		if (in[i].live)
			spent += (double)in[i].hits * in[i].hit_ns;
	if (g->reserve < -1e299)
		g->reserve = cap; /* the first slot */
	g->reserve += budget_ns * slot_s - spent;
	if (g->reserve > cap)
		g->reserve = cap;
	if (g->reserve < -cap)
		g->reserve = -cap; /* what fixed specs spend is not owed */
}

size_t gov_slot(struct gov *g, const struct gov_in *in, size_t n, double slot_s,
		double budget_ns, double *duty)
{
	double room, lp, spent, others, fixed = 0;
	size_t cut = 0;

	for (size_t i = 0; i < n; i++) {
		price(&g->spec[i], &in[i]);
		duty[i] = 1;
	}
	if (budget_ns < 0) {
		g->level = -1;
		g->room_ns = -1;
		return 0;
	}
	fill_reserve(g, in, n, slot_s, budget_ns);
	/* what the next slot may spend, a second */
	room = budget_ns + (g->reserve > 0
				    ? g->reserve / GOV_SLOT_S
				    : g->reserve / GOV_BURST_S); /* paid back */
	for (size_t i = 0; i < n; i++)
		if (in[i].live && in[i].fixed)
			fixed += g->spec[i].price;
	/* the preferred first, up to GOV_PREFER of the room (of the budget
	 * in debt: the others pay it back); the others share what is
	 * left, and in debt the cheap keep a tenth of the budget */
	lp = level(g, in, n,
		   GOV_PREFER * ((room > budget_ns ? room : budget_ns) - fixed),
		   true);
	spent = spent_at(g, in, n, lp, true);
	others = room - fixed - spent;
	if (others < budget_ns * GOV_FLOOR)
		others = budget_ns * GOV_FLOOR;
	g->level = level(g, in, n, others, false);
	/* a burst check (gov_room_ns()) leaves the preferred their share */
	if (spent > 0 && room < fixed + spent + budget_ns * GOV_FLOOR)
		room = fixed + spent + budget_ns * GOV_FLOOR;
	g->room_ns = room > 0 ? room * GOV_SLOT_S : 0;
	for (size_t i = 0; i < n; i++) {
		double l = in[i].preferred ? lp : g->level, d;

		if (!in[i].live || in[i].fixed || l < 0 ||
		    g->spec[i].price <= l)
			continue;
		d = l / g->spec[i].price;
		d = d < GOV_MIN_DUTY ? GOV_MIN_DUTY : d;
		if (d > GOV_FULL)
			continue;
		duty[i] = d;
		cut++;
	}
	return cut;
}
