// SPDX-License-Identifier: MIT
/*
 * rblayout — the tables; see rblayout.h.
 *
 * 3.1 is what tests/tools/rblayout_probe.c prints against Debian's
 * ruby3.1-dev header (rblayout_headers checks it). 3.0, 3.2 and 3.3 are
 * derived: each offset computed by C's layout rules (x86-64, glibc: a
 * pthread_mutex_t 40 bytes, a pthread_cond_t 48) from the field lists
 * of that version's structures in rbspy's bindings
 * (ruby-structs/src/ruby_3_0_0.rs, ruby_3_2_0.rs, ruby_3_3_0.rs; the
 * 3.3 one generated on macOS, whose lock sizes are not used here); the
 * String and Array flags, which the bindings leave out, as 3.1's but
 * for 3.2's and 3.3's embedded Array length (RUBY_FL_USER3..9, as
 * opentelemetry-ebpf-profiler's Ruby walker cites rarray.h). The method was checked first on 3.1: the same
 * derivation from ruby_3_1_2.rs gives every offset of the header-checked
 * table below. The derived tables are not checked against a header nor
 * tried on a live process. What moved:
 *
 *   3.0  ec->thread_ptr at 56 (protect_tag before it), a control frame
 *        of 56 bytes (no jit_return), insns_info entries of 8 bytes (no
 *        node_id), tLAST_OP_ID 168;
 *   3.2  the thread's pthread_t in its native thread (th->nt), location
 *        .first_lineno an int, insns_info 8 bytes earlier, a String's
 *        length a field (as.embed.len beside as.heap.len), an embedded
 *        Array's length 7 bits (variable width allocation);
 *   3.3  a control frame of 56 bytes (__bp__ gone, jit_return at 48),
 *        the ractor's sync smaller and its scheduler another
 *        (threads.running_ec at 384), the native thread's thread_id at
 *        16, a String's len beside its union.
 *
 * The frame magics and type numbers are vm_core.h's and ruby's own, the
 * same in every 3.x. The global symbol table's ids (symbol.c, in no
 * binding) are taken at
 * 16 in every version, and its address from rb_id2str()'s code, whose
 * shape rbmem.c knows from 3.1: where it differs, C methods are "?".
 * With YJIT (--yjit, 3.2+; off by default) a frame's pc is written only
 * where the JIT code leaves to the interpreter, so rbline's lines may be
 * stale there; methods and stacks are not.
 */
#include "rblayout.h"

#include <linux/types.h>
#include <stddef.h>

#include "rbshared.h"

/* What every table shares (3.0-3.3). */
#define RB3_COMMON                                                            \
	.vm_main_ractor = 32, .ec_vm_stack = 0, .ec_vm_stack_size = 8,        \
	.ec_cfp = 16, .cfp_pc = 0, .cfp_iseq = 16, .cfp_ep = 32,              \
	.iseq_body = 16, .body_pathobj = 64, .body_label = 80,                \
	.body_first_lineno = 88, .body_iseq_size = 4, .body_iseq_encoded = 8, \
	.insn_info_line = 0, .me_called_id = 24, .syms_ids = 16,              \
	.str_heap_len = 16, .str_heap_ptr = 24, .str_noembed = 1 << 13,       \
	.ary_heap_len = 16, .ary_heap_ptr = 32, .ary_embed = 16,              \
	.ary_embed_flag = 1 << 13, .ary_embed_len_shift = 15, .t_string = 5,  \
	.t_array = 7, .magic_mask = 0x7fff0001, .magic_cfunc = 0x55550001,    \
	.magic_ifunc = 0x66660001, .magic_dummy = 0x79990001,                 \
	.id_scope_shift = 4

/* 3.0: derived (ruby_3_0_0.rs). */
static const struct rblayout rb30 = {
	.major = 3,
	.minor = 0,
	RB3_COMMON,
	.ractor_running_ec = 520,
	.ec_thread_ptr = 56,
	.th_thread_id = 80,
	.cfp_size = 56,
	.body_insns_info = 120,
	.body_insns_size = 136,
	.body_insns_succ = 144,
	.insn_info_size = 8,
	.str_embed = 16,
	.str_embed_len_shift = 14,
	.str_embed_len_mask = 31,
	.ary_embed_len_mask = 3,
	.last_op_id = 168,
};

/* 3.1: Debian 12's ruby3.1-dev 3.1.2
 * (/usr/include/x86_64-linux-gnu/ruby-3.1.0/rb_mjit_min_header-3.1.2.h);
 * syms_ids from symbol.c's struct symbols (last_id, str_sym, ids),
 * which the header leaves out: rblayout_headers checks it in the
 * library's own rb_id2str() instead. */
