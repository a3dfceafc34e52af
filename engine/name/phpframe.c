// SPDX-License-Identifier: MIT
/*
 * phpframe — PHP found, described and named; see phpframe.h.
 *
 * The same design as pyframe.c: names come from the kernel at first
 * sight (struct pt_phpnew on phpnew, kept by on_new()) or, for what it
 * could not read, from the process while it lives; every name is kept to
 * the end of the run by (pid, gen, key), gen being the process's set-up
 * (a new one after an exec).
 */
#include "phpframe.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "catalog.h"
#include "elfobj.h"
#include "log.h"
#include "phplayout.h"
#include "phpshared.h"
#include "probetop.h"
#include "proc.h"
#include "pymem.h"
#include "stacktext.h"

#define INDEX 4096 /* chains of the names' index */
#define OLD_GENS 8 /* set-ups before an exec whose names are looked up */
#define FN_SPAN 256 /* bpf/phpframe.bpf.h's PHP_FN_SPAN */

_Static_assert(sizeof(struct pt_phpproc) == 48, "pt_phpproc layout");

struct phpproc {
	pid_t pid;
	uint32_t gen; /* its set-up, as the kernel keys it; 0: none yet */
	uint32_t old[OLD_GENS]; /* the set-ups before its exec()s */
	const struct phplayout *lay;
	bool ready;
	bool said; /* its version said once (none read, or derived) */
};

struct name_slot {
	pid_t pid;
	uint32_t gen;
	uint64_t key;
	struct phpname name;
	bool ok;
	uint32_t next; /* the next of its index chain: 1 + index, or 0 */
	uint64_t lfn; /* its function as phpline keys it (PT_PHPLINE_FN()) */
	uint32_t lnext; /* the next of its chain in lindex, as next */
};

struct phpframe {
	int procs_fd, stacks_fd;
	struct ring_buffer *news;
	const volatile uint64_t *lost;
	uint64_t lost_said;
	struct phpproc procs[PT_PHP_PROCS];
	size_t nprocs;
	uint32_t gens; /* the last gen handed out */
	struct name_slot *names;
	size_t nnames, capnames;
	uint32_t index[INDEX];
	uint32_t lindex[INDEX]; /* the same by lfn */
	struct stacktext *stacks;
};

static int on_new(void *ctx, void *data, size_t size);

struct phpframe *phpframe_new(int procs_fd, int stacks_fd, int new_fd,
			      const volatile uint64_t *lost)
{
	struct phpframe *pf = calloc(1, sizeof(*pf));

	if (!pf) {
		errno = ENOMEM;
		return NULL;
	}
	pf->procs_fd = procs_fd;
	pf->stacks_fd = stacks_fd;
	pf->lost = lost;
	pf->news = ring_buffer__new(new_fd, on_new, pf, NULL);
	pf->stacks = stacktext_new();
	if (!pf->news || !pf->stacks) {
		phpframe_free(pf);
		errno = ENOMEM;
		return NULL;
	}
	return pf;
}

void phpframe_free(struct phpframe *pf)
{
	if (!pf)
		return;
	free(pf->names);
	stacktext_free(pf->stacks);
	ring_buffer__free(pf->news);
	free(pf);
}

static struct phpproc *find_proc(struct phpframe *pf, pid_t pid, bool add)
{
	for (size_t i = 0; i < pf->nprocs; i++)
		if (pf->procs[i].pid == pid)
			return &pf->procs[i];
	if (!add || pf->nprocs == PT_PHP_PROCS)
		return NULL;
	pf->procs[pf->nprocs] = (struct phpproc){ .pid = pid };
	return &pf->procs[pf->nprocs++];
}

/* The PHP version named in path ("php8.2", "libphp8.2.so"): 0, or -1 if
 * its name tells none. */
static int name_version(const char *path, int *major, int *minor)
{
	const char *base = strrchr(path, '/'), *p;

	base = base ? base + 1 : path;
	p = strstr(base, "php");
	if (!p || sscanf(p + 3, "%d.%d", major, minor) != 2)
		return -1;
	return 0;
}

/* Whether the kernel's reads of l's fields stay in the spans it reads
 * (bpf/phpframe.bpf.h). */
