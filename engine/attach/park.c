// SPDX-License-Identifier: MIT
/*
 * park — a spec's uprobes out and back in; see park.h.
 *
 * The closers are PARK_CLOSERS threads reading struct ulink records from
 * one pipe (each record is written whole: it is smaller than PIPE_BUF).
 * Several, because a close waits out a grace period and grace periods of
 * concurrent closes overlap: a duty cycle parks a spec several times a
 * second, and tracer_free() parks every spec to end at once.
 */
#include "park.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "catalog.h"
#include "log.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "siteprog.h"
#include "tracer_state.h"

#define PARK_CLOSERS 8
/* at the end: closes side by side share grace periods (33 links: 96 ms) */
#define PARK_EXIT_CLOSERS 64
#define PARK_PIPE_BYTES (1 << 20) /* room for 40,000 links in flight */
#define PARK_WAIT_US 1000 /* park_unpark(wait): how often it looks */

/* A link handed to the closers, and the spec it was of (-1: one of the
 * tracer's own, park_close_link()). */
struct park_rec {
	struct ulink l;
	int id;
};

struct park_closer {
	int wfd; /* write end (never blocks); the threads read the other */
	int rfd;
	pthread_t threads[PARK_EXIT_CLOSERS];
	int nthreads;
	int closing[PT_MAX_SPECS]; /* each spec id's links not closed yet */
	int closing_own; /* the tracer's own links not closed yet */
};

/* The count of links not closed yet that record r is one of. */
static int *closing_of(struct park_closer *c, const struct park_rec *r)
{
	return r->id >= 0 ? &c->closing[r->id] : &c->closing_own;
}

