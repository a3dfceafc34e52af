// SPDX-License-Identifier: MIT
/*
 * perfmap — JIT code named by perf maps; see perfmap.h.
 *
 * A process's lines are kept sorted by start (then by where they were in
 * the file, which is also where their names are in the pool: a later
 * line's name lies further in). What a read adds is sorted on its own and
 * merged in, so a JIT's appends cost what they add.
 */
#include "perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"

#define PM_PATH_MAX 96
#define PM_TAIL 64 /* bytes before the end of the last read, kept */
#define PM_CHUNK (64 * 1024) /* read at a time; a longer line is skipped */

/* One line of a map. */
struct pm_line {
	uint64_t start;
	uint32_t size;
	uint32_t name; /* in the names pool: a later line's is higher */
};

/* One process's map, as last read. */
struct pm_proc {
	pid_t pid; /* 0: a free slot */
	uint64_t used; /* when last asked about (perfmaps.clock) */
	uint64_t checked_ns; /* when the file was last looked at */
	uid_t uid; /* the process's user; (uid_t)-1: not known */
	time_t born; /* when it started (wall clock); 0: not known */
	char path[PM_PATH_MAX]; /* in its root and pid namespace */
	char host[PM_PATH_MAX]; /* /tmp/perf-PID.map */
	const char *file; /* the one of them read last */
	struct stat st; /* the file as read last (st_ino 0: none) */
	off_t done; /* read up to here: the end of a whole line */
	char tail[PM_TAIL]; /* the bytes before done */
	size_t ntail;
	bool full; /* PERFMAP_BYTES reached: no more lines read */
	struct pm_line *lines;
	size_t n, cap;
	char *names;
	size_t nnames, capnames;
};

struct perfmaps {
	struct pm_proc procs[PERFMAP_PROCS];
	uint64_t clock;
};

struct perfmaps *perfmaps_new(void)
{
	return calloc(1, sizeof(struct perfmaps));
}

/* Forget what p holds of its file (its slot and paths kept). */
static void proc_clear(struct pm_proc *p)
{
	free(p->lines);
	free(p->names);
	p->lines = NULL;
	p->names = NULL;
	p->n = p->cap = p->nnames = p->capnames = 0;
	p->done = 0;
	p->ntail = 0;
	p->full = false;
	memset(&p->st, 0, sizeof(p->st));
}

