/* SPDX-License-Identifier: MIT */
/*
 * fnstart — where the functions of a file begin, from its
 * `.eh_frame_hdr`: the sorted table of every FDE's first address that
 * the linker writes for unwinders' binary search. A stripped file keeps
 * it (unwinding needs it), so a frame in a function no symbol names can
 * still be named by its function's start, and every sample in that
 * function is one frame, not one per address.
 *
 * Only the bytes given are read, every read checked against them.
 */
#ifndef PROBETOP_FNSTART_H
#define PROBETOP_FNSTART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The FDEs' first addresses (link-time) of the `.eh_frame_hdr` section
 * data[0..size), loaded at link-time address vaddr, into a malloc'd
 * sorted array *starts of *n. 0, -ENOENT (no search table), -ENOTSUP
 * (an encoding linkers do not write for it), -EBADMSG (the table runs
 * past the section or is not sorted), -ENOMEM.
 */
int fnstart_read(const uint8_t *data, size_t size, uint64_t vaddr,
		 uint64_t **starts, size_t *n);

/* The greatest of starts[0..n) at or below addr, into *start; false if
 * none is. */
bool fnstart_find(const uint64_t *starts, size_t n, uint64_t addr,
		  uint64_t *start);

#endif
