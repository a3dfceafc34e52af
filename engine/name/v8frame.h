/* SPDX-License-Identifier: MIT */
/*
 * v8frame — a V8 process's JavaScript frames named from V8's own
 * metadata (v8meta.h), without --perf-basic-prof: the stack walker
 * (engine/bpf/unwind.bpf.h) keeps each JavaScript frame's
 * SharedFunctionInfo beside its address (pt_stack_ips.fn); this reads,
 * from the process's memory while it lives, the function's name (its
 * ScopeInfo's, or the name the SharedFunctionInfo holds), its Script's
 * name and the line and column its definition starts at, and names it
 * "JS:NAME SCRIPT:LINE:COLUMN" as V8's perf map does less the tier mark
 * (the same row whichever source named it): "(anonymous)" for a function
 * without a name, "?" for a name it could not read; without a line
 * where the script's line ends and source cannot be read (an external
 * string: Node's own modules), without a script where there is none.
 *
 * Objects are checked by their map's instance type (a
 * SharedFunctionInfo, a Script, strings: sequential one- and two-byte,
 * cons, thin and sliced). The ScopeInfo's name and start position are
 * found as profilers do, since V8 publishes no offsets for them: past
 * its context locals (scopeinfo_idx_*), its first string and its first
 * pair of Smis where the first is the smaller.
 *
 * A name is kept by (pid, SharedFunctionInfo) to the end of the run,
 * at most V8FRAME_NAMES of them (more are read each time), with the
 * SharedFunctionInfo's name_or_scope_info then: if a new stack's frame
 * finds another there (V8's collector moved the function and put
 * another at its address), the frame is named anew, never after the
 * function that was there; a process gone keeps its names. The
 * metadata is read once per process, from the first of its executable
 * mappings that has it.
 */
#ifndef PROBETOP_V8FRAME_H
#define PROBETOP_V8FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define V8FRAME_NAMES 65536
#define V8FRAME_PROCS 16 /* processes whose metadata is kept */
#define V8FRAME_SOURCE_MAX \
	(1u << 20) /* code units of a source read to
					 find a line */

struct v8frames;
struct objcache;
struct v8meta;

/* NULL with errno = ENOMEM; cache must outlive it. */
struct v8frames *v8frames_new(struct objcache *cache);
void v8frames_free(struct v8frames *vf);

/* pid's V8 metadata (read at the first call for pid), or NULL: pid runs
 * no V8 that can be read (v8meta.h), or is gone. */
const struct v8meta *v8frames_meta(struct v8frames *vf, pid_t pid);

/* The name of the JavaScript function whose SharedFunctionInfo (a
 * tagged pointer) is sfi in pid into out[0..n). 0, or -ENOENT: pid is
 * no V8 that can be read, or sfi is no SharedFunctionInfo now. */
int v8frames_name(struct v8frames *vf, pid_t pid, uint64_t sfi, char *out,
		  size_t n);

#endif
