/* SPDX-License-Identifier: MIT */
/*
 * lateload — a program of probetop's BPF object loaded the first time a
 * spec needs it, not at start: the object opened again with that
 * program its only one and the tracer's maps its maps, so that it sees
 * and fills what the rest does. pt_profile (the first profile:HZ) and
 * the walker programs (the first spec whose keys need one: siteprog.h)
 * load so.
 *
 * Called by profile.c and siteprog.c; uses tracer_state.h.
 */
#ifndef PROBETOP_LATELOAD_H
#define PROBETOP_LATELOAD_H

#include <stdbool.h>

struct tracer;
struct bpf_object;
struct bpf_program;

/* Load program name of tr's object alone, on tr's maps (multi: to be
 * attached by uprobe_multi links), into *obj (to close with
 * bpf_object__close()) and *prog. 0 or a negative errno (logged). */
int lateload(struct tracer *tr, const char *name, bool multi,
	     struct bpf_object **obj, struct bpf_program **prog);

#endif
