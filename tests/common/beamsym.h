/* SPDX-License-Identifier: MIT */
/*
 * beamsym — BEAM JIT symfiles written as OTP 25 lays them out (see
 * engine/name/beamjit.h), for the tests: the parser's unit test and the
 * beam.fake fixture, whose GDB JIT list holds them. A builder appends
 * to a fixed buffer; the pad bytes each struct's size leaves after a
 * name are 0xa5, as a malloc'ed symfile's are whatever was there.
 */
#ifndef PROBETOP_TEST_BEAMSYM_H
#define PROBETOP_TEST_BEAMSYM_H

#include <stddef.h>
#include <stdint.h>

struct beamsym {
	uint8_t b[1024];
	size_t n;
};

/* s started anew: a module's header (base, nranges, code size, name). */
void beamsym_module(struct beamsym *s, uint64_t base, uint32_t nranges,
		    uint32_t code, const char *name);

/* A range [start, end) (offsets from base) with nlines lines to follow. */
void beamsym_range(struct beamsym *s, uint32_t start, uint32_t end,
		   uint32_t nlines, const char *name);

/* A line of the range before: its offset, its line, its file. */
void beamsym_line(struct beamsym *s, uint32_t at, uint32_t line,
		  const char *file);

#endif
