// SPDX-License-Identifier: MIT
/*
 * v8meta — V8's postmortem metadata read from its binary; see v8meta.h.
 */
#include "v8meta.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "elfobj.h"
#include "log.h"

/* One field of struct v8meta and the v8dbg_ symbol that gives it: its
 * names, without "v8dbg_", '|' between a version's and a later one's
 * (V8 12, Node 22, spells a field's type Tagged_Object_ where V8 11 has
 * Object, and names script_or_debug_info script; V8 13, Node 24, types
 * name_or_scope_info Tagged_NameOrScopeInfoT_). */
struct v8field {
	const char *sym;
	size_t at; /* offsetof(struct v8meta, ...) */
};

#define F(sym, field)                               \
	{                                           \
		sym, offsetof(struct v8meta, field) \
	}

static const struct v8field FIELDS[] = {
	F("off_fp_function", fp_function),
	F("off_fp_context_or_frame_type", fp_context),
	F("HeapObjectTag", heap_tag),
	F("HeapObjectTagMask", heap_tag_mask),
	F("class_HeapObject__map__Map", obj_map),
	F("class_Map__instance_type__uint16_t", map_type),
	F("class_JSFunction__shared__SharedFunctionInfo", fn_shared),
	F("class_SharedFunctionInfo__name_or_scope_info__Object"
	  "|class_SharedFunctionInfo__name_or_scope_info__Tagged_Object_"
	  "|class_SharedFunctionInfo__name_or_scope_info__"
	  "Tagged_NameOrScopeInfoT_",
	  sfi_name),
	F("class_SharedFunctionInfo__script_or_debug_info__HeapObject"
	  "|class_SharedFunctionInfo__script__Tagged_HeapObject_",
	  sfi_script),
	F("class_Script__name__Object", script_name),
	F("class_Script__source__Object", script_source),
	F("class_Script__line_ends__Object", script_ends),
	F("class_String__length__int32_t", str_len),
	F("class_SeqOneByteString__chars__char", seq1_chars),
	F("class_SeqTwoByteString__chars__char", seq2_chars),
	F("class_ConsString__first__String", cons_first),
	F("class_ConsString__second__String", cons_second),
	F("class_ThinString__actual__String", thin_actual),
	F("class_SlicedString__parent__String", sliced_parent),
	F("class_SlicedString__offset__SMI", sliced_offset),
	F("class_FixedArrayBase__length__SMI", arr_len),
	F("class_FixedArray__data__uintptr_t", arr_data),
	F("class_UncompiledData__start_position__int32_t", unc_start),
	F("type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE", t_sfi),
	F("type_Script__SCRIPT_TYPE", t_script),
	F("type_ScopeInfo__SCOPE_INFO_TYPE", t_scope),
	F("type_FixedArray__FIXED_ARRAY_TYPE", t_array),
	F("FirstNonstringType", t_first_nonstring),
	F("type_UncompiledDataWithoutPreparseData__"
	  "UNCOMPILED_DATA_WITHOUT_PREPARSE_DATA_TYPE",
	  t_unc[0]),
	F("type_UncompiledDataWithPreparseData__"
	  "UNCOMPILED_DATA_WITH_PREPARSE_DATA_TYPE",
	  t_unc[1]),
	F("type_UncompiledDataWithoutPreparseDataWithJob__"
	  "UNCOMPILED_DATA_WITHOUT_PREPARSE_DATA_WITH_JOB_TYPE",
	  t_unc[2]),
	F("type_UncompiledDataWithPreparseDataAndJob__"
	  "UNCOMPILED_DATA_WITH_PREPARSE_DATA_AND_JOB_TYPE",
	  t_unc[3]),
	F("StringRepresentationMask", str_repr_mask),
	F("SeqStringTag", str_seq),
	F("ConsStringTag", str_cons),
	F("ThinStringTag", str_thin),
	F("SlicedStringTag", str_sliced),
	F("StringEncodingMask", str_enc_mask),
	F("OneByteStringTag", str_one_byte),
	F("scopeinfo_idx_first_vars", scope_first_vars),
	F("scopeinfo_idx_ncontextlocals", scope_ncontextlocals),
};

/* Those of a function's start in its script before it is compiled
 * (struct v8meta's unc): V8 12 keeps SharedFunctionInfo's function data
 * in fields its metadata does not name. */
static const struct v8field UNC_FIELDS[] = {
	F("class_SharedFunctionInfo__function_data__Object", sfi_data),
};

