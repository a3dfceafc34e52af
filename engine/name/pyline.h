/* SPDX-License-Identifier: MIT */
/*
 * pyline — which source line a CPython code object's bytecode offset is
 * on, from the code object's own line table, as the interpreter's
 * PyCode_Addr2Line() reads it:
 *
 *   3.8, 3.9   co_lnotab: (bytecode delta, line delta) byte pairs, the
 *              line delta signed;
 *   3.10       co_linetable: (bytecode delta, line delta) pairs over
 *              ranges, line delta -128 for "no line" (PEP 626);
 *   3.11+      co_linetable: the location table (PEP 657): entries of
 *              1..8 code units, each with a line delta in one of five
 *              forms.
 *
 * Pure: no I/O. Called by pyframe (the pyline key).
 */
#ifndef PROBETOP_PYLINE_H
#define PROBETOP_PYLINE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The line of bytecode offset off (bytes) in a code object of CPython
 * 3.minor whose first line is first and whose line table is tab[0..n).
 * The line, or -1 when the table gives none (or is cut short).
 */
int pyline_addr2line(int minor, const uint8_t *tab, size_t n, int first,
		     uint32_t off);

#endif
