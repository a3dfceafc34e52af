/* SPDX-License-Identifier: MIT */
/*
 * child — the C tests' way to run a fixture: start it with pipes on its
 * stdin and stdout, wait for its "ready PID" line, talk to it a line at a
 * time, and reap it.
 */
#ifndef PROBETOP_TEST_CHILD_H
#define PROBETOP_TEST_CHILD_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct child {
	pid_t pid;
	FILE *in; /* its stdin */
	FILE *out; /* its stdout */
};

/* $FIXTURE_DIR/name, in a static buffer overwritten by the next call. */
const char *fixture_path(const char *name);

/* Start prog and read its first line; 0 if it began with "ready". */
int child_start(const char *prog, struct child *c);

/* Send one line; read one reply line into reply[0..n). 0 or -1. */
int child_send(struct child *c, const char *line, char *reply, size_t n);

/* Close its stdin (end of input), wait; returns its wait status or -1. */
int child_stop(struct child *c);

#endif
