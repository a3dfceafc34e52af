/* SPDX-License-Identifier: MIT */
/*
 * inert — how probetop shows a string that comes from a target (keys,
 * command lines, file, symbol, probe and provider names, object paths):
 * so that it cannot act on the terminal that shows it (retitle or clear
 * it, move the cursor, forge lines) and takes exactly one line.
 *
 * One representation, everywhere (text, JSON, the console, messages on
 * stderr), and reversible: printable ASCII and valid UTF-8 stay as they
 * are; a backslash becomes "\\"; newline, tab and carriage return become
 * "\n", "\t", "\r"; every other byte below 0x20, DEL, each byte of a C1
 * control (U+0080..U+009F) and each byte that is not part of valid
 * UTF-8 (stray continuation bytes, truncated, overlong or surrogate
 * sequences, beyond U+10FFFF) becomes "\xNN" (two lowercase hex digits).
 * The result is printable ASCII plus valid UTF-8 without controls.
 *
 * Pure: no allocation, no I/O; part of the model library so that the
 * views, the console and the text and JSON printers all call it.
 */
#ifndef PROBETOP_INERT_H
#define PROBETOP_INERT_H

#include <stddef.h>

/* The longest text one byte of input becomes ("\xNN"). */
#define INERT_MAX_PER_BYTE 4

/*
 * Append the inert form of the len bytes at s (NUL bytes included, as
 * "\x00") at out[o] and return the new end. What does not fit in
 * out[0..n) is cut before a whole escape or UTF-8 sequence, never
 * inside one; out stays NUL-terminated. Needs o < n.
 */
size_t inert_put_mem(char *out, size_t n, size_t o, const char *s, size_t len);

/* inert_put_mem() of the NUL-terminated s. */
size_t inert_put(char *out, size_t n, size_t o, const char *s);

/* The inert form of s in out[0..n) (n > 0), cut as inert_put() cuts;
 * returns out, for use as a printf argument. */
const char *inert_str(char *out, size_t n, const char *s);

#endif
