// SPDX-License-Identifier: MIT
/* Unit tests of the /proc readers: maps parsing, pids, comm. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc.h"

static const char MAPS[] =
	"55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1311 /usr/bin/app\n"
	"55d0c0a01000-55d0c0a02000 r-xp 00001000 08:01 1311 /usr/bin/app\n"
	"55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0    [heap]\n"
	"7f0000000000-7f0000001000 r-xp 00002000 fd:02 99                "
	"/opt/my lib/libx.so (deleted)\n"
	"7f0000002000-7f0000003000 rw-p 00000000 00:00 0 \n"
	"7ffd0000000-7ffd0001000 r-xp 00000000 00:00 0 [vdso]\n"
	"7f0000004000-7f0000005000 r--s 00000000 00:05 4242 /SYSV00000000 "
	"(deleted)";

static void test_parse(void **state)
{
	struct proc_maps maps;

	(void)state;
	assert_int_equal(proc_maps_parse(MAPS, &maps), 0);
	assert_int_equal(maps.n, 4);
	assert_int_equal(maps.maps[0].start, 0x55d0c0a00000);
	assert_int_equal(maps.maps[0].end, 0x55d0c0a01000);
	assert_string_equal(maps.maps[0].perms, "r--p");
	assert_int_equal(maps.maps[1].offset, 0x1000);
	assert_int_equal(maps.maps[1].dev_major, 8);
	assert_int_equal(maps.maps[1].dev_minor, 1);
	assert_int_equal(maps.maps[1].inode, 1311);
	assert_false(maps.maps[1].deleted);
	assert_string_equal(maps.maps[1].path, "/usr/bin/app");
	assert_string_equal(maps.maps[2].path, "/opt/my lib/libx.so");
	assert_true(maps.maps[2].deleted);
	assert_int_equal(maps.maps[2].dev_major, 0xfd);
	assert_int_equal(maps.maps[2].dev_minor, 2);
	assert_string_equal(maps.maps[3].path, "/SYSV00000000");
	assert_true(maps.maps[3].deleted);
	proc_maps_free(&maps);
	proc_maps_free(&maps); /* twice, and NULL, are no-ops */
	proc_maps_free(NULL);
}

static void test_parse_bad(void **state)
{
	struct proc_maps maps;

	(void)state;
	assert_int_equal(proc_maps_parse("", &maps), 0);
	assert_int_equal(maps.n, 0);
	assert_int_equal(proc_maps_parse("garbage line\n", &maps), -EINVAL);
	assert_null(maps.maps);
	assert_int_equal(
		proc_maps_parse("1000-2000 r-xp zz 08:01 1 /x\n", &maps),
		-EINVAL);
}

static void test_self(void **state)
{
	struct proc_maps maps;
	char comm[64], exe[4096];
	bool found = false;

	(void)state;
	assert_int_equal(proc_maps_read(getpid(), &maps), 0);
	assert_int_equal(proc_exe(getpid(), exe, sizeof(exe)), 0);
	for (size_t i = 0; i < maps.n; i++)
		if (!strcmp(maps.maps[i].path, exe) &&
		    maps.maps[i].perms[2] == 'x')
			found = true;
	assert_true(found);
	proc_maps_free(&maps);
	assert_int_equal(proc_comm(getpid(), comm, sizeof(comm)), 0);
	assert_string_equal(comm, "test_proc");
	assert_true(proc_alive(getpid()));
}

/* The kernel's NUL-separated arguments, joined in place: trailing NULs
 * go, inner ones become blanks, an empty list stays empty. */
static void test_join_args(void **state)
{
	char a[] = "prog\0-w2\0x\0\0", b[] = "\0\0";

	(void)state;
	assert_int_equal(proc_join_args(a, sizeof(a) - 1), 10);
	assert_memory_equal(a, "prog -w2 x", 10);
	assert_int_equal(proc_join_args(b, sizeof(b) - 1), 0);
}

static void test_pids(void **state)
{
	struct proc_maps maps;

	(void)state;
	assert_int_equal(proc_parse_pid("4242"), 4242);
	assert_int_equal(proc_parse_pid("0"), -EINVAL);
	assert_int_equal(proc_parse_pid("-1"), -EINVAL);
	assert_int_equal(proc_parse_pid("12ab"), -EINVAL);
	assert_int_equal(proc_parse_pid(""), -EINVAL);
	assert_int_equal(proc_parse_pid("99999999999"), -EINVAL);
	/* pid_max is at most 4194304 */
	assert_int_equal(proc_maps_read(2147483647, &maps), -ESRCH);
	assert_false(proc_alive(2147483647));
	assert_int_equal(proc_comm(2147483647, (char[16]){ 0 }, 16), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_pids),
		cmocka_unit_test(test_join_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
