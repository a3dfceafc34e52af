// SPDX-License-Identifier: MIT
/*
 * jvmframe — a HotSpot JVM's interpreted frames named; see jvmframe.h.
 */
#include "jvmframe.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h> /* before probetop.h */

#include "catalog.h"
#include "elfobj.h"
#include "jvmcode.h"
#include "jvmlayout.h"
#include "jvmscope.h"
#include "probetop.h"
#include "pymem.h"
#include "stacktext.h"

#define SYMBOL_MAX 512 /* bytes of a Symbol read at most */
#define STUB_MAX 64 /* bytes of a stub's name read at most */
#define METHODS_MAX 4096 /* entries of a class's method array looked at */
#define NAME_MAX_LEN 512 /* bytes of a method's name */
#define LINES_MAX 1024 /* bytes of a line number table read at most */

struct jvmframe {
	pid_t pid; /* the JVM set up (0: none) */
	struct jvmlayout lay;
	struct jvmcodelayout code_lay;
	bool code_ok; /* code_lay read */
	struct jvmcode code; /* its code cache as last read */
	struct stacktext *names; /* by (pid, Method* | gen << 48) */
	struct stacktext *stubs; /* the names of blobs not methods', by
				    (pid, their name's address | gen << 60) */
	uint64_t gen; /* programs forgotten (jvmframe_forget()), mod 16 */
};

struct jvmframe *jvmframe_new(void)
{
	struct jvmframe *jf = calloc(1, sizeof(*jf));

	if (jf) {
		jf->names = stacktext_new();
		jf->stubs = stacktext_new();
	}
	if (!jf || !jf->names || !jf->stubs) {
		if (jf) {
			stacktext_free(jf->names);
			stacktext_free(jf->stubs);
		}
		free(jf);
		errno = ENOMEM;
		return NULL;
	}
	return jf;
}

void jvmframe_free(struct jvmframe *jf)
{
	if (!jf)
		return;
	stacktext_free(jf->names);
	stacktext_free(jf->stubs);
	jvmcode_free(&jf->code);
	free(jf);
}

/* How jvmlayout finds libjvm.so's symbols: its .dynsym, at its bias. */
static uint64_t jvm_sym(const char *name, void *ctx)
{
	const struct cat_object *obj = ctx;
	uint64_t at;

	return elfobj_symbol_addr(obj->elf, name, &at) ? 0 : at + obj->bias;
}

/* Whether obj is a libjvm.so mapped at a known place. */
static bool is_libjvm(const struct cat_object *obj)
{
	const char *base = strrchr(obj->path, '/');

	base = base ? base + 1 : obj->path;
	return obj->elf && obj->has_bias && !strcmp(base, "libjvm.so");
}

int jvmframe_setup(struct jvmframe *jf, pid_t pid,
		   const struct cat_object *const *objs, size_t n,
		   struct jvm_interp *in)
{
	struct jvmlayout l;
	uint64_t queue, buf;
	int32_t limit = 0;
	size_t i = 0;
	int err;

	while (i < n && !is_libjvm(objs[i]))
		i++;
	if (i == n)
		return -EAGAIN;
	err = jvmlayout_read(pid, jvm_sym, (void *)objs[i], &l);
	if (err)
		return err;
	queue = pymem_ptr(pid, l.interp_code);
	buf = queue ? pymem_ptr(pid, queue + l.stubq_buffer) : 0;
	if (!buf || pymem_peek(pid, queue + l.stubq_limit, &limit, 4) ||
	    limit <= 0)
		return -EAGAIN; /* the interpreter not generated yet */
	jf->pid = pid;
	jf->lay = l;
	*in = (struct jvm_interp){
		.lo = buf,
		.hi = buf + (uint64_t)limit,
		.method_at = l.frame_method,
		.bcp_at = l.frame_bcp,
		.sender_at = l.frame_sender,
		.cm_at = l.method_const,
		.code_at = l.cm_size,
	};
	jvmcode_free(&jf->code);
	jf->code_ok = !jvmlayout_read_code(pid, jvm_sym, (void *)objs[i],
					   &jf->code_lay);
	in->code_ok = jf->code_ok;
	return 0;
}

