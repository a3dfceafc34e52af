// SPDX-License-Identifier: MIT
/*
 * semread — whether an ELF file's code tests a USDT semaphore; see
 * semread.h.
 */
#include "semread.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#define SEM_SIZE 2 /* a semaphore is an unsigned short */
#define CHUNK (1u << 20) /* bytes of a segment read at a time */
#define TAIL 16 /* read again at the next chunk: an instruction's rest */
/* a LEA of a tests the semaphores in [a, a + this): code may test
 * them at small offsets from the address it took (libruby-3.1 takes
 * one semaphore's and tests the next's at 2 bytes on) */
#define SEMREAD_LEA_REACH 64

/* Mark the semaphore that holds address a, if any. */
static void mark(uint64_t a, const uint64_t *sems, size_t n, bool *tested)
{
	for (size_t i = 0; i < n; i++)
		if (a >= sems[i] && a < sems[i] + SEM_SIZE)
			tested[i] = true;
}

/* The little-endian int32 at p. */
static int32_t disp_at(const unsigned char *p)
{
	int32_t d;

	memcpy(&d, p, sizeof(d));
	return d;
}

/* Whether one-byte opcode op takes a ModRM and no immediate. */
static bool plain_op(unsigned char op)
{
	return (op < 0x40 && (op & 7) < 4) || /* add .. cmp r/m forms */
	       (op >= 0x84 && op <= 0x8b) || /* test, xchg, mov */
	       op == 0x63 || op == 0x8d || op == 0x8f || /* movsxd, lea */
	       (op >= 0xd0 && op <= 0xd3) || op == 0xfe || op == 0xff;
}

/* Whether 0f-escaped opcode op takes a ModRM and no immediate. */
static bool plain_op0f(unsigned char op)
{
	return op == 0xb6 || op == 0xb7 || op == 0xbe || op == 0xbf ||
	       (op >= 0x10 && op <= 0x17) || (op >= 0x28 && op <= 0x2f) ||
	       (op >= 0x40 && op <= 0x4f) || (op >= 0x90 && op <= 0x9f) ||
	       op == 0x1f || op == 0xaf || op == 0xb0 || op == 0xb1 ||
	       op == 0xc0 || op == 0xc1;
}

/*
 * The size of the immediate after the memory operand of an instruction
 * whose ModRM byte is code[p] (p >= 2), from its opcode before it: 0, 1,
 * 2 or 4; -1 where the opcode is not one of these (every size is then
 * tried: the cautious side). Semaphores lie 2 bytes apart, so a size
 * guessed wrong would name the next one.
 */
static int imm_size(const unsigned char *code, size_t p)
{
	unsigned char op = code[p - 1], reg = (code[p] >> 3) & 7;
	bool word = code[p - 2] == 0x66 || (p >= 3 && code[p - 3] == 0x66 &&
					    (code[p - 2] & 0xf0) == 0x40);
	/* 66, or 66 and a REX prefix */

	if (p >= 3 && code[p - 3] == 0x0f &&
	    (code[p - 2] == 0x38 || code[p - 2] == 0x3a))
		return code[p - 2] == 0x3a; /* 0f 3a xx: an imm8 */
	if (code[p - 2] == 0x0f)
		return plain_op0f(op) ? 0 : -1;
	if (plain_op(op))
		return 0;
	if (op == 0x80 || op == 0x83 || op == 0xc6 || op == 0xc0 ||
	    op == 0xc1 || op == 0x6b || (op == 0xf6 && reg < 2))
		return 1;
	if (op == 0xf6)
		return 0;
	if (op == 0x81 || op == 0xc7 || op == 0x69 || (op == 0xf7 && reg < 2))
		return word ? 2 : 4;
	if (op == 0xf7)
		return 0;
	return -1;
}

/* The address a LEA whose ModRM is code[q] takes, RIP-relative, or 0
 * where code[q - 1..q] is not such a LEA (q >= 1). */
static uint64_t lea_at(const unsigned char *code, size_t q, uint64_t vaddr)
{
	if (code[q - 1] != 0x8d || (code[q] & 0xc7) != 0x05)
		return 0;
	return vaddr + q + 5 + (uint64_t)(int64_t)disp_at(code + q + 1);
}

/* Whether the LEA of a whose ModRM is code[p] has a twin, the same
 * address taken by the instruction before or after it, REX-prefixed
 * both: the C runtime's deregister_tm_clones and register_tm_clones
 * compare __TMC_END__ with itself that way. p >= 1, code[0..len). */
