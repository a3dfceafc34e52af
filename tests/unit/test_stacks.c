// SPDX-License-Identifier: MIT
/* Unit tests of the pure parts of stack keys: ksyms (kernel addresses by
 * /proc/kallsyms) and stacktext (stack names kept by pid and id). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ksyms.h"
#include "stacktext.h"

static const char KALLSYMS[] = "ffffffff81000000 T _stext\n"
			       "ffffffff81001000 t do_thing\n"
			       "ffffffff81002000 D some_data\n"
			       "ffffffff81003000 W weak_fn\n"
			       "ffffffffc0001000 t ext4_read [ext4]\n"
			       "0000000000000000 T hidden_by_kptr_restrict\n"
			       "garbage line\n";

static void test_ksyms(void **state)
{
	char path[] = "/tmp/probetop-ksyms-XXXXXX", out[64];
	int fd = mkstemp(path);
	struct ksyms *ks;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, KALLSYMS, sizeof(KALLSYMS) - 1),
			 (ssize_t)(sizeof(KALLSYMS) - 1));
	close(fd);
	ks = ksyms_load(path);
	unlink(path);
	assert_non_null(ks);
	ksyms_name(ks, 0xffffffff81001234ULL, out, sizeof(out));
	assert_string_equal(out, "do_thing");
	ksyms_name(ks, 0xffffffff81002010ULL, out, sizeof(out));
	assert_string_equal(out, "do_thing"); /* data is not a function */
	ksyms_name(ks, 0xffffffff81003000ULL, out, sizeof(out));
	assert_string_equal(out, "weak_fn");
	ksyms_name(ks, 0xffffffffc0001010ULL, out, sizeof(out));
	assert_string_equal(out, "ext4_read [ext4]");
	ksyms_name(ks, 0x1000, out, sizeof(out));
	assert_string_equal(out, "0x1000"); /* below every symbol */
	ksyms_free(ks);
	ksyms_name(NULL, 0xffffffff81001234ULL, out, sizeof(out));
	assert_string_equal(out, "0xffffffff81001234"); /* no symbols */
	assert_null(ksyms_load("/nonexistent/kallsyms"));
}

static void test_stacktext(void **state)
{
	struct stacktext *st = stacktext_new();
	const char *a, *b;

	(void)state;
	assert_non_null(st);
	assert_null(stacktext_find(st, 1, 42));
	a = stacktext_keep(st, 1, 42, "main;run;leaf");
	assert_string_equal(a, "main;run;leaf");
	/* the same id in another process, and an id that shares its index
	 * slot: each kept on its own */
	b = stacktext_keep(st, 2, 42, "main;other");
	assert_non_null(stacktext_keep(st, 1, 42 + 16384, "main;third"));
	assert_ptr_equal(stacktext_find(st, 1, 42), a);
	assert_ptr_equal(stacktext_find(st, 2, 42), b);
	assert_string_equal(stacktext_find(st, 1, 42 + 16384), "main;third");
	assert_null(stacktext_find(st, 3, 42));
	for (uint64_t i = 0; i < 1000; i++) { /* past its first growth */
		char text[32];

		snprintf(text, sizeof(text), "s%llu", (unsigned long long)i);
		assert_non_null(stacktext_keep(st, 7, i, text));
	}
	assert_string_equal(stacktext_find(st, 7, 999), "s999");
	assert_string_equal(stacktext_find(st, 1, 42), "main;run;leaf");
	stacktext_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ksyms),
		cmocka_unit_test(test_stacktext),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
