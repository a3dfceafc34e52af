// SPDX-License-Identifier: MIT
/*
 * ehframe and cfi: the unwind table compiled from real files checked row
 * by row against `readelf --debug-dump=frames-interp` (binutils' own
 * interpreter of the same CFA programs): at every row readelf prints, of
 * every FDE, the rule the table has at that address (as a file offset)
 * must say the same CFA, return address and rbp. The fixtures: unwind
 * (.eh_frame, -O2 -fomit-frame-pointer), unwind_dbgframe (its functions
 * in .debug_frame only) and Debian's libc.so.6. Then broken input: a
 * hand-made CIE and FDE read exactly, cut at every length and with each
 * byte flipped (an error or rows, never a crash), operands whose scaling
 * overflows, a file that is not ELF, an ELF file cut short.
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
#include <unistd.h>

#include <cmocka.h>

#include "cfi.h"
#include "ehframe.h"
#include "elfobj.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

/* A readelf row's text: LOC, the CFA, rbp's and ra's columns ("" when
 * readelf shows no rbp column). */
struct ref {
	uint64_t loc;
	char cfa[32], bp[16], ra[16];
};

/* What readelf's row says, as struct pt_urow's rule; exp: the CFA is an
 * expression (PT_UR_PLT, PT_UR_DEREF or PT_UR_STOP all agree with it). */
static uint32_t ref_rule(const struct ref *r, bool *exp)
{
	uint32_t kind, bp = PT_UR_BP_LOST;
	long off = 0;

	*exp = false;
	if (!strcmp(r->ra, "u"))
		return PT_UR_MAKE(PT_UR_END, 0, 0, 0);
	if (strcmp(r->ra, "c-8"))
		return PT_UR_MAKE(PT_UR_STOP, 0, 0, 0);
	if (!strncmp(r->cfa, "rsp+", 4))
		kind = PT_UR_RSP;
	else if (!strncmp(r->cfa, "rbp+", 4))
		kind = PT_UR_RBP;
	else
		return *exp = !strcmp(r->cfa, "exp"),
		       PT_UR_MAKE(PT_UR_STOP, 0, 0, 0);
	off = strtol(r->cfa + 4, NULL, 10);
	if (off % 8 || off < PT_UR_OFF_MIN || off > PT_UR_OFF_MAX)
		return PT_UR_MAKE(PT_UR_STOP, 0, 0, 0);
	if (!r->bp[0] || !strcmp(r->bp, "u")) /* readelf: unreferenced */
		bp = 0;
	else if (r->bp[0] == 'c' && r->bp[1] == '-' && !(atoi(r->bp + 2) % 8) &&
		 atoi(r->bp + 2) / 8 < 1023)
		bp = (uint32_t)(atoi(r->bp + 2) / 8);
	return PT_UR_MAKE(kind, 0, bp, off);
}

struct check {
	const char *path;
	struct elfobj *elf;
	struct eh_table t;
	size_t rows, fdes, exps;
	struct ref cie_row[64]; /* by CIE, in order seen (cie_at[]) */
	long cie_at[64];
	int cie_sec[64], sec, ncies;
};

/* The table's rule at link-time address loc against readelf's row. */
static void check_row(struct check *c, const struct ref *r)
{
	uint64_t off;
	uint32_t want, got;
	bool exp;

	if (elfobj_vaddr_to_offset(c->elf, r->loc, &off))
		return;
	want = ref_rule(r, &exp);
	got = ehframe_rule_at(&c->t, off);
	c->rows++;
	if (exp) {
		c->exps++;
		if (PT_UR_KIND(got) == PT_UR_PLT ||
		    PT_UR_KIND(got) == PT_UR_DEREF ||
		    PT_UR_KIND(got) == PT_UR_STOP)
			return;
	}
	if (got != want)
		fail_msg("%s: at 0x%llx (readelf: CFA %s rbp %s ra %s): rule "
			 "0x%x (kind %u off %d bp %u), want 0x%x",
			 c->path, (unsigned long long)r->loc, r->cfa, r->bp,
			 r->ra, got, PT_UR_KIND(got), PT_UR_OFF(got),
			 PT_UR_BP(got), want);
}

