// SPDX-License-Identifier: MIT
/* proc — /proc/PID readers; see proc.h. */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DELETED_SUFFIX " (deleted)"

/* Read a whole /proc file into a malloc'd NUL-terminated buffer. */
static int read_file(const char *path, char **out, size_t *outlen)
{
	size_t cap = 16384, len = 0;
	char *buf = NULL, *tmp;
	int fd, ret = 0;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		if (len + 1 == cap) {
			tmp = realloc(buf, cap * 2);
			if (!tmp) {
				ret = -ENOMEM;
				goto out;
			}
			buf = tmp;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	buf = NULL;
	if (outlen)
		*outlen = len;
out:
	free(buf);
	close(fd);
	return ret;
}

/* One line of maps text (without its newline) into m; 1 if no file. */
static int parse_line(const char *text, size_t len, struct proc_map *m)
{
	char line[PATH_MAX + 128], perms[5];
	int path_at = -1;
	const char *path;
	size_t plen;

	if (len >= sizeof(line))
		return -EINVAL;
	memcpy(line, text, len);
	line[len] = '\0';
	if (sscanf(line,
		   "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64
		   " %n",
		   &m->start, &m->end, perms, &m->offset, &m->dev_major,
		   &m->dev_minor, &m->inode, &path_at) != 7 ||
	    path_at < 0)
		return -EINVAL;
	memcpy(m->perms, perms, sizeof(m->perms));
	path = line + path_at;
	plen = len - (size_t)path_at;
	m->deleted = plen > strlen(DELETED_SUFFIX) &&
		     !memcmp(path + plen - strlen(DELETED_SUFFIX),
			     DELETED_SUFFIX, strlen(DELETED_SUFFIX));
	if (m->deleted)
		plen -= strlen(DELETED_SUFFIX);
	if (m->inode == 0 || plen == 0 || path[0] != '/')
		return 1; /* anonymous, [heap], [vdso]... */
	m->path = strndup(path, plen);
	return m->path ? 0 : -ENOMEM;
}

int proc_maps_parse(const char *text, struct proc_maps *out)
{
	size_t cap = 0;
	const char *line = text;
	int ret = 0;

	out->maps = NULL;
	out->n = 0;
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		struct proc_map m = { 0 };

		ret = parse_line(line, len, &m);
		if (ret < 0)
			goto fail;
		if (ret == 0) {
			if (out->n == cap) {
				size_t ncap = cap ? cap * 2 : 64;
				struct proc_map *tmp =
					realloc(out->maps, ncap * sizeof(*tmp));

				if (!tmp) {
					free(m.path);
					ret = -ENOMEM;
					goto fail;
				}
				out->maps = tmp;
				cap = ncap;
			}
			out->maps[out->n++] = m;
		}
		line += len + (nl ? 1 : 0);
	}
	return 0;
fail:
	proc_maps_free(out);
	return ret;
}

int proc_maps_read(pid_t pid, struct proc_maps *out)
{
	char path[64], *text = NULL;
	int ret;

	out->maps = NULL;
	out->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	ret = read_file(path, &text, NULL);
	if (ret == -ENOENT)
		return -ESRCH;
	if (ret)
		return ret;
	/* a zombie or a kernel thread has an empty maps file */
	ret = proc_maps_parse(text, out);
	free(text);
	return ret;
}

void proc_maps_free(struct proc_maps *maps)
{
	if (!maps)
		return;
	for (size_t i = 0; i < maps->n; i++)
		free(maps->maps[i].path);
	free(maps->maps);
	maps->maps = NULL;
	maps->n = 0;
}

int proc_open_mapped(pid_t pid, const struct proc_map *map)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 (int)pid, map->start, map->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, map->path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	fd = open(map->path, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

int proc_vdso(pid_t pid, uint64_t *at)
{
	uint64_t av[2 * 64];
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, av, sizeof(av));
	close(fd);
	for (ssize_t i = 0; i + 1 < n / (ssize_t)sizeof(av[0]); i += 2) {
		if (av[i] == 33) { /* AT_SYSINFO_EHDR */
			*at = av[i + 1];
			return 0;
		}
	}
	return -ENOENT;
}

#define TOUCH_CHUNK (256 * 1024)

