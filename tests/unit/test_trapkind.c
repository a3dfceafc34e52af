// SPDX-License-Identifier: MIT
/*
 * trapkind: the kind of breakpoint each instruction a probe site can
 * begin with gets (engine/attach/trapkind.h): the encodings the kernel
 * emulates (nops, push of a register, relative jumps and calls) and a
 * sample of those it single-steps (endbr64, mov, sub, an indirect jump),
 * cut short; the kind read from a file at an offset, or not readable;
 * the lengths of the single-stepped instructions functions begin with,
 * and only of those; where a pair's start takes its time again past
 * one; and what a latency pair's probes add, by its start's and end's
 * kinds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "trapkind.h"

#define KIND(...)                                      \
	trap_kind_of((const uint8_t[]){ __VA_ARGS__ }, \
		     sizeof((const uint8_t[]){ __VA_ARGS__ }))

static void test_emulated(void **state)
{
	(void)state;
	assert_int_equal(KIND(0x90), TRAP_NOP); /* a USDT site */
	assert_int_equal(KIND(0x66, 0x90), TRAP_NOP);
	assert_int_equal(KIND(0x0f, 0x1f, 0x00), TRAP_NOP);
	assert_int_equal(KIND(0x0f, 0x1f, 0x44, 0x00, 0x00), TRAP_NOP);
	assert_int_equal(KIND(0x0f, 0x1f, 0x80, 0, 0, 0, 0), TRAP_NOP);
	assert_int_equal(KIND(0x55), TRAP_PUSH); /* push %rbp */
	assert_int_equal(KIND(0x53), TRAP_PUSH); /* push %rbx */
	assert_int_equal(KIND(0x41, 0x57), TRAP_PUSH); /* push %r15 */
	assert_int_equal(KIND(0x41, 0x54), TRAP_PUSH); /* push %r12 */
	assert_int_equal(KIND(0xe9, 0, 0, 0, 0), TRAP_NOP); /* jmp rel32 */
	assert_int_equal(KIND(0xeb, 0x10), TRAP_NOP); /* jmp rel8 */
	assert_int_equal(KIND(0x74, 0x10), TRAP_NOP); /* je rel8 */
	assert_int_equal(KIND(0x0f, 0x85, 0, 0, 0, 0), TRAP_NOP); /* jne */
	assert_int_equal(KIND(0xe8, 0, 0, 0, 0), TRAP_PUSH); /* call */
}

static void test_stepped(void **state)
{
	(void)state;
	assert_int_equal(KIND(0xf3, 0x0f, 0x1e, 0xfa), TRAP_STEP); /* endbr64 */
	assert_int_equal(KIND(0x89, 0xd2), TRAP_STEP); /* mov %edx,%edx */
	assert_int_equal(KIND(0x48, 0x83, 0xec, 0x08), TRAP_STEP); /* sub */
	assert_int_equal(KIND(0xff, 0xe0), TRAP_STEP); /* jmp *%rax */
	assert_int_equal(KIND(0x0f, 0x1f, 0x08), TRAP_STEP); /* 0f 1f /1 */
	assert_int_equal(KIND(0x41, 0x89, 0xf8), TRAP_STEP); /* mov */
	assert_int_equal(KIND(0x58), TRAP_STEP); /* pop: not emulated */
	/* cut short: the dearest */
	assert_int_equal(KIND(0x41), TRAP_STEP);
	assert_int_equal(KIND(0x66), TRAP_STEP);
	assert_int_equal(KIND(0x0f, 0x1f), TRAP_STEP);
}

/* A new file at path (a mkstemp() template) holding bytes[0..n). */
static void file_of(char *path, const uint8_t *bytes, size_t n)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, n), (ssize_t)n);
	close(fd);
}

static void test_at(void **state)
{
	char path[] = "/tmp/probetop-trapkind-XXXXXX";
	const uint8_t bytes[] = { 0x89, 0xd2, 0xc3, 0x90, 0x41, 0x55 };

	(void)state;
	file_of(path, bytes, sizeof(bytes));
	assert_int_equal(trap_kind_at(path, 0), TRAP_STEP);
	assert_int_equal(trap_kind_at(path, 3), TRAP_NOP);
	assert_int_equal(trap_kind_at(path, 4), TRAP_PUSH);
	assert_int_equal(trap_kind_at(path, 5), TRAP_PUSH);
	assert_int_equal(trap_kind_at(path, 6), TRAP_STEP); /* at the end */
	unlink(path);
	assert_int_equal(trap_kind_at(path, 0), TRAP_STEP); /* gone */
}

#define LEN(...)                                        \
	trap_insn_len((const uint8_t[]){ __VA_ARGS__ }, \
		      sizeof((const uint8_t[]){ __VA_ARGS__ }))