/* The text of the Symbol at sym in pid into buf (n bytes). 0 or -1. */
static int symbol(pid_t pid, const struct jvmlayout *l, uint64_t sym, char *buf,
		  size_t n)
{
	uint16_t len = 0;

	if (!sym || pymem_peek(pid, sym + l->sym_length, &len, 2) || len >= n ||
	    pymem_peek(pid, sym + l->sym_body, buf, len))
		return -1;
	buf[len] = '\0';
	return memchr(buf, '\0', len) ? -1 : 0;
}

/* The Symbol in slot idx of the constant pool at cp of pid into buf. */
static int cp_symbol(pid_t pid, const struct jvmlayout *l, uint64_t cp,
		     uint16_t idx, char *buf, size_t n)
{
	uint64_t slot = pymem_ptr(pid, cp + l->cp_size + 8ull * idx);

	return symbol(pid, l, slot & ~1ull, buf, n);
}

/* Whether the method array of the class at holder in pid holds method. */
static bool holds(pid_t pid, const struct jvmlayout *l, uint64_t holder,
		  uint64_t method)
{
	static uint64_t m[METHODS_MAX];
	uint64_t arr = pymem_ptr(pid, holder + l->ik_methods);
	int32_t len = 0;

	if (!arr || pymem_peek(pid, arr, &len, 4) || len <= 0)
		return false;
	if (len > METHODS_MAX)
		len = METHODS_MAX;
	if (pymem_peek(pid, arr + l->array_data, m, (size_t)len * 8))
		return false;
	for (int32_t i = 0; i < len; i++)
		if (m[i] == method)
			return true;
	return false;
}

/* Append to out[*at..n) as snprintf does (cut at n). */
static void put(char *out, size_t n, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*at >= n)
		return;
	va_start(ap, fmt);
	w = vsnprintf(out + *at, n - *at, fmt, ap);
	va_end(ap);
	*at = w < 0 ? n : *at + (size_t)w;
}

/* The Java type the field descriptor at *d starts with appended to out
 * ("long", "java.lang.String[]"); *d past it. false if malformed. */
static bool put_type(const char **d, char *out, size_t n, size_t *at)
{
	static const char prim[] = "BCDFIJSZV";
	static const char *const names[] = { "byte",  "char",	 "double",
					     "float", "int",	 "long",
					     "short", "boolean", "void" };
	const char *p = *d, *c;
	int dims = 0;

	while (*p == '[')
		dims++, p++;
	if (*p == 'L') {
		const char *end = strchr(p, ';');

		if (!end)
			return false;
		for (c = p + 1; c < end; c++)
			put(out, n, at, "%c", *c == '/' ? '.' : *c);
		p = end + 1;
	} else if (*p && (c = strchr(prim, *p))) {
		put(out, n, at, "%s", names[c - prim]);
		p++;
	} else {
		return false;
	}
	while (dims-- > 0)
		put(out, n, at, "[]");
	*d = p;
	return true;
}

/* "RET CLASS.NAME(PARAMS)" from the class name, method name and
 * signature "(PARAMS)RET" into out (n bytes). 0 or -1. */
static int format(const char *klass, const char *name, const char *sig,
		  char *out, size_t n)
{
	const char *ret = strchr(sig, ')'), *p = sig + 1;
	size_t at = 0;

	if (sig[0] != '(' || !ret)
		return -1;
	ret++;
	if (!put_type(&ret, out, n, &at) || *ret)
		return -1;
	put(out, n, &at, " ");
	for (const char *c = klass; *c; c++)
		put(out, n, &at, "%c", *c == '/' ? '.' : *c);
	put(out, n, &at, ".%s(", name);
	while (*p != ')') {
		if (p != sig + 1)
			put(out, n, &at, ", ");
		if (!put_type(&p, out, n, &at))
			return -1;
	}
	put(out, n, &at, ")");
	return 0;
}

