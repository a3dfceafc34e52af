// SPDX-License-Identifier: MIT
/*
 * rbframe — Ruby found, described and named; see rbframe.h.
 *
 * The same design as phpframe.c: names come from the kernel at first
 * sight (struct pt_rbnew on rbnew, kept by on_new()) or, for what it
 * could not read, from the process while it lives; every name is kept
 * to the end of the run by (pid, gen, key), gen being the process's
 * set-up (a new one after an exec).
 */
#include "rbframe.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "catalog.h"
#include "elfobj.h"
#include "log.h"
#include "probetop.h"
#include "proc.h"
#include "pymem.h"
#include "rblayout.h"
#include "rbline.h"
#include "rbmem.h"
#include "rbshared.h"
#include "stacktext.h"

#define INDEX 4096 /* chains of the names' index */
#define OLD_GENS 8 /* set-ups before an exec whose names are looked up */

_Static_assert(sizeof(struct pt_rbproc) == 120, "pt_rbproc layout");
_Static_assert(offsetof(struct pt_rbnew, encoded) == PT_RBNEW_HEAD,
	       "pt_rbnew layout");

struct rbproc {
	pid_t pid;
	uint32_t gen; /* its set-up, as the kernel keys it; 0: none yet */
	uint32_t old[OLD_GENS]; /* the set-ups before its exec()s */
	const struct rblayout *lay;
	uint64_t syms; /* its global symbol table; 0: not found */
	bool ready;
	bool said; /* unsupported: said once */
};

struct name_slot {
	pid_t pid;
	uint32_t gen;
	uint64_t key;
	bool lines; /* key is an rbline key's function (PT_RBLINE_FN()) */
	struct rbname name;
	bool ok;
	struct rbline_table tab; /* its line table: tab.info, tab.succ in
				  * one allocation; NULL: none */
	uint32_t next; /* the next of its index chain: 1 + index, or 0 */
};

struct rbframe {
	int procs_fd, stacks_fd;
	struct ring_buffer *news;
	const volatile uint64_t *lost;
	uint64_t lost_said;
	struct rbproc procs[PT_RB_PROCS];
	size_t nprocs;
	uint32_t gens; /* the last gen handed out */
	struct name_slot *names;
	size_t nnames, capnames;
	uint32_t index[INDEX];
	struct stacktext *stacks;
};

static int on_new(void *ctx, void *data, size_t size);

struct rbframe *rbframe_new(int procs_fd, int stacks_fd, int new_fd,
			    const volatile uint64_t *lost)
{
	struct rbframe *rf = calloc(1, sizeof(*rf));

	if (!rf) {
		errno = ENOMEM;
		return NULL;
	}
	rf->procs_fd = procs_fd;
	rf->stacks_fd = stacks_fd;
	rf->lost = lost;
	rf->news = ring_buffer__new(new_fd, on_new, rf, NULL);
	rf->stacks = stacktext_new();
	if (!rf->news || !rf->stacks) {
		rbframe_free(rf);
		errno = ENOMEM;
		return NULL;
	}
	return rf;
}

void rbframe_free(struct rbframe *rf)
{
	if (!rf)
		return;
	for (size_t i = 0; i < rf->nnames; i++)
		free((void *)rf->names[i].tab.info);
	free(rf->names);
	stacktext_free(rf->stacks);
	ring_buffer__free(rf->news);
	free(rf);
}

static struct rbproc *find_proc(struct rbframe *rf, pid_t pid, bool add)
{
	for (size_t i = 0; i < rf->nprocs; i++)
		if (rf->procs[i].pid == pid)
			return &rf->procs[i];
	if (!add || rf->nprocs == PT_RB_PROCS)
		return NULL;
	rf->procs[rf->nprocs] = (struct rbproc){ .pid = pid };
	return &rf->procs[rf->nprocs++];
}