/* Those of optimized code's inlined functions (struct v8meta's inl). */
static const struct v8field INLINE_FIELDS[] = {
	F("type_Code__CODE_TYPE", t_code),
	F("type_InstructionStream__INSTRUCTION_STREAM_TYPE", t_istream),
	F("type_ByteArray__BYTE_ARRAY_TYPE", t_bytes),
	F("type_WeakFixedArray__WEAK_FIXED_ARRAY_TYPE", t_weak_array),
	F("class_Code__deoptimization_data__FixedArray", code_deopt),
	F("class_Code__source_position_table__ByteArray", code_positions),
	F("class_InstructionStream__instruction_start__uintptr_t",
	  istream_start),
	F("DeoptimizationDataInlinedFunctionCountIndex", dd_count),
	F("DeoptimizationDataLiteralArrayIndex", dd_literals),
	F("DeoptimizationDataSharedFunctionInfoIndex", dd_sfi),
	F("DeoptimizationDataInliningPositionsIndex", dd_inlining),
};

/* The int that v8dbg_<name> holds in obj into *v (0 for one in .bss),
 * name the first of its '|'-separated names that obj has. 0 or -ENOENT
 * (none of them). */
static int number(struct elfobj *obj, const char *name, int32_t *v)
{
	char sym[160];
	uint64_t at;
	int err;

	for (;;) {
		size_t len = strcspn(name, "|");

		snprintf(sym, sizeof(sym), "v8dbg_%.*s", (int)len, name);
		if (!elfobj_symbol_addr(obj, sym, &at))
			break;
		if (!name[len])
			return -ENOENT;
		name += len + 1;
	}
	err = elfobj_read(obj, at, v, sizeof(*v));
	if (err == -ENOENT)
		*v = 0; /* no bytes in the file: .bss, zero */
	return err == -EIO ? -ENOENT : 0;
}

/* The fields of table t (n of them) of obj into m: whether all found
 * (the first missing logged, why: its consequence). */
static bool read_fields(struct elfobj *obj, const struct v8field *t, size_t n,
			struct v8meta *m, const char *why)
{
	for (size_t i = 0; i < n; i++)
		if (number(obj, t[i].sym, (int32_t *)((char *)m + t[i].at))) {
			int len = (int)strcspn(t[i].sym, "|");

			log_msg(LOG_DEBUG, "%s: no v8dbg_%.*s: %s",
				elfobj_name(obj), len, t[i].sym, why);
			snprintf(m->why, sizeof(m->why),
				 "its metadata lacks v8dbg_%.*s", len,
				 t[i].sym);
			return false;
		}
	return true;
}

int v8meta_read(struct elfobj *obj, struct v8meta *m)
{
	int32_t tagged = 0, ptr = 0, smi_shift, smi_tag_size = 1;

	if (number(obj, "off_fp_function", &m->fp_function))
		return -ENOENT;
	if (number(obj, "TaggedSize", &tagged) ||
	    number(obj, "SystemPointerSize", &ptr) || tagged != 8 || ptr != 8 ||
	    number(obj, "SmiShiftSize", &smi_shift)) {
		snprintf(m->why, sizeof(m->why),
			 "pointer compression, or not 64-bit (v8dbg_TaggedSize "
			 "%d, v8dbg_SystemPointerSize %d)",
			 tagged, ptr);
		log_msg(LOG_DEBUG,
			"%s: V8 with pointer compression (or not 64-bit): "
			"its frames are not read",
			elfobj_name(obj));
		return -ENOTSUP;
	}
	m->smi_shift = (uint32_t)(smi_shift + smi_tag_size);
	if (!read_fields(obj, FIELDS, sizeof(FIELDS) / sizeof(FIELDS[0]), m,
			 "its frames are not read"))
		return -ENOTSUP;
	/* V8 13's ScopeInfo holds other Smis where V8 12's has the start
	 * and end positions that scope_scan() looks for: a line of
	 * Node 24's functions read 1:2 (their names are right) */
	m->scope_pos = number(obj,
			      "class_SharedFunctionInfo__name_or_scope_info__"
			      "Tagged_NameOrScopeInfoT_",
			      &(int32_t){ 0 }) != 0;
	m->unc = read_fields(obj, UNC_FIELDS,
			     sizeof(UNC_FIELDS) / sizeof(UNC_FIELDS[0]), m,
			     "a function not compiled yet has no line");
	m->inl = read_fields(obj, INLINE_FIELDS,
			     sizeof(INLINE_FIELDS) / sizeof(INLINE_FIELDS[0]),
			     m, "inlined functions are not named");
	if (m->fp_function >= 0 || m->fp_context >= 0 ||
	    m->heap_tag_mask == 0) {
		snprintf(m->why, sizeof(m->why),
			 "a frame layout it does not know (function at fp%+d, "
			 "context at fp%+d)",
			 m->fp_function, m->fp_context);
		return -ENOTSUP;
	}
	return 0;
}
