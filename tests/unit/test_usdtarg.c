// SPDX-License-Identifier: MIT
/* Unit tests of the x86-64 USDT argument decoder. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "usdtarg.h"

#define R(x) X86_REG_##x

struct good {
	const char *spec;
	enum usdt_arg_kind kind;
	int size;
	bool is_signed;
	enum x86_reg reg;
	int shift;
	enum x86_reg index;
	int scale;
	int64_t disp;
	const char *sym;
	const char *desc;
};

static const struct good GOOD[] = {
	{ "8@%rbp", USDT_ARG_REG, 8, false, R(RBP), 0, R(NONE), 0, 0, "",
	  "u64 %rbp" },
	{ "-4@%eax", USDT_ARG_REG, 4, true, R(RAX), 0, R(NONE), 0, 0, "",
	  "s32 %rax" },
	{ "2@%si", USDT_ARG_REG, 2, false, R(RSI), 0, R(NONE), 0, 0, "",
	  "u16 %rsi" },
	{ "-1@%dil", USDT_ARG_REG, 1, true, R(RDI), 0, R(NONE), 0, 0, "",
	  "s8 %rdi" },
	{ "1@%ah", USDT_ARG_REG, 1, false, R(RAX), 8, R(NONE), 0, 0, "",
	  "u8 %rax>>8" },
	{ "-4@%r12d", USDT_ARG_REG, 4, true, R(R12), 0, R(NONE), 0, 0, "",
	  "s32 %r12" },
	{ "2@%r9w", USDT_ARG_REG, 2, false, R(R9), 0, R(NONE), 0, 0, "",
	  "u16 %r9" },
	{ "1@%r15b", USDT_ARG_REG, 1, false, R(R15), 0, R(NONE), 0, 0, "",
	  "u8 %r15" },
	/* a register narrower than the declared size: the register wins */
	{ "8@%eax", USDT_ARG_REG, 4, false, R(RAX), 0, R(NONE), 0, 0, "",
	  "u32 %rax" },
	{ "-4@$42", USDT_ARG_CONST, 4, true, R(NONE), 0, R(NONE), 0, 42, "",
	  "s32 $42" },
	{ "-1@$-5", USDT_ARG_CONST, 1, true, R(NONE), 0, R(NONE), 0, -5, "",
	  "s8 $-5" },
	{ "8@$0x10", USDT_ARG_CONST, 8, false, R(NONE), 0, R(NONE), 0, 16, "",
	  "u64 $16" },
	{ "8@-8(%rbp)", USDT_ARG_MEM, 8, false, R(RBP), 0, R(NONE), 0, -8, "",
	  "u64 *(%rbp - 0x8)" },
	{ "-4@4(%rdi)", USDT_ARG_MEM, 4, true, R(RDI), 0, R(NONE), 0, 4, "",
	  "s32 *(%rdi + 0x4)" },
	{ "8@(%rsp)", USDT_ARG_MEM, 8, false, R(RSP), 0, R(NONE), 0, 0, "",
	  "u64 *(%rsp)" },
	{ "8@0x18(%rsp)", USDT_ARG_MEM, 8, false, R(RSP), 0, R(NONE), 0, 24, "",
	  "u64 *(%rsp + 0x18)" },
	{ "-8@(%rax,%rdi,8)", USDT_ARG_MEM, 8, true, R(RAX), 0, R(RDI), 8, 0,
	  "", "s64 *(%rax + %rdi*8)" },
	{ "8@(%rsi,%rcx,8)", USDT_ARG_MEM, 8, false, R(RSI), 0, R(RCX), 8, 0,
	  "", "u64 *(%rsi + %rcx*8)" },
	{ "4@16(%rbx,%r13,4)", USDT_ARG_MEM, 4, false, R(RBX), 0, R(R13), 4, 16,
	  "", "u32 *(%rbx + %r13*4 + 0x10)" },
	{ "2@-2(%rbx,%rdx)", USDT_ARG_MEM, 2, false, R(RBX), 0, R(RDX), 1, -2,
	  "", "u16 *(%rbx + %rdx*1 - 0x2)" },
	{ "8@8(,%rax,8)", USDT_ARG_MEM, 8, false, R(NONE), 0, R(RAX), 8, 8, "",
	  "u64 *(%rax*8 + 0x8)" },
	{ "-8@fixture_global(%rip)", USDT_ARG_SYM, 8, true, R(NONE), 0, R(NONE),
	  0, 0, "fixture_global", "s64 *(fixture_global+0)" },
	{ "4@counter+8(%rip)", USDT_ARG_SYM, 4, false, R(NONE), 0, R(NONE), 0,
	  8, "counter", "u32 *(counter+8)" },
	{ "-4@x.0(%rip)", USDT_ARG_SYM, 4, true, R(NONE), 0, R(NONE), 0, 0,
	  "x.0", "s32 *(x.0+0)" },
	{ "4@8+counter(%rip)", USDT_ARG_SYM, 4, false, R(NONE), 0, R(NONE), 0,
	  8, "counter", "u32 *(counter+8)" },
	{ "8@table", USDT_ARG_SYM, 8, false, R(NONE), 0, R(NONE), 0, 0, "table",
	  "u64 *(table+0)" },
	/* displacement arithmetic wraps instead of overflowing (fuzzer) */
	{ "8@0x7fffffffffffffff+sym+1(%rip)", USDT_ARG_SYM, 8, false, R(NONE),
	  0, R(NONE), 0, INT64_MIN, "sym", "u64 *(sym-9223372036854775808)" },
	/* the old format without a size: 8 bytes, unsigned */
	{ "%rdx", USDT_ARG_REG, 8, false, R(RDX), 0, R(NONE), 0, 0, "",
	  "u64 %rdx" },
};

