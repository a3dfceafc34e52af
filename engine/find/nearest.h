/* SPDX-License-Identifier: MIT */
/*
 * nearest — what a spec that matches nothing probably meant. A spec that
 * names no known probe waits (a library may still be loaded), which is
 * silence to someone who made a typo; these functions find the probe or
 * function of the known objects whose name is a few edits away, so that
 * the message can say "did you mean python:gc__start?".
 */
#ifndef PROBETOP_NEAREST_H
#define PROBETOP_NEAREST_H

#include <stdbool.h>
#include <stddef.h>

struct cat_object;
struct spec_probe;

/*
 * Edit distance of a and b, case ignored, a swap of two neighbours
 * counting as one edit (optimal string alignment); any distance above
 * max is returned as max + 1. Strings longer than 255 bytes are
 * max + 1 away from everything.
 */
unsigned nearest_distance(const char *a, const char *b, unsigned max);

/*
 * The probe of objs[0..n) nearest to p, among the objects p's OBJECT
 * names: a USDT probe by NAME, a different PROVIDER counting as one edit
 * more (so a wrong provider is found too), a fn: probe by function symbol.
 * Written to out (len bytes) as it would be written in a spec, with p's
 * object and %return kept: "python:gc__start", "fn:libc.so.6:malloc".
 * Close means at most 1 edit for NAMEs (symbols) up to 4 bytes, 2 up to
 * 10, else 3. false (out empty) if nothing is close, p itself is there
 * (so for a pair A..B only the missing one gets a suggestion), or p
 * holds a glob.
 */
bool nearest_probe(const struct cat_object *const *objs, size_t n,
		   const struct spec_probe *p, char *out, size_t len);

/*
 * Whether probe p, which matches none of objs[0..n) (a running
 * process's objects), cannot come later: an OBJECT p names is among them
 * (its probes and symbols are all known), or p names none and is a
 * function (every object's symbols were searched) or a USDT probe of a
 * PROVIDER one of them has. false where a library loaded later may
 * bring it: an OBJECT not mapped yet, a PROVIDER no object has, a glob
 * in the PROVIDER. A typo, where true.
 */
bool nearest_settled(const struct cat_object *const *objs, size_t n,
		     const struct spec_probe *p);

#endif
