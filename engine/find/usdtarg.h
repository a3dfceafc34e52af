/* SPDX-License-Identifier: MIT */
/*
 * usdtarg — decode one x86-64 USDT argument spec ("-4@%eax", "8@-8(%rbp)",
 * "8@(%rsi,%rcx,8)", "-4@$42", "8@counter+8(%rip)") into a structured form
 * that the tracer turns into BPF fetch instructions.
 *
 * The grammar is the GNU assembler's AT&T operand syntax, prefixed by the
 * argument's size in bytes (negative = signed). libbpf 1.1's own parser
 * rejects the base+index*scale forms that GCC -O2 emits, so probetop
 * decodes them itself. Anything not understood is kept verbatim with
 * kind USDT_ARG_RAW: not fatal, the probe is still listed and attachable,
 * only that argument cannot be fetched.
 */
#ifndef PROBETOP_USDTARG_H
#define PROBETOP_USDTARG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USDT_MAX_ARGS 12
#define USDT_SYM_MAX 64
#define USDT_RAW_MAX 64

/* The 16 general purpose registers and %rip, in pt_regs-independent order. */
enum x86_reg {
	X86_REG_NONE = -1,
	X86_REG_RAX,
	X86_REG_RBX,
	X86_REG_RCX,
	X86_REG_RDX,
	X86_REG_RSI,
	X86_REG_RDI,
	X86_REG_RBP,
	X86_REG_RSP,
	X86_REG_R8,
	X86_REG_R9,
	X86_REG_R10,
	X86_REG_R11,
	X86_REG_R12,
	X86_REG_R13,
	X86_REG_R14,
	X86_REG_R15,
	X86_REG_RIP,
	X86_REG_COUNT,
};

enum usdt_arg_kind {
	USDT_ARG_RAW, /* not decodable: see raw */
	USDT_ARG_CONST, /* $imm: value in disp */
	USDT_ARG_REG, /* %reg: (reg >> reg_shift), truncated to size */
	USDT_ARG_MEM, /* *(disp + base + index * scale) */
	USDT_ARG_SYM, /* *(address of sym + disp), %rip-relative */
};

struct usdt_arg {
	enum usdt_arg_kind kind;
	uint8_t size; /* 1, 2, 4 or 8 bytes */
	bool is_signed;
	enum x86_reg reg; /* REG: the register; MEM: base (or NONE) */
	uint8_t reg_shift; /* REG: 8 for %ah..%dh, else 0 */
	enum x86_reg index;
	uint8_t scale; /* 1, 2, 4 or 8 when index != NONE */
	int64_t disp;
	uint64_t sym_addr; /* SYM: link-time address of sym, set by the
			    * catalog from the symbol table; 0 if unknown */
	char sym[USDT_SYM_MAX];
	char raw[USDT_RAW_MAX];
};

/*
 * Decode one argument ("SIZE@OPERAND", or a bare operand, which old
 * SystemTap notes used: size 8 unsigned). Always fills *arg; returns 0 when
 * decoded, -EINVAL when arg->kind is USDT_ARG_RAW.
 */
int usdtarg_decode(const char *spec, size_t len, struct usdt_arg *arg);

/*
 * Split an argument string ("8@%rbp 8@%r12 -4@%eax") on blanks and decode
 * each into args[0..max). Returns the number of arguments, or -E2BIG if
 * there are more than max (the first max are still filled).
 */
int usdtarg_decode_all(const char *spec, struct usdt_arg *args, int max);

/* Name of a 64-bit register ("rax"), or "?" */
const char *usdtarg_reg_name(enum x86_reg reg);

/*
 * Describe a decoded argument for humans: "s32 %eax" style, e.g.
 * "u64 %rbp", "s32 $42", "u64 *(%rsi + %rcx*8 + 0x10)", "u64 *(sym+8)".
 * Writes at most n bytes (NUL-terminated); returns buf.
 */
char *usdtarg_describe(const struct usdt_arg *arg, char *buf, size_t n);

#endif
