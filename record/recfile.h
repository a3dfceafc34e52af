/* SPDX-License-Identifier: MIT */
/*
 * recfile — a recording's frames on disk (docs/record-format.md): the
 * file header (magic and format version) and self-delimiting frames, each
 * a 20-byte head (type, lengths, CRC-32s) and its body compressed by
 * zlib. A frame is written with one write(); a cut last frame is told
 * from a corrupt one, so that a reader replays everything before a cut.
 *
 * Knows nothing of snapshots: recenc.c and recdec.c give and take the
 * bodies. Never prints; errors come back as negative errnos (writer) or
 * a status and a one-line reason (reader).
 */
#ifndef PROBETOP_RECFILE_H
#define PROBETOP_RECFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "recbuf.h"

#define RECFILE_MAGIC "PTRECORD" /* 8 bytes, no NUL */
#define RECFILE_MAJOR 1 /* a reader refuses another major */
#define RECFILE_MINOR 3 /* additions a reader of an older minor skips */
#define RECFILE_HEAD 16 /* magic, major, minor, CRC-32 of those 12 */
#define RECFILE_FRAME_HEAD 20
#define RECFILE_BODY_MAX (1u << 30) /* a larger body is corrupt */

/* Frame types: the byte at offset 0 of a frame's head. */
enum recfile_type {
	RECFILE_TARGET = 'T', /* what was traced, once, first */
	RECFILE_INTERVAL = 'I', /* one interval's snapshot */
	RECFILE_FINAL = 'F', /* the final summary's row order */
	RECFILE_MESSAGE = 'M', /* a message trace printed on stderr */
	RECFILE_PROBES = 'P', /* the target's probe list (1.1), when it
				 changed */
};

/*
 * Create path for writing, mode 0600 whatever the umask, refusing an
 * existing file (O_EXCL: a recording is never overwritten, nor a
 * symlink followed), and write the file header. Returns the fd, or a
 * negative errno.
 */
int recfile_create(const char *path);

/*
 * Compress body and append it as one frame of type to fd, at offset
 * *end (the end of the last whole frame), which then moves past it. On
 * a failed or short write the file is cut back to *end (so that it ends
 * with a whole frame) and a negative errno (-ENOSPC: the disk is full)
 * returned; the caller stops writing. tmp is scratch space kept between
 * calls.
 */
int recfile_put(int fd, uint64_t *end, int type, const struct recbuf *body,
		struct recbuf *tmp);

enum recfile_status {
	RECFILE_OK, /* a frame was read */
	RECFILE_END, /* the file ends after a whole frame */
	RECFILE_CUT, /* the file ends inside a frame: what is before stands */
	RECFILE_BAD, /* a frame's head or body is corrupt */
};

struct recfile_reader {
	FILE *f;
	uint64_t at; /* offset of the next frame */
	unsigned minor; /* the file's minor version */
	struct recbuf raw, body; /* the last frame's bytes and its body */
};

/*
 * Open path and check its header. 0, or -1 with a one-line reason in
 * why[0..n) ("not a probetop recording", "recording format 2.0; this
 * probetop reads format 1", the open's error). Free with
 * recfile_reader_close() either way.
 */
int recfile_reader_open(struct recfile_reader *rd, const char *path, char *why,
			size_t n);

/*
 * Read the next frame: RECFILE_OK with its type in *type and its body
 * in rd->body (valid until the next call), or another status (for
 * CUT and BAD a reason in why[0..n), rd->at the frame's offset).
 */
enum recfile_status recfile_next(struct recfile_reader *rd, int *type,
				 char *why, size_t n);

/*
 * Read the next frame's head only and step past its body, unread (an
 * index of the file): RECFILE_OK with its type in *type and its offset
 * in *at, or END, CUT (the body goes past the file's end) or BAD (the
 * head's checksum or bounds), as recfile_next() says them. A body's own
 * checksum is checked only when recfile_next() reads it.
 */
enum recfile_status recfile_skip(struct recfile_reader *rd, int *type,
				 uint64_t *at, char *why, size_t n);

/* The next recfile_next() or recfile_skip() reads the frame at offset
 * at (one that an earlier recfile_skip() found). 0, or -1 (errno). */
int recfile_seek(struct recfile_reader *rd, uint64_t at);

void recfile_reader_close(struct recfile_reader *rd);

#endif
