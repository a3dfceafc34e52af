/* SPDX-License-Identifier: MIT */
/*
 * aggkern — the rows the kernel keeps by itself, apart from the specs':
 * the IO watch's (by process and syscall class) and the process watch's
 * (by process, event, exit code and name). Each map entry read in
 * aggread.c's batches becomes its row's counts of the interval and since
 * attach. Called by aggread.c.
 */
#ifndef PROBETOP_AGGKERN_H
#define PROBETOP_AGGKERN_H

struct agg;

/* The IO map's entry (struct pt_io_key, struct pt_io_val). */
void aggkern_io_entry(struct agg *agg, const void *key, const void *vals);

/* The process map's entry (struct pt_proc_key, struct pt_proc_val). */
void aggkern_proc_entry(struct agg *agg, const void *key, const void *vals);

#endif
