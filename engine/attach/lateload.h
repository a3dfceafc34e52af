/* SPDX-License-Identifier: MIT */
/*
 * lateload — a program of probetop's BPF object loaded the first time a
 * spec needs it, not at start: the object opened again with that
 * program its only one and the tracer's maps its maps, so that it sees
 * and fills what the rest does. The profile:HZ programs (profile.h) and
 * the walker programs (siteprog.h) load so, each a set (struct lateset)
 * whose programs load at the first spec whose keys need one.
 *
 * Called by profile.c and siteprog.c; uses tracer_state.h.
 */
#ifndef PROBETOP_LATELOAD_H
#define PROBETOP_LATELOAD_H

#include <stdbool.h>

struct tracer;
struct bpf_object;
struct bpf_program;

#define LATESET_MAX 6 /* the most programs a set holds */

/* A set of programs of tr's object, each loaded alone the first time it
 * is asked for: their names (n of them), what is loaded of them. */
struct lateset {
	const char *const *names;
	int n;
	struct bpf_object *obj[LATESET_MAX]; /* to close */
	struct bpf_program *prog[LATESET_MAX]; /* NULL: not loaded yet */
};

/* Before tr's object loads: s is names[0..n), none loaded with it. */
void lateset_defer(struct tracer *tr, struct lateset *s,
		   const char *const *names, int n);

/* Program i of s, loaded now, alone and on tr's maps, if it was not
 * (multi: to be attached by uprobe_multi links). NULL with errno (the
 * failure logged). */
struct bpf_program *lateset_get(struct tracer *tr, struct lateset *s, int i,
				bool multi);

/* The fds of s's programs into fds[0..s->n) (-1 for one not loaded). */
void lateset_fds(const struct lateset *s, int *fds);

/* Close what s loaded. */
void lateset_free(struct lateset *s);

#endif
