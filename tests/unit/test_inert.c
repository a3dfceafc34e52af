// SPDX-License-Identifier: MIT
/* Unit tests of inert: every kind of byte a target may put in a string,
 * and cutting to a buffer without splitting an escape or a character;
 * and agg_str_key(), a string key the kernel cut, before it is printed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agg.h"
#include "inert.h"

static const char *esc(const char *s)
{
	static char out[1024];

	return inert_str(out, sizeof(out), s);
}

/* The length of s's inert form. */
static size_t len_of(const char *s)
{
	return strlen(esc(s));
}

/* Whether s is its own inert form. */
static bool clean(const char *s)
{
	return !strcmp(esc(s), s);
}

static void test_plain(void **state)
{
	(void)state;
	assert_string_equal(esc(""), "");
	assert_string_equal(esc("leaf /srv/app.py 3"), "leaf /srv/app.py 3");
	assert_true(clean("leaf /srv/app.py 3"));
	assert_int_equal(len_of("abc"), 3);
	assert_string_equal(esc("a\\b"), "a\\\\b");
	assert_false(clean("a\\b"));
	assert_int_equal(len_of("a\\b"), 4);
}

static void test_controls(void **state)
{
	(void)state;
	assert_string_equal(esc("\x1b]0;x\a\x1b[2J\nok"),
			    "\\x1b]0;x\\x07\\x1b[2J\\nok");
	assert_string_equal(esc("a\tb\rc"), "a\\tb\\rc");
	assert_string_equal(esc("\x01\x1f"), "\\x01\\x1f");
	assert_string_equal(esc("del\x7f"), "del\\x7f");
	assert_false(clean("\x1b"));
	assert_int_equal(len_of("\x1b[2J\n"), 9);
}

static void test_nul(void **state)
{
	char out[32];

	(void)state;
	assert_int_equal(inert_put_mem(out, sizeof(out), 0, "a\0b", 3), 6);
	assert_string_equal(out, "a\\x00b");
}

static void test_c1(void **state)
{
	(void)state;
	/* U+009B (CSI) and U+0085 (NEL) as UTF-8, and the raw bytes */
	assert_string_equal(esc("\xc2\x9b"
				"2J"),
			    "\\xc2\\x9b2J");
	assert_string_equal(esc("\xc2\x85"), "\\xc2\\x85");
	assert_string_equal(esc("\x9b"
				"2J"),
			    "\\x9b2J");
	/* U+00A0 is the first past C1: kept */
	assert_string_equal(esc("\xc2\xa0"), "\xc2\xa0");
}

static void test_utf8_kept(void **state)
{
	(void)state;
	assert_string_equal(esc("µs"), "µs");
	assert_string_equal(esc("日本語.py"), "日本語.py");
	assert_string_equal(esc("\xf0\x9f\x90\x8d"), "\xf0\x9f\x90\x8d");
	assert_string_equal(esc("\xf4\x8f\xbf\xbf"), "\xf4\x8f\xbf\xbf");
	assert_true(clean("日本語 µs"));
	assert_int_equal(len_of("µs"), 3);
}

