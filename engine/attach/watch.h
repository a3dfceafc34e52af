/* SPDX-License-Identifier: MIT */
/*
 * watch — the kernel-side watches of processes: their IO (syscalls by
 * class, block requests) and the processes and threads they fork, exec
 * and end, counted by BTF tracepoint programs into the io and proc maps
 * for the process watched and its descendants (the watched map says
 * whose). The programs are attached on first use and stay until
 * watch_free(). Called by tracer_watch() (see tracer.h).
 */
#ifndef PROBETOP_WATCH_H
#define PROBETOP_WATCH_H

#include <stdint.h>
#include <sys/types.h>

struct bpf_link;
struct probetop_bpf;

/* What is attached; zeroed before the first watch_add(). */
struct watch {
	struct bpf_link *io_links[4];
	struct bpf_link *proc_links[3];
	uint8_t watching; /* enum pt_watch: programs attached (PT_WATCH_PROC:
			     those that follow processes, for both) */
	double syscall_ns; /* what the IO watch adds to every syscall of
			      every process, CPU ns, as measured when it
			      was attached (0: not attached) */
};

/* tracer_watch() with skel's programs and maps, the attached programs
 * kept in *wa. 0 or a negative errno (logged when a program cannot be
 * attached). */
int watch_add(struct watch *wa, struct probetop_bpf *skel, pid_t pid,
	      unsigned int what);

/* Detach the IO watch's programs (its syscall tracepoints tax every
 * process on the machine); the process watch stays. No-op if none. */
void watch_drop_io(struct watch *wa);

/* Detach what watch_add() attached. */
void watch_free(struct watch *wa);

#endif
