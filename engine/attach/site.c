// SPDX-License-Identifier: MIT
/* site — compile a spec into a pt_site for one location; see site.h. */
#include "site.h"

#include <errno.h>
#include <string.h>

#include "catalog.h"
#include "spec.h"
#include "tracer.h"
#include "usdtarg.h"

_Static_assert(sizeof(struct pt_fetch) == 16, "pt_fetch layout");
_Static_assert(SPEC_LQ_MAX_STEPS + 2 <= PT_NBUCKETS, "lquantize buckets");

#define PT_REG_IP 16

int site_alloc(struct site_slots *slots, uint32_t *idx)
{
	for (uint32_t n = 0; n < PT_MAX_SITES; n++) {
		uint32_t i = (slots->hint + n) % PT_MAX_SITES;

		if (!slots->used[i]) {
			slots->used[i] = 1;
			slots->hint = i + 1;
			*idx = i;
			return 0;
		}
	}
	return -ENOSPC;
}

/* An argument as a decoded note operand; loc_addr for %rip forms. */
static int fetch_from_usdt(const struct usdt_arg *a, uint64_t loc_addr,
			   struct pt_fetch *f)
{
	memset(f, 0, sizeof(*f));
	f->size = a->size;
	f->is_signed = a->is_signed;
	f->reg = PT_REG_NONE;
	f->index = PT_REG_NONE;
	switch (a->kind) {
	case USDT_ARG_CONST:
		f->kind = PT_FETCH_CONST;
		f->disp = a->disp;
		return 0;
	case USDT_ARG_REG:
		f->kind = PT_FETCH_REG;
		f->reg = (uint8_t)a->reg;
		f->shift = a->reg_shift;
		return 0;
	case USDT_ARG_MEM:
		f->kind = PT_FETCH_MEM;
		f->disp = a->disp;
		if (a->reg != X86_REG_NONE)
			f->reg = a->reg == X86_REG_RIP ? PT_REG_IP
						       : (uint8_t)a->reg;
		if (a->index != X86_REG_NONE) {
			f->index = (uint8_t)a->index;
			f->scale = a->scale;
		}
		return 0;
	case USDT_ARG_SYM:
		if (!a->sym_addr)
			return -ENOENT;
		/* the probe's own address is known at run time (ip):
		 * sym + disp = ip - loc_addr + sym_addr + disp */
		f->kind = PT_FETCH_MEM;
		f->reg = PT_REG_IP;
		f->disp = (int64_t)(a->sym_addr - loc_addr) + a->disp;
		return 0;
	default:
		return -EINVAL;
	}
}

/* Variable name of src's object, read at src's location: its address
 * is the probe's own (ip, where its hit traps) plus how far the variable
 * lies from it, whatever the object's load address. A number of 1, 2, 4
 * or 8 bytes is its value, signed; an array or a struct (any other size)
 * its address, as C's arrays decay (str(`buf) of a char buf[64]). 0,
 * -ERANGE (not where the probe's address is known), SITE_NO_VARIABLE or
 * SITE_NOT_VARIABLE. */
static int fetch_global(const struct site_argsrc *src, const char *name,
			struct pt_fetch *f)
{
	bool number;
	uint64_t addr, size;
	int err;

	if (src->profile || src->ret || !src->obj)
		return -ERANGE;
	err = catalog_variable(src->obj, name, &addr, &size);
	if (err)
		return err == -EINVAL ? SITE_NOT_VARIABLE : SITE_NO_VARIABLE;
	number = size == 1 || size == 2 || size == 4 || size == 8;
	*f = (struct pt_fetch){
		.kind = number ? PT_FETCH_MEM : PT_FETCH_ADDR,
		.size = number ? (uint8_t)size : 8,
		.is_signed = number,
		.reg = PT_REG_IP,
		.index = PT_REG_NONE,
		.disp = (int64_t)(addr - src->addr),
	};
	return 0;
}

/* Argument n of spec sp at src (an argN, or one of sp's variables). */
static int fetch_arg(const struct spec *sp, const struct site_argsrc *src,
		     int n, struct pt_fetch *f)
{
	static const uint8_t SYSV[] = { X86_REG_RDI, X86_REG_RSI, X86_REG_RDX,
					X86_REG_RCX, X86_REG_R8,  X86_REG_R9 };
	const char *global = spec_arg_global(sp, n);

	if (global)
		return fetch_global(src, global, f);
	if (src->fn) {
		if (src->ret ? n > 0 : n >= (int)sizeof(SYSV))
			return -ERANGE;
		*f = (struct pt_fetch){
			.kind = PT_FETCH_REG,
			.size = 8,
			.is_signed = 1,
			.reg = src->ret ? X86_REG_RAX : SYSV[n],
			.index = PT_REG_NONE,
		};
		return 0;
	}
	if (n >= src->loc->nargs)
		return -ERANGE;
	return fetch_from_usdt(&src->loc->argv[n], src->loc->addr, f);
}

/* Argument n of sp at src into *f, taken as cast says (if it says): at
 * most that many bytes of it, extended by its sign. */
