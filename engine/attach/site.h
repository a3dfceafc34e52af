/* SPDX-License-Identifier: MIT */
/*
 * site — compile a spec into a pt_site for one location.
 *
 * A site is what the BPF side runs at one probe location or function
 * entry/return (struct pt_site, engine/bpf/probetop.h): which spec it
 * counts for, where each key and the value come from (registers or
 * memory, decoded from the USDT note or the System V calling
 * convention), and what to do with them. The site's index is the
 * uprobe's BPF cookie; struct site_slots hands indices out and takes
 * them back when their spec is removed. Nothing here touches the kernel.
 */
#ifndef PROBETOP_SITE_H
#define PROBETOP_SITE_H

#include <errno.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>

#include "probetop.h"

struct cat_loc;
struct cat_object;
struct spec;
struct tracer_spec_info;

/* Which site indices are in use (used[i] != 0; clear it to free i). */
struct site_slots {
	uint8_t used[PT_MAX_SITES];
	uint32_t hint;
};

/* Where argN of a site comes from. */
struct site_argsrc {
	bool profile; /* profile:HZ: no arguments */
	bool fn; /* function entry: System V registers */
	bool ret; /* function return: arg0 = %rax */
	bool entry; /* at a function's first instruction (before its frame),
		       as every fn: entry is */
	const struct cat_loc *loc; /* USDT */
	const struct cat_object *obj; /* the location's object (its
					 variables: `SYMBOL) */
	uint64_t addr; /* the location's link-time address */
};

/* site_build()'s errors for a `SYMBOL: its object has no variable of
 * that name, or the name is another kind of symbol (a function). */
#define SITE_NO_VARIABLE (-ENXIO)
#define SITE_NOT_VARIABLE (-ENOTSUP)

/* A free site index into *idx, marked used. 0 or -ENOSPC. */
int site_alloc(struct site_slots *slots, uint32_t *idx);

/* Each key's slot in num[] or str[], and the key's width (the count of
 * string keys: enum pt_key_width), from info->spec into info. */
void site_key_slots(struct tracer_spec_info *info);

/* The walkers sp's keys need in the kernel (enum pt_walk): its sites'
 * key kinds, as site_build() makes them, by pt_key_walks(). */
unsigned int site_key_walks(const struct spec *sp);

/*
 * Fill the site of spec id (info, with its key slots) for role (0: first
 * probe, 1: the end of a latency), arguments fetched from src; pid is the
 * site's process filter (0: any). The first site built (*typed false)
 * sets the signedness of info's keys and value, and *typed. 0, -ERANGE
 * (the probe lacks an argument the spec uses), SITE_NO_VARIABLE or
 * SITE_NOT_VARIABLE (for a `SYMBOL it reads) or another negative errno
 * (an argument cannot be fetched).
 */
int site_build(struct tracer_spec_info *info, bool *typed, uint32_t pid, int id,
	       int role, const struct site_argsrc *src, struct pt_site *s);

#endif
