// SPDX-License-Identifier: MIT
/*
 * recorder — --record for trace and the console; see recorder.h.
 */
#include "recorder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "record.h"
#include "session.h"

struct recorder {
	struct record *rec; /* NULL once stopped */
	char *path;
	struct session *s;
	void (*say)(void *ctx, const char *msg);
	void *ctx;
};

struct recorder *recorder_open(const char *path)
{
	struct recorder *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->path = strdup(path);
	r->rec = r->path ? record_open(path) : NULL;
	if (!r->rec) {
		cli_error("--record %s: %s%s", path, strerror(errno),
			  errno == EEXIST ? " (a recording is never "
					    "overwritten)"
					  : "");
		free(r->path);
		free(r);
		return NULL;
	}
	return r;
}

/* A failed write (err, a negative errno): said once, and the recording
 * stops there. */
static void stop(struct recorder *r, int err)
{
	char msg[1024];

	cli_tee(NULL, NULL); /* first: say() may be cli_error() */
	snprintf(msg, sizeof(msg),
		 "--record %s: %s; recording stopped at %llu bytes, tracing "
		 "goes on",
		 r->path, strerror(-err),
		 (unsigned long long)record_size(r->rec));
	record_free(r->rec);
	r->rec = NULL;
	r->say(r->ctx, msg);
}

/* cli_tee(): the messages into the recording too */
static void tee(void *ctx, const char *msg)
{
	struct recorder *r = ctx;
	int err = r->rec ? record_message(r->rec, msg) : 0;

	if (err)
		stop(r, err);
}

/* The command line of a -b row's pid */
static const char *pid_command(void *ctx, uint32_t pid)
{
	return session_pid_command(ctx, pid);
}

/* Spec id's probeset, section and role, if a probeset's */
static void spec_origin(void *ctx, int id, struct record_origin *o)
{
	const struct session *s = ctx;
	const struct session_spec *ss;

	*o = (struct record_origin){ 0 };
	if (id < 0 || id >= SESSION_MAX_SPECS)
		return;
	ss = &s->specs[id];
	if (!ss->used || !ss->ps || !ss->role)
		return;
	o->probeset = ss->ps->name;
	o->section = ss->ps->sections[ss->role->section].name;
	o->role = ss->role->name;
}

/* The target's probes (session_probes(), as the Probes view lists them)
 * into the recording if they changed since last written. */
static int put_probes(struct recorder *r)
{
	struct model_probe *mp;
	struct record_probe *v;
	size_t n;
	int err;

	if (session_probes(r->s, &mp, &n))
		return -ENOMEM;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		free(mp);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = (struct record_probe){
			.object = mp[i].object,
			.provider = mp[i].provider,
			.name = mp[i].name,
			.args = mp[i].args,
			.nargs = (unsigned int)mp[i].nargs,
			.semaphore = mp[i].semaphore,
			.nlocs = mp[i].nlocs,
		};
	err = record_probes(r->rec, v, n);
	free(v);
	free(mp);
	return err;
}

void recorder_start(struct recorder *r, struct session *s, char *const *command,
		    double interval_s, void (*say)(void *ctx, const char *msg),
		    void *ctx)
{
	struct record_target t = {
		.pid = (int)s->pid,
		.binary = s->binary,
		.command = command,
		.interval_s = interval_s,
		.per_pid = s->binary[0] != 0,
		.kernel = s->io || s->proc,
	};
	int err;

	if (!r)
		return;
	r->s = s;
	r->say = say;
	r->ctx = ctx;
	err = record_target(r->rec, &t);
	if (!err)
		err = put_probes(r);
	if (err)
		stop(r, err);
	else
		cli_tee(tee, r);
}

void recorder_final(struct recorder *r, const struct agg_snapshot *snap)
{
	int err;

	if (!r || !r->rec || !snap)
		return;
	err = record_final(r->rec, snap);
	if (err)
		stop(r, err);
}

void recorder_snapshot(struct recorder *r, const struct agg_snapshot *snap,
		       bool final)
{
	struct record_names names = {
		.origin = spec_origin,
		.ctx = r ? r->s : NULL,
	};
	int err;

	if (!r || !r->rec || !snap)
		return;
	if (r->s->binary[0])
		names.command = pid_command;
	err = put_probes(r);
	if (!err)
		err = record_interval(r->rec, snap, &names);
	if (err)
		stop(r, err);
	else if (final)
		recorder_final(r, snap);
}

void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	cli_tee(NULL, NULL);
	record_free(r->rec);
	free(r->path);
	free(r);
}