/* A row line of readelf, by the columns of its header. */
static bool parse_row(const char *line, char cols[][16], int ncols,
		      struct ref *r)
{
	char tok[16][32];
	int n = sscanf(line,
		       "%31s %31s %31s %31s %31s %31s %31s %31s %31s %31s "
		       "%31s %31s %31s %31s %31s %31s",
		       tok[0], tok[1], tok[2], tok[3], tok[4], tok[5], tok[6],
		       tok[7], tok[8], tok[9], tok[10], tok[11], tok[12],
		       tok[13], tok[14], tok[15]);

	if (n < 3 || n != ncols)
		return false;
	memset(r, 0, sizeof(*r));
	r->loc = strtoull(tok[0], NULL, 16);
	for (int i = 1; i < n; i++) {
		if (!strcmp(cols[i], "CFA"))
			snprintf(r->cfa, sizeof(r->cfa), "%s", tok[i]);
		else if (!strcmp(cols[i], "rbp"))
			snprintf(r->bp, sizeof(r->bp), "%s", tok[i]);
		else if (!strcmp(cols[i], "ra"))
			snprintf(r->ra, sizeof(r->ra), "%s", tok[i]);
	}
	return true;
}

/* The CIE row of the CIE at offset at of the current section. */
static const struct ref *cie_of(const struct check *c, long at)
{
	for (int i = 0; i < c->ncies; i++)
		if (c->cie_at[i] == at && c->cie_sec[i] == c->sec)
			return &c->cie_row[i];
	return NULL;
}

/* Compile path and check it against readelf; the rows compared. */
static size_t check_file(const char *path)
{
	struct check c = { .path = path };
	char cmd[512], line[1024], cols[16][16];
	struct ref pending, cur;
	bool in_fde = false, has_pending = false, cie = false;
	uint64_t lo = 0;
	long at = 0, cie_ptr = 0;
	int ncols = 0, fd = open(path, O_RDONLY);
	FILE *p;

	assert_true(fd >= 0);
	assert_int_equal(ehframe_compile_fd(fd, path, &c.t), 0);
	close(fd);
	c.elf = elfobj_open(path);
	assert_non_null(c.elf);
	snprintf(cmd, sizeof(cmd),
		 "readelf --debug-dump=frames-interp '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char kind[8];

		if (strstr(line, "Contents of the .")) {
			c.sec++;
			continue;
		}
		if (sscanf(line, "%lx %*s %lx %7s", &at, &cie_ptr, kind) == 3 &&
		    (!strcmp(kind, "CIE") || !strcmp(kind, "FDE"))) {
			cie = !strcmp(kind, "CIE");
			in_fde = !cie;
			has_pending = false;
			ncols = 0;
			if (in_fde) {
				const char *pc = strstr(line, "pc=");
				const char *ci = strstr(line, "cie=");

				lo = pc ? strtoull(pc + 3, NULL, 16) : 0;
				cie_ptr = ci ? strtol(ci + 4, NULL, 16) : -1;
				c.fdes++;
			}
			continue;
		}
		if (strstr(line, "LOC") && strstr(line, "CFA")) {
			char *s = line, *tok;

			ncols = 0;
			while (ncols < 16 && (tok = strtok(s, " \t\n"))) {
				snprintf(cols[ncols++], sizeof(cols[0]), "%s",
					 tok);
				s = NULL;
			}
			continue;
		}
		if (ncols && parse_row(line, cols, ncols, &cur)) {
			if (cie && c.ncies < 64) {
				c.cie_at[c.ncies] = at;
				c.cie_sec[c.ncies] = c.sec;
				c.cie_row[c.ncies++] = cur;
				cie = false;
			} else if (in_fde) {
				/* of rows at one address the last counts */
				if (has_pending && pending.loc != cur.loc)
					check_row(&c, &pending);
				pending = cur;
				has_pending = true;
			}
			continue;
		}
		if (in_fde && line[0] == '\n') { /* the FDE ends */
			const struct ref *cr = cie_of(&c, cie_ptr);

			if (has_pending) {
				check_row(&c, &pending);
			} else if (cr) { /* no rows: its CIE's rule */
				cur = *cr;
				cur.loc = lo;
				check_row(&c, &cur);
			}
			in_fde = has_pending = false;
		}
	}
	pclose(p); /* readelf exits 1 on a file without .debug_info */
	assert_true(c.fdes > 0);
	print_message("# %s: %zu FDEs, %zu rows checked (%zu expressions), "
		      "%zu rows in the table\n",
		      path, c.fdes, c.rows, c.exps, c.t.n);
	elfobj_free(c.elf);
	ehframe_free(&c.t);
	return c.rows;
}

