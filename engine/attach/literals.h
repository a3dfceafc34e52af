/* SPDX-License-Identifier: MIT */
/*
 * literals — the tracer's side of a one-process target's string
 * literals. The read-only range table (rostr.h computes it) is started
 * when a spec first could use address slots, kept current at every
 * rescan and published to the BPF side in two halves: the one not in
 * use is written, then selected (ro_sel). While a spec reads strings,
 * the pages holding literals are made present so that the BPF side can
 * read them. Called by tracer.c (tracer_add()) and rescan.c.
 */
#ifndef PROBETOP_LITERALS_H
#define PROBETOP_LITERALS_H

#include <stdbool.h>
#include <stdint.h>

struct proc_maps;
struct tracer;

/* The BPF side's ro_epoch, bumped when the target execs or its dynamic
 * linker changes the loaded objects: read before the maps that
 * literals_install() is given. */
uint32_t literals_epoch(const struct tracer *tr);

/*
 * Make the read-only ranges of maps the valid table, for epoch (read
 * before maps were: a change since has bumped ro_epoch, and the table
 * is not used). A new generation when a range went away.
 */
void literals_install(struct tracer *tr, uint32_t epoch,
		      const struct proc_maps *maps);

/* Whether address slots can be used (started on the first call). */
bool literals_ready(struct tracer *tr);

/*
 * While a spec reads strings, make the pages of the target's literals
 * present (proc_touch()), each mapping once, at most TOUCH_MAX bytes
 * (256 MB): a literal on a page the target has not read yet could not be
 * read by the BPF side and was a drop (ruby's first require passes "enc/encdb.so"
 * before anything reads it). Called with tr->maps fresh, before a held
 * process goes on, so a launched command's libraries are ready before
 * their code runs. The list keeps only what is still mapped.
 */
void literals_touch(struct tracer *tr);

#endif
