// SPDX-License-Identifier: MIT
/*
 * rblayout_probe — the memory layout of one Ruby, from its own headers:
 * compiled against the VM's internal structures (ruby3.1-dev's
 * rb_mjit_min_header-3.1.2.h, which holds them), it prints (as one JSON
 * object) every field of struct rblayout (engine/name/rblayout.h) that
 * the header has, by offsetof, and the constants it names.
 * rblayout_headers.py compares that with the table the engine has
 * (rblayout_dump). Build, for the header directory $I:
 *
 *   gcc -O2 -I$I -I/usr/include/ruby-3.1.0 \
 *       -DRB_HEADER='"rb_mjit_min_header-3.1.2.h"' rblayout_probe.c
 *
 * (-O2: the header's inline functions left out when unused; the version
 * from ruby/version.h, which the header leaves out.)
 */
#include RB_HEADER

#include <ruby/version.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

static bool first = true;

/* "name": v */
static void num(const char *name, size_t v)
{
	printf("%s\"%s\": %zu", first ? "{" : ", ", name, v);
	first = false;
}

int main(void)
{
	num("major", RUBY_API_VERSION_MAJOR);
	num("minor", RUBY_API_VERSION_MINOR);
	num("vm_main_ractor", offsetof(rb_vm_t, ractor.main_ractor));
	num("ractor_running_ec", offsetof(rb_ractor_t, threads.running_ec));
	num("ec_vm_stack", offsetof(rb_execution_context_t, vm_stack));
	num("ec_vm_stack_size",
	    offsetof(rb_execution_context_t, vm_stack_size));
	num("ec_cfp", offsetof(rb_execution_context_t, cfp));
	num("ec_thread_ptr", offsetof(rb_execution_context_t, thread_ptr));
	/* 3.1's thread holds its pthread_t itself (no native thread) */
	num("th_nt", 0);
	num("th_thread_id", offsetof(rb_thread_t, thread_id));
	num("cfp_size", sizeof(rb_control_frame_t));
	num("cfp_pc", offsetof(rb_control_frame_t, pc));
	num("cfp_iseq", offsetof(rb_control_frame_t, iseq));
	num("cfp_ep", offsetof(rb_control_frame_t, ep));
	num("iseq_body", offsetof(rb_iseq_t, body));
	num("body_pathobj",
	    offsetof(struct rb_iseq_constant_body, location.pathobj));
	num("body_label",
	    offsetof(struct rb_iseq_constant_body, location.label));
	num("body_first_lineno",
	    offsetof(struct rb_iseq_constant_body, location.first_lineno));
	/* a VALUE (a Fixnum), not an int */
	num("first_lineno_int",
	    sizeof(((rb_iseq_location_t *)0)->first_lineno) != sizeof(VALUE));
	num("body_iseq_size",
	    offsetof(struct rb_iseq_constant_body, iseq_size));
	num("body_iseq_encoded",
	    offsetof(struct rb_iseq_constant_body, iseq_encoded));
	num("body_insns_info",
	    offsetof(struct rb_iseq_constant_body, insns_info.body));
	num("body_insns_size",
	    offsetof(struct rb_iseq_constant_body, insns_info.size));
	num("body_insns_succ", offsetof(struct rb_iseq_constant_body,
					insns_info.succ_index_table));
	num("insn_info_size", sizeof(struct iseq_insn_info_entry));
	num("insn_info_line", offsetof(struct iseq_insn_info_entry, line_no));
	num("me_called_id", offsetof(rb_callable_method_entry_t, called_id));
	num("str_heap_len", offsetof(struct RString, as.heap.len));
	num("str_heap_ptr", offsetof(struct RString, as.heap.ptr));
	num("str_embed", offsetof(struct RString, as.embed.ary));
	num("str_noembed", RSTRING_NOEMBED);
	num("str_embed_len_shift", RSTRING_EMBED_LEN_SHIFT);
	num("str_embed_len_mask",
	    RSTRING_EMBED_LEN_MASK >> RSTRING_EMBED_LEN_SHIFT);
	num("ary_heap_len", offsetof(struct RArray, as.heap.len));
	num("ary_heap_ptr", offsetof(struct RArray, as.heap.ptr));
	num("ary_embed", offsetof(struct RArray, as.ary));
	num("ary_embed_flag", RARRAY_EMBED_FLAG);
	num("ary_embed_len_shift", RARRAY_EMBED_LEN_SHIFT);
	num("ary_embed_len_mask",
	    RARRAY_EMBED_LEN_MASK >> RARRAY_EMBED_LEN_SHIFT);
	num("t_string", RUBY_T_STRING);
	num("t_array", RUBY_T_ARRAY);
	num("magic_mask", VM_FRAME_MAGIC_MASK);
	num("magic_cfunc", VM_FRAME_MAGIC_CFUNC);
	num("magic_ifunc", VM_FRAME_MAGIC_IFUNC);
	num("magic_dummy", VM_FRAME_MAGIC_DUMMY);
	num("last_op_id", tLAST_OP_ID);
	num("id_scope_shift", RUBY_ID_SCOPE_SHIFT);
	/* a C method's frame: its method entry at ep[-2], its flags at
	 * ep[0], as the walker reads them */
	num("env_me_cref", VM_ENV_DATA_INDEX_ME_CREF == -2);
	num("env_flags", VM_ENV_DATA_INDEX_FLAGS == 0);
	/* lines from the succinct index (insns_info.positions freed) */
	num("insns_succinct",
	    VM_INSN_INFO_TABLE_IMPL == 2 && VM_CHECK_MODE == 0);
	printf("}\n");
	return 0;
}
