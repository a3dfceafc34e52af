// SPDX-License-Identifier: MIT
/*
 * rblayout — the tables; see rblayout.h. Each one is what
 * tests/tools/rblayout_probe.c prints against that version's headers.
 */
#include "rblayout.h"

#include <stddef.h>

/* 3.1: Debian 12's ruby3.1-dev 3.1.2
 * (/usr/include/x86_64-linux-gnu/ruby-3.1.0/rb_mjit_min_header-3.1.2.h);
 * syms_ids from symbol.c's struct symbols (last_id, str_sym, ids),
 * which the header leaves out: rblayout_headers checks it in the
 * library's own rb_id2str() instead. */
static const struct rblayout rb31 = {
	.major = 3,
	.minor = 1,
	.vm_main_ractor = 32,
	.ractor_running_ec = 520,
	.ec_vm_stack = 0,
	.ec_vm_stack_size = 8,
	.ec_cfp = 16,
	.ec_thread_ptr = 48,
	.th_thread_id = 80,
	.cfp_size = 64,
	.cfp_pc = 0,
	.cfp_iseq = 16,
	.cfp_ep = 32,
	.iseq_body = 16,
	.body_pathobj = 64,
	.body_label = 80,
	.body_first_lineno = 88,
	.body_iseq_size = 4,
	.body_iseq_encoded = 8,
	.body_insns_info = 120,
	.body_insns_size = 136,
	.body_insns_succ = 144,
	.insn_info_size = 12,
	.insn_info_line = 0,
	.me_called_id = 24,
	.syms_ids = 16,
	.str_heap_len = 16,
	.str_heap_ptr = 24,
	.str_embed = 16,
	.str_noembed = 1 << 13,
	.str_embed_len_shift = 14,
	.str_embed_len_mask = 31,
	.ary_heap_len = 16,
	.ary_heap_ptr = 32,
	.ary_embed = 16,
	.ary_embed_flag = 1 << 13,
	.ary_embed_len_shift = 15,
	.ary_embed_len_mask = 3,
	.t_string = 5,
	.t_array = 7,
	.magic_mask = 0x7fff0001,
	.magic_cfunc = 0x55550001,
	.magic_ifunc = 0x66660001,
	.magic_dummy = 0x79990001,
	.last_op_id = 169,
	.id_scope_shift = 4,
};

static const struct rblayout *const layouts[] = { &rb31 };

const struct rblayout *rblayout_find(int major, int minor)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i]->major == major && layouts[i]->minor == minor)
			return layouts[i];
	return NULL;
}
