// SPDX-License-Identifier: MIT
/* Unit tests of the HotSpot tables' parser (engine/name/jvmlayout.h),
 * on tables built here and read from this process's own memory as they
 * are from a JVM's: entries laid out otherwise than HotSpot's (each
 * offset and stride read from its variable, none assumed), every field
 * found with its value, a static's address taken, not its offset; the
 * Method* slot from interpreter_frame_last_sp_offset; a table without a
 * wanted field, or one not filled in (a JVM starting), refused. A real
 * JVM's tables: trace_javaframes (libjvm.so's offset variables are in
 * .bss, filled in as the JVM starts, so its file alone does not tell). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "jvmlayout.h"

/* A vmStructs entry, fields in another order than HotSpot's, padded. */
struct sentry {
	uint64_t offset;
	int32_t is_static;
	int32_t pad;
	const char *field;
	uint64_t address;
	const char *type;
	const char *type_string;
	uint64_t more;
};

struct tentry {
	uint64_t size;
	const char *name;
	const char *super;
};

struct centry {
	int32_t value;
	int32_t pad;
	const char *name;
};

static int32_t the_code; /* stands for AbstractInterpreter::_code */

static struct sentry structs[] = {
	{ 0, 1, 0, "_code", (uint64_t)(uintptr_t)&the_code,
	  "AbstractInterpreter", "StubQueue*", 0 },
	{ 8, 0, 0, "_stub_buffer", 0, "StubQueue", "address", 0 },
	{ 20, 0, 0, "_buffer_limit", 0, "StubQueue", "int", 0 },
	{ 8, 0, 0, "_constMethod", 0, "Method", "ConstMethod*", 0 },
	{ 72, 0, 0, "_code", 0, "Method", "CompiledMethod*", 0 },
	{ 8, 0, 0, "_constants", 0, "ConstMethod", "ConstantPool*", 0 },
	{ 34, 0, 0, "_name_index", 0, "ConstMethod", "u2", 0 },
	{ 36, 0, 0, "_signature_index", 0, "ConstMethod", "u2", 0 },
	{ 24, 0, 0, "_pool_holder", 0, "ConstantPool", "InstanceKlass*", 0 },
	{ 24, 0, 0, "_name", 0, "Klass", "Symbol*", 0 },
	{ 408, 0, 0, "_methods", 0, "InstanceKlass", "Array<Method*>*", 0 },
	{ 8, 0, 0, "_data", 0, "Array<Method*>", NULL, 0 },
	{ 4, 0, 0, "_length", 0, "Symbol", "u2", 0 },
	{ 6, 0, 0, "_body", 0, "Symbol", NULL, 0 },
	{ 28, 0, 0, "_flags", 0, "ConstMethod", "u2", 0 },
	{ 32, 0, 0, "_code_size", 0, "ConstMethod", "u2", 0 },
	{ 54, 0, 0, "_source_file_name_index", 0, "ConstantPool", "u2", 0 },
	{ 0 },
};

static struct tentry types[] = {
	{ 88, "Method", NULL },
	{ 72, "ConstantPool", "Metadata" },
	{ 48, "ConstMethod", "MetaspaceObj" },
	{ 0 },
};

static struct centry ints[] = {
	{ -1, 0, "frame::interpreter_frame_sender_sp_offset" },
	{ -2, 0, "frame::interpreter_frame_last_sp_offset" },
	{ 1, 0, "ConstMethod::_has_linenumber_table" },
	{ 0 },
};

/* The variables libjvm.so exports, as this test's own. */
static uint64_t v_structs, v_types, v_ints;
static uint64_t s_stride = sizeof(struct sentry),
		s_type = offsetof(struct sentry, type),
		s_field = offsetof(struct sentry, field),
		s_static = offsetof(struct sentry, is_static),
		s_offset = offsetof(struct sentry, offset),
		s_address = offsetof(struct sentry, address);
static uint64_t t_stride = sizeof(struct tentry),
		t_name = offsetof(struct tentry, name),
		t_size = offsetof(struct tentry, size);
