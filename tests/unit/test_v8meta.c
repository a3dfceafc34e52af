// SPDX-License-Identifier: MIT
/* Unit tests of V8's metadata reader (engine/name/v8meta.h) on the node
 * binary installed (/usr/bin/node, Debian's Node 20: V8 11.3, no pointer
 * compression): every field found, the values V8's frames and objects
 * are known to have on x86-64 (the function and context slots below the
 * frame pointer, tag 1 of heap object pointers under mask 3, 32-bit Smis
 * in the upper half, the map at an object's start: a .bss symbol, read
 * as 0), field offsets of pointer size within an object's first bytes,
 * instance types told apart; what optimized code's inlined functions
 * need found too (Code's fields, DeoptimizationData's distinct slots);
 * a file without the metadata is no V8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>
#include <errno.h>

#include "elfobj.h"
#include "v8meta.h"

#define NODE "/usr/bin/node"

static void test_node(void **state)
{
	struct elfobj *obj;
	struct v8meta m;
	const uint32_t *fields[] = { &m.fn_shared,     &m.sfi_name,
				     &m.sfi_script,    &m.sfi_data,
				     &m.script_name,   &m.script_source,
				     &m.script_ends,   &m.cons_first,
				     &m.cons_second,   &m.thin_actual,
				     &m.sliced_parent, &m.arr_data };

	(void)state;
	if (access(NODE, R_OK))
		skip(); /* nodejs not installed (scripts/setup) */
	obj = elfobj_open(NODE);
	assert_non_null(obj);
	assert_int_equal(v8meta_read(obj, &m), 0);
	assert_int_equal(m.fp_function, -16);
	assert_int_equal(m.fp_context, -8);
	assert_int_equal(m.heap_tag, 1);
	assert_int_equal(m.heap_tag_mask, 3);
	assert_int_equal(m.smi_shift, 32);
	assert_int_equal(m.obj_map, 0); /* v8dbg_class_HeapObject__map__Map:
					   in .bss */
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		assert_true(*fields[i] >= 8 && *fields[i] < 256);
		assert_int_equal(*fields[i] % 8, 0);
	}
	assert_true(m.map_type > 0 && m.map_type < 32);
	assert_true(m.str_len > 0 && m.seq1_chars > m.str_len &&
		    m.seq2_chars > m.str_len);
	assert_true(m.t_sfi != m.t_script && m.t_sfi != m.t_scope &&
		    m.t_script != m.t_scope && m.t_array != m.t_sfi);
	assert_true(m.t_first_nonstring > 0 && m.t_sfi >= m.t_first_nonstring &&
		    m.t_script >= m.t_first_nonstring);
	assert_true(m.str_repr_mask && m.str_enc_mask &&
		    (m.str_cons & ~m.str_repr_mask) == 0 &&
		    m.str_cons != m.str_seq && m.str_thin != m.str_seq);
	assert_true(m.scope_first_vars > m.scope_ncontextlocals);
	assert_true(m.inl);
	assert_true(m.t_code != m.t_istream && m.t_bytes != m.t_array &&
		    m.t_weak_array != m.t_array && m.t_code != m.t_sfi);
	assert_true(m.code_deopt >= 8 && m.code_deopt % 8 == 0 &&
		    m.code_positions > m.code_deopt &&
		    m.code_positions % 8 == 0);
	assert_true(m.istream_start >= 16 && m.istream_start % 8 == 0);
	assert_true(m.dd_count != m.dd_literals && m.dd_sfi != m.dd_inlining &&
		    m.dd_literals != m.dd_sfi && m.dd_inlining < 32);
	elfobj_free(obj);
}

static void test_not_v8(void **state)
{
	struct elfobj *obj = elfobj_open("/proc/self/exe");
	struct v8meta m;

	(void)state;
	assert_non_null(obj);
	assert_int_equal(v8meta_read(obj, &m), -ENOENT);
	elfobj_free(obj);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node),
		cmocka_unit_test(test_not_v8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
