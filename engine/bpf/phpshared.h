/* SPDX-License-Identifier: MIT */
/*
 * phpshared.h — the structs PHP's frame walker (bpf/phpframe.bpf.h)
 * shares with user space (engine/name/phpframe.c), beside probetop.h
 * (which has the key kinds, PT_KEY_PHPFRAME, PT_KEY_PHPSTACK and
 * PT_KEY_PHPLINE): the
 * same rules, fixed-width fields, explicit padding, no pointers, no
 * includes (the includer brings __u64 and its kin).
 */
#ifndef PROBETOP_PHPSHARED_H
#define PROBETOP_PHPSHARED_H

/*
 * PHP (bpf/phpframe.bpf.h, engine/name/phpframe.c). phpprocs: where a
 * PHP process (non-ZTS) keeps its frames, by tgid, from the version's
 * layout (engine/name/phplayout.h).
 */
#define PT_PHP_PROCS 1024 /* PHP processes whose frames are read */
#define PT_PHPSTACK_DEPTH 32 /* PHP frames of a phpstack key, innermost */
#define PT_PHPSTACK_ENTRIES 4096 /* distinct PHP stacks kept */

struct pt_phpproc {
	__u64 eg; /* the address of executor_globals */
	__u32 eg_current_execute_data; /* offsets, as in struct phplayout */
	__u16 ex_func, ex_prev;
	__u16 fn_type, fn_name, fn_scope, fn_filename, fn_line_start;
	__u16 ce_name, str_len, str_val;
	__u8 internal_function; /* a C function's type; any other: PHP code */
	__u8 pad;
	__u16 ex_opline, op_lineno; /* phpline: the frame's zend_op, its line */
	__u16 pad2;
	__u32 gen; /* this set-up of this process (as pt_pyproc's) */
};

/*
 * A zend_function as phpframe and phpstack key it: its address (below
 * 2^48) and, in the top 16 bits, a tag of its file (or class) pointer,
 * its name pointer and first line, so that an address freed and taken
 * by another function (a closure's copy, an eval'd function) is
 * another key, not the first one's name.
 */
#define PT_PHPFUNC_ADDR(v) ((v) & ((1ULL << 48) - 1))
#define PT_PHPFUNC_MIX(where, name, line) \
	((where) ^ ((name) << 7 | (name) >> 57) ^ (__u64)(line) << 32)
#define PT_PHPFUNC_TAG(where, name, line) \
	(PT_PHPFUNC_MIX(where, name, line) * 0x9e3779b97f4a7c15ULL >> 48)
#define PT_PHPFUNC_KEY(fn, where, name, line) \
	(PT_PHPFUNC_ADDR(fn) | PT_PHPFUNC_TAG(where, name, line) << 48)

/*
 * A phpline key: a function and a line in 63 bits (below aggrows'
 * SHOWN bit). The function is its PT_PHPFUNC_KEY() folded into 43 bits:
 * the address past its 8-byte alignment, the tag folded in, so that an
 * address taken by another function is another line key too; not an
 * address any more, it is named by what the kernel sent (phpnew, whose
 * records carry the whole key), never read from the process. The line
 * is 20 bits, a line past PT_PHPLINE_MAX shown as PT_PHPLINE_MAX.
 */
#define PT_PHPLINE_BITS 20
#define PT_PHPLINE_MAX ((1u << PT_PHPLINE_BITS) - 1)
#define PT_PHPLINE_FN(key) \
	((PT_PHPFUNC_ADDR(key) >> 3 ^ (key) >> 48 << 27) & ((1ULL << 43) - 1))
#define PT_PHPLINE(key, line)                    \
	(PT_PHPLINE_FN(key) << PT_PHPLINE_BITS | \
	 ((line) > PT_PHPLINE_MAX ? PT_PHPLINE_MAX : (line)))

/* phpnew: a function seen for the first time, its names as read then. */
#define PT_PHPSTR 192 /* bytes of a name kept (a file's last ones) */

struct pt_phpstr {
	__u64 len; /* the zend_string's length; (__u64)-1: not read */
	__u32 kept; /* bytes in data */
	__u32 pad;
	__u8 data[PT_PHPSTR];
};

struct pt_phpnew {
	__u32 pid;
	__u32 gen; /* pt_phpproc's when it was seen */
	__u64 key; /* PT_PHPFUNC_KEY() */
	__u32 type; /* the function's type (ZEND_USER_FUNCTION ...) */
	__u32 line; /* op_array.line_start; 0 for C */
	struct pt_phpstr func, scope, file; /* scope, file: len 0 if none */
};

/* phpstacks: a PHP stack by its id, innermost frame first: the
 * functions' keys, 0 for a frame that could not be read. */
struct pt_phpstack {
	__u32 depth;
	__u32 truncated; /* deeper than PT_PHPSTACK_DEPTH */
	__u64 fn[PT_PHPSTACK_DEPTH];
};

#endif
