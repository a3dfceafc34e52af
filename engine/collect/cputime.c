// SPDX-License-Identifier: MIT
/*
 * cputime — the target's CPU time from its context switches; see
 * cputime.h.
 */
#include "cputime.h"

#include <bpf/libbpf.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "elfobj.h"
#include "log.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "tracer_state.h"

struct cputime {
	struct tracer *tr;
	struct bpf_link *link, *tick; /* pt_oncpu, pt_oncpu_tick */
};

/* -b FILE: count the processes whose executable FILE is (oncpu_ino);
 * false for a shared library, whose processes the kernel cannot tell at
 * a context switch. */
static bool set_exe(struct tracer *tr)
{
	struct elfobj *obj = elfobj_open(tr->path);
	bool exec = obj && elfobj_is_exec(obj);
	struct stat st;

	elfobj_free(obj);
	if (!exec || stat(tr->path, &st))
		return false;
	tr->skel->bss->oncpu_dev =
		(uint32_t)(major(st.st_dev) << 20 | minor(st.st_dev));
	tr->skel->bss->oncpu_ino = st.st_ino;
	return true;
}

struct cputime *cputime_new(struct tracer *tr)
{
	struct cputime *c;

	if (tr->kind == TRACER_PID ? tr->pid <= 0 : !tr->path)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->tr = tr;
	if (tr->kind == TRACER_FILE && !set_exe(tr)) {
		free(c);
		return NULL;
	}
	c->link = bpf_program__attach(tr->skel->progs.pt_oncpu);
	c->tick = c->link ? bpf_program__attach(tr->skel->progs.pt_oncpu_tick)
			  : NULL;
	if (!c->tick) {
		bpf_link__destroy(c->link);
		log_msg(LOG_DEBUG, "cannot count the target's CPU time: the "
				   "budget's sampled counts become bounds");
		tr->skel->bss->oncpu_ino = 0;
		free(c);
		return NULL;
	}
	if (tr->kind == TRACER_PID)
		tr->skel->bss->oncpu_pid = (uint32_t)tr->pid;
	return c;
}

void cputime_free(struct cputime *c)
{
	if (!c)
		return;
	c->tr->skel->bss->oncpu_pid = 0;
	c->tr->skel->bss->oncpu_ino = 0;
	bpf_link__destroy(c->tick);
	bpf_link__destroy(c->link);
	free(c);
}

/* CPU cpu's count and its stretch under way at now (ns), read between
 * two equal even seq (pt_oncpu is not changing them). */
static uint64_t cpu_ns(const volatile struct pt_oncpu *o, uint64_t now)
{
	for (int tries = 0; tries < 100; tries++) {
		uint32_t seq = __atomic_load_n(&o->seq, __ATOMIC_ACQUIRE);
		uint64_t ns = o->ns, since = o->since;

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (seq & 1 || seq != o->seq)
			continue;
		return ns + (since && now > since ? now - since : 0);
	}
	return o->ns;
}

uint64_t cputime_ns(const struct cputime *c)
{
	const volatile struct pt_oncpu *o;
	struct timespec ts;
	uint64_t now, n = 0;

	if (!c)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* bpf_ktime_get_ns()'s */
	now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	o = (const volatile struct pt_oncpu *)c->tr->skel->bss->oncpu;
	for (int i = 0; i < PT_ONCPU_CPUS; i++)
		n += cpu_ns(&o[i], now);
	return n;
}

/* CPU cpu's waits into *w, read between two equal even seq. */
static void cpu_waits(const volatile struct pt_oncpu *o, struct waits *w)
{
	for (int tries = 0; tries < 100; tries++) {
		uint32_t seq = __atomic_load_n(&o->seq, __ATOMIC_ACQUIRE);

		w->n = (double)o->waits;
		w->ns = (double)o->wait_ns;
		w->us2 = (double)o->wait_us2;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) && seq == o->seq)
			return;
	}
}

void cputime_waits(const struct cputime *c, struct waits *w)
{
	const volatile struct pt_oncpu *o;

	*w = (struct waits){ 0 };
	if (!c)
		return;
	o = (const volatile struct pt_oncpu *)c->tr->skel->bss->oncpu;
	for (int i = 0; i < PT_ONCPU_CPUS; i++) {
		struct waits one;

		if (!o[i].waits)
			continue;
		cpu_waits(&o[i], &one);
		waits_add(w, &one, 1);
	}
}

double cputime_clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
