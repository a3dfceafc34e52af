// SPDX-License-Identifier: MIT
/*
 * debugpkg: the package that installed a file, from a dpkg database
 * made by the test (lists naming two files of one base name, one of
 * them reached through a link, a list whose line only ends in the base
 * name, a file that is not a list), and from this machine's own: the
 * libc this test runs on is libc6's; the debug package of each.
 */
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "debugpkg.h"

static char dir[64];

/* dir/name made to hold text. */
static void put(const char *name, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The owner of dir/name by the test's database, "-" if none. */
static const char *owner(const char *name)
{
	static char pkg[64];
	char p[PATH_MAX], info[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	snprintf(info, sizeof(info), "%s/info", dir);
	assert_int_equal(stat(p, &st), 0);
	if (debugpkg_owner(info, p, st.st_dev, st.st_ino, pkg, sizeof(pkg)))
		return "-";
	return pkg;
}

static void test_owner(void **state)
{
	char text[1024], cmd[128];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/debugpkg-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "%s/info", dir);
	assert_int_equal(mkdir(cmd, 0755), 0);
	snprintf(cmd, sizeof(cmd), "%s/lib", dir);
	assert_int_equal(mkdir(cmd, 0755), 0);
	snprintf(cmd, sizeof(cmd), "%s/other", dir);
	assert_int_equal(mkdir(cmd, 0755), 0);
	snprintf(cmd, sizeof(cmd), "%s/link", dir);
	assert_int_equal(symlink("lib", cmd), 0);
	put("lib/libfake.so.1", "one");
	put("other/libfake.so.1", "two");
	put("lib/unlisted.so", "three");
	put("lib/xunlisted.so", "four");
	snprintf(text, sizeof(text), "/.\n%s\n%s/lib\n%s/lib/libfake.so.1\n",
		 dir, dir, dir);
	put("info/fakepkg:amd64.list", text);
	snprintf(text, sizeof(text), "%s/other/libfake.so.1\n", dir);
	put("info/otherpkg.list", text);
	snprintf(text, sizeof(text), "%s/lib/xunlisted.so\n", dir);
	put("info/suffix.list", text);
	snprintf(text, sizeof(text), "%s/lib/unlisted.so\n", dir);
	put("info/unlisted.md5sums", text);

	assert_string_equal(owner("lib/libfake.so.1"), "fakepkg");
	assert_string_equal(owner("link/libfake.so.1"), "fakepkg");
	assert_string_equal(owner("other/libfake.so.1"), "otherpkg");
	assert_string_equal(owner("lib/unlisted.so"), "-");
	assert_string_equal(owner("lib/xunlisted.so"), "suffix");

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_debug_name(void **state)
{
	char out[64];

	(void)state;
	debugpkg_debug("libc6", out, sizeof(out));
	assert_string_equal(out, "libc6-dbg");
	debugpkg_debug("zlib1g", out, sizeof(out));
	assert_string_equal(out, "zlib1g-dbgsym");
	debugpkg_debug("python3.11-minimal", out, sizeof(out));
	assert_string_equal(out, "python3.11-dbg");
	debugpkg_debug("libpython3.11-stdlib", out, sizeof(out));
	assert_string_equal(out, "python3.11-dbg");
	debugpkg_debug("python3-numpy", out, sizeof(out));
	assert_string_equal(out, "python3-numpy-dbgsym");
}

/* This machine's dpkg: the libc that holds printf() is libc6's. */
static void test_this_libc(void **state)
{
	Dl_info info;
	struct stat st;
	char pkg[64];

	(void)state;
	if (access(DEBUGPKG_INFO, R_OK))
		skip(); /* not a Debian */
	/* a function of libc's own that ASan does not intercept */
	assert_true(dladdr((void *)gnu_get_libc_version, &info) &&
		    info.dli_fname);
	assert_int_equal(stat(info.dli_fname, &st), 0);
	assert_int_equal(debugpkg_owner(NULL, info.dli_fname, st.st_dev,
					st.st_ino, pkg, sizeof(pkg)),
			 0);
	assert_string_equal(pkg, "libc6");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_debug_name),
		cmocka_unit_test(test_this_libc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
