/* SPDX-License-Identifier: MIT */
/*
 * perfmap — JIT code named by the perf map its runtime writes: a text
 * file /tmp/perf-PID.map of lines "START SIZE NAME" (START and SIZE in
 * hex, "0x" optional, NAME to the end of the line), written by
 * `node --perf-basic-prof`, a JVM agent, LuaJIT, .NET and others, for
 * code that no ELF file holds (anonymous executable memory).
 *
 * The file is read whole the first time a process's address is asked
 * about, then only what was appended since (a JIT appends as it
 * compiles), or whole again when it was replaced or rewritten: its size
 * or mtime changed, or the bytes before where the last read stopped
 * are not the same. It is looked at again at a miss, and at a hit at
 * most every PERFMAP_RECHECK_MS. A line that does not parse is skipped.
 *
 * Where lines overlap (code freed and its memory reused), the newest
 * line covering an address names it, among the PERFMAP_LOOKBACK lines
 * that start nearest below it.
 *
 * The file is looked for in the process's own root and pid namespace
 * (/proc/PID/root/tmp/perf-NSPID.map: a JIT in a container writes its
 * own pid in its own /tmp), else /tmp/perf-PID.map (a process gone). It
 * must be a regular file owned by root or by the process's user: a
 * target cannot make probetop read another file through a link, nor
 * block on a FIFO; and written since the process started: a map left in
 * /tmp by an earlier process of the same pid (a JIT never removes its
 * own) names nothing of this one.
 *
 * Bounded: the maps of at most PERFMAP_PROCS processes are kept (the
 * least lately asked about goes first), each of at most PERFMAP_BYTES
 * of lines and names (lines beyond are not read: said once; the arrays
 * grow by doubling, so at worst twice that is allocated), names cut at
 * PERFMAP_NAME_MAX bytes.
 */
#ifndef PROBETOP_PERFMAP_H
#define PROBETOP_PERFMAP_H

#include <stdint.h>
#include <sys/types.h>

#define PERFMAP_PROCS 8
#define PERFMAP_BYTES (16u << 20) /* a process's lines and names */
#define PERFMAP_NAME_MAX 255
#define PERFMAP_LOOKBACK 32
#define PERFMAP_RECHECK_MS 50

struct perfmaps;

/* NULL with errno = ENOMEM. */
struct perfmaps *perfmaps_new(void);
/* NULL is a no-op. */
void perfmaps_free(struct perfmaps *pm);

/*
 * The perf map line of pid covering addr: its name (valid until the next
 * call) and addr's offset into it. 0, or -ENODATA (pid has no perf map),
 * -ENOENT (no line of it covers addr), -ENOMEM.
 */
int perfmaps_find(struct perfmaps *pm, pid_t pid, uint64_t addr,
		  const char **name, uint64_t *offset);

#endif
