// SPDX-License-Identifier: MIT
/*
 * jvmlayout — a HotSpot JVM's layout read from its own tables; see
 * jvmlayout.h.
 */
#include "jvmlayout.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "pymem.h"

#define ENTRIES_MAX 20000 /* entries of a table read at most */
#define NAME_MAX_LEN 64 /* bytes of a type or field name compared */

/* What is wanted of a table: a name (type and field, or one name) and
 * where its value goes. */
struct want {
	const char *type, *field;
	uint64_t value;
	bool found;
};

/* One table: where its array is, and its entries' layout. */
struct table {
	uint64_t at; /* the first entry */
	uint64_t stride;
	uint64_t name_off, field_off; /* field_off: ~0 when one name */
	uint64_t value_off;
	uint32_t value_size;
	uint64_t static_off, addr_off; /* vmStructs: a static's flag and
					  address; ~0 in the others */
};

/* The value of the uint64_t variable libjvm.so names name; 0 if none or
 * unreadable. */
static uint64_t var(pid_t pid, jvmlayout_sym_fn sym, void *ctx,
		    const char *name)
{
	uint64_t at = sym(name, ctx);

	return at ? pymem_ptr(pid, at) : 0;
}

/* The C string at addr in pid into buf (n bytes, NUL-terminated: a
 * longer one cut); 0, or -1 if unreadable. A string may end just before
 * unmapped memory: read byte by byte then. */
static int peek_str(pid_t pid, uint64_t addr, char *buf, size_t n)
{
	if (!addr)
		return -1;
	if (pymem_peek(pid, addr, buf, n - 1)) {
		size_t i = 0;

		for (; i < n - 1; i++)
			if (pymem_peek(pid, addr + i, buf + i, 1) || !buf[i])
				break;
		if (i < n - 1 && buf[i])
			return -1;
		if (!i)
			return -1;
	}
	buf[n - 1] = '\0';
	return 0;
}

/* The names of entry at in want: the value of each it matches. 0, or 1
 * at the table's end (a NULL name). */
static int match(pid_t pid, const struct table *t, uint64_t at, struct want *w,
		 size_t nw)
{
	char name[NAME_MAX_LEN], field[NAME_MAX_LEN] = "";
	uint64_t np = pymem_ptr(pid, at + t->name_off);

	if (!np || peek_str(pid, np, name, sizeof(name)))
		return 1;
	if (t->field_off != ~0ull &&
	    peek_str(pid, pymem_ptr(pid, at + t->field_off), field,
		     sizeof(field)))
		field[0] = '\0'; /* a type's entry, or none */
	for (size_t i = 0; i < nw; i++) {
		uint64_t v = 0, off = t->value_off;
		int32_t is_static = 0;

		if (w[i].found || strcmp(w[i].type, name) ||
		    (w[i].field && strcmp(w[i].field, field)))
			continue;
		if (t->static_off != ~0ull &&
		    pymem_peek(pid, at + t->static_off, &is_static, 4))
			return 1;
		if (is_static)
			off = t->addr_off;
		if (pymem_peek(pid, at + off, &v, t->value_size))
			return 1;
		if (t->value_size == 4)
			v = (uint64_t)(int64_t)(int32_t)v; /* signed */
		w[i].value = v;
		w[i].found = true;
	}
	return 0;
}

/* Every wanted name of table t found: 0; else -EAGAIN (the table not
 * there yet) or -ENOENT (a name not in it). */
static int scan(pid_t pid, const struct table *t, struct want *w, size_t nw)
{
	size_t left = nw;

	if (!t->at || !t->stride)
		return -EAGAIN;
	for (uint64_t i = 0; i < ENTRIES_MAX; i++)
		if (match(pid, t, t->at + i * t->stride, w, nw))
			break;
	for (size_t i = 0; i < nw; i++)
		left -= w[i].found;
	return left ? -ENOENT : 0;
}

