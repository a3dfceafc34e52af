/* SPDX-License-Identifier: MIT */
/*
 * v8meta — what V8 publishes about its own layout in the binary that
 * holds it (Node's node, or a libnode): the postmortem metadata, one
 * `v8dbg_NAME` data symbol per number (an int whose initial value is the
 * number; one in .bss is 0), read from the file. Frame slots below the
 * frame pointer (off_fp_*), the heap object and Smi tags, class field
 * offsets (class_CLASS__FIELD__TYPE), instance types
 * (type_CLASS__TYPE_NAME), the string representation and encoding
 * tags, ScopeInfo's fixed slots (scopeinfo_idx_*).
 *
 * What optimized code needs to name the functions inlined into it
 * (v8inline.h) is read too, if all there (else m->inl is false and
 * frames are named by their own function alone).
 *
 * Only builds without pointer compression are read (8-byte tagged
 * values: Node's official and Debian's builds); with it, or with a
 * field missing, the binary is refused (-ENOTSUP) and its frames stay
 * what the symbolizer makes of them.
 */
#ifndef PROBETOP_V8META_H
#define PROBETOP_V8META_H

#include <stdbool.h>
#include <stdint.h>

struct elfobj;

struct v8meta {
	int32_t fp_function, fp_context; /* frame slots, from fp */
	uint32_t heap_tag, heap_tag_mask; /* a heap object's pointer */
	uint32_t smi_shift; /* a Smi's value: raw >> smi_shift */
	/* field offsets (from the object's untagged start) */
	uint32_t obj_map, map_type; /* HeapObject::map, Map::instance_type */
	uint32_t fn_shared; /* JSFunction::shared */
	uint32_t sfi_name, sfi_script; /* name_or_scope_info,
					  script_or_debug_info (V8 12:
					  script) */
	bool unc; /* sfi_data, SharedFunctionInfo::function_data (none
		     named in V8 12's metadata): a function's start before
		     it is compiled, from its UncompiledData */
	uint32_t sfi_data;
	uint32_t script_name, script_source, script_ends;
	uint32_t str_len, seq1_chars, seq2_chars;
	uint32_t cons_first, cons_second, thin_actual;
	uint32_t sliced_parent, sliced_offset;
	uint32_t arr_len, arr_data; /* FixedArray's length and slots */
	uint32_t unc_start; /* UncompiledData::start_position */
	/* instance types */
	uint32_t t_sfi, t_script, t_scope, t_array, t_first_nonstring;
	uint32_t t_unc[4]; /* the UncompiledData kinds */
	/* a string's instance type: representation and encoding */
	uint32_t str_repr_mask, str_seq, str_cons, str_thin, str_sliced;
	uint32_t str_enc_mask, str_one_byte;
	/* ScopeInfo: the slot its variables begin at, the slot of the
	 * count of its context locals (each two slots after it) */
	uint32_t scope_first_vars, scope_ncontextlocals;
	bool scope_pos; /* its start position follows them (not V8 13) */
	/* Optimized code's inlined functions (v8inline.h), if inl: all of
	 * these found. Instance types of Code, InstructionStream,
	 * ByteArray, WeakFixedArray; Code's deoptimization_data and
	 * source_position_table, an InstructionStream's first instruction
	 * (offsets); DeoptimizationData's slots: the count of inlined
	 * functions, the literals, the function's own SharedFunctionInfo,
	 * the inlining positions. */
	bool inl;
	uint32_t t_code, t_istream, t_bytes, t_weak_array;
	uint32_t code_deopt, code_positions, istream_start;
	uint32_t dd_count, dd_literals, dd_sfi, dd_inlining;
	char why[96]; /* -ENOTSUP: why its frames are not read */
};

/* The metadata of obj into m. 0, -ENOENT (obj is no V8: no
 * v8dbg_off_fp_function), -ENOTSUP (pointer compression, or a field
 * missing: m->why says which, and it is logged at LOG_DEBUG). */
int v8meta_read(struct elfobj *obj, struct v8meta *m);

#endif