static const struct rblayout rb31 = {
	.major = 3,
	.minor = 1,
	RB3_COMMON,
	.ractor_running_ec = 520,
	.ec_thread_ptr = 48,
	.th_thread_id = 80,
	.cfp_size = 64,
	.body_insns_info = 120,
	.body_insns_size = 136,
	.body_insns_succ = 144,
	.insn_info_size = 12,
	.str_embed = 16,
	.str_embed_len_shift = 14,
	.str_embed_len_mask = 31,
	.ary_embed_len_mask = 3,
	.last_op_id = 169,
};

/* What 3.2 and 3.3 share. */
#define RB32_COMMON                                                    \
	.ec_thread_ptr = 48, .th_nt = 40, .first_lineno_int = 1,       \
	.body_insns_info = 112, .body_insns_size = 128,                \
	.body_insns_succ = 136, .insn_info_size = 12, .str_embed = 24, \
	.ary_embed_len_mask = 0x7f, .last_op_id = 169

/* 3.2: derived (ruby_3_2_0.rs). */
static const struct rblayout rb32 = {
	.major = 3,
	.minor = 2,
	RB3_COMMON,
	RB32_COMMON,
	.ractor_running_ec = 520,
	.th_thread_id = 8,
	.cfp_size = 64,
};

/* 3.3: derived (ruby_3_3_0.rs). */
static const struct rblayout rb33 = {
	.major = 3,
	.minor = 3,
	RB3_COMMON,
	RB32_COMMON,
	.ractor_running_ec = 384,
	.th_thread_id = 16,
	.cfp_size = 56,
};

static const struct rblayout *const layouts[] = { &rb30, &rb31, &rb32, &rb33 };

const struct rblayout *rblayout_find(int major, int minor)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i]->major == major && layouts[i]->minor == minor)
			return layouts[i];
	return NULL;
}

const char *rblayout_versions(void)
{
	return "3.0-3.3";
}

/* Whether an rbline key's fields stay in what rb_lines() reads: the
 * first 16 bytes of a body, 32 from its insns_info. */
static bool lines_usable(const struct rblayout *l)
{
	uint32_t info = l->body_insns_info;

	return l->cfp_pc % 8 == 0 && l->cfp_pc + 8 <= l->cfp_size &&
	       l->body_iseq_size % 4 == 0 && l->body_iseq_size + 4 <= 16 &&
	       l->body_iseq_encoded % 8 == 0 &&
	       l->body_iseq_encoded + 8 <= 16 && info % 8 == 0 &&
	       l->body_insns_size % 4 == 0 && l->body_insns_size > info &&
	       l->body_insns_size + 4 <= info + 32 &&
	       l->body_insns_succ % 8 == 0 && l->body_insns_succ > info &&
	       l->body_insns_succ + 8 <= info + 32 &&
	       l->insn_info_line + 4 <= l->insn_info_size;
}

bool rblayout_usable(const struct rblayout *l)
{
	uint32_t ec[] = { l->ec_vm_stack, l->ec_vm_stack_size, l->ec_cfp,
			  l->ec_thread_ptr };
	uint32_t head[] = { l->str_heap_len, l->str_heap_ptr, l->ary_heap_len,
			    l->ary_heap_ptr };

	for (size_t i = 0; i < sizeof(ec) / sizeof(ec[0]); i++)
		if (ec[i] % 8 || ec[i] >= 64)
			return false;
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		if (head[i] % 8 || head[i] + 8 > PT_RBHEAD)
			return false;
	return l->cfp_size && l->cfp_size % 8 == 0 && lines_usable(l) &&
	       l->cfp_size * PT_RBSTACK_DEPTH <= PT_RBWINDOW &&
	       l->cfp_iseq % 8 == 0 && l->cfp_iseq + 8 <= l->cfp_size &&
	       l->cfp_ep % 8 == 0 && l->cfp_ep + 8 <= l->cfp_size &&
	       l->body_label > l->body_pathobj &&
	       l->body_label + 8 <= l->body_pathobj + PT_RBLOC &&
	       l->body_first_lineno > l->body_pathobj &&
	       l->body_first_lineno + 8 <= l->body_pathobj + PT_RBLOC &&
	       l->body_pathobj % 8 == 0 && l->body_label % 8 == 0 &&
	       l->body_first_lineno % 8 == 0 && l->th_nt % 8 == 0 &&
	       l->th_thread_id % 8 == 0 && l->str_embed + 1 <= PT_RBHEAD;
}
