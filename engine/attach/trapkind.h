/* SPDX-License-Identifier: MIT */
/*
 * trapkind — what the kernel does at a uprobe's breakpoint, by the
 * instruction it replaces. A nop (every USDT site), a push of a
 * register or a relative jump or call it emulates in the trap; any other
 * instruction (a function's
 * `endbr64`, `mov %edx,%edx`, `sub $N,%rsp`) it copies out of line and
 * single-steps, a second trap, several times the price on this machine
 * kind (2.8 µs against 0.36). A return probe adds the trampoline's trap
 * at every return. The cost meter prices each kind as measured at start
 * (cost_calibrate_start()); a spec's sites record theirs here
 * (tracer_spec_info.trap_kinds). Pure but for trap_kind_at()'s read.
 */
#ifndef PROBETOP_TRAPKIND_H
#define PROBETOP_TRAPKIND_H

#include <stddef.h>
#include <stdint.h>

enum trap_kind {
	TRAP_NOP, /* nop, 66 nop, 0f 1f /0, jmp, jcc: emulated */
	TRAP_PUSH, /* push %reg (50+r, 41 50+r), call rel32: emulated */
	TRAP_STEP, /* anything else: single-stepped out of line */
	TRAP_KINDS
};

/* In a role's set of kinds (a bit per enum trap_kind): its links are
 * return probes. */
#define TRAP_RET_BIT (1u << TRAP_KINDS)

/* What a latency pair's probes add to each time it measures at the
 * least, as calibrated (cost_calibrate_start()): the start's trap after its
 * timestamp (a single-stepped start's second trap among it) and the
 * end's before its own. */
struct trap_lat {
	double to_ret[TRAP_KINDS]; /* ns: a start of each kind, the end a
				      return probe (fn:F..fn:F%return) */
	double uprobe_end; /* ns more (or less) when the end is a uprobe at
			      a nop, not a return probe */
};

/* The ns to take from each time of a pair whose start's sites have the
 * kinds start (a bit per enum trap_kind, TRAP_RET_BIT) and whose end's
 * have end: the cheapest start's (a spec whose starts are of several
 * kinds is not over-corrected where its calls hit the cheap); 0 when
 * none is known. Pure. */
double trap_lat_adj(const struct trap_lat *l, unsigned int start,
		    unsigned int end);

/* The kind of the instruction whose first n bytes are insn (n >= 1;
 * fewer than it needs: TRAP_STEP, the dearest). */
enum trap_kind trap_kind_of(const uint8_t *insn, size_t n);

/* The kind of the instruction at file offset offset of path: TRAP_STEP
 * when it cannot be read. */
enum trap_kind trap_kind_at(const char *path, uint64_t offset);

/* The length of the instruction whose first n bytes are insn, if it is
 * one of those a function commonly begins with that are single-stepped
 * (endbr64; a register-to-register move or ALU operation, with an
 * immediate or not); 0 for any other, or cut short. Only a length known
 * for certain: a breakpoint past it must fall on the next instruction. */
size_t trap_insn_len(const uint8_t *insn, size_t n);

/* Where a latency pair's start at file offset offset of path, which is
 * single-stepped, can take its time again once the step is done: the
 * offset of the next instruction, *kind its kind, when it is known
 * (trap_insn_len()) and not single-stepped itself; 0 if none. */
uint64_t trap_restamp_at(const char *path, uint64_t offset,
			 enum trap_kind *kind);

#endif
