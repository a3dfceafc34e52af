// SPDX-License-Identifier: MIT
/* shebang — a script's "#!" interpreters, followed as the kernel does;
 * see shebang.h. */
#include "shebang.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool terminator(char c)
{
	return blank(c) || c == '\0';
}

/* First byte of [p, end) that is not blank, or NULL. */
static const char *skip_blank(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!blank(*p))
			return p;
	return NULL;
}

/* First blank or NUL of [p, end), or NULL. */
static const char *find_terminator(const char *p, const char *end)
{
	for (; p < end; p++)
		if (terminator(*p))
			return p;
	return NULL;
}

int shebang_parse(const char *data, size_t len, struct shebang_line *out)
{
	char buf[SHEBANG_BUF] = { 0 }; /* the kernel zeroes it, then reads */
	const char *end, *name, *sep, *arg = NULL;
	const char *buf_end = buf + sizeof(buf) - 1;

	memcpy(buf, data, len < sizeof(buf) ? len : sizeof(buf));
	if (buf[0] != '#' || buf[1] != '!')
		return -ENOEXEC;
	end = memchr(buf, '\n', sizeof(buf));
	if (!end) {
		end = skip_blank(buf + 2, buf_end);
		if (!end || !find_terminator(end, buf_end))
			return -ENOEXEC; /* only blanks, or a cut path */
		end = buf_end;
	}
	while (blank(end[-1]))
		end--;
	name = skip_blank(buf + 2, end);
	if (!name || name == end)
		return -ENOEXEC;
	sep = find_terminator(name, end);
	if (sep && *sep)
		arg = skip_blank(sep, end);
	snprintf(out->interp, sizeof(out->interp), "%.*s",
		 (int)((sep ? sep : end) - name), name);
	snprintf(out->arg, sizeof(out->arg), "%.*s", arg ? (int)(end - arg) : 0,
		 arg ? arg : "");
	return 0;
}

/* The first bytes of path into buf; their count or a negative errno. */
static ssize_t read_head(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return -errno;
	got = pread(fd, buf, n, 0);
	if (got < 0)
		got = -errno;
	close(fd);
	return got;
}

/* What the kernel's open_exec() asks of an interpreter: a regular,
 * executable file. 0 or a negative errno. */
static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || access(path, X_OK))
		return -EACCES;
	return 0;
}

int shebang_resolve(const char *path, char *out, size_t n, char *why,
		    size_t whylen)
{
	char cur[SHEBANG_BUF > 4096 ? SHEBANG_BUF : 4096], head[SHEBANG_BUF];
	struct shebang_line line;
	int err;

	why[0] = '\0';
	snprintf(cur, sizeof(cur), "%s", path);
	for (int depth = 0;; depth++) {
		ssize_t got = read_head(cur, head, sizeof(head));

		if (got < 0) {
			snprintf(why, whylen, "%s: cannot read it: %s", cur,
				 strerror((int)-got));
			return (int)got;
		}
		if (got >= 4 && !memcmp(head, "\177ELF", 4))
			break;
		if (shebang_parse(head, (size_t)got, &line)) {
			if (depth == 0) { /* execvp() runs it with /bin/sh */
				snprintf(cur, sizeof(cur), "/bin/sh");
				continue;
			}
			snprintf(why, whylen,
				 "%s: %s: neither an ELF file nor a script",
				 path, cur);
			return -ENOEXEC;
		}
		if (depth == SHEBANG_DEPTH) {
			snprintf(why, whylen,
				 "%s: too many levels of #! interpreters (more "
				 "than %d scripts, the kernel's limit)",
				 path, SHEBANG_DEPTH);
			return -ELOOP;
		}
		err = check_exec(line.interp);
		if (err) {
			snprintf(why, whylen, "%s: bad interpreter %s: %s", cur,
				 line.interp,
				 err == -EACCES ? "not an executable file"
						: strerror(-err));
			return err;
		}
		snprintf(cur, sizeof(cur), "%s", line.interp);
	}
	if (strlen(cur) >= n)
		return -ENAMETOOLONG;
	snprintf(out, n, "%s", cur);
	return 0;
}
