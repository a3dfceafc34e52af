/* SPDX-License-Identifier: MIT */
/*
 * spec — the SPEC language: what to do when a probe fires.
 *
 *   SPEC  := PROBE [ '..' PROBE ] [ '=' AGG '(' [ARG {',' ARG}] ')' ]
 *   PROBE := [OBJECT ':'] PROVIDER ':' NAME ['@' FUNCTION]
 *                                                USDT probe (its locations
 *                                                in FUNCTION), globs allowed
 *          | fn:[OBJECT ':'] SYMBOL ['%return']   function entry / return
 *          | profile:HZ                           CPU-clock samples, HZ a
 *                                                 second per CPU
 *   AGG   := count | sum | quantize | lquantize | latency
 *   ARG   := SRC | str(SRC) | str(SRC, SRC) | sql(SRC) | sym(SRC)
 *          | pyframe | pystack | pyline | pyfirstline | ustack | kstack
 *          | mixstack | phpframe | phpstack | jitframe | rbframe | rbline
 *          | rbstack | an integer (lquantize)
 *   SRC   := [(TYPE)] argN | [(TYPE)] `SYMBOL    an argument, or the value
 *                                               of a variable of the
 *                                               probe's object (DTrace's
 *                                               `sym), read at the probe
 *
 * lquantize(latency, LOW, HIGH, STEP, KEYS) on a pair A..B (or fn:SYM)
 * is latency() with linear buckets: what the console's zoom attaches.
 *
 * The parser is pure (no I/O, no allocation): it fills a fixed-size
 * struct spec or explains, with a 1-based column, what it expected. The
 * tracer compiles a parsed spec against a catalog; nothing is attached
 * for a spec that does not parse.
 *
 * Argument roles: sum/quantize/lquantize take their value first
 * (lquantize then LOW, HIGH, STEP), and every further ARG is a key part;
 * count and latency take keys only. A latency's keys are read at its
 * first probe (the start), so `gc__start..gc__done=latency(arg0)` is keyed
 * by gc__start's arg0. `fn:SYM=latency()` means entry..return of SYM.
 */
#ifndef PROBETOP_SPEC_H
#define PROBETOP_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPEC_TEXT_MAX 512
#define SPEC_NAME_MAX 256
#define SPEC_MAX_KEYS 4 /* key parts per spec */
#define SPEC_MAX_STRS 2 /* of which strings */
#define SPEC_MAX_ARG 11 /* arg0..arg11 */
#define SPEC_LQ_MAX_STEPS 64 /* lquantize buckets between LOW and HIGH */
#define SPEC_MAX_GLOBALS 2 /* `SYMBOL variables per spec */
#define SPEC_GLOBAL_MAX 64 /* a variable's name, its NUL included */
#define SPEC_ARG_GLOBAL 16 /* an argument N >= this: variable N - this */

enum spec_agg {
	SPEC_AGG_COUNT,
	SPEC_AGG_SUM,
	SPEC_AGG_QUANTIZE,
	SPEC_AGG_LQUANTIZE,
	SPEC_AGG_LATENCY,
};

enum spec_key_kind {
	SPEC_KEY_NUM, /* argN, as a signed or unsigned integer */
	SPEC_KEY_STR, /* str(argN): NUL-terminated string at argN */
	SPEC_KEY_STRN, /* str(argN, argM): argM bytes at argN */
	SPEC_KEY_SQL, /* sql(argN): the statement at argN by its shape, its
		       * literals $1, $2 ... (as pg_stat_statements) */
	SPEC_KEY_SYM, /* sym(argN): an address, named in user space by the
		       * symbol there (a number in the kernel) */
	SPEC_KEY_PYFRAME, /* pyframe: the innermost Python frame of the
			   * thread (its code object, in the kernel; its
			   * function, file and first line in user space) */
	SPEC_KEY_PYSTACK, /* pystack: the thread's Python stack (an id in
			   * the kernel, named once in user space) */
	SPEC_KEY_PYLINE, /* pyline: that frame's current line (its code
			  * object and bytecode offset in the kernel) */
	SPEC_KEY_USTACK, /* ustack: the thread's native user stack (an id
			  * in the kernel, named once in user space) */
	SPEC_KEY_KSTACK, /* kstack: its kernel stack, the same way */
	SPEC_KEY_PYFIRSTLINE, /* pyfirstline: the first line of the innermost
			       * Python frame's function (co_firstlineno), a
			       * number read in the kernel */
	SPEC_KEY_MIXSTACK, /* mixstack: the native user stack with the
			    * Python frames in place of the eval loop's
			    * frames (an id of the pair in the kernel,
			    * merged once in user space) */
	SPEC_KEY_PHPFRAME, /* phpframe: the innermost PHP function frame
			    * (its zend_function, in the kernel; function,
			    * file and first line in user space) */
	SPEC_KEY_PHPSTACK, /* phpstack: the thread's PHP stack (an id in
			    * the kernel, named once in user space) */
	SPEC_KEY_PHPLINE, /* phpline: phpframe's frame and the line it is
			   * on (its zend_function and zend_op's line, in
			   * the kernel) */
	SPEC_KEY_JITFRAME, /* jitframe: the innermost frame of ustack that
			    * a perf map names (JIT code), else its leaf
			    * (the native user stack in the kernel, its one
			    * frame by name in user space) */
	SPEC_KEY_RBFRAME, /* rbframe: the innermost Ruby code frame (its
			   * iseq, in the kernel; method, file and first
			   * line in user space) */
	SPEC_KEY_RBSTACK, /* rbstack: the thread's Ruby stack, C methods
			   * too (an id in the kernel, named once in user
			   * space) */
	SPEC_KEY_RBLINE, /* rbline: rbframe's current line (its iseq and
			  * pc in the kernel; the line in user space) */
};

