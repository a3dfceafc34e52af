/* SPDX-License-Identifier: MIT */
/*
 * ehframe — an ELF file's unwind table: its `.eh_frame` (or, where that
 * is all there is, its `.debug_frame`) read by cfi.c and turned into
 * rows keyed by file offset, sorted, one row per change of rule
 * (struct pt_urow, probetop.h: what the kernel's walker searches).
 *
 * File offsets, not addresses: a frame's VMA gives its file offset
 * (vm_pgoff) without the load bias, so one table serves every process
 * that maps the file wherever it maps it. A row's address becomes an
 * offset through the executable PT_LOAD segment that holds it; rows
 * outside every such segment are left out.
 *
 * Where two FDEs meet, the one that begins there wins over the end of
 * the other; a gap between FDEs is a PT_UR_FP row (the walker falls back
 * to the frame pointer there). A broken section is an error naming the
 * file and the offset, never a guess.
 */
#ifndef PROBETOP_EHFRAME_H
#define PROBETOP_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "probetop.h"

struct eh_table {
	struct pt_urow *rows; /* by offset, increasing */
	size_t n;
};

/*
 * Compile the table of the ELF file behind fd (read, not taken); name is
 * for messages. 0, or: -ENOEXEC (not a 64-bit x86-64 ELF file), -ENOENT
 * (no unwind section, or no row in an executable segment), -EBADMSG (a
 * broken section or an offset past 4 GB: logged), -ENOMEM. On error out
 * is empty.
 */
int ehframe_compile_fd(int fd, const char *name, struct eh_table *out);

/* The same on an ELF image in memory (the vDSO, as it is mapped): its
 * bytes are copied first. */
int ehframe_compile_mem(const void *image, size_t size, const char *name,
			struct eh_table *out);

/* Free t's rows; t is empty after. */
void ehframe_free(struct eh_table *t);

/* The rule at file offset off: the last row at or below it, or PT_UR_FP
 * before the first. */
uint32_t ehframe_rule_at(const struct eh_table *t, uint64_t off);

#endif