static bool twin_lea(const unsigned char *code, size_t len, size_t p,
		     uint64_t a, uint64_t vaddr)
{
	return (p >= 8 && lea_at(code, p - 7, vaddr) == a) ||
	       (p + 12 <= len && lea_at(code, p + 7, vaddr) == a);
}

/* Mark the semaphore the RIP-relative operand at code[p] (its ModRM)
 * addresses, code[0] at vaddr, if any in [lo, hi). */
static void rip_operand(const unsigned char *code, size_t len, size_t p,
			uint64_t vaddr, const uint64_t *sems, size_t n,
			bool *tested, uint64_t lo, uint64_t hi)
{
	static const unsigned int every[] = { 0, 1, 2, 4 };
	int64_t d = disp_at(code + p + 1);
	int size = p >= 2 ? imm_size(code, p) : -1;

	if (p >= 1 && code[p - 1] == 0x8d) { /* lea: an address taken */
		uint64_t a = vaddr + p + 5 + (uint64_t)d;

		if (a + SEMREAD_LEA_REACH > lo && a < hi &&
		    !twin_lea(code, len, p, a, vaddr))
			for (size_t i = 0; i < n; i++)
				tested[i] |= sems[i] + SEM_SIZE > a &&
					     sems[i] < a + SEMREAD_LEA_REACH;
		return;
	}

	for (size_t k = 0; k < sizeof(every) / sizeof(*every); k++) {
		/* the next instruction's address plus d */
		uint64_t a = vaddr + p + 5 + every[k] + (uint64_t)d;

		if ((size < 0 || (unsigned int)size == every[k]) && a >= lo &&
		    a < hi)
			mark(a, sems, n, tested);
	}
}

void semread_scan(const unsigned char *code, size_t len, uint64_t vaddr,
		  const uint64_t *sems, size_t n, bool *tested)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (size_t i = 0; i < n; i++) {
		lo = sems[i] < lo ? sems[i] : lo;
		hi = sems[i] + SEM_SIZE > hi ? sems[i] + SEM_SIZE : hi;
	}
	for (size_t p = 0; n && p + 5 <= len; p++) {
		unsigned char m = code[p];

		if ((m & 0xc7) == 0x05) { /* disp32(%rip) */
			rip_operand(code, len, p, vaddr, sems, n, tested, lo,
				    hi);
		} else if ((m & 0xc7) == 0x04 && p + 6 <= len &&
			   code[p + 1] == 0x25) { /* disp32, absolute */
			uint64_t a = (uint64_t)(int64_t)disp_at(code + p + 2);

			if (a >= lo && a < hi)
				mark(a, sems, n, tested);
		}
	}
}

/* Scan the segment of phdr ph of the file behind fd. 0 or -errno. */
static int scan_segment(int fd, const GElf_Phdr *ph, const uint64_t *sems,
			size_t n, bool *tested, unsigned char *buf)
{
	for (uint64_t at = 0; at < ph->p_filesz; at += CHUNK) {
		size_t want = ph->p_filesz - at < CHUNK + TAIL
				      ? (size_t)(ph->p_filesz - at)
				      : CHUNK + TAIL;
		ssize_t got = pread(fd, buf, want, (off_t)(ph->p_offset + at));

		if (got != (ssize_t)want)
			return -EIO;
		semread_scan(buf, want, ph->p_vaddr + at, sems, n, tested);
	}
	return 0;
}

/* Scan every executable PT_LOAD segment of e (behind fd). 0 or -errno. */
static int scan_file(Elf *e, int fd, const uint64_t *sems, size_t n,
		     bool *tested)
{
	unsigned char *buf = malloc(CHUNK + TAIL);
	size_t phnum;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	if (elf_getphdrnum(e, &phnum))
		err = -ENOEXEC;
	for (size_t i = 0; !err && i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X))
			err = scan_segment(fd, &ph, sems, n, tested, buf);
	}
	free(buf);
	return err;
}

int semread_tested(int fd, const char *name, const uint64_t *sems, size_t n,
		   bool *tested)
{
	GElf_Ehdr eh;
	Elf *e;
	int err;

	memset(tested, 0, n * sizeof(*tested));
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	err = e && gelf_getehdr(e, &eh) && gelf_getclass(e) == ELFCLASS64 &&
			      eh.e_machine == EM_X86_64
		      ? scan_file(e, fd, sems, n, tested)
		      : -ENOEXEC;
	if (e)
		elf_end(e);
	if (err) {
		log_msg(LOG_DEBUG, "%s: its semaphores taken as tested: %s",
			name, strerror(-err));
		for (size_t i = 0; i < n; i++)
			tested[i] = true;
	}
	return err;
}