static void test_good(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(GOOD) / sizeof(GOOD[0]); i++) {
		const struct good *g = &GOOD[i];
		struct usdt_arg arg;
		char desc[128];

		print_message("# %s\n", g->spec);
		assert_int_equal(usdtarg_decode(g->spec, strlen(g->spec), &arg),
				 0);
		assert_int_equal(arg.kind, g->kind);
		assert_int_equal(arg.size, g->size);
		assert_int_equal(arg.is_signed, g->is_signed);
		assert_int_equal(arg.reg, g->reg);
		assert_int_equal(arg.reg_shift, g->shift);
		assert_int_equal(arg.index, g->index);
		if (g->index != X86_REG_NONE)
			assert_int_equal(arg.scale, g->scale);
		assert_int_equal(arg.disp, g->disp);
		assert_string_equal(arg.sym, g->sym);
		assert_string_equal(usdtarg_describe(&arg, desc, sizeof(desc)),
				    g->desc);
	}
}

static const char *const BAD[] = {
	"",
	"@",
	"8@",
	"3@%rax",
	"16@%rax",
	"8@%zax",
	"8@%r16",
	"8@%r8q",
	"8@%rip",
	"8@16(%rip)",
	"8@(%rax",
	"8@(%rax,%rcx,3)",
	"8@(%rax,%rsp,2)",
	"8@()",
	"8@$",
	"8@$0x",
	"8@%fs:0x28",
	"8@%rax junk",
	"x@%rax",
	"8@(,)",
	"8@sym(%rax)",
	"8@%eax)",
	"-@%rax",
	"8@--4(%rax)",
	"-9223372036854775808@%rax", /* a size that cannot be negated */
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(BAD) / sizeof(BAD[0]); i++) {
		struct usdt_arg arg;

		print_message("# '%s'\n", BAD[i]);
		assert_int_equal(usdtarg_decode(BAD[i], strlen(BAD[i]), &arg),
				 -EINVAL);
		assert_int_equal(arg.kind, USDT_ARG_RAW);
		assert_string_equal(arg.raw, BAD[i]);
	}
}

/* len bounds the read: the rest of the buffer must not be looked at */
static void test_bounded(void **state)
{
	const char spec[] = "-4@%eaxZZZ";
	struct usdt_arg arg;

	(void)state;
	assert_int_equal(usdtarg_decode(spec, 7, &arg), 0);
	assert_int_equal(arg.reg, X86_REG_RAX);
	assert_int_equal(usdtarg_decode(spec, 6, &arg), -EINVAL);
	assert_string_equal(arg.raw, "-4@%ea");
}

static void test_all(void **state)
{
	struct usdt_arg args[USDT_MAX_ARGS];

	(void)state;
	assert_int_equal(usdtarg_decode_all("", args, USDT_MAX_ARGS), 0);
	assert_int_equal(usdtarg_decode_all("  8@%rbp   8@%r12 -4@%eax ", args,
					    USDT_MAX_ARGS),
			 3);
	assert_int_equal(args[1].reg, X86_REG_R12);
	assert_int_equal(args[2].size, 4);
	/* one undecodable argument does not spoil the others */
	assert_int_equal(
		usdtarg_decode_all("8@%rbp 8@%fs:0 -4@$1", args, USDT_MAX_ARGS),
		3);
	assert_int_equal(args[0].kind, USDT_ARG_REG);
	assert_int_equal(args[1].kind, USDT_ARG_RAW);
	assert_int_equal(args[2].kind, USDT_ARG_CONST);
	assert_int_equal(usdtarg_decode_all("1@$1 1@$2 1@$3", args, 2), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
