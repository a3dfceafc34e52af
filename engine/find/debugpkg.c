// SPDX-License-Identifier: MIT
/*
 * debugpkg — see debugpkg.h. Each list is read whole (some 850 lists,
 * 9 MB on a Debian 12 with a desktop's worth of libraries); only its
 * lines of the file's base name are looked at (a stat() each).
 */
#include "debugpkg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LIST_MAX (64u << 20) /* a list longer than this is not read */

/* The file at dir/name read whole into a malloc()ed, NUL-terminated
 * *out. 0 or a negative errno. */
static int slurp(int dir, const char *name, char **out)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char *buf = NULL;
	struct stat st;
	size_t len = 0;
	int err = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > LIST_MAX)
		err = -EINVAL;
	else if (!(buf = malloc((size_t)st.st_size + 1)))
		err = -ENOMEM;
	while (!err && len < (size_t)st.st_size) {
		ssize_t got = read(fd, buf + len, (size_t)st.st_size - len);

		if (got <= 0)
			break; /* shorter than it was: what was read */
		len += (size_t)got;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* Whether the list text holds a line "/.../base" that is the file of
 * (dev, ino). */
static bool lists(const char *text, const char *base, uint64_t dev,
		  uint64_t ino)
{
	size_t blen = strlen(base);

	for (const char *at = text; (at = strstr(at, base)); at += blen) {
		const char *start = at, *end = at + blen;
		char path[PATH_MAX];
		struct stat st;

		if (at == text || at[-1] != '/' || (*end && *end != '\n'))
			continue;
		while (start > text && start[-1] != '\n')
			start--;
		if ((size_t)(end - start) >= sizeof(path))
			continue;
		memcpy(path, start, (size_t)(end - start));
		path[end - start] = '\0';
		if (!stat(path, &st) && (uint64_t)st.st_dev == dev &&
		    (uint64_t)st.st_ino == ino)
			return true;
	}
	return false;
}

int debugpkg_owner(const char *infodir, const char *path, uint64_t dev,
		   uint64_t ino, char *pkg, size_t n)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	DIR *d = opendir(infodir ? infodir : DEBUGPKG_INFO);
	struct dirent *e;
	int err = -ENOENT;

	if (!d)
		return -errno;
	if (!*base) {
		closedir(d);
		return -EINVAL;
	}
	while (err == -ENOENT && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char *text = NULL;

		if (len <= 5 || strcmp(e->d_name + len - 5, ".list") ||
		    slurp(dirfd(d), e->d_name, &text))
			continue;
		if (lists(text, base, dev, ino)) {
			len -= 5;
			len = strcspn(e->d_name, ":") < len
				      ? strcspn(e->d_name, ":")
				      : len;
			snprintf(pkg, n, "%.*s", (int)len, e->d_name);
			err = 0;
		}
		free(text);
	}
	closedir(d);
	return err;
}

void debugpkg_debug(const char *pkg, char *out, size_t n)
{
	size_t len = strlen(pkg);
	const char *py = pkg + (len > 3 && !memcmp(pkg, "lib", 3) ? 3 : 0);
	size_t digits = strlen(py) > 8 && !memcmp(py, "python3.", 8)
				? strspn(py + 8, "0123456789")
				: 0;

	if (!strcmp(pkg, "libc6"))
		snprintf(out, n, "libc6-dbg");
	else if (digits)
		snprintf(out, n, "%.*s-dbg", (int)(8 + digits), py);
	else
		snprintf(out, n, "%s-dbgsym", pkg);
}