/*
 * The line of bytecode index bci of the ConstMethod at cm in pid, from
 * its compressed line number table (after its bytecodes: pairs of bci
 * and line deltas, one byte when they fit 5 and 3 bits, else 0xff and
 * two signed ints; 0 ends it): the line of the last pair at or before
 * bci. -1 if it has none, unreadable, or longer than the LINES_MAX
 * bytes read before bci's pair.
 */
static int line_of(pid_t pid, const struct jvmlayout *l, uint64_t cm,
		   uint32_t bci)
{
	static uint8_t b[LINES_MAX];
	struct cstream s = { b, sizeof(b), 0 };
	uint16_t flags = 0, code = 0;
	int32_t at = 0, line = 0, best = -1;

	if (pymem_peek(pid, cm + l->cm_flags, &flags, 2) ||
	    !(flags & l->cm_has_lines) ||
	    pymem_peek(pid, cm + l->cm_code_size, &code, 2))
		return -1;
	while (s.n >= 64 && pymem_peek(pid, cm + l->cm_size + code, b, s.n))
		s.n /= 2; /* near the end of its mapping */
	while (s.n >= 64 && s.at < s.n && b[s.at]) {
		uint8_t c = b[s.at++];

		if (c == 0xff) {
			at += cstream_s5(&s);
			line += cstream_s5(&s);
		} else {
			at += c >> 3;
			line += c & 7;
		}
		if (at > (int32_t)bci || s.at >= s.n)
			return at > (int32_t)bci ? best
						 : -1; /* read past: -1 */
		best = line;
	}
	return s.n >= 64 ? best : -1;
}

/* " (FILE:LINE)" of bytecode index bci of the ConstMethod at cm (its
 * constant pool at cp) appended to out (n bytes), if known. */
static void put_line(pid_t pid, const struct jvmlayout *l, uint64_t cm,
		     uint64_t cp, uint32_t bci, char *out, size_t n)
{
	char file[SYMBOL_MAX];
	uint16_t fi = 0;
	size_t at = strlen(out);
	int line = bci == PT_JAVA_BCI_NONE ? -1 : line_of(pid, l, cm, bci);

	if (line < 0 || pymem_peek(pid, cp + l->cp_source, &fi, 2) || !fi ||
	    cp_symbol(pid, l, cp, fi, file, sizeof(file)))
		return;
	put(out, n, &at, " (%s:%d)", file, line);
}

/* The name of method in the JVM pid, by its layout l, into out: "RET
 * CLASS.NAME(PARAMS)", " (FILE:LINE)" after it if bci (not
 * PT_JAVA_BCI_NONE) has a line. */
static int read_name(pid_t pid, const struct jvmlayout *l, uint64_t method,
		     uint32_t bci, char *out, size_t n)
{
	char klass[SYMBOL_MAX], name[SYMBOL_MAX], sig[SYMBOL_MAX];
	uint64_t cm = pymem_ptr(pid, method + l->method_const);
	uint64_t cp = cm ? pymem_ptr(pid, cm + l->cm_constants) : 0;
	uint64_t holder = cp ? pymem_ptr(pid, cp + l->cp_holder) : 0;
	uint16_t ni = 0, si = 0;

	if (!holder || !holds(pid, l, holder, method) ||
	    pymem_peek(pid, cm + l->cm_name, &ni, 2) ||
	    pymem_peek(pid, cm + l->cm_sig, &si, 2) ||
	    symbol(pid, l, pymem_ptr(pid, holder + l->klass_name), klass,
		   sizeof(klass)) ||
	    cp_symbol(pid, l, cp, ni, name, sizeof(name)) ||
	    cp_symbol(pid, l, cp, si, sig, sizeof(sig)) ||
	    format(klass, name, sig, out, n))
		return -1;
	put_line(pid, l, cm, cp, bci, out, n);
	return 0;
}

