/* SPDX-License-Identifier: MIT */
/*
 * rbline — which source line a Ruby (CRuby 3.x) instruction is on, from
 * its iseq's own line table, as the interpreter's rb_iseq_line_no()
 * reads it: insns_info.body holds one entry a run of instructions (its
 * line_no an int at a layout's offset), and since Ruby 2.6 a succinct
 * bit-vector (insns_info.succ_index_table; the positions array is freed
 * in a release build) gives, for an instruction's position, how many
 * entries start at or before it:
 *
 *   positions below PT_RBSUCC_IMM: that count directly, 7 bits each, 9
 *     to a little-endian u64 (the immediate part);
 *   then blocks of 512 positions (PT_RBSUCC_BLOCK bytes): the count
 *     before the block (a u32, then 4 bytes of padding), the counts
 *     before each of its 64-position parts 1..7 (9 bits each, in a
 *     u64), and 8 u64s of one bit a position, set where an entry
 *     starts.
 *
 * The entry of position pos is entry count - 1 (a table of one entry
 * has no index). A frame's pc points past the instruction it runs (or
 * calls from), so the position looked up is one before it, as Ruby
 * does. Pure: no I/O. Called by rbframe (the rbline key).
 */
#ifndef PROBETOP_RBLINE_H
#define PROBETOP_RBLINE_H

#include <stddef.h>
#include <stdint.h>

/* An iseq's line table as the kernel sent it (struct pt_rbnew). */
struct rbline_table {
	uint64_t encoded; /* iseq_encoded */
	uint32_t iseq_size; /* VALUEs */
	uint32_t ninfo; /* entries in the iseq */
	uint32_t entry; /* bytes an entry */
	uint32_t line_at; /* line_no's offset in an entry */
	const uint8_t *info; /* the entries kept: info_bytes */
	size_t info_bytes;
	const uint8_t *succ; /* the succinct index kept: succ_bytes */
	size_t succ_bytes;
};

/* The line of the frame whose pc has bits pcbits (bits 3-22 of the pc,
 * PT_RBLINE()'s low bits) in the iseq of t; -1 when the table gives
 * none (not kept, the pc outside the iseq). */
int rbline_at(const struct rbline_table *t, uint32_t pcbits);

#endif
