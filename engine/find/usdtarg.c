// SPDX-License-Identifier: MIT
/*
 * usdtarg — x86-64 USDT argument decoder. See usdtarg.h for the grammar.
 *
 * The decoder is a small recursive-descent reader over a bounded buffer
 * (the spec need not be NUL-terminated at len): it never reads past len and
 * never allocates, so it is safe on hostile note contents and is fuzzed.
 */
#include "usdtarg.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reg_name {
	const char *name;
	enum x86_reg reg;
	uint8_t width; /* bytes */
	uint8_t shift;
};

static const struct reg_name REGS[] = {
	{ "rax", X86_REG_RAX, 8, 0 }, { "eax", X86_REG_RAX, 4, 0 },
	{ "ax", X86_REG_RAX, 2, 0 },  { "al", X86_REG_RAX, 1, 0 },
	{ "ah", X86_REG_RAX, 1, 8 },  { "rbx", X86_REG_RBX, 8, 0 },
	{ "ebx", X86_REG_RBX, 4, 0 }, { "bx", X86_REG_RBX, 2, 0 },
	{ "bl", X86_REG_RBX, 1, 0 },  { "bh", X86_REG_RBX, 1, 8 },
	{ "rcx", X86_REG_RCX, 8, 0 }, { "ecx", X86_REG_RCX, 4, 0 },
	{ "cx", X86_REG_RCX, 2, 0 },  { "cl", X86_REG_RCX, 1, 0 },
	{ "ch", X86_REG_RCX, 1, 8 },  { "rdx", X86_REG_RDX, 8, 0 },
	{ "edx", X86_REG_RDX, 4, 0 }, { "dx", X86_REG_RDX, 2, 0 },
	{ "dl", X86_REG_RDX, 1, 0 },  { "dh", X86_REG_RDX, 1, 8 },
	{ "rsi", X86_REG_RSI, 8, 0 }, { "esi", X86_REG_RSI, 4, 0 },
	{ "si", X86_REG_RSI, 2, 0 },  { "sil", X86_REG_RSI, 1, 0 },
	{ "rdi", X86_REG_RDI, 8, 0 }, { "edi", X86_REG_RDI, 4, 0 },
	{ "di", X86_REG_RDI, 2, 0 },  { "dil", X86_REG_RDI, 1, 0 },
	{ "rbp", X86_REG_RBP, 8, 0 }, { "ebp", X86_REG_RBP, 4, 0 },
	{ "bp", X86_REG_RBP, 2, 0 },  { "bpl", X86_REG_RBP, 1, 0 },
	{ "rsp", X86_REG_RSP, 8, 0 }, { "esp", X86_REG_RSP, 4, 0 },
	{ "sp", X86_REG_RSP, 2, 0 },  { "spl", X86_REG_RSP, 1, 0 },
	{ "rip", X86_REG_RIP, 8, 0 }, { "eip", X86_REG_RIP, 4, 0 },
};

static const char *const REG64[X86_REG_COUNT] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8",
	"r9",  "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};

struct cursor {
	const char *p;
	const char *end;
};

static int peek(const struct cursor *c)
{
	return c->p < c->end ? (unsigned char)*c->p : -1;
}

static bool eat(struct cursor *c, char ch)
{
	if (peek(c) != ch)
		return false;
	c->p++;
	return true;
}

static bool is_digit(int ch)
{
	return ch >= '0' && ch <= '9';
}

