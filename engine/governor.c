// SPDX-License-Identifier: MIT
/*
 * governor — duties under a budget; see governor.h.
 */
#include "governor.h"

#include <string.h>

void gov_init(struct gov *g)
{
	memset(g, 0, sizeof(*g));
	g->level = -1;
}

/* Update spec s's price from what it measured in the slot. */
static void price(struct gov_spec *s, const struct gov_in *in)
{
	double now;

	if (!in->live) {
		memset(s, 0, sizeof(*s));
		return;
	}
	if (in->on_s <= 0)
		return; /* not attached: nothing learnt */
	now = (double)in->hits / in->on_s * in->hit_ns;
	s->price = s->known && s->price * GOV_DECAY > now ? s->price * GOV_DECAY
							  : now;
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

size_t gov_slot(struct gov *g, const struct gov_in *in, size_t n,
		double kernel_ns, double budget_ns, double *duty)
{
	double room = budget_ns - kernel_ns;
	size_t cut = 0;

	for (size_t i = 0; i < n; i++) {
		price(&g->spec[i], &in[i]);
		if (in[i].live && in[i].fixed)
			room -= g->spec[i].price;
		duty[i] = 1;
	}
	if (budget_ns < 0) {
		g->level = -1;
		return 0;
	}
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
