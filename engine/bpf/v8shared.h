/* SPDX-License-Identifier: MIT */
/*
 * v8shared.h — what the user stack walker (bpf/unwind.bpf.h) needs of a
 * V8 process (Node) to take each JavaScript frame's function, shared
 * with user space (engine/attach/objects.c writes it, engine/name/
 * v8frame.c names what the walker took): the same rules as probetop.h,
 * fixed-width fields, explicit padding, no pointers, no includes.
 */
#ifndef PROBETOP_V8SHARED_H
#define PROBETOP_V8SHARED_H

#define PT_V8_PROCS 64 /* V8 processes whose JavaScript frames are read */

/*
 * v8procs: by tgid, the offsets of V8's postmortem metadata (the node
 * binary's v8dbg_* symbols, engine/name/v8meta.h) the walker uses. A
 * frame walked by its frame pointer is a JavaScript frame when the slot
 * at fp + fp_context holds a heap object (a context: a tagged pointer,
 * its low bits heap_tag under heap_tag_mask; a typed frame keeps a Smi
 * marker there) and fp + fp_function one too (the JSFunction); the
 * walker keeps the JSFunction's SharedFunctionInfo (the tagged pointer
 * at function - heap_tag + fn_shared), if it is tagged, beside the
 * frame (pt_stack_ips.fn).
 */
struct pt_v8proc {
	__s32 fp_context; /* v8dbg_off_fp_context_or_frame_type */
	__s32 fp_function; /* v8dbg_off_fp_function */
	__u32 fn_shared; /* v8dbg_class_JSFunction__shared__... */
	__u32 heap_tag, heap_tag_mask; /* v8dbg_HeapObjectTag(Mask) */
	__u32 pad;
};

#endif
