/* SPDX-License-Identifier: MIT */
/*
 * jvmlayout — the offsets a HotSpot JVM's interpreted frames are named
 * by, read from the tables HotSpot publishes about itself (the
 * Serviceability Agent's): gHotSpotVMStructs (a field's offset, or a
 * static's address, by type and field name), gHotSpotVMTypes (a type's
 * size) and gHotSpotVMIntConstants, each an array of entries whose
 * layout the gHotSpotVM*Entry*Offset and *ArrayStride variables give;
 * all dynamic symbols of libjvm.so, filled in when the JVM starts (the
 * offset variables are in .bss), so read from the process's memory
 * (process_vm_readv), once per JVM.
 *
 * Every offset comes from the tables, so the layout follows the JVM's
 * version; the one thing they do not give is where an interpreted
 * frame keeps its Method* and bytecode pointer: frame::
 * interpreter_frame_method_offset and _bcp_offset are not exported, and
 * are taken as interpreter_frame_last_sp_offset - 1 and - 6 (x86-64
 * frame_x86.hpp, JDK 9 to 21: method, mirror, mdp, cache, locals, bcp
 * below last_sp, the caller's stack pointer above it; JDK 8 had no
 * mirror slot). Tested on JDK 17.
 */
#ifndef PROBETOP_JVMLAYOUT_H
#define PROBETOP_JVMLAYOUT_H

#include <stdint.h>
#include <sys/types.h>

struct jvmlayout {
	uint64_t interp_code; /* &AbstractInterpreter::_code (a StubQueue*) */
	uint32_t stubq_buffer, stubq_limit; /* StubQueue::_stub_buffer, ... */
	uint32_t method_const; /* Method::_constMethod */
	uint32_t cm_constants, cm_name, cm_sig; /* ConstMethod:: _constants,
						   _name_index, _signature_index */
	uint32_t cm_flags, cm_code_size, cm_size; /* ConstMethod::_flags,
						     _code_size, its size (its
						     bytecodes follow it) */
	uint32_t cm_has_lines; /* ConstMethod::_has_linenumber_table */
	uint32_t cp_source; /* ConstantPool::_source_file_name_index */
	uint32_t cp_holder, cp_size; /* ConstantPool::_pool_holder, its size
					(the slots follow it) */
	uint32_t klass_name; /* Klass::_name */
	uint32_t ik_methods; /* InstanceKlass::_methods (Array<Method*>*) */
	uint32_t array_data; /* Array<Method*>::_data (_length at 0) */
	uint32_t sym_length, sym_body; /* Symbol::_length, ::_body */
	int32_t frame_method; /* bytes from an interpreted frame's rbp to
				 its Method* (-24 on x86-64) */
	int32_t frame_bcp; /* to its bytecode pointer (-64) */
	int32_t frame_sender; /* to its caller's stack pointer (-8) */
};

/* Where a JVM's code cache keeps its blobs and their frames (vmStructs:
 * CodeCache, CodeHeap, VirtualSpace, HeapBlock, CodeBlob). */
struct jvmcodelayout {
	uint64_t heaps; /* &CodeCache::_heaps (a GrowableArray<CodeHeap*>*) */
	uint32_t array_len, array_data; /* GrowableArrayBase::_len, ::_data */
	uint32_t heap_memory; /* CodeHeap::_memory (a VirtualSpace) */
	uint32_t heap_log2_seg; /* CodeHeap::_log2_segment_size */
	uint32_t vs_low, vs_high; /* VirtualSpace::_low_boundary, ::_high */
	uint32_t block_size; /* sizeof(HeapBlock): the blob follows it */
	uint32_t block_length, block_used; /* HeapBlock::Header::_length (in
					      segments), ::_used */
	uint32_t blob_complete; /* CodeBlob::_frame_complete_offset */
	uint32_t blob_frame; /* CodeBlob::_frame_size (words) */
	uint32_t blob_begin, blob_end; /* CodeBlob::_code_begin, _code_end */
	uint32_t blob_name; /* CodeBlob::_name ("nmethod" for a method's) */
	uint32_t nm_method; /* CompiledMethod::_method (a Method*) */
	uint32_t nm_scopes_data; /* CompiledMethod::_scopes_data_begin */
	uint32_t nm_pcs, nm_deps; /* nmethod::_scopes_pcs_offset, and
				     _dependencies_offset (where they end) */
	uint32_t nm_meta; /* nmethod::_metadata_offset */
	uint32_t pcdesc_size; /* sizeof(PcDesc) */
	uint32_t pc_pc, pc_scope; /* PcDesc::_pc_offset,
				     _scope_decode_offset */
};

/* The run-time address (in the process) of libjvm.so's symbol name, or
 * 0 if it has none. */
typedef uint64_t (*jvmlayout_sym_fn)(const char *name, void *ctx);

/*
 * The layout of the JVM in pid, from its tables, found through sym.
 * 0, -EAGAIN (a table or its offset variables not there or not filled
 * in yet: a JVM starting, or not HotSpot) or -ENOENT (a name this needs
 * not in them, or unreadable: another HotSpot than this knows).
 */
int jvmlayout_read(pid_t pid, jvmlayout_sym_fn sym, void *ctx,
		   struct jvmlayout *l);

/* The layout of the code cache of the JVM in pid, as jvmlayout_read():
 * 0, -EAGAIN or -ENOENT. */
int jvmlayout_read_code(pid_t pid, jvmlayout_sym_fn sym, void *ctx,
			struct jvmcodelayout *l);

#endif