static int fetch_cast(const struct spec *sp, const struct site_argsrc *src,
		      int n, struct spec_cast cast, struct pt_fetch *f)
{
	int err = fetch_arg(sp, src, n, f);

	if (err || !cast.size)
		return err;
	if (cast.size < f->size)
		f->size = cast.size;
	f->is_signed = cast.is_signed;
	return 0;
}

static const enum pt_action AGG_ACTION[] = {
	[SPEC_AGG_COUNT] = PT_ACT_COUNT,
	[SPEC_AGG_SUM] = PT_ACT_COUNT,
	[SPEC_AGG_QUANTIZE] = PT_ACT_QUANTIZE,
	[SPEC_AGG_LQUANTIZE] = PT_ACT_LQUANTIZE,
	[SPEC_AGG_LATENCY] = PT_ACT_LAT_START,
};

void site_key_slots(struct tracer_spec_info *info)
{
	int nums = 0, strs = 0;

	for (int i = 0; i < info->spec->nkeys; i++)
		info->key_slot[i] =
			spec_key_is_str(&info->spec->keys[i]) ? strs++ : nums++;
	info->width = strs;
}

/* The kernel's kind of a key read where the probe fired. */
static uint8_t ctx_kind(enum spec_key_kind kind)
{
	switch (kind) {
	case SPEC_KEY_PYFRAME:
		return PT_KEY_PYFRAME;
	case SPEC_KEY_PYLINE:
		return PT_KEY_PYLINE;
	case SPEC_KEY_PYFIRSTLINE:
		return PT_KEY_PYFIRSTLINE;
	case SPEC_KEY_PYSTACK:
		return PT_KEY_PYSTACK;
	case SPEC_KEY_PHPFRAME:
		return PT_KEY_PHPFRAME;
	case SPEC_KEY_PHPSTACK:
		return PT_KEY_PHPSTACK;
	case SPEC_KEY_PHPLINE:
		return PT_KEY_PHPLINE;
	case SPEC_KEY_RBFRAME:
		return PT_KEY_RBFRAME;
	case SPEC_KEY_RBSTACK:
		return PT_KEY_RBSTACK;
	case SPEC_KEY_RBLINE:
		return PT_KEY_RBLINE;
	case SPEC_KEY_USTACK:
	case SPEC_KEY_JITFRAME: /* one frame of it, picked in user space */
		return PT_KEY_USTACK;
	case SPEC_KEY_MIXSTACK:
		return PT_KEY_MIXSTACK;
	default:
		return PT_KEY_KSTACK;
	}
}

unsigned int site_key_walks(const struct spec *sp)
{
	unsigned int walks = 0;

	for (int i = 0; i < sp->nkeys; i++)
		if (spec_key_is_ctx(&sp->keys[i]))
			walks |= pt_key_walks(ctx_kind(sp->keys[i].kind));
	return walks;
}

int site_build(struct tracer_spec_info *info, bool *typed, uint32_t pid, int id,
	       int role, const struct site_argsrc *src, struct pt_site *s)
{
	const struct spec *sp = info->spec;
	int err;

	memset(s, 0, sizeof(*s));
	s->spec = (uint32_t)id;
	s->pid = pid;
	s->solo = info->solo_pid != 0;
	s->aslot = info->aslot_pid != 0;
	s->allpids = info->spec->allpids;
	s->tag = (uint32_t)id | info->gen << 8;
	s->profile = src->profile;
	s->entry = src->entry;
	s->width = (uint8_t)info->width; /* the end pops keys of it */
	if (sp->agg == SPEC_AGG_LQUANTIZE) {
		s->lq_low = sp->lq_low;
		s->lq_step = sp->lq_step;
		s->lq_nsteps = (uint32_t)sp->lq_nsteps;
	}
	if (role == 1) {
		s->action = PT_ACT_LAT_END;
		return 0;
	}
	s->action = sp->timed ? PT_ACT_LAT_START : AGG_ACTION[sp->agg];
	if (sp->val_arg >= 0) {
		err = fetch_cast(sp, src, sp->val_arg, sp->val_cast, &s->val);
		if (err)
			return err;
		s->has_val = 1;
	}
	s->nkeys = (uint8_t)sp->nkeys;
	for (int i = 0; i < sp->nkeys; i++) {
		const struct spec_key *k = &sp->keys[i];

		s->key_slot[i] = (uint8_t)info->key_slot[i];
		if (spec_key_is_ctx(k)) { /* not an argument */
			s->key_kind[i] = ctx_kind(k->kind);
			continue;
		}
		s->key_kind[i] = !spec_key_is_str(k)	   ? PT_KEY_NUM
				 : k->kind == SPEC_KEY_STR ? PT_KEY_STR
				 : k->kind == SPEC_KEY_SQL ? PT_KEY_SQL
							   : PT_KEY_STRN;
		err = fetch_cast(sp, src, k->arg, k->cast, &s->key[i]);
		if (!err && k->kind == SPEC_KEY_STRN)
			err = fetch_arg(sp, src, k->len_arg, &s->len[i]);
		if (err)
			return err;
	}
	if (!*typed) {
		for (int i = 0; i < sp->nkeys; i++)
			info->key_signed[i] = s->key[i].is_signed;
		info->val_signed = s->val.is_signed;
		*typed = true;
	}
	return 0;
}