/* The vmStructs table: a field's offset, a static's address. */
static int scan_structs(pid_t pid, jvmlayout_sym_fn sym, void *ctx,
			struct want *w, size_t nw)
{
	struct table t = {
		.at = var(pid, sym, ctx, "gHotSpotVMStructs"),
		.stride =
			var(pid, sym, ctx, "gHotSpotVMStructEntryArrayStride"),
		.name_off = var(pid, sym, ctx,
				"gHotSpotVMStructEntryTypeNameOffset"),
		.field_off = var(pid, sym, ctx,
				 "gHotSpotVMStructEntryFieldNameOffset"),
		.value_off =
			var(pid, sym, ctx, "gHotSpotVMStructEntryOffsetOffset"),
		.value_size = 8,
		.static_off = var(pid, sym, ctx,
				  "gHotSpotVMStructEntryIsStaticOffset"),
		.addr_off = var(pid, sym, ctx,
				"gHotSpotVMStructEntryAddressOffset"),
	};

	return scan(pid, &t, w, nw);
}

/* The vmTypes table: a type's size. */
static int scan_types(pid_t pid, jvmlayout_sym_fn sym, void *ctx,
		      struct want *w, size_t nw)
{
	struct table t = {
		.at = var(pid, sym, ctx, "gHotSpotVMTypes"),
		.stride = var(pid, sym, ctx, "gHotSpotVMTypeEntryArrayStride"),
		.name_off =
			var(pid, sym, ctx, "gHotSpotVMTypeEntryTypeNameOffset"),
		.field_off = ~0ull,
		.value_off =
			var(pid, sym, ctx, "gHotSpotVMTypeEntrySizeOffset"),
		.value_size = 8,
		.static_off = ~0ull,
		.addr_off = ~0ull,
	};

	return scan(pid, &t, w, nw);
}

/* The vmIntConstants table: a constant's value. */
static int scan_ints(pid_t pid, jvmlayout_sym_fn sym, void *ctx, struct want *w,
		     size_t nw)
{
	struct table t = {
		.at = var(pid, sym, ctx, "gHotSpotVMIntConstants"),
		.stride = var(pid, sym, ctx,
			      "gHotSpotVMIntConstantEntryArrayStride"),
		.name_off = var(pid, sym, ctx,
				"gHotSpotVMIntConstantEntryNameOffset"),
		.field_off = ~0ull,
		.value_off = var(pid, sym, ctx,
				 "gHotSpotVMIntConstantEntryValueOffset"),
		.value_size = 4,
		.static_off = ~0ull,
		.addr_off = ~0ull,
	};

	return scan(pid, &t, w, nw);
}

int jvmlayout_read(pid_t pid, jvmlayout_sym_fn sym, void *ctx,
		   struct jvmlayout *l)
{
	struct want f[] = {
		{ .type = "AbstractInterpreter", .field = "_code" },
		{ .type = "StubQueue", .field = "_stub_buffer" },
		{ .type = "StubQueue", .field = "_buffer_limit" },
		{ .type = "Method", .field = "_constMethod" },
		{ .type = "ConstMethod", .field = "_constants" },
		{ .type = "ConstMethod", .field = "_name_index" },
		{ .type = "ConstMethod", .field = "_signature_index" },
		{ .type = "ConstantPool", .field = "_pool_holder" },
		{ .type = "Klass", .field = "_name" },
		{ .type = "InstanceKlass", .field = "_methods" },
		{ .type = "Array<Method*>", .field = "_data" },
		{ .type = "Symbol", .field = "_length" },
		{ .type = "Symbol", .field = "_body" },
		{ .type = "ConstMethod", .field = "_flags" },
		{ .type = "ConstMethod", .field = "_code_size" },
		{ .type = "ConstantPool", .field = "_source_file_name_index" },
	};
	struct want ty[] = { { .type = "ConstantPool" },
			     { .type = "ConstMethod" } };
	struct want c[] = {
		{ .type = "frame::interpreter_frame_last_sp_offset" },
		{ .type = "ConstMethod::_has_linenumber_table" },
	};

	int err = scan_structs(pid, sym, ctx, f, sizeof(f) / sizeof(f[0]));

