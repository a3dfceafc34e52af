// SPDX-License-Identifier: MIT
/*
 * Unit tests of elfobj + catalog on the fixtures (tests/fixtures): the
 * probes of a file, of a running process (our own child), and clear
 * errors on hand-corrupted copies.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "catalog.h"
#include "child.h"
#include "log.h"
#include "proc.h"

static char last_log[512];

static void capture(enum log_level level, const char *msg, void *ctx)
{
	(void)level;
	(void)ctx;
	snprintf(last_log, sizeof(last_log), "%s", msg);
}

static const struct cat_probe *find(const struct cat_object *obj,
				    const char *name)
{
	for (size_t i = 0; i < obj->nprobes; i++)
		if (!strcmp(obj->probes[i].name, name))
			return &obj->probes[i];
	return NULL;
}

/* The byte at file offset off of path. */
static int file_byte(const char *path, uint64_t off)
{
	unsigned char c = 0;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &c, 1, (off_t)off), 1);
	close(fd);
	return c;
}

static void test_target_file(void **state)
{
	static const char *const NAMES[] = { "enter",	"field",  "global",
					     "indexed", "ints",	  "konst",
					     "leave",	"lenstr", "multi",
					     "pagestr", "sem",	  "str",
					     "tick" };
	const char *path = fixture_path("sdt_target");
	struct catalog *cat = catalog_open_file(NULL, path);
	const struct cat_object *obj;
	const struct cat_probe *p;
	uint64_t addr;

	(void)state;
	assert_non_null(cat);
	assert_int_equal(catalog_nobjects(cat), 1);
	assert_int_equal(catalog_nprobes(cat), 13);
	obj = catalog_object(cat, 0);
	assert_string_equal(obj->path, path);
	for (size_t i = 0; i < 13; i++) {
		p = &obj->probes[i];
		assert_string_equal(p->provider, "fixture");
		assert_string_equal(p->name, NAMES[i]);
		for (size_t l = 0; l < p->nlocs; l++) {
			/* every probe site is a nop in the file */
			assert_int_equal(file_byte(path, p->locs[l].offset),
					 0x90);
			for (int a = 0; a < p->locs[l].nargs; a++)
				assert_int_not_equal(p->locs[l].argv[a].kind,
						     USDT_ARG_RAW);
		}
	}
	p = find(obj, "multi");
	assert_int_equal(p->nlocs, 3);
	assert_true(p->locs[0].addr < p->locs[1].addr);
	assert_true(p->locs[1].addr < p->locs[2].addr);
	p = find(obj, "sem");
	assert_int_not_equal(p->locs[0].sem_addr, 0);
	assert_int_not_equal(p->locs[0].sem_offset, 0);
	/* a semaphore starts at 0 in the file */
	assert_int_equal(file_byte(path, p->locs[0].sem_offset), 0);
	assert_int_equal(find(obj, "tick")->locs[0].sem_addr, 0);
	assert_int_equal(find(obj, "tick")->locs[0].nargs, 0);
	p = find(obj, "ints");
	assert_int_equal(p->locs[0].nargs, 4);
	assert_int_equal(p->locs[0].argv[0].size, 1);
	assert_true(p->locs[0].argv[0].is_signed);
	assert_int_equal(p->locs[0].argv[1].size, 2);
	assert_int_equal(p->locs[0].argv[2].size, 4);
	assert_int_equal(p->locs[0].argv[3].size, 8);
	p = find(obj, "global");
	assert_int_equal(p->locs[0].argv[0].kind, USDT_ARG_SYM);
	assert_int_equal(elfobj_symbol_addr(obj->elf, "fixture_global", &addr),
			 0);
	assert_int_equal(p->locs[0].argv[0].sym_addr, addr);
	assert_int_equal(find(obj, "konst")->locs[0].argv[0].kind,
			 USDT_ARG_CONST);
	assert_int_equal(find(obj, "konst")->locs[0].argv[0].disp, 42);
	catalog_free(cat);
}

static void test_library_file(void **state)
{
	struct objcache *cache = objcache_new();
	struct catalog *cat =
		catalog_open_file(cache, fixture_path("libsdtfix.so"));
	struct catalog *again;
	const struct cat_object *obj;

	(void)state;
	assert_non_null(cat);
	obj = catalog_object(cat, 0);
	assert_int_equal(obj->nprobes, 2);
	assert_string_equal(obj->probes[0].provider, "fixlib");
	assert_string_equal(obj->probes[0].name, "call");
	assert_int_not_equal(obj->probes[0].locs[0].sem_offset, 0);
	assert_string_equal(obj->probes[1].name, "ret");
	assert_int_equal(obj->probes[1].locs[0].nargs, 2);
	/* the second open comes from the cache: the same parsed probes */
	again = catalog_open_file(cache, fixture_path("libsdtfix.so"));
	assert_ptr_equal(catalog_object(again, 0)->probes, obj->probes);
	catalog_free(again);
	catalog_free(cat);
	objcache_free(cache);
}

/* Read one byte of the child's memory at a run-time address. */
static int mem_byte(pid_t pid, uint64_t addr)
{
	char path[64];
	unsigned char c = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &c, 1, (off_t)addr), 1);
	close(fd);
	return c;
}