static void *closer_main(void *arg)
{
	struct park_closer *c = arg;
	struct park_rec r;

	while (read(c->rfd, &r, sizeof(r)) == (ssize_t)sizeof(r)) {
		ulink_detach(&r.l);
		__atomic_sub_fetch(closing_of(c, &r), 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* tr's closers, started on first use; NULL if they cannot be. */
static struct park_closer *closer(struct tracer *tr)
{
	struct park_closer *c = tr->closer;
	int fds[2];

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c || pipe2(fds, O_CLOEXEC)) {
		free(c);
		return NULL;
	}
	c->rfd = fds[0];
	c->wfd = fds[1];
	/* a full pipe (the closers behind: every close waits out a grace
	 * period, one at a time under -b) must not stop the tracer's
	 * thread: a larger one, and a write that says EAGAIN instead */
	fcntl(c->wfd, F_SETPIPE_SZ, PARK_PIPE_BYTES);
	fcntl(c->wfd, F_SETFL, O_NONBLOCK);
	for (int i = 0; i < PARK_CLOSERS; i++)
		if (!pthread_create(&c->threads[c->nthreads], NULL, closer_main,
				    c))
			c->nthreads++;
	if (!c->nthreads) {
		close(fds[0]);
		close(fds[1]);
		free(c);
		return NULL;
	}
	tr->closer = c;
	return c;
}

/* Mark ts parked (or not) for the BPF programs, which then drop its hits
 * until its uprobes are out (or count them again), and begin its next
 * epoch: a latency pair never spans the gap (latency.bpf.h). Attaching,
 * the epoch moves before the bit clears, so an event counted again is
 * of the new epoch. */
static void set_bit(struct tracer *tr, const struct tspec *ts, bool on)
{
	size_t id = (size_t)(ts - tr->specs);
	__u64 bit = 1ULL << (id % 64);
	__u32 *epoch = &tr->skel->bss->pt_epoch[id];

	if (on) {
		tr->skel->bss->pt_parked[id / 64] |= bit;
		__atomic_store_n(epoch, *epoch + 1, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(epoch, *epoch + 1, __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		tr->skel->bss->pt_parked[id / 64] &= ~bit;
	}
}

/* Hand r's link to closers c (NULL: none); closed here, waiting, if
 * they cannot take it. 0, -ENOMEM (no closers) or -EAGAIN (their queue
 * full). */
static int hand_over(struct park_closer *c, struct park_rec *r)
{
	if (r->l.fd < 0 && !r->l.perf)
		return 0;
	if (c) /* counted before a closer can count it done */
		__atomic_add_fetch(closing_of(c, r), 1, __ATOMIC_ACQUIRE);
	if (c && write(c->wfd, r, sizeof(*r)) == (ssize_t)sizeof(*r))
		return 0;
	if (c)
		__atomic_sub_fetch(closing_of(c, r), 1, __ATOMIC_RELEASE);
	ulink_detach(&r->l); /* here, waiting */
	return c ? -EAGAIN : -ENOMEM;
}

int park_spec(struct tracer *tr, struct tspec *ts)
{
	int id = (int)(ts - tr->specs);
	struct park_closer *c;
	int err = 0, e;

	if (ts->parked)
		return 0;
	set_bit(tr, ts, true); /* from now on its hits are not kept */
	c = closer(tr);
	for (size_t i = 0; i < ts->nlinks; i++) {
		struct park_rec r = { ts->links[i].l, id };

		if ((e = hand_over(c, &r)))
			err = e;
		ts->links[i].l = (struct ulink){ -1, NULL };
	}
	ts->parked = true;
	return err;
}

void park_close_link(struct tracer *tr, struct ulink *l)
{
	struct park_rec r = { *l, -1 };

	if (l->fd >= 0 || l->perf)
		hand_over(closer(tr), &r);
	*l = (struct ulink){ -1, NULL };
}

/* Links of spec id the closers have not closed yet. */
static int closing(const struct tracer *tr, int id)
{
	const struct park_closer *c = tr->closer;

	return c ? __atomic_load_n(&c->closing[id], __ATOMIC_ACQUIRE) : 0;
}

/* Attach link tl of ts again, at atts[first..first+n). 0 or -errno. */
static int relink(struct tracer *tr, struct tspec *ts, struct tlink *tl)
{
	struct bpf_program *prog = siteprog_of(tr, &ts->spec);
	const struct attachment *a = &ts->atts[tl->first];
	pid_t pid = tr->kind == TRACER_PID ? tr->pid : -1;
	char path[PATH_MAX + 64];

	if (!prog)
		return -errno;
	attach_path(tr->pid, a->obj, tr->kind == TRACER_PID ? &tr->maps : NULL,
		    path, sizeof(path));
	if (!tr->multi)
		return ulink_attach(prog, false, pid, path, a->offset,
				    a->ref_ctr, a->site, tl->ret, &tl->l);
	return attach_many(prog, pid, path, a, tl->n, tl->ret, &tl->l);
}

int park_unpark(struct tracer *tr, struct tspec *ts, bool wait)
{
	int id = (int)(ts - tr->specs), n = 0;

	if (!ts->parked)
		return 0;
	while (closing(tr, id) > 0) { /* its uprobes are still going out */
		if (!wait)
			return -EBUSY;
		usleep(PARK_WAIT_US);
	}
	ts->parked = false;
	for (size_t i = 0; i < ts->nlinks; i++) {
		struct tlink *tl = &ts->links[i];
		int err;

		if (tl->l.fd >= 0 || tl->l.perf || tl->gone)
			continue; /* attached while parked (a rescan) */
		err = relink(tr, ts, tl);
		tl->gone = err != 0;
		/* the process gone (ESRCH, or its map_files link: ENOENT)
		 * is said by the loop that notices it */
		if (err)
			log_msg(err == -ESRCH || err == -ENOENT ? LOG_DEBUG
								: LOG_WARN,
				"%s: %s: cannot attach again: %s",
				ts->spec.text, ts->atts[tl->first].obj->path,
				strerror(-err));
		else
			n++;
	}
	return n;
}

void park_resume(struct tracer *tr, struct tspec *ts)
{
	size_t id = (size_t)(ts - tr->specs);

	if (!ts->parked &&
	    tr->skel->bss->pt_parked[id / 64] & (1ULL << (id % 64)))
		set_bit(tr, ts, false); /* its uprobes are in: count again */
}

void park_forget(struct tracer *tr, struct tspec *ts)
{
	size_t id = (size_t)(ts - tr->specs);

	tr->skel->bss->pt_parked[id / 64] &= ~(1ULL << (id % 64));
	tr->skel->bss->pt_epoch[id] = 0; /* the next spec here: never parked */
	ts->parked = false;
}

/* Closers enough for every link still to close, up to PARK_EXIT_CLOSERS. */
static void add_closers(struct park_closer *c)
{
	int pending = 0;

	for (int id = 0; id < PT_MAX_SPECS; id++)
		pending += __atomic_load_n(&c->closing[id], __ATOMIC_ACQUIRE);
	pending += __atomic_load_n(&c->closing_own, __ATOMIC_ACQUIRE);
	while (c->nthreads < PARK_EXIT_CLOSERS && c->nthreads < pending &&
	       !pthread_create(&c->threads[c->nthreads], NULL, closer_main, c))
		c->nthreads++;
}

void park_free(struct tracer *tr)
{
	struct park_closer *c = tr->closer;

	if (!c)
		return;
	add_closers(c);
	close(c->wfd); /* the threads read to the end, then stop */
	for (int i = 0; i < c->nthreads; i++)
		pthread_join(c->threads[i], NULL);
	close(c->rfd);
	free(c);
	tr->closer = NULL;
}
