// SPDX-License-Identifier: MIT
/* Unit tests of shebang: "#!" lines read as the kernel's binfmt_script
 * reads them (blanks, one optional argument, a line cut at 256 bytes),
 * and interpreters followed to the ELF file, with the kernel's limit. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "shebang.h"

static int parse(const char *text, struct shebang_line *l)
{
	return shebang_parse(text, strlen(text), l);
}

static void test_parse(void **state)
{
	struct shebang_line l;

	(void)state;
	assert_int_equal(parse("#!/bin/sh\necho\n", &l), 0);
	assert_string_equal(l.interp, "/bin/sh");
	assert_string_equal(l.arg, "");
	assert_int_equal(parse("#! \t/usr/bin/env  python3 -u  \n", &l), 0);
	assert_string_equal(l.interp, "/usr/bin/env");
	assert_string_equal(l.arg, "python3 -u"); /* one argument */
	assert_int_equal(parse("#!rel/py", &l), 0); /* no newline: EOF */
	assert_string_equal(l.interp, "rel/py");
	assert_int_equal(parse("#!\n", &l), -ENOEXEC);
	assert_int_equal(parse("#!   \n", &l), -ENOEXEC);
	assert_int_equal(parse("echo hi\n", &l), -ENOEXEC);
	assert_int_equal(parse("#", &l), -ENOEXEC);
}

/* A line longer than the kernel's buffer: the argument may be cut, the
 * interpreter's path may not. */
static void test_long_line(void **state)
{
	char buf[400];
	struct shebang_line l;

	(void)state;
	memset(buf, 'a', sizeof(buf));
	memcpy(buf, "#!/bin/sh ", 10);
	assert_int_equal(shebang_parse(buf, sizeof(buf), &l), 0);
	assert_string_equal(l.interp, "/bin/sh");
	assert_int_equal(strlen(l.arg), SHEBANG_BUF - 1 - 10);
	memcpy(buf, "#!/bin/shx", 10);
	assert_int_equal(shebang_parse(buf, sizeof(buf), &l), -ENOEXEC);
}

static char dir[] = "/tmp/shebang-XXXXXX";

static void script(const char *name, const char *text, mode_t mode)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* s0 is run by /bin/true; sN by s(N-1). */
static void chain(int n)
{
	char text[300];

	script("s0", "#!/bin/true\n", 0755);
	for (int i = 1; i <= n; i++) {
		char name[8];

		snprintf(name, sizeof(name), "s%d", i);
		snprintf(text, sizeof(text), "#!%s/s%d\n", dir, i - 1);
		script(name, text, 0755);
	}
}

static int resolve(const char *name, char *out, char *why)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return shebang_resolve(path, out, 4096, why, 512);
}

static void test_resolve(void **state)
{
	char out[4096], why[512], text[64], line[128];

	(void)state;
	assert_non_null(mkdtemp(dir));
	chain(SHEBANG_DEPTH);
	assert_int_equal(resolve("s0", out, why), 0);
	assert_string_equal(out, "/bin/true");
	/* SHEBANG_DEPTH scripts work; one more is ELOOP, as the kernel */
	snprintf(text, sizeof(text), "s%d", SHEBANG_DEPTH - 1);
	assert_int_equal(resolve(text, out, why), 0);
	assert_string_equal(out, "/bin/true");
	snprintf(text, sizeof(text), "s%d", SHEBANG_DEPTH);
	assert_int_equal(resolve(text, out, why), -ELOOP);
	assert_non_null(strstr(why, "too many levels"));
	script("miss", "#!/nonexistent/x\n", 0755);
	assert_int_equal(resolve("miss", out, why), -ENOENT);
	assert_non_null(strstr(why, "bad interpreter /nonexistent/x"));
	script("plain", "echo hi\n", 0644);
	snprintf(line, sizeof(line), "#!%s/plain\n", dir);
	script("noexec", line, 0755);
	assert_int_equal(resolve("noexec", out, why), -EACCES);
	script("plain", "echo hi\n", 0755);
	assert_int_equal(resolve("noexec", out, why), -ENOEXEC);
	assert_int_equal(resolve("plain", out, why), 0); /* as execvp */
	assert_string_equal(out, "/bin/sh");
	snprintf(line, sizeof(line), "rm -rf %s", dir);
	assert_int_equal(system(line), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_resolve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