static uint64_t c_stride = sizeof(struct centry),
		c_name = offsetof(struct centry, name),
		c_value = offsetof(struct centry, value);

static uint64_t sym(const char *name, void *ctx)
{
	static const struct {
		const char *name;
		uint64_t *var;
	} vars[] = {
		{ "gHotSpotVMStructs", &v_structs },
		{ "gHotSpotVMTypes", &v_types },
		{ "gHotSpotVMIntConstants", &v_ints },
		{ "gHotSpotVMStructEntryArrayStride", &s_stride },
		{ "gHotSpotVMStructEntryTypeNameOffset", &s_type },
		{ "gHotSpotVMStructEntryFieldNameOffset", &s_field },
		{ "gHotSpotVMStructEntryIsStaticOffset", &s_static },
		{ "gHotSpotVMStructEntryOffsetOffset", &s_offset },
		{ "gHotSpotVMStructEntryAddressOffset", &s_address },
		{ "gHotSpotVMTypeEntryArrayStride", &t_stride },
		{ "gHotSpotVMTypeEntryTypeNameOffset", &t_name },
		{ "gHotSpotVMTypeEntrySizeOffset", &t_size },
		{ "gHotSpotVMIntConstantEntryArrayStride", &c_stride },
		{ "gHotSpotVMIntConstantEntryNameOffset", &c_name },
		{ "gHotSpotVMIntConstantEntryValueOffset", &c_value },
	};

	(void)ctx;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (!strcmp(vars[i].name, name))
			return (uint64_t)(uintptr_t)vars[i].var;
	return 0;
}

static int setup(void **state)
{
	(void)state;
	v_structs = (uint64_t)(uintptr_t)structs;
	v_types = (uint64_t)(uintptr_t)types;
	v_ints = (uint64_t)(uintptr_t)ints;
	return 0;
}

static void test_read(void **state)
{
	struct jvmlayout l;

	(void)state;
	assert_int_equal(jvmlayout_read(getpid(), sym, NULL, &l), 0);
	assert_int_equal(l.interp_code, (uint64_t)(uintptr_t)&the_code);
	assert_int_equal(l.stubq_buffer, 8);
	assert_int_equal(l.stubq_limit, 20);
	assert_int_equal(l.method_const, 8);
	assert_int_equal(l.cm_constants, 8);
	assert_int_equal(l.cm_name, 34);
	assert_int_equal(l.cm_sig, 36);
	assert_int_equal(l.cp_holder, 24);
	assert_int_equal(l.cp_size, 72);
	assert_int_equal(l.klass_name, 24);
	assert_int_equal(l.ik_methods, 408);
	assert_int_equal(l.array_data, 8);
	assert_int_equal(l.sym_length, 4);
	assert_int_equal(l.sym_body, 6);
	assert_int_equal(l.cm_flags, 28);
	assert_int_equal(l.cm_code_size, 32);
	assert_int_equal(l.cm_size, 48);
	assert_int_equal(l.cm_has_lines, 1);
	assert_int_equal(l.cp_source, 54);
	assert_int_equal(l.frame_method, -24);
	assert_int_equal(l.frame_bcp, -64);
}

static void test_missing_field(void **state)
{
	struct sentry keep = structs[10]; /* InstanceKlass::_methods */
	struct jvmlayout l;

	(void)state;
	structs[10].field = "_default_methods";
	assert_int_equal(jvmlayout_read(getpid(), sym, NULL, &l), -ENOENT);
	structs[10] = keep;
}

static void test_not_filled_in(void **state)
{
	struct jvmlayout l;

	(void)state;
	v_structs = 0;
	assert_int_equal(jvmlayout_read(getpid(), sym, NULL, &l), -EAGAIN);
	setup(NULL);
	s_stride = 0;
	assert_int_equal(jvmlayout_read(getpid(), sym, NULL, &l), -EAGAIN);
	s_stride = sizeof(struct sentry);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_read, setup),
		cmocka_unit_test_setup(test_missing_field, setup),
		cmocka_unit_test_setup(test_not_filled_in, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
