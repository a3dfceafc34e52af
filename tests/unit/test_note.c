// SPDX-License-Identifier: MIT
/* Unit tests of the .note.stapsdt section parser on built buffers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "note.h"

struct buf {
	unsigned char data[4096];
	size_t len;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->data + b->len, p, n);
	b->len += n;
	while (b->len % 4)
		b->data[b->len++] = 0;
}

/* Append one note; desc is given whole (addresses and strings). */
static void add_note(struct buf *b, const char *owner, uint32_t type,
		     const void *desc, uint32_t descsz)
{
	uint32_t hdr[3] = { (uint32_t)strlen(owner) + 1, descsz, type };

	put(b, hdr, sizeof(hdr));
	put(b, owner, hdr[0]);
	put(b, desc, descsz);
}

/* A stapsdt descriptor with 8-byte addresses and the three strings. */
static uint32_t sdt_desc(unsigned char *d, uint64_t pc, uint64_t base,
			 uint64_t sem, const char *strs, size_t strlen_total)
{
	memcpy(d, &pc, 8);
	memcpy(d + 8, &base, 8);
	memcpy(d + 16, &sem, 8);
	memcpy(d + 24, strs, strlen_total);
	return (uint32_t)(24 + strlen_total);
}

#define STRS(s) s, sizeof(s) - 1 /* keeps the embedded NULs */

struct seen {
	struct usdt_note notes[8];
	int n;
	int stop_after;
};

static int record(const struct usdt_note *note, void *ctx)
{
	struct seen *s = ctx;

	s->notes[s->n++] = *note;
	return s->n == s->stop_after ? 7 : 0;
}

