// SPDX-License-Identifier: MIT
/*
 * semread: which semaphores an ELF file's code tests (engine/find/
 * semread.h). Instructions assembled by hand at a known address: the
 * tests PostgreSQL's code makes (cmpw $0x0, sem(%rip)), a load
 * (movzwl sem(%rip), %eax), the absolute form of a non-PIE file
 * (cmpw $0x0, sem), an address taken (lea sem(%rip), %rdi: it and the
 * semaphores just after it), each found; the same instructions aimed at
 * the next variable, the same address taken twice in a row (the C
 * runtime's __TMC_END__, which may be the first semaphore's), or no
 * memory operand, not. And the files: the fixture's fixture:sem, whose
 * semaphore no code tests, and an unreadable file, whose semaphores are
 * taken as tested.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "catalog.h"
#include "semread.h"

#define CODE_AT 0x401000u
#define SEM_A 0x404010u
#define SEM_B 0x404012u

/* code: insn (len bytes, its disp32 at disp_at patched to reach target
 * from end, where the instruction that holds it ends) between nops;
 * scanned for SEM_A and SEM_B. */
static void scan_at(const unsigned char *insn, size_t len, size_t disp_at,
		    size_t end, uint64_t target, bool rip, bool tested[2])
{
	unsigned char code[64];
	uint64_t sems[2] = { SEM_A, SEM_B };
	size_t at = 7;
	int32_t d = rip ? (int32_t)(target - (CODE_AT + at + end))
			: (int32_t)target;

	memset(code, 0x90, sizeof(code));
	memcpy(code + at, insn, len);
	memcpy(code + at + disp_at, &d, sizeof(d));
	tested[0] = tested[1] = false;
	semread_scan(code, sizeof(code), CODE_AT, sems, 2, tested);
}

/* scan_at() of one instruction */
static void scan_one(const unsigned char *insn, size_t len, size_t disp_at,
		     uint64_t target, bool rip, bool tested[2])
{
	scan_at(insn, len, disp_at, len, target, rip, tested);
}

static void test_forms(void **state)
{
	/* cmpw $0x0, disp(%rip): 66 83 3d disp32 00 */
	static const unsigned char cmpw[] = { 0x66, 0x83, 0x3d, 0, 0, 0, 0, 0 };
	/* movzwl disp(%rip), %eax: 0f b7 05 disp32 */
	static const unsigned char movz[] = { 0x0f, 0xb7, 0x05, 0, 0, 0, 0 };
	/* lea disp(%rip), %rdi: 48 8d 3d disp32 */
	static const unsigned char lea[] = { 0x48, 0x8d, 0x3d, 0, 0, 0, 0 };
	/* lea disp(%rip), %rdi; lea disp+7(%rip), %rax: one address */
	unsigned char twin[14] = { 0x48, 0x8d, 0x3d, 0, 0, 0, 0,
				   0x48, 0x8d, 0x05, 0, 0, 0, 0 };
	/* cmpw $0x0, disp32 (absolute): 66 83 3c 25 disp32 00 */
	static const unsigned char abs[] = { 0x66, 0x83, 0x3c, 0x25, 0,
					     0,	   0,	 0,    0 };
	bool t[2];

	(void)state;
	/* the second LEA's displacement: the first's target from its end */
	{
		int32_t d = (int32_t)(SEM_A - (CODE_AT + 7 + 14));

		memcpy(twin + 10, &d, sizeof(d));
	}
	scan_one(cmpw, sizeof(cmpw), 3, SEM_A, true, t);
	assert_true(t[0]);
	assert_false(t[1]);
	scan_one(movz, sizeof(movz), 3, SEM_B, true, t);
	assert_false(t[0]);
	assert_true(t[1]);
	/* an address taken: tested, and the next (at a small offset) too */
	scan_one(lea, sizeof(lea), 3, SEM_A, true, t);
	assert_true(t[0] && t[1]);
	/* ... unless taken twice in a row, as crt's __TMC_END__ is */
	scan_at(twin, sizeof(twin), 3, 7, SEM_A, true, t);
	assert_false(t[0] || t[1]);
	scan_one(abs, sizeof(abs), 4, SEM_B, false, t);
	assert_true(t[1]);
	/* three-byte opcodes: pinsrw-like 66 0f 3a 20 /r ib (an imm8), and
	 * 0f 38 f0 /r (movbe: none), not taken for one-byte ones */
	scan_one((const unsigned char[]){ 0x66, 0x0f, 0x3a, 0x20, 0x05, 0, 0, 0,
					  0, 0x01 },
		 10, 5, SEM_B, true, t);
	assert_true(t[1]);
	assert_false(t[0]);
	scan_one((const unsigned char[]){ 0x0f, 0x38, 0xf0, 0x05, 0, 0, 0, 0 },
		 8, 4, SEM_A, true, t);
	assert_true(t[0]);
	assert_false(t[1]);
	/* the variable after SEM_B: neither */
	scan_one(cmpw, sizeof(cmpw), 3, SEM_B + 2, true, t);
	assert_false(t[0] || t[1]);
	/* no memory operand (mov $imm32, %eax: b8 imm32) */
	scan_one((const unsigned char[]){ 0xb8, 0, 0, 0, 0 }, 5, 1, SEM_A,
		 false, t);
	assert_false(t[0] || t[1]);
}

/* fixture:sem (tests/fixtures/sdt_sem.c) has a semaphore no code tests;
 * a file that is not ELF says every semaphore tested. */
static void test_files(void **state)
{
	const char *dir = getenv("FIXTURE_DIR");
	char path[4096];
	struct catalog *cat;
	const struct cat_probe *p = NULL;
	uint64_t sems[1] = { 0x1000 };
	bool tested[1] = { false };
	int fd;

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/sdt_target", dir);
	cat = catalog_open_file(NULL, path);
	assert_non_null(cat);
	for (size_t i = 0; i < catalog_nobjects(cat); i++) {
		const struct cat_object *o = catalog_object(cat, i);

		for (size_t j = 0; j < o->nprobes; j++)
			if (!strcmp(o->probes[j].name, "sem"))
				p = &o->probes[j];
	}
	assert_non_null(p);
	assert_true(p->locs[0].sem_addr != 0);
	assert_false(p->locs[0].sem_tested);
	catalog_free(cat);
	fd = open("/dev/null", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(semread_tested(fd, "/dev/null", sems, 1, tested),
			 -ENOEXEC);
	assert_true(tested[0]);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