/* Tell the kernel where pid's Ruby keeps its frames. */
static int describe(struct rbframe *rf, struct rbproc *p, uint64_t vm_ptr,
		    const struct rblayout *l)
{
	struct pt_rbproc pp = {
		.vm_ptr = vm_ptr,
		.syms = p->syms,
		.vm_main_ractor = (__u16)l->vm_main_ractor,
		.ractor_running_ec = (__u16)l->ractor_running_ec,
		.ec_vm_stack = (__u16)l->ec_vm_stack,
		.ec_vm_stack_size = (__u16)l->ec_vm_stack_size,
		.ec_cfp = (__u16)l->ec_cfp,
		.ec_thread_ptr = (__u16)l->ec_thread_ptr,
		.th_thread_id = (__u16)l->th_thread_id,
		.th_nt = (__u16)l->th_nt,
		.lineno_int = (__u8)l->first_lineno_int,
		.cfp_size = (__u16)l->cfp_size,
		.cfp_iseq = (__u16)l->cfp_iseq,
		.cfp_ep = (__u16)l->cfp_ep,
		.iseq_body = (__u16)l->iseq_body,
		.body_pathobj = (__u16)l->body_pathobj,
		.body_label = (__u16)l->body_label,
		.body_first_lineno = (__u16)l->body_first_lineno,
		.me_called_id = (__u16)l->me_called_id,
		.syms_ids = (__u16)l->syms_ids,
		.str_heap_len = (__u16)l->str_heap_len,
		.str_heap_ptr = (__u16)l->str_heap_ptr,
		.str_embed = (__u16)l->str_embed,
		.ary_heap_len = (__u16)l->ary_heap_len,
		.ary_heap_ptr = (__u16)l->ary_heap_ptr,
		.ary_embed = (__u16)l->ary_embed,
		.str_noembed = l->str_noembed,
		.ary_embed_flag = l->ary_embed_flag,
		.str_embed_len_shift = (__u8)l->str_embed_len_shift,
		.str_embed_len_mask = (__u8)l->str_embed_len_mask,
		.ary_embed_len_shift = (__u8)l->ary_embed_len_shift,
		.ary_embed_len_mask = (__u8)l->ary_embed_len_mask,
		.t_string = (__u8)l->t_string,
		.t_array = (__u8)l->t_array,
		.id_scope_shift = (__u8)l->id_scope_shift,
		.magic_mask = l->magic_mask,
		.magic_cfunc = l->magic_cfunc,
		.magic_ifunc = l->magic_ifunc,
		.magic_dummy = l->magic_dummy,
		.last_op_id = l->last_op_id,
		.cfp_pc = (__u16)l->cfp_pc,
		.body_iseq_size = (__u16)l->body_iseq_size,
		.body_iseq_encoded = (__u16)l->body_iseq_encoded,
		.body_insns_info = (__u16)l->body_insns_info,
		.body_insns_size = (__u16)l->body_insns_size,
		.body_insns_succ = (__u16)l->body_insns_succ,
		.insn_info_size = (__u16)l->insn_info_size,
		.gen = ++rf->gens,
	};
	uint32_t key = (uint32_t)p->pid;

	if (!rblayout_usable(l))
		return -ENOTSUP;
	if (bpf_map_update_elem(rf->procs_fd, &key, &pp, BPF_ANY))
		return -errno;
	p->gen = pp.gen;
	return 0;
}

/* obj's load bias in the process whose maps are maps. 0 or -ENOENT. */
static int load_bias(const struct cat_object *obj, const struct proc_maps *maps,
		     uint64_t *bias)
{
	for (size_t i = 0; maps && i < maps->n; i++) {
		const struct proc_map *m = &maps->maps[i];

		if (m->inode == obj->inode &&
		    makedev(m->dev_major, m->dev_minor) == obj->dev)
			return catalog_load_bias(maps, m, obj->elf, bias);
	}
	return -ENOENT;
}

/* The Ruby major.minor of obj (mapped at bias in pid): the string its
 * ruby_version holds ("3.1.2"), else its file's name (ruby3.1,
 * libruby-3.1.so). 0, or -1 if neither tells. */
static int version(pid_t pid, const struct cat_object *obj, uint64_t bias,
		   int *major, int *minor)
{
	char v[16] = "";
	const char *base = strrchr(obj->path, '/'), *p;
	uint64_t at;

	if (!elfobj_symbol_addr(obj->elf, "ruby_version", &at) &&
	    !pymem_peek(pid, at + bias, v, sizeof(v) - 1) &&
	    sscanf(v, "%d.%d", major, minor) == 2)
		return 0;
	base = base ? base + 1 : obj->path;
	p = strstr(base, "ruby");
	if (p && (sscanf(p + 4, "%d.%d", major, minor) == 2 ||
		  sscanf(p + 4, "-%d.%d", major, minor) == 2))
		return 0;
	return -1;
}

