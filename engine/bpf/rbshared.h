/* SPDX-License-Identifier: MIT */
/*
 * rbshared.h — the structs Ruby's frame walker (bpf/rbframe.bpf.h)
 * shares with user space (engine/name/rbframe.c), beside probetop.h
 * (which has the key kinds, PT_KEY_RBFRAME and PT_KEY_RBSTACK): the
 * same rules, fixed-width fields, explicit padding, no pointers, no
 * includes (the includer brings __u64 and its kin).
 */
#ifndef PROBETOP_RBSHARED_H
#define PROBETOP_RBSHARED_H

/* rbprocs: where a Ruby process keeps its frames, by tgid, from the
 * version's layout (engine/name/rblayout.h). */
#define PT_RB_PROCS 1024 /* Ruby processes whose frames are read */
#define PT_RBSTACK_DEPTH 32 /* Ruby frames of an rbstack key, innermost */
#define PT_RBSTACK_ENTRIES 4096 /* distinct Ruby stacks kept */

struct pt_rbproc {
	__u64 vm_ptr; /* the address of ruby_current_vm_ptr */
	__u64 syms; /* the global symbol table's; 0: C methods unnamed */
	__u16 vm_main_ractor, ractor_running_ec; /* offsets, as in */
	__u16 ec_vm_stack, ec_vm_stack_size; /* struct rblayout */
	__u16 ec_cfp, ec_thread_ptr, th_thread_id;
	__u16 cfp_size, cfp_iseq, cfp_ep;
	__u16 iseq_body, body_pathobj, body_label, body_first_lineno;
	__u16 me_called_id, syms_ids;
	__u16 str_heap_len, str_heap_ptr, str_embed;
	__u16 ary_heap_len, ary_heap_ptr, ary_embed;
	__u32 str_noembed, ary_embed_flag;
	__u8 str_embed_len_shift, str_embed_len_mask;
	__u8 ary_embed_len_shift, ary_embed_len_mask;
	__u8 t_string, t_array, id_scope_shift, pad;
	__u32 magic_mask, magic_cfunc, magic_ifunc, magic_dummy;
	__u32 last_op_id;
	__u32 gen; /* this set-up of this process (as pt_pyproc's) */
	__u32 pad2;
};

/*
 * A Ruby frame as rbframe and rbstack key it. Ruby code: its iseq's body
 * (rb_iseq_constant_body, below 2^48) and, in bits 48-62, a tag of its
 * path and label objects and first line, so that a body freed and
 * taken by another method is another key. A C method: bit 63 and the
 * ID it was called by.
 */
#define PT_RBFUNC_ADDR(v) ((v) & ((1ULL << 48) - 1))
#define PT_RBFUNC_CFUNC (1ULL << 63)
#define PT_RBFUNC_MIX(path, label, line) \
	((path) ^ ((label) << 7 | (label) >> 57) ^ (__u64)(line) << 32)
#define PT_RBFUNC_TAG(path, label, line) \
	(PT_RBFUNC_MIX(path, label, line) * 0x9e3779b97f4a7c15ULL >> 49)
#define PT_RBFUNC_KEY(body, path, label, line) \
	(PT_RBFUNC_ADDR(body) | PT_RBFUNC_TAG(path, label, line) << 48)
#define PT_RBCFUNC_KEY(id) (PT_RBFUNC_CFUNC | ((id) & ~PT_RBFUNC_CFUNC))

/* rbnew: a frame's function seen for the first time, its names as read
 * then. */
#define PT_RBSTR 192 /* bytes of a name kept (a path's last ones) */

struct pt_rbstr {
	__u64 len; /* the String's length; (__u64)-1: not read */
	__u32 kept; /* bytes in data */
	__u32 pad;
	__u8 data[PT_RBSTR];
};

struct pt_rbnew {
	__u32 pid;
	__u32 gen; /* pt_rbproc's when it was seen */
	__u64 key; /* PT_RBFUNC_KEY() or PT_RBCFUNC_KEY() */
	__u32 line; /* the first line; 0 for a C method */
	__u32 pad;
	struct pt_rbstr label, path; /* a C method: its name, path len 0 */
};

/* rbstacks: a Ruby stack by its id, innermost frame first: the frames'
 * keys, 0 for a frame that could not be read. */
struct pt_rbstack {
	__u32 depth;
	__u32 truncated; /* deeper than PT_RBSTACK_DEPTH */
	__u64 fn[PT_RBSTACK_DEPTH];
};

#endif
