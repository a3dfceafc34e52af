// SPDX-License-Identifier: MIT
/*
 * trapkind — a breakpoint's kind by the instruction it replaces; see
 * trapkind.h. The x86-64 encodings the kernel's uprobe code emulates
 * rather than single-steps, of those found at probe sites.
 */
#include "trapkind.h"

#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>

enum trap_kind trap_kind_of(const uint8_t *insn, size_t n)
{
	size_t i = 0;

	if (n >= 1 && insn[0] == 0x90)
		return TRAP_NOP;
	if (n >= 2 && insn[0] == 0x66 && insn[1] == 0x90)
		return TRAP_NOP;
	/* 0f 1f /0: the multi-byte nops, ModRM's reg field 0 */
	if (n >= 3 && insn[0] == 0x0f && insn[1] == 0x1f &&
	    ((insn[2] >> 3) & 7) == 0)
		return TRAP_NOP;
	/* a relative jump, conditional or not: its target computed */
	if (n >= 1 && (insn[0] == 0xeb || insn[0] == 0xe9 ||
		       (insn[0] >= 0x70 && insn[0] <= 0x7f)))
		return TRAP_NOP;
	if (n >= 2 && insn[0] == 0x0f && insn[1] >= 0x80 && insn[1] <= 0x8f)
		return TRAP_NOP;
	if (n >= 1 && insn[0] == 0xe8) /* call rel32: a push and a jump */
		return TRAP_PUSH;
	if (n >= 1 && insn[0] == 0x41) /* REX.B: %r8..%r15 */
		i = 1;
	if (n > i && insn[i] >= 0x50 && insn[i] <= 0x57)
		return TRAP_PUSH;
	return TRAP_STEP;
}

/* Whether op, a one-byte opcode with a ModRM byte, is one of the
 * two-operand ALU or move forms (add, or, adc, sbb, and, sub, xor, cmp,
 * test, xchg, mov; either direction). */
static bool alu_modrm(uint8_t op)
{
	static const uint8_t ops[] = { 0x01, 0x03, 0x09, 0x0b, 0x11, 0x13, 0x19,
				       0x1b, 0x21, 0x23, 0x29, 0x2b, 0x31, 0x33,
				       0x39, 0x3b, 0x85, 0x87, 0x89, 0x8b };

	for (size_t i = 0; i < sizeof(ops); i++)
		if (op == ops[i])
			return true;
	return false;
}

size_t trap_insn_len(const uint8_t *insn, size_t n)
{
	size_t i = 0;

	if (n >= 4 && insn[0] == 0xf3 && insn[1] == 0x0f && insn[2] == 0x1e &&
	    insn[3] == 0xfa)
		return 4; /* endbr64 */
	if (n >= 1 && (insn[0] & 0xf0) == 0x40) /* REX */
		i = 1;
	if (n < i + 2 || (insn[i + 1] & 0xc0) != 0xc0)
		return 0; /* cut short, or a memory operand */
	if (alu_modrm(insn[i]))
		return i + 2;
	if (insn[i] == 0x83 || insn[i] == 0xc1) /* imm8: sub $8,%rsp */
		return n >= i + 3 ? i + 3 : 0;
	if (insn[i] == 0x81) /* imm32 */
		return n >= i + 6 ? i + 6 : 0;
	return 0;
}

/* Up to n bytes of path at file offset offset into b: how many, <= 0
 * if none could be read. */
static ssize_t insn_at(const char *path, uint64_t offset, uint8_t *b, size_t n)
{
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	got = pread(fd, b, n, (off_t)offset);
	close(fd);
	return got;
}

enum trap_kind trap_kind_at(const char *path, uint64_t offset)
{
	uint8_t b[4];
	ssize_t got = insn_at(path, offset, b, sizeof(b));

	return got > 0 ? trap_kind_of(b, (size_t)got) : TRAP_STEP;
}

uint64_t trap_restamp_at(const char *path, uint64_t offset,
			 enum trap_kind *kind)
{
	uint8_t b[32];
	ssize_t got = insn_at(path, offset, b, sizeof(b));
	size_t len;

	if (got <= 0)
		return 0;
	len = trap_insn_len(b, (size_t)got);
	if (!len || len >= (size_t)got)
		return 0;
	*kind = trap_kind_of(b + len, (size_t)got - len);
	return *kind == TRAP_STEP ? 0 : offset + len;
}

double trap_lat_adj(const struct trap_lat *l, unsigned int start,
		    unsigned int end)
{
	double ns = -1;

	for (int k = 0; k < TRAP_KINDS; k++)
		if ((start & (1u << k)) && (ns < 0 || l->to_ret[k] < ns))
			ns = l->to_ret[k];
	if (ns <= 0)
		return 0;
	if (!(end & TRAP_RET_BIT))
		ns += l->uprobe_end;
	return ns > 0 ? ns : 0;
}