/* p's Ruby is obj's, mapped at bias, its VM pointer at vm_ptr: its
 * layout by its version, its symbol table by rb_id2str(); one line if
 * this version has no layout. */
static int setup_object(struct rbframe *rf, struct rbproc *p,
			const struct cat_object *obj, uint64_t bias,
			uint64_t vm_ptr)
{
	int major = -1, minor = -1;
	uint64_t id2str;

	version(p->pid, obj, bias, &major, &minor);
	p->lay = rblayout_find(major, minor);
	if (!p->lay) {
		if (!p->said)
			log_msg(LOG_WARN,
				"pid %d runs Ruby %d.%d (%s): rbframe, "
				"rbline and rbstack read Ruby %s",
				(int)p->pid, major, minor, obj->path,
				rblayout_versions());
		p->said = true;
		return -ENOTSUP;
	}
	if (elfobj_symbol_addr(obj->elf, "rb_id2str", &id2str) ||
	    rbmem_find_syms(p->pid, p->lay, id2str + bias, &p->syms)) {
		p->syms = 0;
		log_msg(LOG_WARN,
			"pid %d: no global symbol table found by %s's "
			"rb_id2str(): its C methods are named ?",
			(int)p->pid, obj->path);
	}
	return describe(rf, p, vm_ptr, p->lay);
}

int rbframe_setup(struct rbframe *rf, pid_t pid,
		  const struct cat_object *const *objs, size_t n,
		  const struct proc_maps *maps)
{
	struct rbproc *p = find_proc(rf, pid, true);

	if (!p)
		return -ENOSPC;
	if (p->ready)
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t vm, bias;
		int err;

		if (!objs[i]->elf ||
		    elfobj_symbol_addr(objs[i]->elf, "ruby_current_vm_ptr",
				       &vm) ||
		    load_bias(objs[i], maps, &bias))
			continue;
		err = setup_object(rf, p, objs[i], bias, vm + bias);
		if (err)
			return err;
		p->ready = true;
		return 0;
	}
	return -ENOENT;
}

void rbframe_forget(struct rbframe *rf, pid_t pid)
{
	struct rbproc *p = find_proc(rf, pid, false);
	uint32_t key = (uint32_t)pid;

	if (!p)
		return;
	p->ready = false;
	rbframe_drain(rf); /* the names taken before the exec */
	p->said = false;
	p->lay = NULL;
	if (p->gen) {
		memmove(p->old + 1, p->old, sizeof(p->old) - sizeof(p->old[0]));
		p->old[0] = p->gen;
	}
	p->gen = 0;
	bpf_map_delete_elem(rf->procs_fd, &key);
}

int rbframe_ready(const struct rbframe *rf, pid_t pid)
{
	for (size_t i = 0; i < rf->nprocs; i++)
		if (rf->procs[i].pid == pid)
			return rf->procs[i].ready;
	return 0;
}

/* A frame's names as text into out: label (cut keeping its start), path
 * (cut keeping its end; a C method's RBFRAME_CFUNC) and line. */
static void set_name(struct rbname *out, const char *label, const char *path,
		     bool cfunc, int line)
{
	pymem_cut(label[0] ? label : "?", out->func, sizeof(out->func), false);
	pymem_cut(cfunc ? RBFRAME_CFUNC : path, out->file, sizeof(out->file),
		  true);
	out->line = cfunc ? 0 : line;
}

/* Read frame key of p into *out, from the process: Ruby code only if
 * its body still holds the code the key names. 0 or -1. */
