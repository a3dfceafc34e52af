// SPDX-License-Identifier: MIT
/*
 * rblayout_dump MAJOR.MINOR — the engine's layout of Ruby MAJOR.MINOR
 * (rblayout_find()) as one JSON object, with the keys of
 * rblayout_probe.c and syms_ids (which the header cannot check), or the
 * line "null" when rblayout_find() has none. Exit 2 on a bad argument.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rblayout.h"

static bool first = true;

/* "name": v */
static void num(const char *name, uint32_t v)
{
	printf("%s\"%s\": %u", first ? "{" : ", ", name, v);
	first = false;
}

static void dump(const struct rblayout *l)
{
	num("major", (uint32_t)l->major);
	num("minor", (uint32_t)l->minor);
	num("vm_main_ractor", l->vm_main_ractor);
	num("ractor_running_ec", l->ractor_running_ec);
	num("ec_vm_stack", l->ec_vm_stack);
	num("ec_vm_stack_size", l->ec_vm_stack_size);
	num("ec_cfp", l->ec_cfp);
	num("ec_thread_ptr", l->ec_thread_ptr);
	num("th_nt", l->th_nt);
	num("th_thread_id", l->th_thread_id);
	num("cfp_size", l->cfp_size);
	num("cfp_pc", l->cfp_pc);
	num("cfp_iseq", l->cfp_iseq);
	num("cfp_ep", l->cfp_ep);
	num("iseq_body", l->iseq_body);
	num("body_pathobj", l->body_pathobj);
	num("body_label", l->body_label);
	num("body_first_lineno", l->body_first_lineno);
	num("first_lineno_int", l->first_lineno_int);
	num("body_iseq_size", l->body_iseq_size);
	num("body_iseq_encoded", l->body_iseq_encoded);
	num("body_insns_info", l->body_insns_info);
	num("body_insns_size", l->body_insns_size);
	num("body_insns_succ", l->body_insns_succ);
	num("insn_info_size", l->insn_info_size);
	num("insn_info_line", l->insn_info_line);
	num("me_called_id", l->me_called_id);
	num("str_heap_len", l->str_heap_len);
	num("str_heap_ptr", l->str_heap_ptr);
	num("str_embed", l->str_embed);
	num("str_noembed", l->str_noembed);
	num("str_embed_len_shift", l->str_embed_len_shift);
	num("str_embed_len_mask", l->str_embed_len_mask);
	num("ary_heap_len", l->ary_heap_len);
	num("ary_heap_ptr", l->ary_heap_ptr);
	num("ary_embed", l->ary_embed);
	num("ary_embed_flag", l->ary_embed_flag);
	num("ary_embed_len_shift", l->ary_embed_len_shift);
	num("ary_embed_len_mask", l->ary_embed_len_mask);
	num("t_string", l->t_string);
	num("t_array", l->t_array);
	num("magic_mask", l->magic_mask);
	num("magic_cfunc", l->magic_cfunc);
	num("magic_ifunc", l->magic_ifunc);
	num("magic_dummy", l->magic_dummy);
	num("last_op_id", l->last_op_id);
	num("id_scope_shift", l->id_scope_shift);
	num("syms_ids", l->syms_ids);
	/* the walker reads ep[-2] and ep[0] */
	num("env_me_cref", 1);
	num("env_flags", 1);
	/* rbline.c reads lines from the succinct index */
	num("insns_succinct", 1);
	printf("}\n");
}

int main(int argc, char **argv)
{
	const struct rblayout *l;
	int major, minor;

	if (argc != 2 || sscanf(argv[1], "%d.%d", &major, &minor) != 2) {
		fprintf(stderr, "usage: rblayout_dump MAJOR.MINOR\n");
		return 2;
	}
	l = rblayout_find(major, minor);
	if (!l)
		printf("null\n");
	else
		dump(l);
	return 0;
}