static bool is_alpha(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static bool is_xdigit(int ch)
{
	return is_digit(ch) || (ch >= 'a' && ch <= 'f') ||
	       (ch >= 'A' && ch <= 'F');
}

static int xval(int ch)
{
	return is_digit(ch) ? ch - '0' : (ch | 0x20) - 'a' + 10;
}

/* [-+]?(0x[0-9a-f]+|[0-9]+); wraps like the assembler does. */
static bool read_int(struct cursor *c, int64_t *out)
{
	bool neg = false;
	uint64_t v = 0;

	if (eat(c, '-'))
		neg = true;
	else
		eat(c, '+');
	if (!is_digit(peek(c)))
		return false;
	if (peek(c) == '0' && c->p + 1 < c->end && (c->p[1] | 0x20) == 'x') {
		c->p += 2;
		if (!is_xdigit(peek(c)))
			return false;
		while (is_xdigit(peek(c)))
			v = v * 16 + (uint64_t)xval(*c->p++);
	} else {
		while (is_digit(peek(c)))
			v = v * 10 + (uint64_t)(*c->p++ - '0');
	}
	*out = (int64_t)(neg ? 0 - v : v);
	return true;
}

/* %name -> register; width and shift of the named part */
static bool read_reg(struct cursor *c, enum x86_reg *reg, uint8_t *width,
		     uint8_t *shift)
{
	char name[8];
	size_t n = 0;

	if (!eat(c, '%'))
		return false;
	while (n < sizeof(name) - 1 && (is_alpha(peek(c)) || is_digit(peek(c))))
		name[n++] = (char)*c->p++;
	name[n] = '\0';
	if (is_alpha(peek(c)) || is_digit(peek(c)))
		return false;
	*shift = 0;
	if (name[0] == 'r' && is_digit(name[1])) { /* r8..r15[dwbl] */
		char *suffix = NULL;
		long num = strtol(name + 1, &suffix, 10);

		if (num < 8 || num > 15)
			return false;
		*reg = (enum x86_reg)(X86_REG_R8 + (num - 8));
		if (!*suffix)
			*width = 8;
		else if (!strcmp(suffix, "d"))
			*width = 4;
		else if (!strcmp(suffix, "w"))
			*width = 2;
		else if (!strcmp(suffix, "b") || !strcmp(suffix, "l"))
			*width = 1;
		else
			return false;
		return true;
	}
	for (size_t i = 0; i < sizeof(REGS) / sizeof(REGS[0]); i++) {
		if (!strcmp(name, REGS[i].name)) {
			*reg = REGS[i].reg;
			*width = REGS[i].width;
			*shift = REGS[i].shift;
			return true;
		}
	}
	return false;
}

static bool is_sym_start(int ch)
{
	return is_alpha(ch) || ch == '_' || ch == '.';
}

static bool is_sym_char(int ch)
{
	return is_sym_start(ch) || is_digit(ch) || ch == '$' || ch == '@';
}

/* symbol name into arg->sym; false if it does not fit */
static bool read_sym(struct cursor *c, struct usdt_arg *arg)
{
	size_t n = 0;

	while (is_sym_char(peek(c))) {
		if (n == sizeof(arg->sym) - 1)
			return false;
		arg->sym[n++] = (char)*c->p++;
	}
	arg->sym[n] = '\0';
	return n > 0;
}

/* "(%base)", "(%base,%index)", "(%base,%index,scale)", "(,%index,scale)" */
static bool read_mem(struct cursor *c, struct usdt_arg *arg)
{
	uint8_t width, shift;
	int64_t scale = 1;

	if (!eat(c, '('))
		return false;
	if (peek(c) == '%' && !read_reg(c, &arg->reg, &width, &shift))
		return false;
	if (eat(c, ',')) {
		if (!read_reg(c, &arg->index, &width, &shift) ||
		    arg->index == X86_REG_RSP || arg->index == X86_REG_RIP)
			return false;
		if (eat(c, ',') && !read_int(c, &scale))
			return false;
		if (scale != 1 && scale != 2 && scale != 4 && scale != 8)
			return false;
		arg->scale = (uint8_t)scale;
	}
	if (arg->reg == X86_REG_NONE && arg->index == X86_REG_NONE)
		return false;
	return eat(c, ')');
}

static bool read_operand(struct cursor *c, struct usdt_arg *arg)
{
	uint8_t width, shift;

	if (eat(c, '$')) {
		arg->kind = USDT_ARG_CONST;
		return read_int(c, &arg->disp);
	}
	if (peek(c) == '%') {
		if (!read_reg(c, &arg->reg, &width, &shift) ||
		    arg->reg == X86_REG_RIP || peek(c) == ':')
			return false;
		arg->kind = USDT_ARG_REG;
		arg->reg_shift = shift;
		if (width < arg->size)
			arg->size = width;
		return true;
	}
	if (is_sym_start(peek(c))) {
		if (!read_sym(c, arg))
			return false;
		if (peek(c) == '+' || peek(c) == '-') {
			if (!read_int(c, &arg->disp))
				return false;
		}
		arg->kind = USDT_ARG_SYM;
		if (peek(c) != '(')
			return true; /* absolute address of a symbol */
		if (!read_mem(c, arg) || arg->reg != X86_REG_RIP ||
		    arg->index != X86_REG_NONE)
			return false;
		arg->reg = X86_REG_NONE;
		return true;
	}
	if (peek(c) != '(' && !read_int(c, &arg->disp))
		return false;
	if (peek(c) == '+' && c->p + 1 < c->end && is_sym_start(c->p[1]))
		c->p++;
	if (is_sym_start(peek(c))) { /* "8+sym(%rip)" */
		int64_t extra = 0;

		if (!read_sym(c, arg))
			return false;
		if ((peek(c) == '+' || peek(c) == '-') && !read_int(c, &extra))
			return false;
		/* wraps, as the assembler's arithmetic does */
		arg->disp = (int64_t)((uint64_t)arg->disp + (uint64_t)extra);
		if (!read_mem(c, arg) || arg->reg != X86_REG_RIP ||
		    arg->index != X86_REG_NONE)
			return false;
		arg->kind = USDT_ARG_SYM;
		arg->reg = X86_REG_NONE;
		return true;
	}
	arg->kind = USDT_ARG_MEM;
	/* %rip-relative without a symbol depends on the instruction length */
	return read_mem(c, arg) && arg->reg != X86_REG_RIP;
}

static void set_raw(struct usdt_arg *arg, const char *spec, size_t len)
{
	size_t n = len < sizeof(arg->raw) - 1 ? len : sizeof(arg->raw) - 1;

	memset(arg, 0, sizeof(*arg));
	arg->kind = USDT_ARG_RAW;
	arg->reg = X86_REG_NONE;
	arg->index = X86_REG_NONE;
	memcpy(arg->raw, spec, n);
	arg->raw[n] = '\0';
}

int usdtarg_decode(const char *spec, size_t len, struct usdt_arg *arg)
{
	struct cursor c = { spec, spec + len };
	const char *at = memchr(spec, '@', len);
	int64_t size = 8;

	set_raw(arg, spec, len);
	if (at) {
		if (!read_int(&c, &size) || c.p != at)
			return -EINVAL;
		c.p = at + 1;
	}
	if (size < -8 || size > 8) /* before negating: INT64_MIN (fuzzer) */
		return -EINVAL;
	arg->is_signed = size < 0;
	if (size < 0)
		size = -size;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return -EINVAL;
	arg->size = (uint8_t)size;
	if (!read_operand(&c, arg) || c.p != c.end) {
		set_raw(arg, spec, len);
		return -EINVAL;
	}
	return 0;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n';
}

int usdtarg_decode_all(const char *spec, struct usdt_arg *args, int max)
{
	const char *p = spec;
	int n = 0;

	for (;;) {
		const char *start;

		while (*p && is_blank(*p))
			p++;
		if (!*p)
			return n;
		start = p;
		while (*p && !is_blank(*p))
			p++;
		if (n == max)
			return -E2BIG;
		usdtarg_decode(start, (size_t)(p - start), &args[n++]);
	}
}

const char *usdtarg_reg_name(enum x86_reg reg)
{
	return reg > X86_REG_NONE && reg < X86_REG_COUNT ? REG64[reg] : "?";
}

char *usdtarg_describe(const struct usdt_arg *arg, char *buf, size_t n)
{
	char type[8], addr[96];
	int len = 0;

	snprintf(type, sizeof(type), "%c%d", arg->is_signed ? 's' : 'u',
		 arg->size * 8);
	switch (arg->kind) {
	case USDT_ARG_CONST:
		snprintf(buf, n, "%s $%" PRId64, type, arg->disp);
		break;
	case USDT_ARG_REG:
		snprintf(buf, n, "%s %%%s%s", type, usdtarg_reg_name(arg->reg),
			 arg->reg_shift ? ">>8" : "");
		break;
	case USDT_ARG_MEM:
		if (arg->reg != X86_REG_NONE)
			len += snprintf(addr + len, sizeof(addr) - (size_t)len,
					"%%%s", usdtarg_reg_name(arg->reg));
		if (arg->index != X86_REG_NONE)
			len += snprintf(addr + len, sizeof(addr) - (size_t)len,
					"%s%%%s*%d", len ? " + " : "",
					usdtarg_reg_name(arg->index),
					arg->scale);
		if (arg->disp)
			snprintf(addr + len, sizeof(addr) - (size_t)len,
				 " %c %#" PRIx64, arg->disp < 0 ? '-' : '+',
				 arg->disp < 0 ? 0 - (uint64_t)arg->disp
					       : (uint64_t)arg->disp);
		snprintf(buf, n, "%s *(%s)", type, addr);
		break;
	case USDT_ARG_SYM:
		snprintf(buf, n, "%s *(%s%+" PRId64 ")", type, arg->sym,
			 arg->disp);
		break;
	default:
		snprintf(buf, n, "? %s (not decodable)", arg->raw);
		break;
	}
	return buf;
}
