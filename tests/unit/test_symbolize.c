// SPDX-License-Identifier: MIT
/*
 * symbolize: addresses of this very process named by their symbols — a
 * function of the test, a C++ type_info in libstdc++ (named by its type),
 * an offset into a symbol, and an address nothing maps; then the maps
 * given as known when the process is gone; the vDSO's clock_gettime by
 * the vDSO's own .dynsym (read here from the image by hand), in this
 * process and in a child; JIT code (an anonymous executable page) by
 * the process's perf map; and a library without symbols or debug file
 * (the fixture libnosyms.so) said once, however many of its addresses.
 */
#include <dlfcn.h>
#include <elf.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "catalog.h"
#include "log.h"
#include "proc.h"
#include "symbolize.h"

/* not static: in .symtab and .dynsym alike */
int symbolize_probe_target(int x);
int symbolize_probe_target(int x)
{
	return x * 3 + 1;
}

static void test_function(void **state)
{
	struct objcache *cache = objcache_new();
	struct symbolizer *sy = symbolizer_new(cache);
	uintptr_t at = (uintptr_t)&symbolize_probe_target;
	char name[128];

	(void)state;
	assert_non_null(sy);
	symbolizer_name(sy, getpid(), at, NULL, name, sizeof(name));
	assert_string_equal(name, "symbolize_probe_target");
	symbolizer_name(sy, getpid(), at + 2, NULL, name, sizeof(name));
	assert_string_equal(name, "symbolize_probe_target+0x2");
	symbolizer_name(sy, getpid(), 0x10, NULL, name, sizeof(name));
	assert_string_equal(name, "0x10");
	symbolizer_free(sy);
	objcache_free(cache);
}

static void test_cxx_typeinfo(void **state)
{
	void *lib = dlopen("libstdc++.so.6", RTLD_NOW);
	struct objcache *cache = objcache_new();
	struct symbolizer *sy = symbolizer_new(cache);
	void *ti, *fn;
	char name[128];

	(void)state;
	assert_non_null(lib);
	ti = dlsym(lib, "_ZTISt13runtime_error");
	fn = dlsym(lib, "_ZNSt13runtime_errorC1EPKc");
	assert_non_null(ti);
	assert_non_null(fn);
	symbolizer_name(sy, getpid(), (uintptr_t)ti, NULL, name, sizeof(name));
	assert_string_equal(name, "std::runtime_error");
	symbolizer_name(sy, getpid(), (uintptr_t)fn, NULL, name, sizeof(name));
	assert_string_equal(name,
			    "std::runtime_error::runtime_error(char const*)");
	symbolizer_free(sy);
	objcache_free(cache);
	dlclose(lib);
}

static void test_known_maps(void **state)
{
	struct objcache *cache = objcache_new();
	struct symbolizer *sy = symbolizer_new(cache);
	struct proc_maps maps;
	char name[128];

	(void)state;
	assert_int_equal(proc_maps_read(getpid(), &maps), 0);
	/* a pid that does not exist, with our maps as what was known */
	symbolizer_name(sy, 0x7ffffff0, (uintptr_t)&symbolize_probe_target,
			&maps, name, sizeof(name));
	assert_string_equal(name, "symbolize_probe_target");
	symbolizer_name(sy, 0x7ffffff0, (uintptr_t)&symbolize_probe_target,
			NULL, name, sizeof(name));
	assert_true(!strncmp(name, "0x", 2));
	proc_maps_free(&maps);
	symbolizer_free(sy);
	objcache_free(cache);
}

/* The address of the vDSO's .dynsym symbol name in this process, from
 * the image's section headers (it is mapped as its file is laid out),
 * and its size; 0 if there is none. */
static uintptr_t vdso_symbol(const char *name, uint64_t *size)
{
	const char *img = (const char *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh;
	const Elf64_Phdr *ph;
	uint64_t vaddr0 = 0;

	if (!img)
		return 0;
	sh = (const void *)(img + eh->e_shoff);
	ph = (const void *)(img + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && !ph[i].p_offset)
			vaddr0 = ph[i].p_vaddr;
	for (int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Sym *sym = (const void *)(img + sh[i].sh_offset);
		const char *str = img + sh[sh[i].sh_link].sh_offset;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		for (size_t k = 0; k < sh[i].sh_size / sizeof(*sym); k++) {
			if (strcmp(str + sym[k].st_name, name) ||
			    !sym[k].st_value)
				continue;
			*size = sym[k].st_size;
			return (uintptr_t)img + sym[k].st_value - vaddr0;
		}
	}
	return 0;
}

static void test_vdso(void **state)
{
	struct objcache *cache = objcache_new();
	struct symbolizer *sy = symbolizer_new(cache);
	uint64_t size = 0;
	uintptr_t at = vdso_symbol("__vdso_clock_gettime", &size);
	char name[128], mod[64];
	pid_t child;
	int status;

	(void)state;
	assert_true(at && size > 8);
	symbolizer_name(sy, getpid(), at + 4, NULL, name, sizeof(name));
	assert_true(!strcmp(name, "__vdso_clock_gettime+0x4") ||
		    !strcmp(name, "clock_gettime+0x4"));
	symbolizer_func(sy, getpid(), at + 4, NULL, name, sizeof(name), mod,
			sizeof(mod));
	assert_true(!strcmp(name, "__vdso_clock_gettime") ||
		    !strcmp(name, "clock_gettime"));
	assert_string_equal(mod, "[vdso]");
	/* a child maps the vDSO where its parent did */
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		pause();
		_exit(0);
	}
	symbolizer_func(sy, child, at, NULL, name, sizeof(name), NULL, 0);
	assert_true(!strcmp(name, "__vdso_clock_gettime") ||
		    !strcmp(name, "clock_gettime"));
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	/* the page below the image (the vvar data) is not the vDSO's */
	symbolizer_name(sy, getpid(), getauxval(AT_SYSINFO_EHDR) - 8, NULL,
			name, sizeof(name));
	assert_true(!strncmp(name, "0x", 2));
	symbolizer_free(sy);
	objcache_free(cache);
}