void perfmaps_free(struct perfmaps *pm)
{
	if (!pm)
		return;
	for (size_t i = 0; i < PERFMAP_PROCS; i++)
		proc_clear(&pm->procs[i]);
	free(pm);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* When pid started, by the wall clock (its start since boot, from
 * /proc/PID/stat, taken from the boot clock's now); 0 if not known. */
static time_t started(pid_t pid)
{
	char path[64], buf[1024], *at;
	unsigned long long ticks = 0;
	struct timespec boot;
	long hz = sysconf(_SC_CLK_TCK);
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0 || hz <= 0)
		return 0;
	buf[got] = '\0';
	at = strrchr(buf, ')'); /* after the command, which may hold ") " */
	/* state is field 3, starttime field 22: 19 fields on from state */
	if (!at ||
	    sscanf(at + 1,
		   " %*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
		   "%*s %*s %*s %*s %*s %*s %*s %llu",
		   &ticks) != 1 ||
	    clock_gettime(CLOCK_BOOTTIME, &boot))
		return 0;
	return time(NULL) - (boot.tv_sec - (time_t)(ticks / (unsigned long)hz));
}

/* Slot p made pid's: its paths and user found. */
static void proc_start(struct pm_proc *p, pid_t pid)
{
	char dir[64];
	struct stat st;

	proc_clear(p);
	p->pid = pid;
	p->checked_ns = 0;
	snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
	p->uid = stat(dir, &st) ? (uid_t)-1 : st.st_uid;
	p->born = started(pid);
	snprintf(p->path, sizeof(p->path), "/proc/%d/root/tmp/perf-%d.map",
		 (int)pid, (int)proc_ns_pid(pid));
	snprintf(p->host, sizeof(p->host), "/tmp/perf-%d.map", (int)pid);
	p->file = p->path;
}

/* pid's slot: its own, else a free one, else the least lately used. */
static struct pm_proc *proc_of(struct perfmaps *pm, pid_t pid)
{
	struct pm_proc *lru = &pm->procs[0];

	for (size_t i = 0; i < PERFMAP_PROCS; i++) {
		struct pm_proc *p = &pm->procs[i];

		if (p->pid == pid) {
			p->used = ++pm->clock;
			return p;
		}
		if (!p->pid || (lru->pid && p->used < lru->used))
			lru = p;
	}
	proc_start(lru, pid);
	lru->used = ++pm->clock;
	return lru;
}

/*
 * One line s[0..len) (no newline) parsed: "START SIZE NAME", hex with
 * an optional 0x, NAME to the end less trailing blanks. 0 or -EINVAL.
 */
static int parse_line(const char *s, size_t len, uint64_t *start,
		      uint32_t *size, const char **name, size_t *nlen)
{
	char num[2][20];
	uint64_t v[2];
	size_t at = 0;

	for (int k = 0; k < 2; k++) {
		size_t w = 0;
		char *end;

		while (at < len && s[at] != ' ' && w < sizeof(num[k]) - 1)
			num[k][w++] = s[at++];
		num[k][w] = '\0';
		if (!w || at >= len || s[at] != ' ' || num[k][0] == '-' ||
		    num[k][0] == '+')
			return -EINVAL;
		at++;
		errno = 0;
		v[k] = strtoull(num[k], &end, 16);
		if (errno || *end)
			return -EINVAL;
	}
	while (len > at &&
	       (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	if (at >= len || !v[1] || v[1] > UINT32_MAX || v[0] + v[1] < v[0])
		return -EINVAL;
	*start = v[0];
	*size = (uint32_t)v[1];
	*name = s + at;
	*nlen = len - at;
	return 0;
}

/* Room for one more of n bytes each in *buf (*cap of them). 0 or -1. */
static int grow(void **buf, size_t *cap, size_t need, size_t each)
{
	size_t ncap = *cap ? *cap : 256;
	void *b;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	b = realloc(*buf, ncap * each);
	if (!b)
		return -1;
	*buf = b;
	*cap = ncap;
	return 0;
}

/* A line s[0..len) of p's file added, if it parses. 0, or -ENOSPC (p is
 * full: said) or -ENOMEM. */
static int add_line(struct pm_proc *p, const char *s, size_t len)
{
	const char *name;
	uint64_t start;
	uint32_t size;
	size_t nlen;

	if (parse_line(s, len, &start, &size, &name, &nlen))
		return 0; /* not a line of a perf map: skipped */
	if (nlen > PERFMAP_NAME_MAX)
		nlen = PERFMAP_NAME_MAX;
	if ((p->n + 1) * sizeof(*p->lines) + p->nnames + nlen + 1 >
		    PERFMAP_BYTES ||
	    p->nnames + nlen + 1 > UINT32_MAX) {
		log_msg(LOG_WARN,
			"%s: more than %u MiB of JIT symbols; the rest are not "
			"read, their frames stay addresses",
			p->file, PERFMAP_BYTES >> 20);
		p->full = true;
		return -ENOSPC;
	}
	if (grow((void **)&p->lines, &p->cap, p->n + 1, sizeof(*p->lines)) ||
	    grow((void **)&p->names, &p->capnames, p->nnames + nlen + 1, 1))
		return -ENOMEM;
	p->lines[p->n++] = (struct pm_line){ start, size, (uint32_t)p->nnames };
	memcpy(p->names + p->nnames, name, nlen);
	p->names[p->nnames + nlen] = '\0';
	p->nnames += nlen + 1;
	return 0;
}

/* By start, then by place in the file. Compares, never subtracts. */
static int by_start(const void *a, const void *b)
{
	const struct pm_line *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* The lines from old on sorted and merged with those before (sorted);
 * without memory for the merge, all sorted again. */
static void merge_new(struct pm_proc *p, size_t old)
{
	struct pm_line *tmp;
	size_t i = 0, j = old, k = 0;

	qsort(p->lines + old, p->n - old, sizeof(*p->lines), by_start);
	if (!old || old == p->n ||
	    by_start(&p->lines[old - 1], &p->lines[old]) <= 0)
		return;
	tmp = malloc(p->n * sizeof(*tmp));
	if (!tmp) {
		qsort(p->lines, p->n, sizeof(*p->lines), by_start);
		return;
	}
	while (i < old || j < p->n)
		tmp[k++] = j == p->n || (i < old && by_start(&p->lines[i],
							     &p->lines[j]) <= 0)
				   ? p->lines[i++]
				   : p->lines[j++];
	free(p->lines);
	p->lines = tmp;
	p->cap = p->n;
}

/*
 * The lines of fd from p->done to its end added (a last line without its
 * newline left for the next read; a line longer than PM_CHUNK skipped),
 * p->done and p->tail moved on. 0 or a negative errno.
 */
static int read_lines(struct pm_proc *p, int fd)
{
	char *buf = malloc(PM_CHUNK);
	size_t have = 0;
	bool skipping = false; /* in a line too long to keep */
	off_t at = p->done;
	int err = buf ? 0 : -ENOMEM;

	while (!err && !p->full) {
		ssize_t got = pread(fd, buf + have, PM_CHUNK - have, at);
		size_t from = 0;
		char *nl;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			err = got < 0 ? -errno : 0;
			break;
		}
		at += got;
		have += (size_t)got;
		while (!p->full &&
		       (nl = memchr(buf + from, '\n', have - from))) {
			size_t len = (size_t)(nl - buf) - from;

			if (!skipping &&
			    add_line(p, buf + from, len) == -ENOMEM)
				err = -ENOMEM;
			skipping = false;
			from += len + 1;
			p->done = at - (off_t)(have - from);
		}
		memmove(buf, buf + from, have - from);
		have -= from;
		if (have == PM_CHUNK) { /* no newline in a whole chunk */
			skipping = true;
			have = 0;
		}
	}
	free(buf);
	return err;
}

/* The PM_TAIL bytes of fd before p->done into p->tail. */
static void keep_tail(struct pm_proc *p, int fd)
{
	off_t from = p->done > PM_TAIL ? p->done - PM_TAIL : 0;
	ssize_t got = pread(fd, p->tail, (size_t)(p->done - from), from);

	p->ntail = got > 0 ? (size_t)got : 0;
}

/* Whether fd is the file read last, grown since: the same file, larger,
 * the bytes before where the read stopped unchanged. */
static bool appended(const struct pm_proc *p, int fd, const struct stat *st)
{
	char now[PM_TAIL];

	return p->st.st_ino && st->st_ino == p->st.st_ino &&
	       st->st_dev == p->st.st_dev && st->st_size > p->st.st_size &&
	       pread(fd, now, p->ntail, p->done - (off_t)p->ntail) ==
		       (ssize_t)p->ntail &&
	       !memcmp(now, p->tail, p->ntail);
}

/* Whether st is not the file as read last (size, mtime or file). */
static bool changed(const struct pm_proc *p, const struct stat *st)
{
	return st->st_ino != p->st.st_ino || st->st_dev != p->st.st_dev ||
	       st->st_size != p->st.st_size ||
	       st->st_mtim.tv_sec != p->st.st_mtim.tv_sec ||
	       st->st_mtim.tv_nsec != p->st.st_mtim.tv_nsec;
}

/* p's file opened: in the process's root while it lives, else on the
 * host's /tmp; a regular file of root or of the process's user, last
 * written after the process started (one older is an earlier process's
 * that had the same pid). An fd, or a negative errno. */
static int open_map(struct pm_proc *p, struct stat *st)
{
	char root[64];
	int fd;

	snprintf(root, sizeof(root), "/proc/%d/root/", (int)p->pid);
	p->file = access(root, F_OK) ? p->host : p->path; /* gone: host's */
	fd = open(p->file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) ||
	    (st->st_uid && p->uid != (uid_t)-1 && st->st_uid != p->uid) ||
	    (p->born && st->st_mtime < p->born - 2)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* p's lines made those of its file now, if it changed: what was
 * appended read, or the whole file again. */
static void refresh(struct pm_proc *p)
{
	struct stat st;
	size_t old;
	int fd = open_map(p, &st);

	p->checked_ns = now_ns();
	if (fd < 0) {
		if (p->st.st_ino)
			proc_clear(p); /* removed: the lines went with it */
		return;
	}
	if (!changed(p, &st) || (p->full && st.st_ino == p->st.st_ino)) {
		close(fd);
		return;
	}
	if (!appended(p, fd, &st))
		proc_clear(p);
	old = p->n;
	read_lines(p, fd);
	merge_new(p, old);
	keep_tail(p, fd);
	p->st = st;
	close(fd);
}

/* The newest line of p covering addr, among the PERFMAP_LOOKBACK that
 * start nearest below it; NULL if none. */
static const struct pm_line *line_at(const struct pm_proc *p, uint64_t addr)
{
	const struct pm_line *best = NULL;
	size_t lo = 0, hi = p->n;

	while (lo < hi) { /* the first line starting above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (p->lines[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, k = 0; i-- > 0 && k < PERFMAP_LOOKBACK; k++) {
		const struct pm_line *l = &p->lines[i];

		if (addr - l->start < l->size &&
		    (!best || l->name > best->name))
			best = l;
	}
	return best;
}

int perfmaps_find(struct perfmaps *pm, pid_t pid, uint64_t addr,
		  const char **name, uint64_t *offset)
{
	struct pm_proc *p = proc_of(pm, pid);
	const struct pm_line *l = line_at(p, addr);

	if (!l || now_ns() - p->checked_ns >= PERFMAP_RECHECK_MS * 1000000ull) {
		refresh(p);
		l = line_at(p, addr);
	}
	if (!l)
		return p->st.st_ino ? -ENOENT : -ENODATA;
	*name = p->names + l->name;
	*offset = addr - l->start;
	return 0;
}
