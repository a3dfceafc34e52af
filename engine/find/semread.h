/* SPDX-License-Identifier: MIT */
/*
 * semread — whether an ELF file's code tests a USDT semaphore.
 *
 * A probe with a semaphore costs its trap while attached; code that
 * tests the semaphore (`if (PROBE_ENABLED())`, as Ruby does before it
 * looks up a caller's file and line) may also do work of its own only
 * while it is raised, work the cost meter cannot price. A semaphore no
 * instruction addresses costs nothing when raised: PostgreSQL 15's
 * query__start and query__done have one that no code reads, while
 * 176 instructions test its lock, buffer and sort probes'.
 *
 * Every instruction that addresses memory by a 32-bit displacement
 * from the instruction pointer (ModRM mod 00, r/m 101) or by a 32-bit
 * absolute address (SIB, no base, no index) is looked at: the bytes of
 * the executable segments are scanned at every offset, each possible
 * immediate size after the displacement tried, so that no such
 * instruction is missed; bytes that only look like one (data in the
 * text, the middle of another instruction) can only say "tested" where
 * it is not, the cautious side. The immediate's size comes from the
 * opcode where it is a known one (one byte, 0f and one, 0f 38 and 0f 3a
 * and one) (semaphores lie 2 bytes apart: a size
 * guessed wrong would name the next). LEA does not count: it takes an
 * address without reading it, and the C runtime's register_tm_clones
 * takes __TMC_END__'s, which is the first semaphore's where .probes
 * follows .data; sdt.h's PROBE_ENABLED() reads the semaphore itself.
 */
#ifndef PROBETOP_SEMREAD_H
#define PROBETOP_SEMREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * For each of the n link-time semaphore addresses sems[0..n) (each 2
 * bytes), whether an instruction in the executable segments of the ELF
 * file behind fd (read, not taken; name for messages) addresses it, into
 * tested[0..n). 0, or -ENOEXEC (not a 64-bit x86-64 ELF file), -EIO or
 * -ENOMEM: then every tested[i] is true.
 */
int semread_tested(int fd, const char *name, const uint64_t *sems, size_t n,
		   bool *tested);

/*
 * The same over code[0..len), its first byte at link-time address vaddr:
 * sets tested[i] (never clears it) for each semaphore it addresses. Pure;
 * for the scan above and its tests.
 */
void semread_scan(const unsigned char *code, size_t len, uint64_t vaddr,
		  const uint64_t *sems, size_t n, bool *tested);

#endif