static void test_perf_map(void **state)
{
	struct objcache *cache = objcache_new();
	struct symbolizer *sy = symbolizer_new(cache);
	char path[64], name[128];
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t at = (uintptr_t)code + 0x100;
	FILE *f;

	(void)state;
	assert_true(code != MAP_FAILED);
	memset(code, 0xc3, 4096); /* ret */
	assert_int_equal(mprotect(code, 4096, PROT_READ | PROT_EXEC), 0);
	symbolizer_name(sy, getpid(), at, NULL, name, sizeof(name));
	assert_true(!strncmp(name, "0x", 2)); /* no perf map yet */
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%lx 40 Interpreted:jit_thing /srv/x.lua:3\n",
		(unsigned long)at);
	fprintf(f, "%lx 40 _ZN3jit5stubsEv\n", (unsigned long)at + 0x40);
	fclose(f);
	symbolizer_name(sy, getpid(), at + 0x10, NULL, name, sizeof(name));
	assert_string_equal(name, "Interpreted:jit_thing /srv/x.lua:3+0x10");
	symbolizer_func(sy, getpid(), at + 0x10, NULL, name, sizeof(name), NULL,
			0);
	assert_string_equal(name, "Interpreted:jit_thing /srv/x.lua:3");
	symbolizer_func(sy, getpid(), at + 0x40, NULL, name, sizeof(name), NULL,
			0);
	assert_string_equal(name, "jit::stubs()");
	symbolizer_func(sy, getpid(), at + 0x80, NULL, name, sizeof(name), NULL,
			0);
	assert_true(!strncmp(name, "0x", 2));
	unlink(path);
	munmap(code, 4096);
	symbolizer_free(sy);
	objcache_free(cache);
}

static char said[4][512];
static int nsaid;

static void capture(enum log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level == LOG_INFO && nsaid < 4)
		snprintf(said[nsaid++], sizeof(said[0]), "%s", msg);
}

static void test_no_symbols(void **state)
{
	const char *dir = getenv("FIXTURE_DIR");
	char path[512], name[128];
	struct objcache *cache = objcache_new();
	struct symbolizer *sy = symbolizer_new(cache);
	void *lib, *fire;

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/libnosyms.so", dir);
	lib = dlopen(path, RTLD_NOW);
	assert_non_null(lib);
	fire = dlsym(lib, "nosyms_fire");
	assert_non_null(fire);
	setenv("PROBETOP_DEBUG_DIRS", "/nonexistent", 1);
	log_set_sink(capture, NULL);
	symbolizer_func(sy, getpid(), (uintptr_t)fire, NULL, name, sizeof(name),
			NULL, 0);
	assert_string_equal(name, "nosyms_fire");
	assert_int_equal(nsaid, 0); /* named: nothing to say */
	symbolizer_func(sy, getpid(), (uintptr_t)fire - 1, NULL, name,
			sizeof(name), NULL, 0);
	assert_true(!strncmp(name, "libnosyms.so+0x", 15));
	symbolizer_func(sy, getpid(), (uintptr_t)fire - 3, NULL, name,
			sizeof(name), NULL, 0);
	assert_true(!strncmp(name, "libnosyms.so+0x", 15));
	log_set_sink(NULL, NULL);
	assert_int_equal(nsaid, 1);
	assert_non_null(strstr(said[0], "libnosyms.so: no symbols and no "
					"debug file; its frames stay "
					"libnosyms.so+0x... (no installed "
					"package holds it)"));
	unsetenv("PROBETOP_DEBUG_DIRS");
	symbolizer_free(sy);
	objcache_free(cache);
	dlclose(lib);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_function),
		cmocka_unit_test(test_cxx_typeinfo),
		cmocka_unit_test(test_known_maps),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_perf_map),
		cmocka_unit_test(test_no_symbols),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