/* (TYPE)argN: the argument taken as an integer of that many bytes and
 * sign (int8 .. uint64), e.g. a function's int, whose register's upper
 * half a fn: probe would read as well; size 0: as the probe gives it. */
struct spec_cast {
	uint8_t size;
	bool is_signed;
};

struct spec_key {
	enum spec_key_kind kind;
	int arg; /* N (SPEC_ARG_GLOBAL + i: the spec's variable i) */
	int len_arg; /* M for SPEC_KEY_STRN, else -1 */
	struct spec_cast cast; /* SPEC_KEY_NUM's */
};

#define SPEC_PROFILE_MAX_HZ 10000

struct spec_probe {
	int hz; /* profile:HZ (> 0): CPU-clock samples, no arguments */
	bool fn; /* fn: probe (uprobe on a symbol) */
	bool ret; /* fn: ...%return */
	char object[SPEC_NAME_MAX]; /* "" = any object of the target */
	char provider[SPEC_NAME_MAX]; /* USDT only; may hold globs */
	char name[SPEC_NAME_MAX]; /* USDT probe name or fn symbol */
	char function[SPEC_NAME_MAX]; /* USDT: "" any location, else only
					 those in a function of this name
					 (may hold globs) */
};

struct spec {
	char text[SPEC_TEXT_MAX]; /* as given */
	int nprobes; /* 1, or 2 for A..B */
	struct spec_probe probe[2];
	enum spec_agg agg;
	bool timed; /* the value is the time A..B: latency(), or
		       lquantize(latency, LOW, HIGH, STEP) */
	int val_arg; /* sum/quantize/lquantize value argN, else -1 */
	struct spec_cast val_cast; /* its (TYPE), if any */
	int64_t lq_low, lq_high, lq_step; /* lquantize */
	int lq_nsteps; /* buckets from LOW up to HIGH, 1..64 */
	int nkeys;
	struct spec_key keys[SPEC_MAX_KEYS];
	bool allpids; /* the key allpids: one row a key over every process
			 (-b), not one a process */
	int nglobals; /* `SYMBOL variables read, each once */
	char globals[SPEC_MAX_GLOBALS][SPEC_GLOBAL_MAX];
};

/*
 * Parse text into *out. Returns 0, or -EINVAL with a message in
 * err[0..errlen) such as "unknown aggregation 'cnt' at column 12"
 * (columns count from 1). *out is unspecified after an error.
 */
int spec_parse(const char *text, struct spec *out, char *err, size_t errlen);

/* Whether k is pyframe, pyline, pyfirstline, pystack or mixstack (read
 * from CPython's memory). */
bool spec_key_is_py(const struct spec_key *k);

/* Whether k is phpframe, phpline or phpstack (read from PHP's memory). */
bool spec_key_is_php(const struct spec_key *k);

/* Whether k is rbframe, rbline or rbstack (read from Ruby's memory). */
bool spec_key_is_rb(const struct spec_key *k);

/* The interpreter whose frames sp's keys read: PHP or Ruby where one of
 * its keys is theirs, else Python (also for a spec without frame keys). */