static int read_fn(const struct rbproc *p, uint64_t key, struct rbname *out)
{
	const struct rblayout *l = p->lay;
	char label[PT_RBSTR + 1] = "", path[PT_RBSTR + 1] = "";
	uint64_t loc[PT_RBLOC / 8], body = PT_RBFUNC_ADDR(key), where, name,
				    fix;
	uint32_t line;

	if (key & PT_RBFUNC_CFUNC) {
		if (rbmem_id_name(p->pid, l, p->syms, key & ~PT_RBFUNC_CFUNC,
				  label, sizeof(label)))
			return -1;
		set_name(out, label, "", true, 0);
		return 0;
	}
	if (!body || pymem_peek(p->pid, body + l->body_pathobj, loc, PT_RBLOC))
		return -1;
	where = loc[0];
	name = loc[(l->body_label - l->body_pathobj) / 8];
	fix = loc[(l->body_first_lineno - l->body_pathobj) / 8];
	line = l->first_lineno_int ? (uint32_t)fix
	       : fix & 1	   ? (uint32_t)(fix >> 1)
				   : 0;
	if (PT_RBFUNC_KEY(body, where, name, line) != key ||
	    rbmem_str(p->pid, l, name, label, sizeof(label), false))
		return -1;
	if (rbmem_ary_at(p->pid, l, where, 0)) /* [path, realpath] */
		where = rbmem_ary_at(p->pid, l, where, 0);
	if (rbmem_str(p->pid, l, where, path, sizeof(path), true))
		return -1;
	set_name(out, label, path, false, (int)line);
	return 0;
}

static size_t name_chain(pid_t pid, uint32_t gen, uint64_t key)
{
	return (key >> 4 ^ key >> 48 ^ (uint64_t)pid ^ (uint64_t)gen << 20) %
	       INDEX;
}

/* The slot of key (lines: an rbline key's function) in pid as set up
 * (gen), or NULL. */
static struct name_slot *find_name(struct rbframe *rf, pid_t pid, uint32_t gen,
				   uint64_t key, bool lines)
{
	for (uint32_t k = rf->index[name_chain(pid, gen, key)]; k;
	     k = rf->names[k - 1].next) {
		struct name_slot *s = &rf->names[k - 1];

		if (s->key == key && s->pid == pid && s->gen == gen &&
		    s->lines == lines)
			return s;
	}
	return NULL;
}

/* A new slot for key (lines: as find_name()'s) in pid, "?" until named;
 * NULL if out of memory. */
static struct name_slot *add_name(struct rbframe *rf, pid_t pid, uint32_t gen,
				  uint64_t key, bool lines)
{
	size_t chain = name_chain(pid, gen, key);
	struct name_slot *s;

	if (rf->nnames == rf->capnames) {
		size_t cap = rf->capnames ? 2 * rf->capnames : 256;

		s = realloc(rf->names, cap * sizeof(*s));
		if (!s)
			return NULL;
		rf->names = s;
		rf->capnames = cap;
	}
	s = &rf->names[rf->nnames];
	*s = (struct name_slot){
		.pid = pid, .gen = gen, .key = key, .lines = lines
	};
	strcpy(s->name.func, "?");
	s->next = rf->index[chain];
	rf->index[chain] = (uint32_t)++rf->nnames;
	return s;
}

/* The kernel's copy of a String as text into out (PT_RBSTR + 1 bytes);
 * false if it read none. */
static bool take_str(const struct pt_rbstr *st, char *out)
{
	if (st->len == (uint64_t)-1 || st->kept > PT_RBSTR)
		return false;
	memcpy(out, st->data, st->kept);
	out[st->kept] = '\0';
	return true;
}

/* The line table the kernel sent with a line key's function into s,
 * the layout l's; none if out of memory. */
static void take_lines(struct name_slot *s, const struct pt_rbnew *r,
		       const struct rblayout *l)
{
	size_t ni = r->info_bytes > PT_RBINFO ? 0 : r->info_bytes;
	size_t ns = r->succ_bytes > PT_RBSUCC ? 0 : r->succ_bytes;
	uint8_t *buf = malloc(ni + ns + 1);

	if (!buf)
		return;
	memcpy(buf, r->info, ni);
	memcpy(buf + ni, r->succ, ns);
	s->tab = (struct rbline_table){
		.encoded = r->encoded,
		.iseq_size = r->iseq_size,
		.ninfo = r->ninfo,
		.entry = l->insn_info_size,
		.line_at = l->insn_info_line,
		.info = buf,
		.info_bytes = ni,
		.succ = buf + ni,
		.succ_bytes = ns,
	};
}

/* An rbnew record: a frame's names as the kernel took them (a line key's
 * function: and its line table). */
