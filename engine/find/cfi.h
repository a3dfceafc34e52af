/* SPDX-License-Identifier: MIT */
/*
 * cfi — read the raw bytes of an ELF `.eh_frame` or `.debug_frame`
 * section (DWARF call frame information) into x86-64 unwind rows.
 *
 * Each FDE (with its CIE) describes one address range; its CFA program
 * (DW_CFA_*) says, instruction by instruction, where the canonical frame
 * address is and where the caller's registers were saved. Of all that a
 * stack walker needs three things (struct pt_urow's rule, probetop.h):
 * the CFA (rsp or rbp plus an offset; the PLT's well-known expression;
 * *(rbp + off) of a function that realigns its stack), where the return
 * address is (CFA - 8 on x86-64; undefined marks the outermost frame) and
 * where the caller's rbp is. Anything else (another register as the CFA,
 * any other expression) becomes a PT_UR_STOP row: the walker stops there
 * rather than guess.
 *
 * This module only reads the bytes it is given (no libelf, no I/O),
 * checks every read against the buffer, and never trusts a length, so it
 * can be unit-tested on corrupted sections and fuzzed directly.
 */
#ifndef PROBETOP_CFI_H
#define PROBETOP_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A rule from link-time address addr on; seq orders rows at one address
 * (a later FDE's start beats an earlier one's end). */
struct cfi_row {
	uint64_t addr;
	uint32_t rule; /* PT_UR_MAKE() */
	uint32_t seq;
};

struct cfi_rows {
	struct cfi_row *v;
	size_t n, cap;
};

/*
 * Append the rows of every FDE of a section: data[0..size), loaded at
 * link-time address addr (what pc-relative pointers are relative to); eh:
 * `.eh_frame` (else `.debug_frame`, whose addresses are absolute). Per
 * FDE: a row where it begins, one wherever its rule changes, and a
 * PT_UR_FP row where it ends. Returns 0, -EBADMSG (a record that runs
 * past the section or cannot be read: *bad_at is its offset, and the
 * rows of the records before it are kept), or -ENOMEM.
 */
int cfi_read(const uint8_t *data, size_t size, uint64_t addr, bool eh,
	     struct cfi_rows *rows, size_t *bad_at);

#endif