int proc_touch(pid_t pid, uint64_t lo, uint64_t hi)
{
	char path[64], *buf = NULL;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	buf = malloc(TOUCH_CHUNK);
	if (!buf)
		err = -ENOMEM;
	for (uint64_t at = lo; !err && at < hi;) {
		size_t n = hi - at < TOUCH_CHUNK ? hi - at : TOUCH_CHUNK;
		ssize_t got = pread(fd, buf, n, (off_t)at);

		if (got <= 0)
			err = got < 0 ? -errno : -EIO;
		at += got > 0 ? (uint64_t)got : 0;
	}
	free(buf);
	close(fd);
	return err;
}

static int read_small(pid_t pid, const char *what, char *buf, size_t n,
		      size_t *len)
{
	char path[64];
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	got = read(fd, buf, n - 1);
	close(fd);
	if (got < 0)
		return -errno;
	buf[got] = '\0';
	*len = (size_t)got;
	return 0;
}

bool proc_alive(pid_t pid)
{
	char buf[512], *paren;
	size_t len;

	if (read_small(pid, "stat", buf, sizeof(buf), &len))
		return false;
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

int proc_comm(pid_t pid, char *buf, size_t n)
{
	size_t len;
	int ret = read_small(pid, "comm", buf, n, &len);

	if (ret)
		return ret;
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return 0;
}

int proc_exe(pid_t pid, char *buf, size_t n)
{
	char path[64];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	len = readlink(path, buf, n - 1);
	if (len < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	buf[len] = '\0';
	return 0;
}

int proc_cmdline(pid_t pid, char *buf, size_t n)
{
	size_t len;
	int ret = read_small(pid, "cmdline", buf, n, &len);

	if (ret)
		return ret;
	buf[proc_join_args(buf, len)] = '\0';
	return 0;
}

size_t proc_join_args(char *s, size_t len)
{
	while (len && s[len - 1] == '\0')
		len--;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\0')
			s[i] = ' ';
	return len;
}

int proc_strings(pid_t pid, const char *what, char **out, size_t *len)
{
	char path[64];
	size_t cap = 4096, n = 0;
	char *buf = NULL;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	for (;;) {
		char *b = n + 1 >= cap || !buf ? realloc(buf, cap *= 2) : buf;
		ssize_t got;

		if (!b) {
			err = -ENOMEM;
			break;
		}
		buf = b;
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0)
			err = -errno;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

pid_t proc_parse_pid(const char *s)
{
	char *end = NULL;
	long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0 || v > INT_MAX)
		return -EINVAL;
	return (pid_t)v;
}

int proc_usage(pid_t pid, struct proc_usage *out)
{
	char buf[1024], path[64], *p;
	unsigned long long utime, stime, start, rss;
	struct stat st;
	size_t len;
	int ret = read_small(pid, "stat", buf, sizeof(buf), &len);

	if (ret)
		return ret;
	p = strrchr(buf, ')');
	/* after "pid (comm)": state ppid ... utime(14) stime(15) ... starttime(22) vsize rss(24) */
	if (!p ||
	    sscanf(p + 2,
		   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu "
		   "%*d %*d %*d %*d %*d %*d %llu %*u %llu",
		   &utime, &stime, &start, &rss) != 4)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st))
		return -errno;
	out->cpu_ticks = utime + stime;
	out->start_ticks = start;
	out->rss_bytes = rss * (uint64_t)sysconf(_SC_PAGESIZE);
	out->uid = st.st_uid;
	return 0;
}

/* The parent pid in /proc/N/stat ("N (comm) S PPID ..."), or -1. */
static pid_t parent_of(pid_t pid)
{
	char buf[512];
	size_t len;
	const char *p;
	long ppid;

	if (read_small(pid, "stat", buf, sizeof(buf), &len))
		return -1;
	p = strrchr(buf, ')'); /* comm may hold spaces and parentheses */
	if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1)
		return -1;
	return (pid_t)ppid;
}

size_t proc_descendants(pid_t pid, pid_t *out, size_t max)
{
	pid_t *all = NULL, *par = NULL;
	size_t n = 0, cap = 0, found = 0;
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		pid_t p = proc_parse_pid(de->d_name);

		if (p <= 0)
			continue;
		if (n == cap) {
			size_t c = cap ? cap * 2 : 512;
			pid_t *a = realloc(all, c * sizeof(*a)),
			      *b = a ? realloc(par, c * sizeof(*b)) : NULL;

			if (a)
				all = a;
			if (!b)
				break;
			par = b;
			cap = c;
		}
		all[n] = p;
		par[n++] = parent_of(p);
	}
	closedir(d);
	/* breadth first: out[] is its own queue of parents to expand */
	for (size_t i = 0; i < n && found < max; i++)
		if (par[i] == pid)
			out[found++] = all[i];
	for (size_t q = 0; q < found; q++)
		for (size_t i = 0; i < n && found < max; i++)
			if (par[i] == out[q])
				out[found++] = all[i];
	free(all);
	free(par);
	return found;
}

