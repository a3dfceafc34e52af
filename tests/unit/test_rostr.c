// SPDX-License-Identifier: MIT
/* Unit tests of rostr: which mappings hold strings that cannot change,
 * and when a new table keeps what an old one said. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "proc.h"
#include "rostr.h"

/* An executable, a library, a read-only data file the program mapped
 * itself, a shared read-only mapping, and anonymous memory. */
static const char MAPS[] =
	"1000-2000 r--p 00000000 08:01 11 /usr/bin/app\n"
	"2000-3000 r-xp 00001000 08:01 11 /usr/bin/app\n"
	"3000-4000 r--p 00002000 08:01 11 /usr/bin/app\n"
	"4000-5000 r--p 00002000 08:01 11 /usr/bin/app\n"
	"5000-6000 rw-p 00003000 08:01 11 /usr/bin/app\n"
	"6000-7000 rw-p 00000000 00:00 0 [heap]\n"
	"10000-11000 r--p 00000000 08:01 22 /data/table.bin\n"
	"12000-13000 r--s 00000000 08:01 33 /lib/libshared.so\n"
	"13000-14000 r-xs 00001000 08:01 33 /lib/libshared.so\n"
	"20000-21000 r--p 00000000 08:01 44 /lib/libx.so\n"
	"21000-22000 r-xp 00001000 08:01 44 /lib/libx.so\n"
	"22000-23000 r--p 00002000 08:01 44 /lib/libx.so\n"
	"23000-24000 rw-p 00003000 08:01 44 /lib/libx.so\n";

static void set_of(const char *text, struct ro_set *set)
{
	struct proc_maps maps;

	assert_int_equal(proc_maps_parse(text, &maps), 0);
	ro_set_from_maps(&maps, set);
	proc_maps_free(&maps);
}

static void test_ranges(void **state)
{
	struct ro_set set;

	(void)state;
	set_of(MAPS, &set);
	/* each object's read-only run, merged; writable data, the heap,
	 * the data file (no code in it) and shared mappings left out */
	assert_int_equal(set.n, 2);
	assert_int_equal(set.r[0].lo, 0x1000);
	assert_int_equal(set.r[0].hi, 0x5000);
	assert_int_equal(set.r[0].inode, 11);
	assert_int_equal(set.r[0].offset, 0);
	assert_int_equal(set.r[1].lo, 0x20000);
	assert_int_equal(set.r[1].hi, 0x23000);
	assert_int_equal(set.r[1].inode, 44);
}

/* Where literals are made present: the not executable read-only private
 * mappings of files with code, nothing else. */
static void test_literals(void **state)
{
	struct proc_maps maps;
	const char *want = "1,0,1,1,0,0,0,0,1,0,1,0"; /* no [heap] */
	char got[64] = "";

	(void)state;
	assert_int_equal(proc_maps_parse(MAPS, &maps), 0);
	for (size_t i = 0; i < maps.n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%d",
			 i ? "," : "", ro_map_holds_literals(&maps, i));
	proc_maps_free(&maps);
	assert_string_equal(got, want);
}

static void test_gap_splits(void **state)
{
	struct ro_set set;

	(void)state;
	set_of("1000-2000 r--p 00000000 08:01 11 /usr/bin/app\n"
	       "2000-3000 r-xp 00001000 08:01 11 /usr/bin/app\n"
	       "3000-4000 rw-p 00002000 08:01 11 /usr/bin/app\n"
	       "4000-5000 r--p 00003000 08:01 11 /usr/bin/app\n"
	       "6000-7000 r--p 00004000 08:01 11 /usr/bin/app\n",
	       &set);
	assert_int_equal(set.n, 3);
	assert_int_equal(set.r[0].hi, 0x3000);
	assert_int_equal(set.r[1].lo, 0x4000);
	assert_int_equal(set.r[1].hi, 0x5000);
	assert_int_equal(set.r[2].lo, 0x6000);
}

static void test_capacity(void **state)
{
	char text[PT_RO_RANGES * 2 * 64], *p = text;
	struct ro_set set;

	(void)state;
	for (int i = 0; i < PT_RO_RANGES + 5; i++)
		p += sprintf(p, "%x-%x r-xp 00000000 08:01 %d /lib/l%d.so\n",
			     0x10000 * (i + 1), 0x10000 * (i + 1) + 0x1000,
			     100 + i, i);
	set_of(text, &set);
	assert_int_equal(set.n, PT_RO_RANGES);
	assert_int_equal(set.r[PT_RO_RANGES - 1].lo, 0x10000 * PT_RO_RANGES);
}

static void test_kept(void **state)
{
	struct ro_set a, b, c;

	(void)state;
	set_of(MAPS, &a);
	/* a library more: what a said still holds */
	set_of("1000-5000 r--p 00000000 08:01 11 /usr/bin/app\n"
	       "5000-6000 r-xp 00000000 08:01 11 /usr/bin/app\n"
	       "20000-23000 r-xp 00000000 08:01 44 /lib/libx.so\n"
	       "30000-31000 r-xp 00000000 08:01 55 /lib/liby.so\n",
	       &b);
	set_of(MAPS, &c);
	assert_true(ro_set_kept(&a, &c));
	c.r[1].inode = 45; /* another file at the same place */
	assert_false(ro_set_kept(&a, &c));
	c.r[1].inode = 44;
	c.r[1].offset = 0x1000; /* the same file, another part of it */
	assert_false(ro_set_kept(&a, &c));
	c.n = 1; /* the library went away */
	assert_false(ro_set_kept(&a, &c));
	assert_true(ro_set_kept(&c, &a));
	assert_false(ro_set_kept(&a, &b)); /* the app's range grew */
}

static void test_table(void **state)
{
	struct ro_set set;
	struct pt_ro t;

	(void)state;
	memset(&t, 0xff, sizeof(t));
	set_of(MAPS, &set);
	ro_set_table(&set, 7, 3, &t);
	assert_int_equal(t.epoch, 7);
	assert_int_equal(t.gen, 3);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.lo[1], 0x20000);
	assert_int_equal(t.hi[1], 0x23000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_literals),
		cmocka_unit_test(test_gap_splits),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
