/* SPDX-License-Identifier: MIT */
/*
 * siteprog — which program a spec's sites run: pt_usdt for a spec whose
 * keys are arguments, strings and statements; for one with frame or
 * stack keys, the program with their walkers (enum pt_walk): Python's,
 * PHP's, Ruby's or the native stack's alone (pt_walk_py, _php, _rb,
 * _native), or pt_walk with them all (mixstack, or keys of two). Each
 * walker program is loaded the first time a spec needs it (lateload.h):
 * a session of counts and histograms verifies none, one of Python's
 * frames only Python's walker.
 *
 * Called by tracer.c (before the object loads), attach.c and park.c
 * (attaching and attaching again), kside.c (the cost meter's programs).
 */
#ifndef PROBETOP_SITEPROG_H
#define PROBETOP_SITEPROG_H

#define SITEPROG_WALKS 5 /* pt_walk_py, _php, _rb, _native, pt_walk */

struct tracer;
struct spec;
struct bpf_program;

/* Before tr's object loads: no walker program with it. */
void siteprog_defer(struct tracer *tr);

/* Which walkers sp's keys need, as a family: 0 none, 1 + i the walkers
 * of walker program i (siteprog_fds()'s order; the last, pt_walk's,
 * all). Pure. */
int siteprog_family(const struct spec *sp);

/* Which program sp's sites run: 0 pt_usdt, 1 + i walker program i
 * (siteprog_family()); -1 none (a profile:HZ spec: profile.c's). Pure. */
int siteprog_index(const struct spec *sp);

/* The program sp's sites run in tr; NULL with errno set (a walker
 * program that could not be loaded: logged). */
struct bpf_program *siteprog_of(struct tracer *tr, const struct spec *sp);

/* The walker programs loaded: their fds into fds[0..SITEPROG_WALKS)
 * (-1 for one not loaded). */
void siteprog_fds(const struct tracer *tr, int *fds);

/* The walker programs' objects closed. */
void siteprog_free(struct tracer *tr);

#endif