static bool layout_fits(const struct phplayout *l)
{
	return l->ex_func % 8 == 0 && l->ex_func < 64 && l->ex_prev % 8 == 0 &&
	       l->ex_prev < 64 && l->ex_opline % 8 == 0 && l->ex_opline < 64 &&
	       l->op_lineno < 65536 && l->fn_type < FN_SPAN &&
	       l->fn_name + 8 <= FN_SPAN && l->fn_name % 8 == 0 &&
	       l->fn_scope + 8 <= FN_SPAN && l->fn_scope % 8 == 0 &&
	       l->fn_filename + 8 <= FN_SPAN && l->fn_filename % 8 == 0 &&
	       l->fn_line_start + 4 <= FN_SPAN && l->fn_line_start % 4 == 0 &&
	       l->str_len % 8 == 0 && l->str_len + 8 <= 32 &&
	       l->internal_function < 256;
}

/* Tell the kernel where pid's PHP keeps its frames. */
static int describe(struct phpframe *pf, struct phpproc *p, uint64_t eg,
		    const struct phplayout *l)
{
	struct pt_phpproc pp = {
		.eg = eg,
		.eg_current_execute_data = l->eg_current_execute_data,
		.ex_func = (__u16)l->ex_func,
		.ex_prev = (__u16)l->ex_prev,
		.fn_type = (__u16)l->fn_type,
		.fn_name = (__u16)l->fn_name,
		.fn_scope = (__u16)l->fn_scope,
		.fn_filename = (__u16)l->fn_filename,
		.fn_line_start = (__u16)l->fn_line_start,
		.ce_name = (__u16)l->ce_name,
		.str_len = (__u16)l->str_len,
		.str_val = (__u16)l->str_val,
		.internal_function = (__u8)l->internal_function,
		.ex_opline = (__u16)l->ex_opline,
		.op_lineno = (__u16)l->op_lineno,
		.gen = ++pf->gens,
	};
	uint32_t key = (uint32_t)p->pid;

	if (!layout_fits(l))
		return -ENOTSUP;
	if (bpf_map_update_elem(pf->procs_fd, &key, &pp, BPF_ANY))
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

/* Whether b (at least 16 bytes) is a ZEND_MODULE_BUILD_ID: "API", 8
 * digits, ",NTS" or ",TS"; if so its API number and thread safety. */
static bool is_build_id(const char *b, uint32_t *api, bool *zts)
{
	for (int i = 3; i < 11; i++)
		if (!isdigit((unsigned char)b[i]))
			return false;
	if (!memcmp(b + 11, ",NTS", 4))
		*zts = false;
	else if (!memcmp(b + 11, ",TS", 3))
		*zts = true;
	else
		return false;
	*api = (uint32_t)strtoul(b + 3, NULL, 10);
	return true;
}

/* The module API and thread safety of the PHP in the file at path, from
 * the ZEND_MODULE_BUILD_ID it carries ("API20220829,NTS"): the truth of
 * the build, whatever the file is called. 0, or -1 if none is found. */
static int build_id(const char *path, uint32_t *api, bool *zts)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;
	const char *b = MAP_FAILED, *p, *end;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || st.st_size < 16)
		goto out;
	b = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (b == MAP_FAILED)
		goto out;
	end = b + st.st_size;
	for (p = b;
	     end - p >= 16 && (p = memmem(p, (size_t)(end - p - 15), "API", 3));
	     p += 3)
		if (is_build_id(p, api, zts)) {
			ret = 0;
			break;
		}