	if (!err)
		err = scan_types(pid, sym, ctx, ty, 2);
	if (!err)
		err = scan_ints(pid, sym, ctx, c, 2);
	if (err)
		return err;
	*l = (struct jvmlayout){
		.interp_code = f[0].value,
		.stubq_buffer = (uint32_t)f[1].value,
		.stubq_limit = (uint32_t)f[2].value,
		.method_const = (uint32_t)f[3].value,
		.cm_constants = (uint32_t)f[4].value,
		.cm_name = (uint32_t)f[5].value,
		.cm_sig = (uint32_t)f[6].value,
		.cp_holder = (uint32_t)f[7].value,
		.cp_size = (uint32_t)ty[0].value,
		.klass_name = (uint32_t)f[8].value,
		.ik_methods = (uint32_t)f[9].value,
		.array_data = (uint32_t)f[10].value,
		.sym_length = (uint32_t)f[11].value,
		.sym_body = (uint32_t)f[12].value,
		.cm_flags = (uint32_t)f[13].value,
		.cm_code_size = (uint32_t)f[14].value,
		.cm_size = (uint32_t)ty[1].value,
		.cm_has_lines = (uint32_t)c[1].value,
		.cp_source = (uint32_t)f[15].value,
		.frame_method = ((int32_t)c[0].value - 1) * 8,
		.frame_bcp = ((int32_t)c[0].value - 6) * 8,
		.frame_sender = ((int32_t)c[0].value + 1) * 8,
	};
	return l->interp_code ? 0 : -ENOENT;
}

int jvmlayout_read_code(pid_t pid, jvmlayout_sym_fn sym, void *ctx,
			struct jvmcodelayout *l)
{
	struct want f[] = {
		{ .type = "CodeCache", .field = "_heaps" },
		{ .type = "GrowableArrayBase", .field = "_len" },
		{ .type = "GrowableArray<int>", .field = "_data" },
		{ .type = "CodeHeap", .field = "_memory" },
		{ .type = "CodeHeap", .field = "_log2_segment_size" },
		{ .type = "VirtualSpace", .field = "_low_boundary" },
		{ .type = "VirtualSpace", .field = "_high" },
		{ .type = "HeapBlock::Header", .field = "_length" },
		{ .type = "HeapBlock::Header", .field = "_used" },
		{ .type = "CodeBlob", .field = "_frame_complete_offset" },
		{ .type = "CodeBlob", .field = "_frame_size" },
		{ .type = "CodeBlob", .field = "_code_begin" },
		{ .type = "CodeBlob", .field = "_code_end" },
		{ .type = "CodeBlob", .field = "_name" },
		{ .type = "CompiledMethod", .field = "_method" },
		{ .type = "CompiledMethod", .field = "_scopes_data_begin" },
		{ .type = "nmethod", .field = "_scopes_pcs_offset" },
		{ .type = "nmethod", .field = "_dependencies_offset" },
		{ .type = "nmethod", .field = "_metadata_offset" },
		{ .type = "PcDesc", .field = "_pc_offset" },
		{ .type = "PcDesc", .field = "_scope_decode_offset" },
	};
	struct want ty[] = { { .type = "HeapBlock" }, { .type = "PcDesc" } };
	int err = scan_structs(pid, sym, ctx, f, sizeof(f) / sizeof(f[0]));

	if (!err)
		err = scan_types(pid, sym, ctx, ty, 2);
	if (err)
		return err;
	*l = (struct jvmcodelayout){
		.heaps = f[0].value,
		.array_len = (uint32_t)f[1].value,
		.array_data = (uint32_t)f[2].value,
		.heap_memory = (uint32_t)f[3].value,
		.heap_log2_seg = (uint32_t)f[4].value,
		.vs_low = (uint32_t)f[5].value,
		.vs_high = (uint32_t)f[6].value,
		.block_length = (uint32_t)f[7].value,
		.block_used = (uint32_t)f[8].value,
		.blob_complete = (uint32_t)f[9].value,
		.blob_frame = (uint32_t)f[10].value,
		.blob_begin = (uint32_t)f[11].value,
		.blob_end = (uint32_t)f[12].value,
		.blob_name = (uint32_t)f[13].value,
		.nm_method = (uint32_t)f[14].value,
		.nm_scopes_data = (uint32_t)f[15].value,
		.nm_pcs = (uint32_t)f[16].value,
		.nm_deps = (uint32_t)f[17].value,
		.nm_meta = (uint32_t)f[18].value,
		.pc_pc = (uint32_t)f[19].value,
		.pc_scope = (uint32_t)f[20].value,
		.block_size = (uint32_t)ty[0].value,
		.pcdesc_size = (uint32_t)ty[1].value,
	};
	return l->heaps && l->block_size ? 0 : -ENOENT;
}
