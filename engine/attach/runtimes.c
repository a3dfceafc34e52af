// SPDX-License-Identifier: MIT
/*
 * runtimes — PHP's and Ruby's frames wanted and readable; see
 * runtimes.h.
 */
#include "runtimes.h"

#include <errno.h>
#include <stdbool.h>
#include <time.h>

#include "beamjit.h"
#include "objects.h"
#include "phpframe.h"
#include "rbframe.h"
#include "spec.h"
#include "tracer.h"
#include "tracer_state.h"

/* Whether a key of spec is read by is (spec_key_is_php, _rb). */
static bool spec_reads(const struct spec *spec,
		       bool (*is)(const struct spec_key *))
{
	for (int i = 0; i < spec->nkeys; i++)
		if (is(&spec->keys[i]))
			return true;
	return false;
}

int runtimes_wanted(struct tracer *tr, const struct spec *spec)
{
	bool php = spec_reads(spec, spec_key_is_php);
	bool rb = spec_reads(spec, spec_key_is_rb);

	if ((php || rb) && tr->kind != TRACER_PID)
		return -EINVAL; /* one process's interpreter: its caller says */
	if (php) {
		tr->php_wanted = true;
		objects_php_setup(tr);
	}
	if (rb) {
		tr->rb_wanted = true;
		objects_rb_setup(tr);
	}
	return 0;
}

bool tracer_php_readable(struct tracer *tr)
{
	const struct cat_object *objs[512];
	size_t n;
	int err;

	if (tr->kind != TRACER_PID)
		return false;
	n = tracer_objects(tr, objs, sizeof(objs) / sizeof(objs[0]));
	err = phpframe_setup(tr->php, tr->pid, objs, n, &tr->maps);
	return err != -ENOTSUP && err != -ENOSPC;
}

struct phpframe *tracer_phpframe(const struct tracer *tr)
{
	return tr->php;
}

bool tracer_rb_readable(struct tracer *tr)
{
	const struct cat_object *objs[512];
	size_t n;
	int err;

	if (tr->kind != TRACER_PID)
		return false;
	n = tracer_objects(tr, objs, sizeof(objs) / sizeof(objs[0]));
	err = rbframe_setup(tr->rb, tr->pid, objs, n, &tr->maps);
	return err != -ENOTSUP && err != -ENOSPC;
}

struct rbframe *tracer_rbframe(const struct tracer *tr)
{
	return tr->rb;
}

struct jvmframe *tracer_jvmframe(const struct tracer *tr)
{
	return tr->jvm;
}

bool tracer_jit_named(struct tracer *tr)
{
	struct timespec ts;
	uint64_t now;

	if (tr->beam_named || tr->kind != TRACER_PID)
		return tr->beam_named;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (tr->beam_looked_ns &&
	    now - tr->beam_looked_ns < BEAMJIT_LOOK_MS * 1000000ull)
		return false;
	tr->beam_looked_ns = now;
	tr->beam_named = beamjit_present(tr->cache, tr->pid);
	return tr->beam_named;
}
