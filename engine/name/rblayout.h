/* SPDX-License-Identifier: MIT */
/*
 * rblayout — where Ruby (CRuby, the VM called YARV) keeps what a frame
 * walker reads, one table per Ruby major.minor, x86-64. Data only: the
 * kernel-side walker (bpf/rbframe.bpf.h) is handed the table of the
 * target's version and follows
 *
 *   ruby_current_vm_ptr -> rb_vm_t.ractor.main_ractor
 *   -> rb_ractor_t.threads.running_ec (the thread holding the GVL)
 *   -> rb_execution_context_t: cfp, vm_stack, vm_stack_size, thread_ptr
 *      (its pthread_t: rb_thread_t.thread_id, from 3.2 its native
 *      thread's, rb_thread_t.nt->thread_id)
 *   -> control frames from cfp up to vm_stack + vm_stack_size:
 *      iseq, ep (ep[0]: the frame's magic; ep[-2]: a C method's entry)
 *   -> rb_iseq_t.body -> location: pathobj, label, first_lineno (a
 *      Fixnum; from 3.2 an int); for a line, its iseq_encoded and
 *      insns_info (engine/name/rbline.h)
 *   -> a C method's rb_callable_method_entry_t.called_id, an ID named by
 *      the global symbol table (its ids: arrays of 512 [string, symbol])
 *
 * and reads Ruby's String and Array objects by their flags.
 *
 * 3.1's values are the headers' own: ruby3.1-dev ships the VM's internal
 * structures in rb_mjit_min_header-3.1.2.h; tests/tools/rblayout_probe.c
 * prints them with offsetof compiled against it, and
 * tests/integration/rblayout_headers.py checks this table against it.
 * 3.0, 3.2 and 3.3 are derived, not checked against a header nor tried
 * on a live process (none is installable here): see rblayout.c for how.
 * Other versions (2.x, 3.4 and later) have no table: such a process is
 * said in one line and its Ruby keys read nothing.
 */
#ifndef PROBETOP_RBLAYOUT_H
#define PROBETOP_RBLAYOUT_H

#include <stdbool.h>
#include <stdint.h>

/* Offsets in bytes from the start of the structure named in each
 * comment, and the constants the walker compares with. */
struct rblayout {
	int major, minor; /* Ruby major.minor, x86-64 */

	uint32_t vm_main_ractor; /* rb_vm_t: ractor.main_ractor */
	uint32_t ractor_running_ec; /* rb_ractor_t: threads.running_ec */
	uint32_t ec_vm_stack; /* rb_execution_context_t: vm_stack */
	uint32_t ec_vm_stack_size; /* vm_stack_size (in VALUEs) */
	uint32_t ec_cfp; /* cfp */
	uint32_t ec_thread_ptr; /* thread_ptr */
	uint32_t th_nt; /* rb_thread_t: nt (3.2+); 0: none (3.0, 3.1) */
	uint32_t th_thread_id; /* thread_id (pthread_t): rb_thread_t's, or
				* with th_nt its rb_native_thread's */
	uint32_t cfp_size; /* sizeof(rb_control_frame_t) */
	uint32_t cfp_pc; /* rb_control_frame_t: pc */
	uint32_t cfp_iseq; /* iseq */
	uint32_t cfp_ep; /* ep */
	uint32_t iseq_body; /* rb_iseq_t: body */
	uint32_t body_pathobj; /* rb_iseq_constant_body: location.pathobj */
	uint32_t body_label; /* location.label */
	uint32_t body_first_lineno; /* location.first_lineno */
	uint32_t first_lineno_int; /* 1: an int (3.2+); 0: a Fixnum */
	uint32_t body_iseq_size; /* iseq_size (an unsigned int, VALUEs) */
	uint32_t body_iseq_encoded; /* iseq_encoded */
	uint32_t body_insns_info; /* insns_info.body (the entries) */
	uint32_t body_insns_size; /* insns_info.size (an unsigned int) */
	uint32_t body_insns_succ; /* insns_info.succ_index_table */
	uint32_t insn_info_size; /* sizeof(struct iseq_insn_info_entry) */
	uint32_t insn_info_line; /* its line_no (an int) */
	uint32_t me_called_id; /* rb_callable_method_entry_t: called_id */
	uint32_t syms_ids; /* the global symbol table (symbol.c's struct
			    * symbols, not in the header): ids */
	uint32_t str_heap_len; /* struct RString: as.heap.len */
	uint32_t str_heap_ptr; /* as.heap.ptr */
	uint32_t str_embed; /* as.embed.ary */
	uint32_t str_noembed; /* RSTRING_NOEMBED */
	uint32_t str_embed_len_shift; /* RSTRING_EMBED_LEN_SHIFT */
	uint32_t str_embed_len_mask; /* RSTRING_EMBED_LEN_MASK >> shift; 0:
				      * an embedded String's length is at
				      * str_heap_len too (3.2+) */
	uint32_t ary_heap_len; /* struct RArray: as.heap.len */
	uint32_t ary_heap_ptr; /* as.heap.ptr */
	uint32_t ary_embed; /* as.ary */
	uint32_t ary_embed_flag; /* RARRAY_EMBED_FLAG */
	uint32_t ary_embed_len_shift; /* RARRAY_EMBED_LEN_SHIFT */
	uint32_t ary_embed_len_mask; /* RARRAY_EMBED_LEN_MASK >> shift */
	uint32_t t_string, t_array; /* RUBY_T_STRING, RUBY_T_ARRAY */
	uint32_t magic_mask; /* VM_FRAME_MAGIC_MASK */
	uint32_t magic_cfunc; /* VM_FRAME_MAGIC_CFUNC: a C method */
	uint32_t magic_ifunc; /* VM_FRAME_MAGIC_IFUNC: a C block, no iseq */
	uint32_t magic_dummy; /* VM_FRAME_MAGIC_DUMMY: no code of its own */
	uint32_t last_op_id; /* tLAST_OP_ID: an ID above is serial << 4 */
	uint32_t id_scope_shift; /* RUBY_ID_SCOPE_SHIFT */
};

/* The layout of Ruby major.minor, or NULL if none is known. Static. */
const struct rblayout *rblayout_find(int major, int minor);

/* The versions that have a layout, as text ("3.0-3.3"). Static. */
const char *rblayout_versions(void);

/* Whether the kernel's reads of l's fields stay in the spans it reads
 * (bpf/rbframe.bpf.h: a control frame window, an object's head, an iseq
 * body's location, its line table's fields). */
bool rblayout_usable(const struct rblayout *l);

#endif
