// SPDX-License-Identifier: MIT
/*
 * debugfile — see debugfile.h.
 */
#include "debugfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "elfobj.h"
#include "log.h"

#define BUILD_ID_MAX 64
#define DEBUG_DIRS_DEFAULT "/usr/lib/debug"
#define XZ_MAX (256u << 20) /* a MiniDebugInfo larger than this is not one */

/* The debug directories, colon-separated. */
static const char *debug_dirs(void)
{
	const char *d = getenv("PROBETOP_DEBUG_DIRS");

	return d && *d ? d : DEBUG_DIRS_DEFAULT;
}

/* The ELF file behind fd (taken), named name, if it has a .symtab; else
 * NULL (a broken one is said). */
static struct elfobj *symbols_fd(int fd, const char *name)
{
	struct elfobj *d = fd < 0 ? NULL : elfobj_open_fd(fd, name);

	if (d && !elfobj_has_symtab(d)) {
		elfobj_free(d);
		d = NULL;
	}
	return d;
}

/* path opened as an ELF file with a .symtab, or NULL. */
static struct elfobj *open_symbols(const char *path)
{
	return symbols_fd(open(path, O_RDONLY | O_CLOEXEC), path);
}

/* By build ID under each debug directory. */
static struct elfobj *by_build_id(const struct elfobj *obj)
{
	uint8_t id[BUILD_ID_MAX], did[BUILD_ID_MAX];
	int n = elfobj_build_id(obj, id, sizeof(id));
	const char *dirs = debug_dirs();

	if (n < 2)
		return NULL;
	for (const char *p = dirs; *p;) {
		size_t len = strcspn(p, ":");
		char path[PATH_MAX];
		struct elfobj *d;
		int o = snprintf(path, sizeof(path), "%.*s/.build-id/%02x/",
				 (int)len, p, id[0]);

		for (int i = 1; i < n && o > 0 && o < (int)sizeof(path); i++)
			o += snprintf(path + o, sizeof(path) - (size_t)o,
				      "%02x", id[i]);
		if (o > 0 && o + 7 < (int)sizeof(path)) {
			strcpy(path + o, ".debug");
			d = open_symbols(path);
			if (d && elfobj_build_id(d, did, sizeof(did)) == n &&
			    !memcmp(id, did, (size_t)n))
				return d;
			elfobj_free(d);
		}
		p += len + (p[len] == ':');
	}
	return NULL;
}

/* The CRC-32 of the file at path, as .gnu_debuglink records it. */
static int file_crc(const char *path, uint32_t *crc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *m;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size <= 0) {
		close(fd);
		return -EINVAL;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -errno;
	*crc = (uint32_t)crc32(0L, m, (uInt)st.st_size);
	munmap(m, (size_t)st.st_size);
	return 0;
}

/* candidate, if it is the debug file of the CRC-32 want. */
static struct elfobj *linked(const char *candidate, uint32_t want)
{
	uint32_t crc = 0;

	if (access(candidate, R_OK) || file_crc(candidate, &crc) || crc != want)
		return NULL;
	return open_symbols(candidate);
}

/* By .gnu_debuglink: beside path, in .debug/ beside it, under each debug
 * directory with path's directory. */
static struct elfobj *by_debuglink(const struct elfobj *obj, const char *path)
{
	const char *name, *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 0;
	char cand[PATH_MAX];
	struct elfobj *d;
	uint32_t crc;

	if (elfobj_debuglink(obj, &name, &crc) || strchr(name, '/'))
		return NULL;
	snprintf(cand, sizeof(cand), "%.*s/%s", dirlen, path, name);
	if (strcmp(cand, path) && (d = linked(cand, crc)))
		return d;
	snprintf(cand, sizeof(cand), "%.*s/.debug/%s", dirlen, path, name);
	if ((d = linked(cand, crc)))
		return d;
	for (const char *p = debug_dirs(); *p;) {
		size_t len = strcspn(p, ":");

		snprintf(cand, sizeof(cand), "%.*s%.*s/%s", (int)len, p, dirlen,
			 path, name);
		if ((d = linked(cand, crc)))
			return d;
		p += len + (p[len] == ':');
	}
	return NULL;
}

/* The xz stream in[0..n) decompressed into a memory file; -1 if it is
 * not one. */
static int unxz(const void *in, size_t n)
{
	lzma_stream s = LZMA_STREAM_INIT;
	uint8_t out[64 * 1024];
	size_t total = 0;
	lzma_ret r;
	int fd;

	if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK)
		return -1;
	fd = memfd_create("probetop-minidebuginfo", MFD_CLOEXEC);
	s.next_in = in;
	s.avail_in = n;
	do {
		s.next_out = out;
		s.avail_out = sizeof(out);
		r = lzma_code(&s, LZMA_FINISH);
		total += sizeof(out) - s.avail_out;
		if (fd < 0 || total > XZ_MAX ||
		    write(fd, out, sizeof(out) - s.avail_out) !=
			    (ssize_t)(sizeof(out) - s.avail_out))
			r = LZMA_DATA_ERROR;
	} while (r == LZMA_OK);
	lzma_end(&s);
	if (r != LZMA_STREAM_END) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* From .gnu_debugdata. */
static struct elfobj *by_debugdata(const struct elfobj *obj, const char *path)
{
	char name[PATH_MAX + 32];
	const void *data;
	size_t size;
	int fd;

	if (elfobj_debugdata(obj, &data, &size))
		return NULL;
	fd = unxz(data, size);
	if (fd < 0) {
		log_msg(LOG_DEBUG, "%s: .gnu_debugdata is not an xz stream",
			path);
		return NULL;
	}
	snprintf(name, sizeof(name), "%s (.gnu_debugdata)", path);
	return symbols_fd(fd, name);
}

struct elfobj *debugfile_open(const struct elfobj *obj, const char *path)
{
	struct elfobj *d = by_build_id(obj);

	if (!d)
		d = by_debuglink(obj, path);
	if (!d)
		d = by_debugdata(obj, path);
	if (d)
		log_msg(LOG_DEBUG, "%s: symbols from %s", path, elfobj_name(d));
	return d;
}

void debugfile_attach(struct elfobj *obj, const char *path)
{
	if (!elfobj_debug_set(obj))
		elfobj_set_debug(obj, debugfile_open(obj, path));
}
