/* SPDX-License-Identifier: MIT */
/*
 * runtimes — the interpreters whose frames the kernel reads without
 * probes beside CPython's (PHP: phpframe.h; Ruby: rbframe.h): a spec
 * that reads them sets up the target's, now or when its objects show it
 * (objects_php_setup(), objects_rb_setup()); whether a target's can be
 * read. Implements tracer_php_readable(), tracer_phpframe(),
 * tracer_rb_readable() and tracer_rbframe() of tracer.h. Called by
 * tracer (tracer_add).
 */
#ifndef PROBETOP_RUNTIMES_H
#define PROBETOP_RUNTIMES_H

struct spec;
struct tracer;

/* spec is being added to tr: if a key of it reads PHP or Ruby frames,
 * set up that interpreter of the process. 0, or -EINVAL (-b: no one
 * process; its caller says so). */
int runtimes_wanted(struct tracer *tr, const struct spec *spec);

#endif
