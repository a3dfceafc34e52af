/* SPDX-License-Identifier: MIT */
/*
 * v8inline — the JavaScript functions an optimized frame of a V8 process
 * was running, the functions TurboFan inlined into the frame's own
 * included, as Chrome's CPU profiler names them: from V8's own data in
 * the process's memory, read by its metadata (v8meta.h).
 *
 * The code: V8 keeps optimized code in an InstructionStream (its map,
 * then its Code, then its instructions, which start aligned to at least
 * 32 bytes), so the nearest InstructionStream at or before the frame's
 * pc, looked for backward, is the code's; its Code must point back at it
 * and hold pc within its instructions, and its DeoptimizationData must
 * name the frame's own function (the SharedFunctionInfo the stack walk
 * found in the frame), else the frame is no optimized code of its
 * function (baseline or interpreted code, or code that died since) and
 * gets no chain. Three things of Code that V8 publishes no offset for
 * are taken as V8 11.3 lays them out after its source_position_table
 * (its instruction_stream, then its first instruction, and its
 * instruction_size 32 bytes past the table's field), and only where the
 * first two are what they must be.
 *
 * The chain: the pc's source position in the Code's source position
 * table (V8's entries: a code offset and a source position each, as
 * zigzag VLQ deltas; the last at or before the pc's offset) packs an
 * inlining id (bits 31-46, the id + 1; 0: not inlined); the
 * DeoptimizationData's inlining positions (16 bytes each: the position
 * of the inlined call, itself with the id of its caller, and an index
 * into the literals) give each inlined function's SharedFunctionInfo
 * (its literals are a WeakFixedArray: a FixedArray's header) and its
 * caller's, up to the frame's own function. Maglev's code (off by
 * default in Node 20's V8 11.3) keeps the same tables; untested.
 *
 * Bounded: V8INLINE_SCAN bytes looked at before a pc, V8INLINE_TABLE
 * bytes of a position table read (a pc past what was read has no
 * chain), V8INLINE_MAX functions (a deeper chain is none).
 */
#ifndef PROBETOP_V8INLINE_H
#define PROBETOP_V8INLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define V8INLINE_MAX 8 /* functions of one frame */
#define V8INLINE_SCAN (256u << 10) /* bytes before a pc looked at */
#define V8INLINE_TABLE (64u << 10) /* bytes of a position table */
#define V8INLINE_PROCS 16 /* processes whose code's map is kept */

struct v8inline;
struct v8meta;

/* NULL with errno = ENOMEM. */
struct v8inline *v8inline_new(void);
void v8inline_free(struct v8inline *vi);

/*
 * The functions the optimized frame at pc of pid (laid out as m) ran,
 * whose own function is sfi (a tagged SharedFunctionInfo): their
 * SharedFunctionInfos innermost first, sfi last, into
 * out[0..V8INLINE_MAX): their number, 2 or more; 0 if pc ran no function
 * inlined into sfi, or is in no optimized code of sfi that can be read.
 */
size_t v8inline_chain(struct v8inline *vi, pid_t pid, const struct v8meta *m,
		      uint64_t pc, uint64_t sfi, uint64_t *out);

/*
 * The source position (V8's, raw) at code offset off by position table
 * b[0..n): the last entry's at or before off. whole: b is the whole
 * table (else one past off must be seen). 0, or -1 (no entry at or
 * before off, the table ends in the middle of an entry, or it was cut
 * before off was passed).
 */
int v8inline_position(const uint8_t *b, size_t n, bool whole, uint64_t off,
		      int64_t *pos);

#endif