out:
	if (b != MAP_FAILED)
		munmap((void *)b, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* p's PHP is obj's: its layout by the build ID it carries, else by its
 * name; one line if this version has none, or a derived one. */
static int setup_object(struct phpframe *pf, struct phpproc *p,
			const struct cat_object *obj, uint64_t eg)
{
	int major = -1, minor = -1;
	char ver[48] = "of unknown version";
	uint32_t api = 0;
	bool zts = false;

	if (!build_id(obj->path, &api, &zts)) {
		p->lay = zts ? NULL : phplayout_find_api(api);
		if (phplayout_api_version(api, &major, &minor))
			snprintf(ver, sizeof(ver), "of module API %u", api);
	} else {
		name_version(obj->path, &major, &minor);
		p->lay = phplayout_find(major, minor);
	}
	if (p->lay) {
		if (!phplayout_checked(p->lay) && !p->said)
			log_msg(LOG_INFO,
				"pid %d runs PHP %d.%d: its layout is derived "
				"from published copies of its structs, not "
				"checked against its headers",
				(int)p->pid, p->lay->major, p->lay->minor);
		p->said = true;
		return describe(pf, p, eg, p->lay);
	}
	if (major >= 0)
		snprintf(ver, sizeof(ver), "%d.%d", major, minor);
	if (!p->said)
		log_msg(LOG_WARN,
			"pid %d runs PHP %s%s (%s): phpframe, phpline and "
			"phpstack read PHP 8.0 to 8.4, non-ZTS",
			(int)p->pid, ver, zts ? " ZTS" : "", obj->path);
	p->said = true;
	return -ENOTSUP;
}

int phpframe_setup(struct phpframe *pf, pid_t pid,
		   const struct cat_object *const *objs, size_t n,
		   const struct proc_maps *maps)
{
	struct phpproc *p = find_proc(pf, pid, true);

	if (!p)
		return -ENOSPC;
	if (p->ready)
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t eg, bias;
		int err;

		if (!objs[i]->elf ||
		    elfobj_symbol_addr(objs[i]->elf, "executor_globals", &eg) ||
		    load_bias(objs[i], maps, &bias))
			continue;
		err = setup_object(pf, p, objs[i], eg + bias);
		if (err)
			return err;
		p->ready = true;
		return 0;
	}
	return -ENOENT;
}

void phpframe_forget(struct phpframe *pf, pid_t pid)
{
	struct phpproc *p = find_proc(pf, pid, false);
	uint32_t key = (uint32_t)pid;

	if (!p)
		return;
	p->ready = false;
	phpframe_drain(pf); /* the names taken before the exec */
	p->said = false;
	p->lay = NULL;
	if (p->gen) {
		memmove(p->old + 1, p->old, sizeof(p->old) - sizeof(p->old[0]));
		p->old[0] = p->gen;
	}
	p->gen = 0;
	bpf_map_delete_elem(pf->procs_fd, &key);
}

int phpframe_ready(const struct phpframe *pf, pid_t pid)
{
	for (size_t i = 0; i < pf->nprocs; i++)
		if (pf->procs[i].pid == pid)
			return pf->procs[i].ready;
	return 0;
}

/* "Class::func", "func", or, for code of no function, "{eval}" (eval'd
 * code, type eval_code) or "{main}" (a file's top level) into out (n
 * bytes); a name cut keeps its start. */
static void join_name(const char *scope, const char *func, bool eval, char *out,
		      size_t n)
{
	char buf[2 * PT_PHPSTR + 8];

	snprintf(buf, sizeof(buf), "%s%s%s", scope, scope[0] ? "::" : "",
		 func[0] ? func
		 : eval	 ? "{eval}"
			 : "{main}");
	pymem_cut(buf, out, n, false);
}

/* The zend_string at str in pid as text into buf (PT_PHPSTR + 1 bytes):
 * its first PT_PHPSTR bytes, or its last if tail. 0 or -1. */