enum spec_frames {
	SPEC_FRAMES_PYTHON,
	SPEC_FRAMES_PHP,
	SPEC_FRAMES_RUBY
};
enum spec_frames spec_frames_of(const struct spec *sp);

/* Whether k names a frame in three parts, function, file and line:
 * pyframe, pyline, phpframe, phpline, rbframe or rbline. */
bool spec_key_is_frame(const struct spec_key *k);

/* Whether k is a line key (pyline, rbline): a frame's function and where
 * it is in its code, in the kernel. */
bool spec_key_is_line(const struct spec_key *k);

/* Whether k is read from where the probe fired, not from an argument:
 * the Python, PHP and Ruby keys, ustack, kstack and jitframe. */
bool spec_key_is_ctx(const struct spec_key *k);

/* Whether k names what one process has (its memory or its maps: frames,
 * user stacks, symbols), so that its rows cannot be over every process
 * (allpids). */
bool spec_key_of_process(const struct spec_key *k);

/* Whether k is a call stack: pystack, phpstack, rbstack, ustack,
 * kstack or mixstack. */
bool spec_key_is_stack(const struct spec_key *k);

/* Whether the kernel reads a string for k (str(...)), not a number. */
bool spec_key_is_str(const struct spec_key *k);

/* The variable argument arg of sp stands for (`SYMBOL: "SYMBOL"), or
 * NULL if arg is an argN. */
const char *spec_arg_global(const struct spec *sp, int arg);

/* Argument arg of sp, taken as cast, as a spec writes it ("arg2",
 * "(int32)arg1", "`debug_query_string") into out[0..n): its length, or -1
 * if it does not fit (out cut). */
int spec_arg_text(const struct spec *sp, int arg, struct spec_cast cast,
		  char *out, size_t n);

/* Key k of sp as a spec writes it ("arg2", "str(arg1)", "str(arg0,
 * arg1)", "sql(`debug_query_string)", "sym(arg3)", "pyframe" ...) into
 * out[0..n): its length, or -1 if it does not fit (out cut). */
int spec_key_text(const struct spec *sp, const struct spec_key *k, char *out,
		  size_t n);

/* Whether rows of sp carry buckets: quantize, lquantize, latency. */
bool spec_has_buckets(const struct spec *sp);

/* p as a spec writes it ("python:gc__start", "fn:libc.so.6:free%return"),
 * with DTrace's '-' already rewritten; cut to fit len bytes. */
void spec_probe_text(const struct spec_probe *p, char *out, size_t len);

/* "count", "sum", ... */
const char *spec_agg_name(enum spec_agg agg);

/* A cast's type as written: "int32", "uint8" ... ("?" if none). */
const char *spec_cast_name(struct spec_cast cast);

/*
 * DTrace spells a note's "__" as "-" (python:function-entry is the note's
 * function__entry). Note names are C identifiers, so a '-' can mean only
 * that: rewrite each '-' of the string s (n bytes of room) to "__",
 * except in a glob's bracket expression ("[a-z]" is a range).
 * 0, or -ENAMETOOLONG (s unchanged) if the result does not fit.
 */
int spec_dtrace_name(char *s, size_t n);

/* Whether a USDT spec probe matches provider:name (globs, fnmatch). */
bool spec_probe_matches(const struct spec_probe *p, const char *provider,
			const char *name);

/*
 * Whether a spec probe's OBJECT names the file at path: "" matches every
 * object; otherwise the whole path, or its basename, or a basename that
 * starts with OBJECT followed by '.' or '-' ("libruby" matches
 * libruby-3.1.so.3.1, "libc.so.6" matches /usr/lib/.../libc.so.6).
 */
bool spec_object_matches(const struct spec_probe *p, const char *path);

/* Whether one of sp's probes is the probe provider:name (fn: the
 * function name) of the file at object: what turns a probe "on" in the
 * Probes view. */
bool spec_covers(const struct spec *sp, const char *object,
		 const char *provider, const char *name, bool fn);

/*
 * Which of n specs a probe's row shows as attaching it: get(ctx, i, &own)
 * gives spec i (NULL: none) and whether it is the user's own (-e, the
 * console's; not a probeset's). The first own spec covering the probe,
 * else the first covering it; -1 if none. *own says which.
 */
int spec_first_cover(int n,
		     const struct spec *(*get)(void *ctx, int i, bool *own),
		     void *ctx, const char *object, const char *provider,
		     const char *name, bool fn, bool *own);

#endif