static void test_len(void **state)
{
	(void)state;
	assert_int_equal(LEN(0xf3, 0x0f, 0x1e, 0xfa, 0x55), 4); /* endbr64 */
	assert_int_equal(LEN(0x89, 0xd2, 0xc3), 2); /* mov %edx,%edx */
	assert_int_equal(LEN(0x48, 0x89, 0xe5), 3); /* mov %rsp,%rbp */
	assert_int_equal(LEN(0x41, 0x89, 0xf8), 3); /* mov %edi,%r8d */
	assert_int_equal(LEN(0x31, 0xc0), 2); /* xor %eax,%eax */
	assert_int_equal(LEN(0x48, 0x85, 0xff), 3); /* test %rdi,%rdi */
	assert_int_equal(LEN(0x48, 0x83, 0xec, 0x08), 4); /* sub $8,%rsp */
	assert_int_equal(LEN(0x48, 0x81, 0xec, 0, 1, 0, 0), 7); /* $256 */
	/* a memory operand, other opcodes, cut short: not known */
	assert_int_equal(LEN(0x48, 0x8b, 0x07), 0); /* mov (%rdi),%rax */
	assert_int_equal(LEN(0x8b, 0x44, 0x24, 0x08), 0); /* 8(%rsp) */
	assert_int_equal(LEN(0x48, 0x8d, 0x05, 0, 0, 0, 0), 0); /* lea */
	assert_int_equal(LEN(0x0f, 0xb6, 0xc0), 0); /* movzbl */
	assert_int_equal(LEN(0x48, 0x83, 0xec), 0);
	assert_int_equal(LEN(0x81, 0xc0, 0, 0), 0);
	assert_int_equal(LEN(0xf3, 0x0f, 0x1e), 0);
	assert_int_equal(LEN(0x48), 0);
}

/* A start single-stepped: past it, at an instruction emulated, its time
 * taken again; not past one whose length is not known, nor at one that
 * is single-stepped too. */
static void test_restamp(void **state)
{
	char path[] = "/tmp/probetop-trapkind-XXXXXX";
	const uint8_t bytes[] = {
		0x89, 0xd2, 0xe9, 0,	0, 0, 0, /* 0: mov; jmp */
		0x48, 0x89, 0xe5, 0x55, /* 7: mov %rsp,%rbp; push */
		0x48, 0x8b, 0x07, 0x90, /* 11: mov (%rdi),%rax; nop */
		0x89, 0xd2, 0x89, 0xd2, /* 15: mov; mov */
		0x89, /* 19: cut short */
	};
	enum trap_kind k = TRAP_KINDS;

	(void)state;
	file_of(path, bytes, sizeof(bytes));
	assert_int_equal(trap_restamp_at(path, 0, &k), 2);
	assert_int_equal(k, TRAP_NOP);
	assert_int_equal(trap_restamp_at(path, 7, &k), 10);
	assert_int_equal(k, TRAP_PUSH);
	assert_int_equal(trap_restamp_at(path, 11, &k), 0);
	assert_int_equal(trap_restamp_at(path, 15, &k), 0);
	assert_int_equal(trap_restamp_at(path, 17, &k), 0);
	assert_int_equal(trap_restamp_at(path, 19, &k), 0);
	unlink(path);
	assert_int_equal(trap_restamp_at(path, 0, &k), 0); /* gone */
}

/* A pair's adjustment: its cheapest start's time to a return probe (so
 * that no time reads shorter than its code took), an end at a nop adding
 * uprobe_end (here less), never below 0, none for a start not known. */
static void test_lat_adj(void **state)
{
	const struct trap_lat l = { .to_ret = { 700, 750, 3100 },
				    .uprobe_end = -250 };
	const unsigned int nop = 1u << TRAP_NOP, step = 1u << TRAP_STEP;
	const struct trap_lat tiny = { .to_ret = { 100, 100, 100 },
				       .uprobe_end = -250 };

	(void)state;
	assert_int_equal((int)trap_lat_adj(&l, step, step | TRAP_RET_BIT),
			 3100);
	assert_int_equal((int)trap_lat_adj(&l, nop, nop), 450);
	assert_int_equal((int)trap_lat_adj(&l, nop | step, nop), 450);
	assert_int_equal(
		(int)trap_lat_adj(&l, 1u << TRAP_PUSH, nop | TRAP_RET_BIT),
		750);
	assert_int_equal((int)trap_lat_adj(&l, 0, TRAP_RET_BIT), 0);
	assert_int_equal((int)trap_lat_adj(&tiny, nop, nop), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_emulated), cmocka_unit_test(test_stepped),
		cmocka_unit_test(test_at),	 cmocka_unit_test(test_len),
		cmocka_unit_test(test_restamp),	 cmocka_unit_test(test_lat_adj),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