int proc_cpu_ns(pid_t pid, uint64_t *ns)
{
	struct timespec ts;
	clockid_t clk;

	if (clock_getcpuclockid(pid, &clk) || clock_gettime(clk, &ts))
		return -1;
	*ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return 0;
}

/* The bytes a cgroup directory's limit (file max: v2's memory.max, v1's
 * memory.limit_in_bytes) allows beyond its usage (file cur); UINT64_MAX
 * if unlimited or unreadable. */
static uint64_t memcg_dir_room(const char *dir, const char *max_file,
			       const char *cur_file)
{
	char path[3 * PATH_MAX], buf[64];
	unsigned long long max, cur;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, max_file);
	f = fopen(path, "re");
	if (!f)
		return UINT64_MAX;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%llu", &max) != 1) {
		fclose(f);
		return UINT64_MAX; /* "max": no limit */
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s", dir, cur_file);
	f = fopen(path, "re");
	if (!f)
		return UINT64_MAX;
	if (fscanf(f, "%llu", &cur) != 1)
		cur = 0;
	fclose(f);
	return max > cur ? max - cur : 0;
}

/* The least room of cgroup cg under root and of each directory above it
 * (memcg_dir_room()). */
static uint64_t memcg_room_up(const char *root, const char *cg,
			      const char *max_file, const char *cur_file)
{
	char dir[2 * PATH_MAX + 32];
	uint64_t room = UINT64_MAX;

	snprintf(dir, sizeof(dir), "%s%s", root, cg);
	for (;;) {
		uint64_t r = memcg_dir_room(dir, max_file, cur_file);
		char *slash = strrchr(dir, '/');

		if (r < room)
			room = r;
		if (!slash || slash <= dir + strlen(root))
			break;
		*slash = '\0';
	}
	return room;
}

/* Whether /proc/self/cgroup line (its "\n" cut) is cgroup v1's memory
 * hierarchy ("N:a,memory,b:PATH"); its PATH into *cg. */
static bool v1_memory_line(char *line, const char **cg)
{
	char *ctl = strchr(line, ':'),
	     *path = ctl ? strchr(ctl + 1, ':') : NULL;

	if (!path)
		return false;
	*path = '\0';
	for (char *c = strtok(ctl + 1, ","); c; c = strtok(NULL, ","))
		if (!strcmp(c, "memory")) {
			*cg = path + 1;
			return true;
		}
	return false;
}

int proc_memcg_room(uint64_t *room)
{
	char line[PATH_MAX], v2[PATH_MAX] = "", v1[PATH_MAX] = "";
	bool any = false;
	FILE *f = fopen("/proc/self/cgroup", "re");
	uint64_t r;

	*room = UINT64_MAX;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *cg;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "0::", 3)) {
			snprintf(v2, sizeof(v2), "%s", line + 3);
			any = true;
		} else if (v1_memory_line(line, &cg)) {
			snprintf(v1, sizeof(v1), "%s", cg);
			any = true;
		}
	}
	fclose(f);
	if (!any)
		return -ENOENT;
	if (v2[0]) {
		r = memcg_room_up("/sys/fs/cgroup", v2, "memory.max",
				  "memory.current");
		*room = r < *room ? r : *room;
	}
	if (v1[0]) {
		r = memcg_room_up("/sys/fs/cgroup/memory", v1,
				  "memory.limit_in_bytes",
				  "memory.usage_in_bytes");
		*room = r < *room ? r : *room;
	}
	return 0;
}

pid_t proc_ns_pid(pid_t pid)
{
	char path[64], line[256];
	long inner = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f)) {
		char *s = line + 6, *end;

		if (strncmp(line, "NSpid:", 6))
			continue;
		for (;;) {
			long v = strtol(s, &end, 10);

			if (end == s)
				break;
			inner = v;
			s = end;
		}
		break;
	}
	fclose(f);
	return inner > 0 ? (pid_t)inner : pid;
}

bool proc_catches(pid_t pid, int sig)
{
	char path[64], line[256];
	bool caught = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigCgt:", 7)) {
			unsigned long long mask = strtoull(line + 7, NULL, 16);

			caught =
				sig > 0 && sig <= 64 && (mask >> (sig - 1)) & 1;
			break;
		}
	fclose(f);
	return caught;
}