static int on_new(void *ctx, void *data, size_t size)
{
	const struct pt_rbnew *r = data;
	struct rbframe *rf = ctx;
	char label[PT_RBSTR + 1], path[PT_RBSTR + 1];
	bool lines = r->lines, cfunc = !lines && r->key & PT_RBFUNC_CFUNC;
	struct rbproc *p;
	struct name_slot *s;

	if (size < PT_RBNEW_HEAD || (lines && size < sizeof(*r)))
		return 0;
	p = find_proc(rf, (pid_t)r->pid, false);
	if (!p || !p->lay || r->gen != p->gen)
		return 0;
	s = find_name(rf, (pid_t)r->pid, r->gen, r->key, lines);
	if (!s)
		s = add_name(rf, (pid_t)r->pid, r->gen, r->key, lines);
	if (!s || s->ok)
		return 0;
	if (take_str(&r->label, label) && r->label.kept &&
	    (cfunc || take_str(&r->path, path))) {
		set_name(&s->name, label, cfunc ? "" : path, cfunc,
			 (int)r->line);
		s->ok = true;
	} else if (!lines && p->ready && !read_fn(p, s->key, &s->name)) {
		s->ok = true;
	}
	if (lines)
		take_lines(s, r, p->lay);
	return 0;
}

void rbframe_drain(struct rbframe *rf)
{
	uint64_t lost;

	if (!rf)
		return;
	ring_buffer__consume(rf->news);
	lost = rf->lost ? *rf->lost : 0;
	if (lost > rf->lost_said) {
		log_msg(LOG_WARN,
			"ruby: the names of %llu frames found no room to be "
			"sent at first sight (rbnew full); read from the "
			"process instead while it lives",
			(unsigned long long)(lost - rf->lost_said));
		rf->lost_said = lost;
	}
}

/* The slot of key in pid: kept, else brought by a record not yet
 * drained, else named in the program before an exec, else read from the
 * process now ("?" if it cannot be); NULL if out of memory. */
static struct name_slot *name_of(struct rbframe *rf, pid_t pid, uint64_t key,
				 bool lines)
{
	struct rbproc *p = find_proc(rf, pid, false);
	uint32_t gen = p ? p->gen : 0;
	struct name_slot *s = find_name(rf, pid, gen, key, lines);

	if (s && s->ok)
		return s;
	if (!s) {
		rbframe_drain(rf);
		s = find_name(rf, pid, gen, key, lines);
	}
	for (int i = 0; !s && p && i < OLD_GENS && p->old[i]; i++) {
		s = find_name(rf, pid, p->old[i], key, lines);
		s = s && s->ok ? s : NULL;
	}
	if (!s)
		s = add_name(rf, pid, gen, key, lines);
	if (s && !s->ok && !lines && p && p->ready &&
	    !read_fn(p, key, &s->name))
		s->ok = true;
	return s;
}

int rbframe_line(struct rbframe *rf, pid_t pid, uint64_t fn, uint32_t pcbits,
		 struct rbname *out)
{
	const struct name_slot *s = name_of(rf, pid, fn, true);
	int line;

	if (!s || !s->ok) {
		*out = (struct rbname){ .func = "?" };
		return -1;
	}
	*out = s->name;
	line = s->tab.info ? rbline_at(&s->tab, pcbits) : -1;
	out->line = line > 0 ? line : 0;
	return 0;
}

int rbframe_name(struct rbframe *rf, pid_t pid, uint64_t key,
		 struct rbname *out)
{
	const struct name_slot *s = name_of(rf, pid, key, false);

	if (!s) {
		*out = (struct rbname){ .func = "?" };
		return -1;
	}
	*out = s->name;
	return s->ok ? 0 : -1;
}

const char *rbframe_stack(struct rbframe *rf, pid_t pid, uint64_t id)
{
	struct pt_rbstack st;
	char text[PT_RBSTACK_DEPTH * (RBFRAME_FUNC_MAX + 1) + 8];
	const char *kept = stacktext_find(rf->stacks, pid, id);
	size_t at = 0;

	if (kept)
		return kept;
	if (bpf_map_lookup_elem(rf->stacks_fd, &id, &st) || !st.depth)
		return stacktext_keep(rf->stacks, pid, id, "?");
	if (st.truncated)
		at += (size_t)snprintf(text, sizeof(text), "...;");
	for (uint32_t i = st.depth; i-- > 0 && i < PT_RBSTACK_DEPTH;) {
		struct rbname n;

		rbframe_name(rf, pid, st.fn[i], &n);
		at += (size_t)snprintf(text + at, sizeof(text) - at, "%s%s",
				       n.func, i ? ";" : "");
	}
	return stacktext_keep(rf->stacks, pid, id, text);
}
