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

/* The level L at which sum(min(price, L)) over the sampled specs is
 * room, or -1 if every one fits whole. */
static double level(const struct gov *g, const struct gov_in *in, size_t n,
		    double room)
{
	double lo = 0, hi = 0, sum = 0;

	for (size_t i = 0; i < n; i++) {
		if (!in[i].live || in[i].fixed)
			continue;
		sum += g->spec[i].price;
		if (g->spec[i].price > hi)
			hi = g->spec[i].price;
	}
	if (sum <= room)
		return -1;
	if (room <= 0)
		return 0;
	for (int it = 0; it < 60; it++) { /* bisection: hi - lo < hi / 2^60 */
		double mid = (lo + hi) / 2, used = 0;

		for (size_t i = 0; i < n; i++)
			if (in[i].live && !in[i].fixed)
				used += g->spec[i].price < mid
						? g->spec[i].price
						: mid;
		if (used > room)
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
	double room;
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
	g->room_ns = room > 0 ? room * GOV_SLOT_S : 0;
	for (size_t i = 0; i < n; i++)
		if (in[i].live && in[i].fixed)
			room -= g->spec[i].price;
	/* in debt, the costly pay it back: the cheap keep a tenth */
	if (room < budget_ns * GOV_FLOOR)
		room = budget_ns * GOV_FLOOR;
	g->level = level(g, in, n, room);
	if (g->level < 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		double d;

		if (!in[i].live || in[i].fixed || g->spec[i].price <= g->level)
			continue;
		d = g->level / g->spec[i].price;
		d = d < GOV_MIN_DUTY ? GOV_MIN_DUTY : d;
		if (d > GOV_FULL)
			continue;
		duty[i] = d;
		cut++;
	}
	return cut;
}
