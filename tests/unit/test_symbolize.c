// SPDX-License-Identifier: MIT
/*
 * symbolize: addresses of this very process named by their symbols — a
 * function of the test, a C++ type_info in libstdc++ (named by its type),
 * an offset into a symbol, and an address nothing maps; then the maps
 * given as known when the process is gone.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "catalog.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_function),
		cmocka_unit_test(test_cxx_typeinfo),
		cmocka_unit_test(test_known_maps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
