// SPDX-License-Identifier: MIT
/*
 * perfmap: JIT symbols from this very process's perf map,
 * /tmp/perf-PID.map, written by the test as a JIT writes it: lines read
 * and looked up exactly (start, inside, one past the end, between),
 * names to the end of the line (blanks kept, cut at PERFMAP_NAME_MAX),
 * "0x" or not; what is not a line skipped (a line too long for a read
 * among them); a line appended while it is in use read (and a half
 * line only once it is whole); a line over an older one wins; a file
 * rewritten or removed forgets the old lines; a link or a FIFO at the
 * path never read; a map last written before the process started (an
 * earlier process's of the same pid) not read, the same map written
 * again read; 20,000 lines in random order all found.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "perfmap.h"

static char path[64];

/* The map made to hold text (mode "w") or text appended ("a"). */
static void put(const char *mode, const char *text)
{
	FILE *f = fopen(path, mode);

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* The name and offset of addr, "-" if none. */
static const char *find(struct perfmaps *pm, uint64_t addr, uint64_t *off)
{
	const char *name;

	*off = UINT64_MAX;
	return perfmaps_find(pm, getpid(), addr, &name, off) ? "-" : name;
}

/* addr named want (at offset woff), or not named if want is "-". */
static void expect(struct perfmaps *pm, uint64_t addr, const char *want,
		   uint64_t woff)
{
	uint64_t off;

	assert_string_equal(find(pm, addr, &off), want);
	if (strcmp(want, "-"))
		assert_int_equal(off, woff);
}

/* A wait past PERFMAP_RECHECK_MS: a hit looks at the file again. */
static void past_recheck(void)
{
	struct timespec ts = { 0, (PERFMAP_RECHECK_MS + 20) * 1000000L };

	nanosleep(&ts, NULL);
}

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void test_lines(void **state)
{
	struct perfmaps *pm = perfmaps_new();
	char line[PERFMAP_NAME_MAX + 100], *big = malloc(100 * 1024);

	(void)state;
	assert_non_null(pm);
	assert_non_null(big);
	expect(pm, 0x1000, "-", 0); /* no map at all */
	assert_int_equal(perfmaps_find(pm, getpid(), 0x1000,
				       &(const char *){ 0 }, &(uint64_t){ 0 }),
			 -ENODATA);
	memset(big, 'x', 100 * 1024 - 1);
	big[100 * 1024 - 1] = '\0';
	memcpy(big, "7000 10 ", 8); /* a line longer than a read */
	put("w", "1000 20 first\n"
		 "not a line\n"
		 "\n"
		 "0x2000 0x10 LazyCompile:~second /srv/app.js:12  \n"
		 "3000 0 no_size\n"
		 "zz00 10 bad_start\n"
		 "4000 1g bad_size\n"
		 "5000 10\n"
		 "-6000 10 negative\n");
	put("a", big);
	put("a", "\n8000 8 after_big\r\n");
	free(big);
	memset(line, 'n', sizeof(line) - 1);
	memcpy(line, "9000 4 ", 7);
	line[sizeof(line) - 2] = '\n';
	line[sizeof(line) - 1] = '\0';
	put("a", line);
	expect(pm, 0x1000, "first", 0);
	assert_int_equal(perfmaps_find(pm, getpid(), 0x1, &(const char *){ 0 },
				       &(uint64_t){ 0 }),
			 -ENOENT); /* a map, no line of it */
	expect(pm, 0x101f, "first", 0x1f);
	expect(pm, 0x1020, "-", 0);
	expect(pm, 0xfff, "-", 0);
	expect(pm, 0x2008, "LazyCompile:~second /srv/app.js:12", 8);
	expect(pm, 0x3000, "-", 0);
	expect(pm, 0x4000, "-", 0);
	expect(pm, 0x5000, "-", 0);
	expect(pm, 0x6000, "-", 0);
	expect(pm, 0x7000, "-", 0);
	expect(pm, 0x8007, "after_big", 7);
	{
		uint64_t off;
		const char *name = find(pm, 0x9001, &off);

		assert_int_equal(strlen(name), PERFMAP_NAME_MAX);
		assert_int_equal(strspn(name, "n"), PERFMAP_NAME_MAX);
	}
	perfmaps_free(pm);
}

static void test_appended(void **state)
{
	struct perfmaps *pm = perfmaps_new();

	(void)state;
	put("w", "10000 100 compiled_first\n");
	expect(pm, 0x10010, "compiled_first", 0x10);
	expect(pm, 0x20000, "-", 0);
	put("a", "20000 40 compiled_later\n30000 10 half");
	/* a miss looks at the file at once */
	expect(pm, 0x20000, "compiled_later", 0);
	expect(pm, 0x30000, "-", 0); /* its line not whole yet */
	put("a", "_written\n");
	expect(pm, 0x30000, "half_written", 0);
	expect(pm, 0x10010, "compiled_first", 0x10);
	/* code freed and its memory reused: the newer line wins, once the
	 * file is looked at again (at a hit, after PERFMAP_RECHECK_MS) */
	put("a", "10000 80 recompiled\n");
	past_recheck();
	expect(pm, 0x10010, "recompiled", 0x10);
	expect(pm, 0x10090, "compiled_first", 0x90); /* past the newer */
	put("a", "ffff 1 below\n"); /* sorted in front of the rest */
	past_recheck();
	expect(pm, 0xffff, "below", 0);
	expect(pm, 0x10000, "recompiled", 0);
	perfmaps_free(pm);
}

static void test_rewritten(void **state)
{
	struct perfmaps *pm = perfmaps_new();
	char tmp[80];

	(void)state;
	put("w", "1000 10 old_one\n2000 10 old_two\n");
	expect(pm, 0x1000, "old_one", 0);
	/* replaced by another file (a new inode), then rewritten in place
	 * to the same size: the old lines gone each time */
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	{
		FILE *f = fopen(tmp, "w");

		assert_non_null(f);
		fputs("1000 10 new_one\n", f);
		fclose(f);
	}
	assert_int_equal(rename(tmp, path), 0);
	past_recheck();
	expect(pm, 0x1000, "new_one", 0);
	expect(pm, 0x2000, "-", 0);
	put("w", "1000 10 new_two\n");
	past_recheck();
	expect(pm, 0x1000, "new_two", 0);
	unlink(path);
	past_recheck();
	expect(pm, 0x1000, "-", 0);
	perfmaps_free(pm);
}

static void test_not_files(void **state)
{
	struct perfmaps *pm = perfmaps_new();
	char target[80];

	(void)state;
	snprintf(target, sizeof(target), "%s.target", path);
	{
		FILE *f = fopen(target, "w");

		assert_non_null(f);
		fputs("1000 10 through_a_link\n", f);
		fclose(f);
	}
	assert_int_equal(symlink(target, path), 0);
	expect(pm, 0x1000, "-", 0);
	unlink(path);
	unlink(target);
	assert_int_equal(mkfifo(path, 0600), 0);
	expect(pm, 0x1000, "-", 0); /* and did not block */
	unlink(path);
	perfmaps_free(pm);
}

static void test_many(void **state)
{
	enum {
		N = 20000
	};
	struct perfmaps *pm = perfmaps_new();
	FILE *f = fopen(path, "w");
	static uint32_t order[N];

	(void)state;
	assert_non_null(f);
	for (uint32_t i = 0; i < N; i++)
		order[i] = i;
	srand(34);
	for (uint32_t i = N - 1; i > 0; i--) {
		uint32_t j = (uint32_t)rand() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (uint32_t i = 0; i < N; i++) /* 0x30 each, 0x10 apart */
		fprintf(f, "%x 30 fn_%u\n", 0x100000 + order[i] * 0x40,
			order[i]);
	fclose(f);
	for (uint32_t i = 0; i < N; i++) {
		char want[32];
		uint64_t off;

		snprintf(want, sizeof(want), "fn_%u", i);
		assert_string_equal(find(pm, 0x100000 + i * 0x40 + 0x2f, &off),
				    want);
		assert_int_equal(off, 0x2f);
		assert_string_equal(find(pm, 0x100000 + i * 0x40 + 0x30, &off),
				    "-");
	}
	perfmaps_free(pm);
}

/* A map written an hour before this process started is an earlier
 * process's: not read; once written again, it is this one's. */
static void test_stale(void **state)
{
	struct perfmaps *pm = perfmaps_new();
	struct timeval old[2] = { { time(NULL) - 3600, 0 },
				  { time(NULL) - 3600, 0 } };

	(void)state;
	assert_non_null(pm);
	put("w", "1000 20 earlier\n");
	assert_int_equal(utimes(path, old), 0);
	assert_int_equal(perfmaps_find(pm, getpid(), 0x1000,
				       &(const char *){ 0 }, &(uint64_t){ 0 }),
			 -ENODATA);
	put("w", "1000 20 mine\n");
	expect(pm, 0x1000, "mine", 0);
	perfmaps_free(pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_appended, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rewritten, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_not_files, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_many, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