static void test_process(void **state)
{
	struct child c;
	struct catalog *cat;
	bool exe = false, lib = false;

	(void)state;
	assert_int_equal(child_start(fixture_path("sdt_target"), &c), 0);
	cat = catalog_open_pid(NULL, c.pid);
	assert_non_null(cat);
	assert_int_equal(catalog_pid(cat), c.pid);
	assert_int_equal(catalog_nprobes(cat), 15);
	for (size_t i = 0; i < catalog_nobjects(cat); i++) {
		const struct cat_object *obj = catalog_object(cat, i);

		if (strstr(obj->path, "/sdt_target"))
			exe = true;
		else if (strstr(obj->path, "/libsdtfix.so"))
			lib = true;
		else
			continue;
		assert_true(obj->has_bias);
		/* link-time address + bias is the nop in the running process */
		for (size_t j = 0; j < obj->nprobes; j++)
			for (size_t l = 0; l < obj->probes[j].nlocs; l++)
				assert_int_equal(
					mem_byte(c.pid,
						 obj->probes[j].locs[l].addr +
							 obj->bias),
					0x90);
	}
	assert_true(exe && lib);
	catalog_free(cat);
	assert_int_equal(child_stop(&c), 0);
	/* the child is gone: no such process */
	assert_null(catalog_open_pid(NULL, c.pid));
	assert_int_equal(errno, ESRCH);
}

/* Copy the fixture to a temporary file and let fn damage it. */
static char *damaged_copy(void (*fn)(int fd, uint64_t notes_off))
{
	static char tmp[] = "/tmp/probetop-test-XXXXXX";
	char *path = strdup(tmp);
	int in = open(fixture_path("sdt_target"), O_RDONLY);
	int out = mkstemp(path);
	char buf[65536];
	ssize_t n;
	uint64_t notes_off = 0;
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	elf_version(EV_CURRENT);
	elf = elf_begin(in, ELF_C_READ, NULL);
	assert_non_null(elf);
	elf_getshdrstrndx(elf, &shstrndx);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		gelf_getshdr(scn, &sh);
		if (!strcmp(elf_strptr(elf, shstrndx, sh.sh_name),
			    ".note.stapsdt"))
			notes_off = sh.sh_offset;
	}
	elf_end(elf);
	close(in);
	assert_int_not_equal(notes_off, 0);
	fn(out, notes_off);
	close(out);
	return path;
}

static void huge_descsz(int fd, uint64_t off)
{
	uint32_t v = 0xffff;

	assert_int_equal(pwrite(fd, &v, 4, (off_t)off + 4), 4);
}

static void unterminated_strings(int fd, uint64_t off)
{
	uint32_t descsz;
	char fill[256];

	/* fill the first note's strings (after 3 addresses) with 'A' */
	assert_int_equal(pread(fd, &descsz, 4, (off_t)off + 4), 4);
	memset(fill, 'A', sizeof(fill));
	assert_int_equal(pwrite(fd, fill, descsz - 24, (off_t)off + 20 + 24),
			 descsz - 24);
}

static void truncate_half(int fd, uint64_t off)
{
	struct stat st;

	(void)off;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(ftruncate(fd, st.st_size / 2), 0);
}

static void not_elf(int fd, uint64_t off)
{
	(void)off;
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, "#!/bin/sh\necho hi\n", 18, 0), 18);
}

static void empty(int fd, uint64_t off)
{
	(void)off;
	assert_int_equal(ftruncate(fd, 0), 0);
}

static void check_broken(void (*fn)(int, uint64_t), int err,
			 const char *message)
{
	char *path = damaged_copy(fn);
	char want[512];

	last_log[0] = '\0';
	assert_null(catalog_open_file(NULL, path));
	assert_int_equal(errno, err);
	snprintf(want, sizeof(want), "%s: %s", path, message);
	print_message("# %s\n", last_log);
	assert_int_equal(strncmp(last_log, want, strlen(want)), 0);
	unlink(path);
	free(path);
}

static void test_broken(void **state)
{
	(void)state;
	log_set_sink(capture, NULL);
	check_broken(huge_descsz, EBADMSG,
		     "bad note at offset 0: descriptor size 0xffff runs past "
		     "the section end");
	check_broken(unterminated_strings, EBADMSG,
		     "bad note at offset 0: provider or name is missing or "
		     "not terminated");
	check_broken(not_elf, ENOEXEC, "not an ELF file");
	check_broken(empty, ENOEXEC, "not an ELF file");
	check_broken(
		truncate_half, ENOEXEC,
		"broken ELF file: its headers run past the end of the file");
	assert_null(catalog_open_file(NULL, "/"));
	assert_int_equal(errno, EISDIR);
	assert_null(catalog_open_file(NULL, "/nonexistent/x"));
	assert_int_equal(errno, ENOENT);
	assert_string_equal(last_log,
			    "/nonexistent/x: No such file or directory");
	log_set_sink(NULL, NULL);
}

static void test_find_file(void **state)
{
	char path[4096];

	(void)state;
	assert_int_equal(catalog_find_file("sh", path, sizeof(path)), 0);
	assert_int_equal(access(path, X_OK), 0);
	assert_int_equal(catalog_find_file("libc.so.6", path, sizeof(path)), 0);
	assert_non_null(strstr(path, "/libc.so.6"));
	assert_int_equal(
		catalog_find_file("no-such-file-xyz", path, sizeof(path)),
		-ENOENT);
	assert_int_equal(catalog_find_file("/a/b", path, sizeof(path)), 0);
	assert_string_equal(path, "/a/b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_file),
		cmocka_unit_test(test_library_file),
		cmocka_unit_test(test_process),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_find_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
