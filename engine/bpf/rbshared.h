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
/* What the walker reads at once: control frames (PT_RBSTACK_DEPTH frames
 * of up to 64 bytes), an object's head (flags, class and 24 bytes: a
 * slot of Ruby's heap is 40 bytes), an iseq body's fields from its
 * pathobj. */
#define PT_RBWINDOW 2048
#define PT_RBHEAD 40
#define PT_RBLOC 32

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
	__u8 str_embed_len_shift; /* mask 0: the length at str_heap_len */
	__u8 str_embed_len_mask;
	__u8 ary_embed_len_shift, ary_embed_len_mask;
	__u8 t_string, t_array, id_scope_shift;
	__u8 lineno_int; /* first_lineno an int, not a Fixnum (3.2+) */
	__u32 magic_mask, magic_cfunc, magic_ifunc, magic_dummy;
	__u32 last_op_id;
	/* what an rbline key reads: the frame's pc, its iseq body's
	 * iseq_size (a u32), iseq_encoded, insns_info.body, .size (a u32)
	 * and .succ_index_table, an insns_info entry's size */
	__u16 cfp_pc, body_iseq_size, body_iseq_encoded;
	__u16 body_insns_info, body_insns_size, body_insns_succ;
	__u16 insn_info_size;
	__u16 th_nt; /* rb_thread_t's nt (3.2+), thread_id its; 0: none */
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

/*
 * An rbline key: the frame's function (Ruby code: PT_RBFUNC_KEY()) with
 * its tag folded into the 47 bits of a user-space address (its low 4
 * bits clear: PT_RBLINE_FN()) and bits 3-22 of the frame's pc. The kernel
 * sends that function's names and line table keyed by PT_RBLINE_FN();
 * the instruction's offset in VALUEs is (those bits - iseq_encoded's
 * bits 3-22) modulo 2^20 (engine/name/rbline.h), an iseq being shorter.
 */
#define PT_RBLINE_FN(key)                                                   \
	(((PT_RBFUNC_ADDR(key) ^ (key) >> 48 << 31) & ((1ULL << 47) - 1)) & \
	 ~15ULL)
#define PT_RBLINE(fn, pc) PT_PYLINE(fn, (pc) >> 3)

/* rbnew: a frame's function seen for the first time, its names as read
 * then. */
#define PT_RBSTR 192 /* bytes of a name kept (a path's last ones) */

struct pt_rbstr {
	__u64 len; /* the String's length; (__u64)-1: not read */
	__u32 kept; /* bytes in data */
	__u32 pad;
	__u8 data[PT_RBSTR];
};

/* A line key's function's line table: bytes kept of its iseq's
 * insns_info entries and of its succinct index (engine/name/rbline.h),
 * whose immediate part is PT_RBSUCC_IMM positions of 7 bits, 9 to a
 * u64, and whose blocks of 512 positions are PT_RBSUCC_BLOCK bytes. */
#define PT_RBINFO 6144
#define PT_RBSUCC 2048
#define PT_RBSUCC_IMM 54
#define PT_RBSUCC_BLOCK 80

/* Sent with its head only (PT_RBNEW_HEAD bytes) but for a line key's
 * function (lines 1). */
struct pt_rbnew {
	__u32 pid;
	__u32 gen; /* pt_rbproc's when it was seen */
	__u64 key; /* PT_RBFUNC_KEY(), PT_RBCFUNC_KEY(), PT_RBLINE_FN() */
	__u32 line; /* the first line; 0 for a C method */
	__u32 lines; /* 1: key is PT_RBLINE_FN(), its line table below */
	struct pt_rbstr label, path; /* a C method: its name, path len 0 */
	__u64 encoded; /* the iseq's iseq_encoded */
	__u32 iseq_size; /* its length in VALUEs */
	__u32 ninfo; /* insns_info.size: its entries */
	__u32 info_bytes, succ_bytes; /* bytes kept of each (0: not read) */
	__u8 info[PT_RBINFO];
	__u8 succ[PT_RBSUCC];
};
#define PT_RBNEW_HEAD 440 /* offsetof(struct pt_rbnew, encoded) */

/* rbstacks: a Ruby stack by its id, innermost frame first: the frames'
 * keys, 0 for a frame that could not be read. */
struct pt_rbstack {
	__u32 depth;
	__u32 truncated; /* deeper than PT_RBSTACK_DEPTH */
	__u64 fn[PT_RBSTACK_DEPTH];
};

#endif
