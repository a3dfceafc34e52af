// SPDX-License-Identifier: MIT
/*
 * recfile — a recording's header and frames; see recfile.h and
 * docs/record-format.md for the bytes.
 *
 * A frame's head carries two CRC-32s, of its body's stored bytes and of
 * the head itself, so that a corrupt length is told from a cut: a head
 * that checks but whose body runs past the end of the file is a cut
 * (the writer died, or is still writing), anything that does not check
 * is corruption.
 */
#include "recfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static void head_put(unsigned char *h, unsigned major, unsigned minor)
{
	memcpy(h, RECFILE_MAGIC, 8);
	h[8] = (unsigned char)major;
	h[9] = (unsigned char)(major >> 8);
	h[10] = (unsigned char)minor;
	h[11] = (unsigned char)(minor >> 8);
	recbuf_le32(h + 12, (uint32_t)crc32(0, h, 12));
}

/* Write p[0..n) at off, all of it; 0 or a negative errno. */
static int write_all(int fd, const unsigned char *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -ENOSPC;
		p += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

int recfile_create(const char *path)
{
	unsigned char h[RECFILE_HEAD];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	int err;

	if (fd < 0)
		return -errno;
	head_put(h, RECFILE_MAJOR, RECFILE_MINOR);
	err = fchmod(fd, 0600) ? -errno : write_all(fd, h, sizeof(h), 0);
	if (err) {
		close(fd);
		unlink(path);
		return err;
	}
	return fd;
}

int recfile_put(int fd, uint64_t *end, int type, const struct recbuf *body,
		struct recbuf *tmp)
{
	uLongf clen = compressBound(body->len);
	unsigned char *h;
	int err;

	if (body->failed || body->len > RECFILE_BODY_MAX)
		return -ENOMEM;
	recbuf_reset(tmp);
	if (!recbuf_room(tmp, RECFILE_FRAME_HEAD + clen))
		return -ENOMEM;
	if (compress2(tmp->p + RECFILE_FRAME_HEAD, &clen, body->p, body->len,
		      Z_BEST_SPEED) != Z_OK)
		return -ENOMEM;
	h = tmp->p;
	memset(h, 0, RECFILE_FRAME_HEAD);
	h[0] = (unsigned char)type;
	recbuf_le32(h + 4, (uint32_t)clen);
	recbuf_le32(h + 8, (uint32_t)body->len);
	recbuf_le32(h + 12,
		    (uint32_t)crc32(0, h + RECFILE_FRAME_HEAD, (uInt)clen));
	recbuf_le32(h + 16, (uint32_t)crc32(0, h, 16));
	err = write_all(fd, h, RECFILE_FRAME_HEAD + clen, *end);
	if (err) {
		int cut = ftruncate(fd, (off_t)*end);

		(void)cut; /* if it fails, a reader sees a cut frame: the same */
		return err;
	}
	*end += RECFILE_FRAME_HEAD + clen;
	return 0;
}

int recfile_reader_open(struct recfile_reader *rd, const char *path, char *why,
			size_t n)
{
	unsigned char h[RECFILE_HEAD];
	unsigned major;

	*rd = (struct recfile_reader){ .at = RECFILE_HEAD };
	rd->f = fopen(path, "rbe");
	if (!rd->f) {
		snprintf(why, n, "%s", strerror(errno));
		return -1;
	}
	if (fread(h, 1, sizeof(h), rd->f) != sizeof(h) ||
	    memcmp(h, RECFILE_MAGIC, 8) ||
	    recbuf_get_le32(h + 12) != (uint32_t)crc32(0, h, 12)) {
		snprintf(why, n, "not a probetop recording");
		return -1;
	}
	major = h[8] | (unsigned)h[9] << 8;
	rd->minor = h[10] | (unsigned)h[11] << 8;
	if (major != RECFILE_MAJOR) {
		snprintf(why, n,
			 "recording format %u.%u; this probetop reads format "
			 "%d",
			 major, rd->minor, RECFILE_MAJOR);
		return -1;
	}
	return 0;
}

/* The frame's stored bytes, CRC-checked, uncompressed into rd->body. */
static enum recfile_status frame_body(struct recfile_reader *rd,
				      const unsigned char *h, char *why,
				      size_t n)
{
	uint32_t clen = recbuf_get_le32(h + 4), blen = recbuf_get_le32(h + 8);
	uLongf out = blen;

	recbuf_reset(&rd->raw);
	recbuf_reset(&rd->body);
	if (!recbuf_room(&rd->raw, clen) || !recbuf_room(&rd->body, blen)) {
		snprintf(why, n, "no memory for the record at byte %llu",
			 (unsigned long long)rd->at);
		return RECFILE_BAD;
	}
	if (fread(rd->raw.p, 1, clen, rd->f) != clen) {
		snprintf(why, n, "cut in the record at byte %llu",
			 (unsigned long long)rd->at);
		return RECFILE_CUT;
	}
	if (recbuf_get_le32(h + 12) != (uint32_t)crc32(0, rd->raw.p, clen) ||
	    uncompress(rd->body.p, &out, rd->raw.p, clen) != Z_OK ||
	    out != blen) {
		snprintf(why, n, "bad checksum in the record at byte %llu",
			 (unsigned long long)rd->at);
		return RECFILE_BAD;
	}
	rd->body.len = blen;
	return RECFILE_OK;
}

/* A frame's head into h, its checksum and bounds checked. */
static enum recfile_status frame_head(struct recfile_reader *rd,
				      unsigned char *h, char *why, size_t n)
{
	size_t got = fread(h, 1, RECFILE_FRAME_HEAD, rd->f);

	if (got == 0 && feof(rd->f))
		return RECFILE_END;
	if (got != RECFILE_FRAME_HEAD) {
		snprintf(why, n, "cut in the record at byte %llu",
			 (unsigned long long)rd->at);
		return RECFILE_CUT;
	}
	if (recbuf_get_le32(h + 16) != (uint32_t)crc32(0, h, 16) ||
	    recbuf_get_le32(h + 4) > RECFILE_BODY_MAX ||
	    recbuf_get_le32(h + 8) > RECFILE_BODY_MAX) {
		snprintf(why, n, "bad checksum in the record at byte %llu",
			 (unsigned long long)rd->at);
		return RECFILE_BAD;
	}
	return RECFILE_OK;
}

enum recfile_status recfile_skip(struct recfile_reader *rd, int *type,
				 uint64_t *at, char *why, size_t n)
{
	unsigned char h[RECFILE_FRAME_HEAD];
	enum recfile_status st = frame_head(rd, h, why, n);
	uint64_t end;
	struct stat sb;

	if (st != RECFILE_OK)
		return st;
	end = rd->at + sizeof(h) + recbuf_get_le32(h + 4);
	if (fstat(fileno(rd->f), &sb) || end > (uint64_t)sb.st_size) {
		snprintf(why, n, "cut in the record at byte %llu",
			 (unsigned long long)rd->at);
		return RECFILE_CUT;
	}
	if (fseeko(rd->f, (off_t)end, SEEK_SET)) {
		snprintf(why, n, "%s", strerror(errno));
		return RECFILE_BAD;
	}
	*type = h[0];
	*at = rd->at;
	rd->at = end;
	return RECFILE_OK;
}

int recfile_seek(struct recfile_reader *rd, uint64_t at)
{
	if (fseeko(rd->f, (off_t)at, SEEK_SET))
		return -1;
	rd->at = at;
	return 0;
}

enum recfile_status recfile_next(struct recfile_reader *rd, int *type,
				 char *why, size_t n)
{
	unsigned char h[RECFILE_FRAME_HEAD];
	enum recfile_status st = frame_head(rd, h, why, n);

	if (st != RECFILE_OK)
		return st;
	st = frame_body(rd, h, why, n);
	if (st != RECFILE_OK)
		return st;
	*type = h[0];
	rd->at += sizeof(h) + recbuf_get_le32(h + 4);
	return RECFILE_OK;
}

void recfile_reader_close(struct recfile_reader *rd)
{
	if (rd->f)
		fclose(rd->f);
	recbuf_free(&rd->raw);
	recbuf_free(&rd->body);
	rd->f = NULL;
}
