// SPDX-License-Identifier: MIT
/*
 * record — a recording written as trace goes; see record.h. The bodies
 * are recenc.c's, the frames recfile.c's.
 */
#include "record.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "recenc.h"
#include "recfile.h"
#include "recprobes.h"

struct record {
	int fd;
	uint64_t end; /* the file's size: the end of its last whole frame */
	int err; /* the write that failed (negative errno), or 0 */
	double t0; /* CLOCK_MONOTONIC at record_open() */
	struct recenc enc;
	struct recbuf body, frame;
	struct recbuf probes; /* the last 'P' body written */
	bool probes_written;
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct record *record_open(const char *path)
{
	struct record *rec = calloc(1, sizeof(*rec));

	if (!rec)
		return NULL;
	rec->fd = recfile_create(path);
	if (rec->fd < 0) {
		errno = -rec->fd;
		free(rec);
		return NULL;
	}
	rec->end = RECFILE_HEAD;
	rec->t0 = mono_s();
	return rec;
}

/* Append rec->body as a frame of type; the first failure stops it. */
static int put(struct record *rec, int type)
{
	if (rec->err)
		return rec->err;
	if (rec->body.failed)
		rec->err = -ENOMEM;
	else
		rec->err = recfile_put(rec->fd, &rec->end, type, &rec->body,
				       &rec->frame);
	return rec->err;
}

int record_target(struct record *rec, const struct record_target *t)
{
	struct recbuf *b = &rec->body;
	size_t argc = 0;

	recbuf_reset(b);
	recbuf_str(b, PROBETOP_VERSION);
	recbuf_f64(b, (double)time(NULL));
	recbuf_f64(b, t->interval_s);
	recbuf_sv(b, t->pid);
	recbuf_str(b, t->binary ? t->binary : "");
	while (t->command && t->command[argc])
		argc++;
	recbuf_uv(b, argc);
	for (size_t i = 0; i < argc; i++)
		recbuf_str(b, t->command[i]);
	recbuf_u8(b, (uint8_t)(t->per_pid | t->kernel << 1));
	return put(rec, RECFILE_TARGET);
}

int record_probes(struct record *rec, const struct record_probe *v, size_t n)
{
	struct recbuf *b = &rec->body;
	int err;

	if (rec->err)
		return rec->err;
	recbuf_reset(b);
	recprobes_put(b, v, n);
	if (rec->probes_written && !b->failed && b->len == rec->probes.len &&
	    !memcmp(b->p, rec->probes.p, b->len))
		return 0; /* the same list */
	err = put(rec, RECFILE_PROBES);
	if (err)
		return err;
	recbuf_reset(&rec->probes);
	recbuf_bytes(&rec->probes, b->p, b->len);
	rec->probes_written = !rec->probes.failed;
	return 0;
}

int record_interval(struct record *rec, const struct agg_snapshot *snap,
		    const struct record_names *names)
{
	int err;

	if (rec->err)
		return rec->err;
	err = recenc_interval(&rec->enc, snap, names, &rec->body);
	if (err)
		return rec->err = err;
	err = put(rec, RECFILE_INTERVAL);
	if (!err)
		rec->enc.strs.nwritten = rec->enc.strs.n;
	return err;
}

int record_final(struct record *rec, const struct agg_snapshot *snap)
{
	int err;

	if (rec->err)
		return rec->err;
	err = recenc_final(&rec->enc, snap, &rec->body);
	return err ? (rec->err = err) : put(rec, RECFILE_FINAL);
}

int record_message(struct record *rec, const char *msg)
{
	recbuf_reset(&rec->body);
	recbuf_f64(&rec->body, mono_s() - rec->t0);
	recbuf_str(&rec->body, msg);
	return put(rec, RECFILE_MESSAGE);
}

uint64_t record_size(const struct record *rec)
{
	return rec->end;
}

void record_free(struct record *rec)
{
	if (!rec)
		return;
	close(rec->fd);
	recenc_free(&rec->enc);
	recbuf_free(&rec->body);
	recbuf_free(&rec->frame);
	recbuf_free(&rec->probes);
	free(rec);
}
