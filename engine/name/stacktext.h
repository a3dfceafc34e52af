/* SPDX-License-Identifier: MIT */
/*
 * stacktext — the names of call stacks, kept by (pid, stack id) from the
 * first time a stack is named to the end of the run, so that a stack is
 * named once, not per event or per interval, and keeps its name after
 * its process is gone. Used by pyframe (pystack keys) and stackname
 * (ustack, kstack keys). Lookups go through a hash index, chained.
 */
#ifndef PROBETOP_STACKTEXT_H
#define PROBETOP_STACKTEXT_H

#include <stdint.h>
#include <sys/types.h>

struct stacktext;

/* NULL with errno = ENOMEM. */
struct stacktext *stacktext_new(void);
void stacktext_free(struct stacktext *st);

/* The text kept for stack id of pid, or NULL. */
const char *stacktext_find(const struct stacktext *st, pid_t pid, uint64_t id);

/* Keep a copy of text for stack id of pid: the kept copy, or NULL (out
 * of memory). */
const char *stacktext_keep(struct stacktext *st, pid_t pid, uint64_t id,
			   const char *text);

#endif
