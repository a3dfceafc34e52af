// SPDX-License-Identifier: MIT
/* Unit tests of the BEAM's JIT symfile parser (engine/name/beamjit.h):
 * a module's symfile written here as OTP 25 lays it out (three ranges,
 * lines under two of them, the padding after each name) gives its
 * ranges at base + offset with their names; the emulator's symfile is
 * no module's; every way of cutting, stretching or lying about it
 * (short, a byte too many, a count too high, a name without its NUL or
 * with one inside, a range past the code, a start after its end) is
 * refused whole, no range passed. And the whole reader on a process
 * whose list is hostile (tests/fixtures/beamfake.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <errno.h>

#include "beamjit.h"
#include "beamsym.h"
#include "catalog.h"
#include "child.h"

#define BASE 0x7f0000100000ull

/* The symfile of module work: a header, f/1's prologue and f/1 (two
 * lines), g/0 (one line). */
static void module(struct beamsym *s)
{
	beamsym_module(s, BASE, 3, 0x400, "work");
	beamsym_range(s, 0x100, 0x130, 0, "work:f/1-CodeInfoPrologue");
	beamsym_range(s, 0x130, 0x200, 2, "work:f/1");
	beamsym_line(s, 0x130, 3, "work.erl");
	beamsym_line(s, 0x180, 4, "work.erl");
	beamsym_range(s, 0x200, 0x3f0, 1, "work:g/0");
	beamsym_line(s, 0x200, 7, "work.erl");
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
	struct beamsym s;
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
static void refused(const struct beamsym *s, const char *why)
{
	struct got g = { 0 };

	int err = beamjit_parse(s->b, s->n, collect, &g);

	if (err != -EINVAL || g.n)
		fail_msg("%s: %d, %d ranges passed", why, err, g.n);
}

static void test_bad(void **state)
{
	struct beamsym s;
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

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* addr in bj's pid named name at off (err 0), or err. */
static void named(struct beamjits *bj, pid_t pid, uint64_t addr, int err,
		  const char *name, uint64_t off)
{
	const char *got = NULL;
	uint64_t at = 0;

	assert_int_equal(beamjits_find(bj, pid, addr, &got, &at), err);
	if (err)
		return;
	assert_string_equal(got, name);
	assert_int_equal(at, off);
}

/* beam.fake's hostile list: good's ranges named, bad's (a symfile that
 * does not add up) not, the unreadable and the 1 TiB entries skipped,
 * the list's loop walked once round, all in well under a second; a
 * module linked later named at its first miss; the test's own process
 * is no BEAM. */
static void test_hostile_list(void **state)
{
	struct objcache *cache = objcache_new();
	struct beamjits *bj = beamjits_new(cache);
	char reply[64];
	struct child c;
	double t0;

	(void)state;
	assert_non_null(bj);
	assert_int_equal(child_start(fixture_path("beam.fake"), &c), 0);
	t0 = now_s();
	named(bj, c.pid, 0x10000030, 0, "good:f/1", 0x10);
	assert_true(now_s() - t0 < 0.5);
	named(bj, c.pid, 0x10000005, 0, "good:f/1-CodeInfoPrologue", 5);
	named(bj, c.pid, 0x20000010, -ENOENT, NULL, 0);
	named(bj, c.pid, 0x30000010, -ENOENT, NULL, 0);
	assert_true(beamjit_present(cache, c.pid));
	assert_int_equal(child_send(&c, "load", reply, sizeof(reply)), 0);
	assert_string_equal(reply, "loaded\n");
	named(bj, c.pid, 0x30000010, 0, "late:h/2", 0x10);
	named(bj, c.pid, 0x10000030, 0, "good:f/1", 0x10);
	assert_true(now_s() - t0 < 1.0);
	named(bj, getpid(), 0x10000030, -ENODATA, NULL, 0);
	assert_false(beamjit_present(cache, getpid()));
	assert_int_equal(child_stop(&c), 0);
	beamjits_free(bj);
	objcache_free(cache);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_module),
		cmocka_unit_test(test_emulator),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_hostile_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