static void test_good(void **state)
{
	unsigned char d[256];
	struct buf b = { 0 };
	struct seen s = { 0 };
	char err[200] = "";
	uint32_t n;

	(void)state;
	n = sdt_desc(d, 0x4011d6, 0x4020a0, 0,
		     STRS("python\0gc__start\0-4@%ebx\0"));
	add_note(&b, "stapsdt", NT_STAPSDT, d, n);
	add_note(&b, "GNU", 3, "0123456789abcdef0123", 20); /* build id */
	n = sdt_desc(d, 0x1000, 0x2000, 0x4048, STRS("p\0n\0\0"));
	add_note(&b, "stapsdt", NT_STAPSDT, d, n);
	assert_int_equal(
		note_parse(b.data, b.len, 8, record, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.notes[0].pc, 0x4011d6);
	assert_int_equal(s.notes[0].base, 0x4020a0);
	assert_int_equal(s.notes[0].semaphore, 0);
	assert_string_equal(s.notes[0].provider, "python");
	assert_string_equal(s.notes[0].name, "gc__start");
	assert_string_equal(s.notes[0].args, "-4@%ebx");
	assert_int_equal(s.notes[0].offset, 0);
	assert_int_equal(s.notes[1].semaphore, 0x4048);
	assert_string_equal(s.notes[1].args, "");
	assert_string_equal(err, "");
}

static void test_class32(void **state)
{
	unsigned char d[64];
	uint32_t a[3] = { 0x8048000, 0x8049000, 0x804a000 };
	struct buf b = { 0 };
	struct seen s = { 0 };

	(void)state;
	memcpy(d, a, sizeof(a));
	memcpy(d + 12,
	       "prov\0name\0"
	       "4@%eax",
	       17);
	add_note(&b, "stapsdt", NT_STAPSDT, d, 29);
	assert_int_equal(note_parse(b.data, b.len, 4, record, &s, NULL, 0), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.notes[0].pc, 0x8048000);
	assert_int_equal(s.notes[0].semaphore, 0x804a000);
	assert_string_equal(s.notes[0].args, "4@%eax");
}

/* very old notes end after the name: no argument string */
static void test_no_args_string(void **state)
{
	unsigned char d[64];
	struct buf b = { 0 };
	struct seen s = { 0 };

	(void)state;
	add_note(&b, "stapsdt", NT_STAPSDT, d,
		 sdt_desc(d, 1, 2, 0, STRS("p\0n\0")));
	assert_int_equal(note_parse(b.data, b.len, 8, record, &s, NULL, 0), 0);
	assert_string_equal(s.notes[0].args, "");
}

static void test_stop(void **state)
{
	unsigned char d[64];
	struct buf b = { 0 };
	struct seen s = { .stop_after = 1 };
	uint32_t n = sdt_desc(d, 1, 2, 0, STRS("p\0n\0\0"));

	(void)state;
	add_note(&b, "stapsdt", NT_STAPSDT, d, n);
	add_note(&b, "stapsdt", NT_STAPSDT, d, n);
	assert_int_equal(note_parse(b.data, b.len, 8, record, &s, NULL, 0), 7);
	assert_int_equal(s.n, 1);
}

struct bad_case {
	const char *what;
	size_t cut; /* bytes removed from the end, or 0 */
	int field; /* header word to overwrite, or -1 */
	uint32_t value;
	const char *strs; /* descriptor strings */
	size_t strs_len;
	const char *message;
};

static void run_bad(const struct bad_case *c)
{
	unsigned char d[128];
	struct buf b = { 0 };
	struct seen s = { 0 };
	char err[200] = "";
	uint32_t n, good = 0;

	print_message("# %s\n", c->what);
	/* one good note first: it is delivered before the error */
	add_note(&b, "stapsdt", NT_STAPSDT, d,
		 sdt_desc(d, 1, 2, 0, STRS("ok\0ok\0\0")));
	good = (uint32_t)b.len;
	n = sdt_desc(d, 1, 2, 0, c->strs, c->strs_len);
	add_note(&b, "stapsdt", NT_STAPSDT, d, n);
	if (c->field >= 0)
		memcpy(b.data + good + 4 * c->field, &c->value, 4);
	b.len -= c->cut;
	assert_int_equal(
		note_parse(b.data, b.len, 8, record, &s, err, sizeof(err)),
		-EBADMSG);
	assert_int_equal(s.n, 1);
	assert_string_equal(err, c->message);
}

static void test_bad(void **state)
{
	static const struct bad_case CASES[] = {
		{ "huge name size", 0, 0, 0x7fffffff, STRS("p\0n\0\0"),
		  "bad note at offset 0x34: name size 0x7fffffff runs past "
		  "the section end" },
		{ "huge descriptor", 0, 1, 0xfffffff0, STRS("p\0n\0\0"),
		  "bad note at offset 0x34: descriptor size 0xfffffff0 runs "
		  "past the section end" },
		{ "descriptor past end", 8, -1, 0, STRS("p\0n\0\0"),
		  "bad note at offset 0x34: descriptor size 0x1d runs past "
		  "the section end" },
		{ "short descriptor", 0, 1, 20, STRS("p\0n\0\0"),
		  "bad note at offset 0x34: descriptor of 20 bytes is too "
		  "short" },
		{ "unterminated provider", 0, -1, 0, STRS("prov"),
		  "bad note at offset 0x34: provider or name is missing or "
		  "not terminated" },
		{ "missing name", 0, -1, 0, STRS("prov\0"),
		  "bad note at offset 0x34: provider or name is missing or "
		  "not terminated" },
		{ "empty provider", 0, -1, 0, STRS("\0n\0\0"),
		  "bad note at offset 0x34: empty provider or probe name" },
		{ "unterminated args", 0, -1, 0, STRS("p\0n\0-4@%eax"),
		  "bad note at offset 0x34: argument string is not "
		  "terminated" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++)
		run_bad(&CASES[i]);
}

static void test_truncated_header(void **state)
{
	unsigned char d[64];
	struct buf b = { 0 };
	struct seen s = { 0 };
	char err[200];

	(void)state;
	add_note(&b, "stapsdt", NT_STAPSDT, d,
		 sdt_desc(d, 1, 2, 0, STRS("p\0n\0\0")));
	b.len += 8; /* 8 stray bytes: less than a header */
	assert_int_equal(
		note_parse(b.data, b.len, 8, record, &s, err, sizeof(err)),
		-EBADMSG);
	assert_string_equal(err, "bad note at offset 0x34: truncated header");
	assert_int_equal(
		note_parse(b.data, b.len, 3, record, &s, err, sizeof(err)),
		-EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_class32),
		cmocka_unit_test(test_no_args_string),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_truncated_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
