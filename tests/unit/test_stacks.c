// SPDX-License-Identifier: MIT
/* Unit tests of the pure parts of stack keys: ksyms (kernel addresses by
 * /proc/kallsyms), stacktext (stack names kept by pid and id),
 * mixstack's merge of native and Python frames and the jitframe key's
 * frame of a stack. */
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
#include "mixstack.h"
#include "stackname.h"
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

/* mixstack_merge() of native (root first, ';' between frames) and py
 * ("name" or "name*": * marks the first frame of an eval call) into
 * out; returns out. */
static const char *merge(const char *native, const char *py, bool py_cut,
			 bool split, char *out, size_t n)
{
	static char nbuf[1024], pbuf[1024];
	const char *frames[64];
	struct mixstack_py pf[64];
	size_t nn = 0, np = 0;

	snprintf(nbuf, sizeof(nbuf), "%s", native);
	snprintf(pbuf, sizeof(pbuf), "%s", py);
	for (char *t = strtok(nbuf, ";"); t; t = strtok(NULL, ";"))
		frames[nn++] = t;
	for (char *t = strtok(pbuf, ";"); t; t = strtok(NULL, ";")) {
		size_t len = strlen(t);

		pf[np].first = len && t[len - 1] == '*';
		if (pf[np].first)
			t[len - 1] = '\0';
		pf[np++].name = t;
	}
	mixstack_merge(frames, nn, pf, np, py_cut, split, out, n);
	return out;
}

#define EVAL "_PyEval_EvalFrameDefault"

static void test_mixstack_merge(void **state)
{
	char out[1024];

	(void)state;
	assert_true(mixstack_is_eval(EVAL));
	assert_true(mixstack_is_eval(EVAL ".cold"));
	assert_false(mixstack_is_eval(EVAL "X"));
	assert_false(mixstack_is_eval("_PyEval_Vector"));
	/* 3.8-3.10: one frame an eval call */
	assert_string_equal(
		merge("main;Py_RunMain;" EVAL ";call;" EVAL ";zlib_crc32;crc32",
		      "<module>*;outer*", false, true, out, sizeof(out)),
		"main;Py_RunMain;<module>;call;outer;zlib_crc32;crc32");
	/* 3.11+: calls inlined in one eval call; a C call back into Python
	 * (sorted's key function) starts another */
	assert_string_equal(
		merge("main;" EVAL ";builtin_sorted;list_sort;" EVAL
		      ";zlib_crc32;crc32",
		      "<module>*;run;outer;middle;keyf*", false, true, out,
		      sizeof(out)),
		"main;<module>;run;outer;middle;builtin_sorted;list_sort;keyf;"
		"zlib_crc32;crc32");
	/* paired from the innermost: a native stack cut at its root leaves
	 * outer Python calls with no eval frame, said in their place */
	assert_string_equal(
		merge("...;call;" EVAL ";zlib_crc32;crc32",
		      "<module>*;outer*;inner*", false, true, out, sizeof(out)),
		"...;call;" MIXSTACK_NO_EVAL ";<module>;outer;inner;"
		"zlib_crc32;crc32");
	/* no eval frame at all: Python frames at the root, said */
	assert_string_equal(merge("...;crc32", "<module>*;outer", false, true,
				  out, sizeof(out)),
			    "...;" MIXSTACK_NO_EVAL ";<module>;outer;crc32");
	/* an eval frame with no Python frames: not read, or cut */
	assert_string_equal(merge("main;" EVAL ";call;" EVAL ";crc32", "inner*",
				  false, true, out, sizeof(out)),
			    "main;" MIXSTACK_NOT_READ ";call;inner;crc32");
	assert_string_equal(merge("main;" EVAL ";call;" EVAL ";crc32", "inner*",
				  true, true, out, sizeof(out)),
			    "main;" MIXSTACK_CUT ";call;" MIXSTACK_CUT
			    ";inner;crc32");
	/* a Python stack cut inside one eval call (3.11+'s inline
	 * recursion): its outer frames are said to be missing */
	assert_string_equal(merge("main;" EVAL ";zlib_crc32;crc32",
				  "rec;rec;rec", true, true, out, sizeof(out)),
			    "main;" MIXSTACK_CUT
			    ";rec;rec;rec;zlib_crc32;crc32");
	/* and a split not known */
	assert_string_equal(merge("main;" EVAL ";crc32", "rec;rec", true, false,
				  out, sizeof(out)),
			    "main;" MIXSTACK_UNSPLIT ";" MIXSTACK_CUT
			    ";rec;rec;crc32");
	assert_string_equal(
		merge("main;" EVAL ";crc32", "", false, true, out, sizeof(out)),
		"main;" MIXSTACK_NOT_READ ";crc32");
	/* a split not known: every Python frame at the outermost eval
	 * frame, the other eval frames left out */
	assert_string_equal(
		merge("main;" EVAL ";call;" EVAL ".cold;crc32",
		      "<module>;outer;inner", false, false, out, sizeof(out)),
		"main;" MIXSTACK_UNSPLIT ";<module>;outer;inner;call;crc32");
	/* no Python: the native stack as it is */
	assert_string_equal(
		merge("main;work;crc32", "", false, true, out, sizeof(out)),
		"main;work;crc32");
	/* too long: -1, cut */
	assert_int_equal(mixstack_merge((const char *const[]){ "main", "x" }, 2,
					NULL, 0, false, true, out, 6),
			 -1);
	assert_string_equal(out, "main");
}