void jvmframe_forget(struct jvmframe *jf, pid_t pid)
{
	if (jf->pid != pid)
		return;
	jf->pid = 0;
	jf->gen++;
	jf->code_ok = false;
	jvmcode_free(&jf->code);
}

const char *jvmframe_name(struct jvmframe *jf, pid_t pid, uint64_t frame)
{
	uint64_t method = (frame & ((1ull << PT_JAVA_BCI_SHIFT) - 1)) << 3;
	uint32_t bci =
		(uint32_t)(frame >> PT_JAVA_BCI_SHIFT & PT_JAVA_BCI_NONE);
	uint64_t id = (frame & ((1ull << 60) - 1)) | (jf->gen & 15) << 60;
	const char *kept = stacktext_find(jf->names, pid, id);
	char name[NAME_MAX_LEN];

	if (kept)
		return kept;
	if (pid != jf->pid ||
	    read_name(pid, &jf->lay, method, bci, name, sizeof(name)))
		snprintf(name, sizeof(name), "Interpreter");
	return stacktext_keep(jf->names, pid, id, name);
}

int jvmframe_code(struct jvmframe *jf, pid_t pid, const struct jvmcode **out)
{
	int err;

	if (pid != jf->pid || !jf->code_ok)
		return -ENOENT;
	err = jvmcode_read(pid, &jf->code_lay, &jf->code);
	if (!err)
		*out = &jf->code;
	return err;
}

/* The name of a blob not a method's ("StubRoutines (1)", "I2C/C2I
 * adapters") by the C string at name in pid, kept; NULL if unreadable.
 * The JVM's names of stubs are literals: kept by their address. */
static const char *stub_name(struct jvmframe *jf, pid_t pid, uint64_t name)
{
	uint64_t id = name | (jf->gen & 15) << 60;
	const char *kept = stacktext_find(jf->stubs, pid, id);
	char buf[STUB_MAX];
	size_t got = sizeof(buf);

	if (kept || !name)
		return kept;
	if (pymem_peek(pid, name, buf, sizeof(buf))) { /* near a page's end */
		for (got = 0; got < sizeof(buf); got++) {
			if (pymem_peek(pid, name + got, buf + got, 1))
				break;
			if (!buf[got]) {
				got++;
				break;
			}
		}
	}
	if (!memchr(buf, '\0', got))
		return NULL; /* unreadable, or longer than a stub's */
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return NULL;
	return buf[0] ? stacktext_keep(jf->stubs, pid, id, buf) : NULL;
}

size_t jvmframe_compiled(struct jvmframe *jf, pid_t pid, uint64_t pc,
			 const char **names)
{
	const struct jvmcode_blob *b =
		pid == jf->pid ? jvmcode_find(&jf->code, pc) : NULL;
	struct jvmscope sc[JVMSCOPE_MAX];
	size_t n, named = 0;

	if (b && !b->method)
		return (names[0] = stub_name(jf, pid, b->name)) ? 1 : 0;
	if (!b || b->method & 7 || b->method >> 47)
		return 0;
	n = jvmscope_read(pid, &jf->code_lay, b, pc, sc);
	if (!n) { /* its method, where in it not known */
		sc[0] = (struct jvmscope){ b->method, PT_JAVA_BCI_NONE };
		n = 1;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = jvmframe_name(
			jf, pid,
			PT_IP_JAVA | (uint64_t)sc[i].bci << PT_JAVA_BCI_SHIFT |
				sc[i].method >> 3);

		if (!name || !strcmp(name, "Interpreter"))
			return 0; /* a scope unreadable: not this method's */
		names[named++] = name;
	}
	return named;
}