static void fixture_path(char *out, size_t n, const char *name)
{
	const char *dir = getenv("FIXTURE_DIR");

	snprintf(out, n, "%s/%s", dir ? dir : ".", name);
}

static void test_fixture(void **state)
{
	char path[512];

	(void)state;
	fixture_path(path, sizeof(path), "unwind");
	assert_true(check_file(path) >= 40);
}

static void test_debug_frame_only(void **state)
{
	char path[512];

	(void)state;
	fixture_path(path, sizeof(path), "unwind_dbgframe");
	assert_true(check_file(path) >= 40);
}

static void test_libc(void **state)
{
	(void)state;
	assert_true(check_file(LIBC) >= 20000);
}

/* A CIE ("zR", code 1, data -8, ra 16, pcrel sdata4 FDE pointers;
 * CFA rsp+8, ra at CFA-8) and one FDE over [0x1000, 0x1010): push rbp
 * (at 1: CFA rsp+16, rbp at CFA-16), mov rsp,rbp (at 4: CFA rbp+16), at
 * 0xe CFA rsp+8 again; then a terminator. The section is at 0x2000. */
static const uint8_t SEC[] = {
	/* CIE: length 20, id 0, version 1, "zR\0", 1, -8 (0x78), 16,
	 * aug length 1, 0x1b; def_cfa rsp 8; offset ra 1; nops */
	0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b, 0x0c,
	7, 8, 0x90, 1, 0, 0,
	/* FDE at 24: length 28, CIE pointer 28 (its field at 28), pc begin
	 * (pcrel: 0x1000 - (0x2000 + 32)), range 16, aug length 0 */
	0x1c, 0, 0, 0, 0x1c, 0, 0, 0, 0xe0, 0xef, 0xff, 0xff, 0x10, 0, 0, 0, 0,
	/* advance 1; def_cfa_offset 16; offset rbp 2; advance 3;
	 * def_cfa_register rbp; advance 10; def_cfa rsp 8; nops */
	0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6, 0x4a, 0x0c, 7, 8, 0, 0, 0,
	/* terminator */
	0, 0, 0, 0
};

static void test_handmade(void **state)
{
	struct cfi_rows rows = { 0 };
	size_t bad = 0;
	const uint32_t want[][2] = {
		{ 0x1000, PT_UR_MAKE(PT_UR_RSP, 0, 0, 8) },
		{ 0x1001, PT_UR_MAKE(PT_UR_RSP, 0, 2, 16) },
		{ 0x1004, PT_UR_MAKE(PT_UR_RBP, 0, 2, 16) },
		{ 0x100e, PT_UR_MAKE(PT_UR_RSP, 0, 2, 8) },
		{ 0x1010, PT_UR_MAKE(PT_UR_FP, 0, 0, 0) },
	};

	(void)state;
	assert_int_equal(cfi_read(SEC, sizeof(SEC), 0x2000, true, &rows, &bad),
			 0);
	assert_int_equal(rows.n, 5);
	for (size_t i = 0; i < rows.n; i++) {
		assert_int_equal(rows.v[i].addr, want[i][0]);
		assert_int_equal(rows.v[i].rule, want[i][1]);
	}
	free(rows.v);
}

/* Cut at every length, and each byte flipped: 0 or -EBADMSG, rows or
 * not, never a read past the bytes (run under ASan in CI). */