static void test_jit_frame(void **state)
{
	char out[16];

	(void)state;
	/* the innermost frame a perf map named */
	stackname_jit_frame("main;run;$m:f/1;$m:g/2;memcpy",
			    "beam;beam;[jit];[jit];libc.so.6", out,
			    sizeof(out));
	assert_string_equal(out, "$m:g/2");
	/* none: the innermost frame */
	stackname_jit_frame("main;run;memcpy", "a;a;libc.so.6", out,
			    sizeof(out));
	assert_string_equal(out, "memcpy");
	stackname_jit_frame("main;leaf", NULL, out, sizeof(out));
	assert_string_equal(out, "leaf");
	stackname_jit_frame("only", "[jit]", out, sizeof(out));
	assert_string_equal(out, "only");
	/* too long: cut at a character, "..." after it */
	stackname_jit_frame("main;ab\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9xyz",
			    ";[jit]", out, 12);
	assert_string_equal(out, "ab\xc3\xa9\xc3\xa9\xc3\xa9...");
	stackname_jit_frame("main;ab\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9xyz",
			    ";[jit]", out, 11);
	assert_string_equal(out, "ab\xc3\xa9\xc3\xa9...");
	/* a function's code of any tier, its prologue: the function */
	stackname_jit_frame("main;JS:*hot a.js:1", ";[jit]", out, sizeof(out));
	assert_string_equal(out, "JS:hot a.js:1");
	stackname_jit_frame("main;JS:~hot a.js:1", ";[jit]", out, sizeof(out));
	assert_string_equal(out, "JS:hot a.js:1");
	stackname_jit_frame("m;$m:f/1-CodeInfoPrologue", ";[jit]", out,
			    sizeof(out));
	assert_string_equal(out, "$m:f/1");
	/* an interpreted Java frame's line: its method, as compiled */
	stackname_jit_frame("m;int Ho.f(long) (H.java:12)", ";[jit]", out,
			    sizeof(out));
	assert_string_equal(out, "int Ho.f(long)");
	stackname_jit_frame("m;int A.f() (A.java:x)", ";[jit]", out,
			    sizeof(out));
	assert_string_equal(out, "int A.f() (A..."); /* no line: cut */
	stackname_jit_frame("m;JS:*f-CodeInfoPrologue", "a;libc.so.6", out,
			    sizeof(out)); /* not JIT code: as it is */
	assert_string_equal(out, "JS:*f-CodeIn...");
	stackname_jit_frame(NULL, NULL, out, sizeof(out));
	assert_string_equal(out, "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ksyms),
		cmocka_unit_test(test_stacktext),
		cmocka_unit_test(test_mixstack_merge),
		cmocka_unit_test(test_jit_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
