// SPDX-License-Identifier: MIT
/* Unit tests of the BEAM's JIT symfile parser (engine/name/beamjit.h):
 * a module's symfile written here as OTP 25 lays it out (three ranges,
 * lines under two of them, the padding after each name) gives its
 * ranges at base + offset with their names; the emulator's symfile is
 * no module's; every way of cutting, stretching or lying about it
 * (short, a byte too many, a count too high, a name without its NUL or
 * with one inside, a range past the code, a start after its end) is
 * refused whole, no range passed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>

#include "beamjit.h"

#define BASE 0x7f0000100000ull

struct sym {
	uint8_t b[1024];
	size_t n;
};

static void put(struct sym *s, const void *p, size_t n)
{
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void put_u32(struct sym *s, uint32_t v)
{
	put(s, &v, 4);
}

/* A counted name and the pad bytes its struct's size leaves after it. */
static void put_name(struct sym *s, const char *name, size_t pad)
{
	uint16_t len = (uint16_t)(strlen(name) + 1);

	put(s, &len, 2);
	put(s, name, len);
	memset(s->b + s->n, 0xa5, pad);
	s->n += pad;
}

static void put_range(struct sym *s, uint32_t start, uint32_t end,
		      uint32_t lines, const char *name)
{
	put_u32(s, start);
	put_u32(s, end);
	put_u32(s, lines);
	put_name(s, name, 2);
}

static void put_line(struct sym *s, uint32_t at, uint32_t line)
{
	put_u32(s, at);
	put_u32(s, line);
	put_name(s, "work.erl", 2);
}

/* The symfile of module work: a header, f/1's prologue and f/1 (two
 * lines), g/0 (one line). */
static void module(struct sym *s)
{
	uint64_t base = BASE;

	s->n = 0;
	put_u32(s, 1);
	put_u32(s, 0xdeadbeef); /* unused */
	put(s, &base, 8);
	put_u32(s, 3);
	put_u32(s, 0x400);
	put_name(s, "work", 6);
	put_range(s, 0x100, 0x130, 0, "work:f/1-CodeInfoPrologue");
	put_range(s, 0x130, 0x200, 2, "work:f/1");
	put_line(s, 0x130, 3);
	put_line(s, 0x180, 4);
	put_range(s, 0x200, 0x3f0, 1, "work:g/0");
	put_line(s, 0x200, 7);
}

struct got {
	int n;
	uint64_t start[8];
	uint32_t size[8];
	char name[8][64];
};

static int collect(void *ctx, uint64_t start, uint32_t size, const char *name,
		   size_t nlen)
{
	struct got *g = ctx;

	g->start[g->n] = start;
	g->size[g->n] = size;
	snprintf(g->name[g->n], sizeof(g->name[0]), "%.*s", (int)nlen, name);
	g->n++;
	return 0;
}

static void test_module(void **state)
{
	struct sym s;
	struct got g = { 0 };

	(void)state;
	module(&s);
	assert_int_equal(beamjit_parse(s.b, s.n, collect, &g), 0);
	assert_int_equal(g.n, 3);
	assert_true(g.start[0] == BASE + 0x100 && g.size[0] == 0x30);
	assert_string_equal(g.name[0], "work:f/1-CodeInfoPrologue");
	assert_true(g.start[1] == BASE + 0x130 && g.size[1] == 0xd0);
	assert_string_equal(g.name[1], "work:f/1");
	assert_true(g.start[2] == BASE + 0x200 && g.size[2] == 0x1f0);
	assert_string_equal(g.name[2], "work:g/0");
}

static void test_emulator(void **state)
{
	uint8_t emu[32] = { 0 };
	struct got g = { 0 };

	(void)state;
	assert_int_equal(beamjit_parse(emu, sizeof(emu), collect, &g), -ENOENT);
	assert_int_equal(g.n, 0);
}

/* s parsed: refused whole. */
static void refused(const struct sym *s, const char *why)
{
	struct got g = { 0 };

	int err = beamjit_parse(s->b, s->n, collect, &g);

	if (err != -EINVAL || g.n)
		fail_msg("%s: %d, %d ranges passed", why, err, g.n);
}

static void test_bad(void **state)
{
	struct sym s;
	uint32_t v;

	(void)state;
	module(&s);
	s.n--;
	refused(&s, "a byte short");
	module(&s);
	s.n++;
	refused(&s, "a byte too many");
	module(&s);
	s.n = 20;
	refused(&s, "its header cut");
	module(&s);
	v = 4;
	memcpy(s.b + 16, &v, 4);
	refused(&s, "a range more than it holds");
	module(&s);
	v = 0x3ef;
	memcpy(s.b + 20, &v, 4);
	refused(&s, "code smaller than its last range");
	module(&s);
	s.b[26 + 4] = 'x';
	refused(&s, "the module's name without its NUL");
	module(&s);
	s.b[38 + 14 + 2] = '\0';
	refused(&s, "a NUL inside a range's name");
	module(&s);
	v = 0x140;
	memcpy(s.b + 38, &v, 4);
	refused(&s, "a range starting after its end");
	module(&s);
	v = 0xffffffffu;
	memcpy(s.b + 38 + 8, &v, 4);
	refused(&s, "a line count far past the end");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_module),
		cmocka_unit_test(test_emulator),
		cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
