/* SPDX-License-Identifier: MIT */
/*
 * proc — what /proc says about a process: its file-backed mappings, exe,
 * comm and command line, and how to open a mapped file even when it was
 * deleted or lives in another mount namespace (a container).
 */
#ifndef PROBETOP_PROC_H
#define PROBETOP_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_map {
	uint64_t start, end, offset;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	char perms[5]; /* "r-xp" */
	bool deleted; /* the file was removed or replaced since mapped */
	char *path; /* as the process sees it, " (deleted)" stripped */
};

struct proc_maps {
	struct proc_map *maps;
	size_t n;
};

/*
 * Parse the text of a /proc/PID/maps file. Keeps only mappings backed by
 * a file (inode != 0 and an absolute path). Returns 0 or -ENOMEM/-EINVAL;
 * free with proc_maps_free().
 */
int proc_maps_parse(const char *text, struct proc_maps *out);

/*
 * Read and parse /proc/PID/maps. Returns 0, -ESRCH (no such process),
 * -EACCES (not allowed to look), or another negative errno.
 */
int proc_maps_read(pid_t pid, struct proc_maps *out);

/* Free what proc_maps_parse/read filled; NULL or empty is a no-op. */
void proc_maps_free(struct proc_maps *maps);

/*
 * Open a mapped file read-only: through /proc/PID/map_files (works for
 * deleted files), else through /proc/PID/root/PATH (containers), else
 * PATH itself. Returns an fd or a negative errno.
 */
int proc_open_mapped(pid_t pid, const struct proc_map *map);

/* Where pid's vDSO is mapped (its AT_SYSINFO_EHDR, from /proc/PID/auxv),
 * into *at. 0 or a negative errno (-ENOENT: it has none). */
int proc_vdso(pid_t pid, uint64_t *at);

/*
 * Make the pages of [lo, hi) of pid's memory present in its page tables,
 * by reading them through /proc/PID/mem as a debugger does: a BPF program
 * cannot fault a page in, so it cannot read a file page the process has
 * mapped but never touched. What the process sees does not change.
 * Returns 0 or a negative errno (-ESRCH once it has gone).
 */
int proc_touch(pid_t pid, uint64_t lo, uint64_t hi);

/* true if PID names a live process (not a zombie) */
bool proc_alive(pid_t pid);

/* comm, exe link target, and cmdline with NULs turned to spaces. Each
 * writes a NUL-terminated string into buf and returns 0 or a negative
 * errno. */
int proc_comm(pid_t pid, char *buf, size_t n);
int proc_exe(pid_t pid, char *buf, size_t n);
int proc_cmdline(pid_t pid, char *buf, size_t n);

/* Arguments as the kernel keeps them (s[0..len), NUL-separated) joined by
 * blanks in place, trailing NULs dropped; returns the new length (s is
 * not terminated). */
size_t proc_join_args(char *s, size_t len);

/*
 * The whole of /proc/PID/environ or /proc/PID/cmdline (what), as the
 * NUL-separated strings it holds, in a malloc()ed *out of *len bytes
 * (plus a NUL). 0, -ESRCH, or another negative errno.
 */
int proc_strings(pid_t pid, const char *what, char **out, size_t *len);

/* What top shows of a process: CPU time (clock ticks, user + system),
 * its start (ticks after boot), resident memory and owner. */
struct proc_usage {
	uint64_t cpu_ticks, start_ticks, rss_bytes;
	uid_t uid;
};

/* Read /proc/PID/stat. 0, -ESRCH once gone, or another negative errno. */
int proc_usage(pid_t pid, struct proc_usage *out);

/* pid's CPU time in ns into *ns, by its process CPU clock: every
 * thread's, those that ended too (a thread-per-request server's), where
 * summing the threads' schedstat lost every thread gone, in ns where
 * /proc/PID/stat counts 10 ms ticks. 0 or -1 (gone). */
int proc_cpu_ns(pid_t pid, uint64_t *ns);

/* The memory this process's cgroup and those above it let it take
 * beyond what they hold now, into *room (UINT64_MAX: no limit): cgroup
 * v2's memory.max, and v1's memory hierarchy (memory.limit_in_bytes)
 * where it is mounted. 0, or a negative errno (-ENOENT: in no cgroup),
 * *room then UINT64_MAX. */
int proc_memcg_room(uint64_t *room);

/*
 * The processes that descend from pid now (children, their children...),
 * at most max into out, from the parent pid in every /proc/N/stat.
 * Returns how many were written (0 with none, or if /proc cannot be read).
 */
size_t proc_descendants(pid_t pid, pid_t *out, size_t max);

/* Parse a decimal pid ("4242"); returns it, or -EINVAL. */
pid_t proc_parse_pid(const char *s);

/* pid's pid in its own namespace (the last of /proc/PID/status's NSpid
 * line), or pid itself. */
pid_t proc_ns_pid(pid_t pid);

/* Whether pid has a handler for signal sig (/proc/PID/status's SigCgt):
 * false if not, or unknown. */
bool proc_catches(pid_t pid, int sig);

#endif
