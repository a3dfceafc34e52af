// SPDX-License-Identifier: MIT
/*
 * trapkind — a breakpoint's kind by the instruction it replaces; see
 * trapkind.h. The x86-64 encodings the kernel's uprobe code emulates
 * rather than single-steps, of those found at probe sites.
 */
#include "trapkind.h"

#include <fcntl.h>
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
	if (n >= 1 && insn[0] == 0x41) /* REX.B: %r8..%r15 */
		i = 1;
	if (n > i && insn[i] >= 0x50 && insn[i] <= 0x57)
		return TRAP_PUSH;
	return TRAP_STEP;
}

enum trap_kind trap_kind_at(const char *path, uint64_t offset)
{
	uint8_t b[4];
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return TRAP_STEP;
	got = pread(fd, b, sizeof(b), (off_t)offset);
	close(fd);
	return got > 0 ? trap_kind_of(b, (size_t)got) : TRAP_STEP;
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