static void test_utf8_invalid(void **state)
{
	(void)state;
	assert_string_equal(esc("a\xff"
				"b"),
			    "a\\xffb");
	assert_string_equal(esc("\x80"), "\\x80"); /* stray continuation */
	/* truncated: the lead escaped, what follows read again */
	assert_string_equal(esc("\xe6\x97"), "\\xe6\\x97");
	assert_string_equal(esc("\xe6\x97z"), "\\xe6\\x97z");
	assert_string_equal(esc("\xe6"
				"a"),
			    "\\xe6a");
	/* overlong '/', a surrogate, beyond U+10FFFF, 0xc0/0xf5 leads */
	assert_string_equal(esc("\xc0\xaf"), "\\xc0\\xaf");
	assert_string_equal(esc("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");
	assert_string_equal(esc("\xed\xa0\x80"), "\\xed\\xa0\\x80");
	assert_string_equal(esc("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
	assert_string_equal(esc("\xf5"), "\\xf5");
	/* a valid character right after an invalid byte is kept */
	assert_string_equal(esc("\xffµ"), "\\xffµ");
	assert_false(clean("\xe6\x97"));
}

/* Every cut of a string with escapes and characters: the output is a
 * prefix of the whole, ends at a piece boundary and fits. */
static void test_cut(void **state)
{
	const char *s = "a\x1b[µ\\\n日\xff"
			"z";
	const char *whole = "a\\x1b[µ\\\\\\n日\\xffz";
	/* the lengths at which a cut may end */
	static const size_t ends[] = { 0, 1, 5, 6, 8, 10, 12, 15, 19, 20 };
	char out[64];

	(void)state;
	assert_string_equal(esc(s), whole);
	assert_int_equal(len_of(s), strlen(whole));
	for (size_t n = 1; n <= strlen(whole) + 1; n++) {
		size_t got = inert_put(out, n, 0, s), want = 0;

		for (size_t k = 0; k < sizeof(ends) / sizeof(ends[0]); k++)
			if (ends[k] < n)
				want = ends[k];
		assert_int_equal(got, want);
		assert_int_equal(strlen(out), got);
		assert_memory_equal(out, whole, got);
	}
}

static void test_append(void **state)
{
	char out[16] = "key=";
	size_t o;

	(void)state;
	o = inert_put(out, sizeof(out), 4, "\n\n");
	assert_int_equal(o, 8);
	assert_string_equal(out, "key=\\n\\n");
	/* "\x1b" needs 4 bytes and a NUL: 8 + 4 < 16 fits, the next not */
	o = inert_put(out, sizeof(out), o, "\x1b\x1b");
	assert_int_equal(o, 12);
	assert_string_equal(out, "key=\\n\\n\\x1b");
}

/* raw: what the kernel keeps of a string key: its first n bytes of s,
 * NUL, and PT_STR_CUT in the last byte if cut */
static void raw_key(char *raw, const char *s, size_t n, bool cut)
{
	memset(raw, 0, PT_STR_LEN);
	memcpy(raw, s, n);
	raw[PT_STR_LEN - 1] = cut ? PT_STR_CUT : 0;
}

static void test_str_key(void **state)
{
	char raw[PT_STR_LEN], out[sizeof(((struct agg_key_part *)0)->str)];
	char s[PT_STR_LEN + 8], want[PT_STR_LEN + 8];

	(void)state;
	memset(s, 'q', sizeof(s));
	/* a whole string of 63 bytes: no marker */
	raw_key(raw, s, PT_STR_LEN - 1, false);
	agg_str_key(out, sizeof(out), raw);
	assert_int_equal(strlen(out), PT_STR_LEN - 1);
	/* a longer one: its 63 bytes, then "...": 66, longer than any whole */
	raw_key(raw, s, PT_STR_LEN - 1, true);
	agg_str_key(out, sizeof(out), raw);
	snprintf(want, sizeof(want), "%.*s...", PT_STR_LEN - 1, s);
	assert_string_equal(out, want);
	/* a cut through "\xc3\xa9" (e acute): its lead byte is dropped */
	memcpy(s + PT_STR_LEN - 2, "\xc3\xa9", 2);
	raw_key(raw, s, PT_STR_LEN - 1, true);
	agg_str_key(out, sizeof(out), raw);
	snprintf(want, sizeof(want), "%.*s...", PT_STR_LEN - 2, s);
	assert_string_equal(out, want);
	/* a whole character at the end stays */
	memcpy(s + PT_STR_LEN - 3, "\xc3\xa9", 2);
	raw_key(raw, s, PT_STR_LEN - 1, true);
	agg_str_key(out, sizeof(out), raw);
	snprintf(want, sizeof(want), "%.*s...", PT_STR_LEN - 1, s);
	assert_string_equal(out, want);
	/* a short one is as it is, whatever the last byte says */
	raw_key(raw, "SELECT 1", 8, true);
	agg_str_key(out, sizeof(out), raw);
	assert_string_equal(out, "SELECT 1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_c1),
		cmocka_unit_test(test_utf8_kept),
		cmocka_unit_test(test_utf8_invalid),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_str_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