static void test_broken_bytes(void **state)
{
	uint8_t buf[sizeof(SEC)];

	(void)state;
	for (size_t n = 0; n < sizeof(SEC); n++) {
		struct cfi_rows rows = { 0 };
		uint8_t *cut = malloc(n ? n : 1);
		size_t bad = 0;
		int err;

		memcpy(cut, SEC, n);
		err = cfi_read(cut, n, 0x2000, true, &rows, &bad);
		assert_true(err == 0 || err == -EBADMSG);
		free(rows.v);
		free(cut);
	}
	for (size_t i = 0; i < sizeof(SEC); i++) {
		for (int bit = 0; bit < 8; bit++) {
			struct cfi_rows rows = { 0 };
			size_t bad = 0;
			int err;

			memcpy(buf, SEC, sizeof(SEC));
			buf[i] ^= (uint8_t)(1 << bit);
			err = cfi_read(buf, sizeof(buf), 0x2000, true, &rows,
				       &bad);
			assert_true(err == 0 || err == -EBADMSG);
			free(rows.v);
		}
	}
	/* the length says more than there is: the record is refused */
	memcpy(buf, SEC, sizeof(SEC));
	buf[24] = 0xf0;
	{
		struct cfi_rows rows = { 0 };
		size_t bad = 0;

		assert_int_equal(
			cfi_read(buf, sizeof(buf), 0x2000, true, &rows, &bad),
			-EBADMSG);
		assert_int_equal(bad, 24);
		free(rows.v);
	}
}

/* Operands whose scaling overflows (found by fuzz_cfi): a save of rbp
 * at a ULEB128 of 2^63 - 1 times the data alignment, wrapping as the
 * target's registers would, not undefined (UBSan in the ASan build):
 * the row says rbp is lost. */
static void test_huge_operands(void **state)
{
	uint8_t buf[24 + 32];
	struct cfi_rows rows = { 0 };
	size_t bad = 0;
	/* the FDE: length 28, CIE pointer 28, pc begin and range as SEC's,
	 * aug length 0, then offset rbp ULEB(2^63 - 1), 4 nops */
	static const uint8_t fde[] = { 0x1c, 0,	   0,	 0,    0x1c, 0,	   0,
				       0,    0xe0, 0xef, 0xff, 0xff, 0x10, 0,
				       0,    0,	   0,	 0x86, 0xff, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0 };

	(void)state;
	memcpy(buf, SEC, 24);
	memcpy(buf + 24, fde, sizeof(fde));
	memset(buf + 24 + sizeof(fde), 0, sizeof(buf) - 24 - sizeof(fde));
	assert_int_equal(cfi_read(buf, sizeof(buf), 0x2000, true, &rows, &bad),
			 0);
	assert_int_equal(rows.n, 2);
	assert_int_equal(PT_UR_BP(rows.v[0].rule), PT_UR_BP_LOST);
	free(rows.v);
}

/* Not ELF, and libc cut short: errors, no table. */
static void test_broken_files(void **state)
{
	static const char text[] = "#!/bin/sh\necho not an ELF file\n";
	struct eh_table t;
	struct stat st;
	char *img;
	int fd;

	(void)state;
	assert_int_equal(ehframe_compile_mem(text, sizeof(text), "text", &t),
			 -ENOEXEC);
	assert_null(t.rows);
	fd = open(LIBC, O_RDONLY);
	assert_true(fd >= 0 && !fstat(fd, &st));
	img = malloc((size_t)st.st_size);
	assert_int_equal(read(fd, img, (size_t)st.st_size), st.st_size);
	close(fd);
	for (size_t n = 0; n < (size_t)st.st_size; n = n * 3 + 61) {
		int err = ehframe_compile_mem(img, n, "cut libc", &t);

		assert_true(err == -ENOEXEC || err == -ENOENT ||
			    err == -EBADMSG);
		assert_null(t.rows);
	}
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_debug_frame_only),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_handmade),
		cmocka_unit_test(test_broken_bytes),
		cmocka_unit_test(test_huge_operands),
		cmocka_unit_test(test_broken_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