static int read_str(pid_t pid, const struct phplayout *l, uint64_t str,
		    char *buf, bool tail)
{
	uint64_t len = 0, n;

	if (!str || pymem_peek(pid, str + l->str_len, &len, sizeof(len)) ||
	    len > (1ULL << 32))
		return -1;
	n = len > PT_PHPSTR ? PT_PHPSTR : len;
	if (pymem_peek(pid, str + l->str_val + (tail ? len - n : 0), buf, n))
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The key of function fn as the kernel makes it (php_fn_key()) from its
 * bytes b (FN_SPAN of them). */
static uint64_t fn_key(const struct phplayout *l, uint64_t fn, const uint8_t *b)
{
	bool user = b[l->fn_type] != l->internal_function;
	uint64_t where, name;
	uint32_t line = 0;

	memcpy(&where, b + (user ? l->fn_filename : l->fn_scope), 8);
	memcpy(&name, b + l->fn_name, 8);
	if (user)
		memcpy(&line, b + l->fn_line_start, 4);
	return PT_PHPFUNC_KEY(fn, where, name, line);
}

/* Read the function key of p into *out, from the process: not if its
 * address holds another function now (another key). 0 or -1. */
static int read_fn(const struct phpproc *p, uint64_t key, struct phpname *out)
{
	const struct phplayout *l = p->lay;
	char func[PT_PHPSTR + 1] = "", scope[PT_PHPSTR + 1] = "";
	char file[PT_PHPSTR + 1] = "";
	uint8_t b[FN_SPAN];
	uint64_t fn = PT_PHPFUNC_ADDR(key), at;
	bool user;

	if (!fn || pymem_peek(p->pid, fn, b, sizeof(b)) ||
	    fn_key(l, fn, b) != key)
		return -1;
	user = b[l->fn_type] != l->internal_function;
	memcpy(&at, b + l->fn_name, 8);
	if (at && read_str(p->pid, l, at, func, false))
		return -1;
	memcpy(&at, b + l->fn_scope, 8);
	if (at && read_str(p->pid, l, pymem_ptr(p->pid, at + l->ce_name), scope,
			   false))
		return -1;
	memcpy(&at, b + l->fn_filename, 8);
	if (user && read_str(p->pid, l, at, file, true))
		return -1;
	join_name(scope, func, b[l->fn_type] == l->eval_code, out->func,
		  sizeof(out->func));
	pymem_cut(user ? file : PHPFRAME_INTERNAL, out->file, sizeof(out->file),
		  true);
	out->line = 0;
	if (user)
		memcpy(&out->line, b + l->fn_line_start, 4);
	return 0;
}

static size_t name_chain(pid_t pid, uint32_t gen, uint64_t key)
{
	return (key >> 4 ^ key >> 48 ^ (uint64_t)pid ^ (uint64_t)gen << 20) %
	       INDEX;
}

/* The slot of key in pid as set up (gen), or NULL; by_line: key is a
 * phpline key's function (PT_PHPLINE_FN()), looked up in lindex. */
static struct name_slot *find_name(struct phpframe *pf, pid_t pid, uint32_t gen,
				   uint64_t key, bool by_line)
{
	const uint32_t *index = by_line ? pf->lindex : pf->index;

	for (uint32_t k = index[name_chain(pid, gen, key)]; k;
	     k = by_line ? pf->names[k - 1].lnext : pf->names[k - 1].next) {
		struct name_slot *s = &pf->names[k - 1];

		if ((by_line ? s->lfn : s->key) == key && s->pid == pid &&
		    s->gen == gen)
			return s;
	}
	return NULL;
}

/* A new slot for key in pid, "?" until named; NULL if out of memory. */
static struct name_slot *add_name(struct phpframe *pf, pid_t pid, uint32_t gen,
				  uint64_t key)
{
	size_t chain = name_chain(pid, gen, key);
	struct name_slot *s;

	if (pf->nnames == pf->capnames) {
		size_t cap = pf->capnames ? 2 * pf->capnames : 256;

		s = realloc(pf->names, cap * sizeof(*s));
		if (!s)
			return NULL;
		pf->names = s;
		pf->capnames = cap;
	}
	s = &pf->names[pf->nnames];
	*s = (struct name_slot){ .pid = pid, .gen = gen, .key = key };
	s->lfn = PT_PHPLINE_FN(key);
	strcpy(s->name.func, "?");
	s->next = pf->index[chain];
	pf->index[chain] = (uint32_t)++pf->nnames;
	chain = name_chain(pid, gen, s->lfn);
	s->lnext = pf->lindex[chain];
	pf->lindex[chain] = (uint32_t)pf->nnames;
	return s;
}

/* The kernel's copy of a zend_string as text into out (PT_PHPSTR + 1
 * bytes); false if it read none. */
static bool take_str(const struct pt_phpstr *st, char *out)
{
	if (st->len == (uint64_t)-1 || st->kept > PT_PHPSTR)
		return false;
	memcpy(out, st->data, st->kept);
	out[st->kept] = '\0';
	return true;
}

/* A phpnew record: a function's names as the kernel took them. */
static int on_new(void *ctx, void *data, size_t size)
{
	const struct pt_phpnew *r = data;
	struct phpframe *pf = ctx;
	char func[PT_PHPSTR + 1], scope[PT_PHPSTR + 1], file[PT_PHPSTR + 1];
	struct phpproc *p;
	struct name_slot *s;
	bool user;

	if (size < sizeof(*r))
		return 0;
	p = find_proc(pf, (pid_t)r->pid, false);
	if (!p || !p->lay || r->gen != p->gen)
		return 0;
	s = find_name(pf, (pid_t)r->pid, r->gen, r->key, false);
	if (!s)
		s = add_name(pf, (pid_t)r->pid, r->gen, r->key);
	if (!s || s->ok)
		return 0;
	user = r->type != p->lay->internal_function;
	if (take_str(&r->func, func) && take_str(&r->scope, scope) &&
	    (!user || take_str(&r->file, file))) {
		join_name(scope, func, r->type == p->lay->eval_code,
			  s->name.func, sizeof(s->name.func));
		pymem_cut(user ? file : PHPFRAME_INTERNAL, s->name.file,
			  sizeof(s->name.file), true);
		s->name.line = user ? (int)r->line : 0;
		s->ok = true;
	} else if (p->ready && !read_fn(p, s->key, &s->name)) {
		s->ok = true;
	}
	return 0;
}

void phpframe_drain(struct phpframe *pf)
{
	uint64_t lost;

	if (!pf)
		return;
	ring_buffer__consume(pf->news);
	lost = pf->lost ? *pf->lost : 0;
	if (lost > pf->lost_said) {
		log_msg(LOG_WARN,
			"php: the names of %llu functions found no room to be "
			"sent at first sight (phpnew full); read from the "
			"process instead while it lives",
			(unsigned long long)(lost - pf->lost_said));
		pf->lost_said = lost;
	}
}

/* The slot of key in pid: kept, else brought by a record not yet
 * drained, else named in the program before an exec, else read from the
 * process now ("?" if it cannot be); NULL if out of memory. by_line: key
 * is a phpline key's function (PT_PHPLINE_FN()), not an address: named
 * only by the record the kernel sent (whose key is read from the process
 * if the record's names were not); NULL if none came. */
static struct name_slot *name_of(struct phpframe *pf, pid_t pid, uint64_t key,
				 bool by_line)
{
	struct phpproc *p = find_proc(pf, pid, false);
	uint32_t gen = p ? p->gen : 0;
	struct name_slot *s = find_name(pf, pid, gen, key, by_line);

	if (s && s->ok)
		return s;
	if (!s) {
		phpframe_drain(pf);
		s = find_name(pf, pid, gen, key, by_line);
	}
	for (int i = 0; !s && p && i < OLD_GENS && p->old[i]; i++) {
		s = find_name(pf, pid, p->old[i], key, by_line);
		s = s && s->ok ? s : NULL;
	}
	if (!s && !by_line)
		s = add_name(pf, pid, gen, key);
	if (s && !s->ok && p && p->ready && !read_fn(p, s->key, &s->name))
		s->ok = true;
	return s;
}

int phpframe_line(struct phpframe *pf, pid_t pid, uint64_t key,
		  struct phpname *out)
{
	const struct name_slot *s =
		name_of(pf, pid, key >> PT_PHPLINE_BITS, true);

	*out = s ? s->name : (struct phpname){ .func = "?" };
	out->line = (int)(key & PT_PHPLINE_MAX);
	return s && s->ok ? 0 : -1;
}

int phpframe_name(struct phpframe *pf, pid_t pid, uint64_t key,
		  struct phpname *out)
{
	const struct name_slot *s = name_of(pf, pid, key, false);

	if (!s) {
		*out = (struct phpname){ .func = "?" };
		return -1;
	}
	*out = s->name;
	return s->ok ? 0 : -1;
}

const char *phpframe_stack(struct phpframe *pf, pid_t pid, uint64_t id)
{
	struct pt_phpstack st;
	char text[PT_PHPSTACK_DEPTH * (PHPFRAME_FUNC_MAX + 1) + 8];
	const char *kept = stacktext_find(pf->stacks, pid, id);
	size_t at = 0;

	if (kept)
		return kept;
	if (bpf_map_lookup_elem(pf->stacks_fd, &id, &st) || !st.depth)
		return stacktext_keep(pf->stacks, pid, id, "?");
	if (st.truncated)
		at += (size_t)snprintf(text, sizeof(text), "...;");
	for (uint32_t i = st.depth; i-- > 0 && i < PT_PHPSTACK_DEPTH;) {
		struct phpname n;

		phpframe_name(pf, pid, st.fn[i], &n);
		at += (size_t)snprintf(text + at, sizeof(text) - at, "%s%s",
				       n.func, i ? ";" : "");
	}
	return stacktext_keep(pf->stacks, pid, id, text);
}
