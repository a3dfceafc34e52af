// SPDX-License-Identifier: MIT
/* Unit tests of the SPEC parser: every form of the grammar, and errors
 * that say what was expected and where. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "spec.h"

static struct spec parse_ok(const char *text)
{
	struct spec sp;
	char err[256];
	int ret = spec_parse(text, &sp, err, sizeof(err));

	if (ret)
		fail_msg("'%s': %s", text, err);
	return sp;
}

static void expect_error(const char *text, const char *want)
{
	struct spec sp;
	char err[256];

	assert_int_equal(spec_parse(text, &sp, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, want);
}

static void test_bare_probe(void **state)
{
	struct spec sp = parse_ok("python:gc__start");

	(void)state;
	assert_int_equal(sp.nprobes, 1);
	assert_false(sp.probe[0].fn);
	assert_string_equal(sp.probe[0].object, "");
	assert_string_equal(sp.probe[0].provider, "python");
	assert_string_equal(sp.probe[0].name, "gc__start");
	assert_int_equal(sp.agg, SPEC_AGG_COUNT);
	assert_int_equal(sp.nkeys, 0);
	assert_int_equal(sp.val_arg, -1);
}

static void test_keys(void **state)
{
	struct spec sp = parse_ok(
		"python:function__entry=count(str(arg1), str(arg0),arg2)");

	(void)state;
	assert_int_equal(sp.nkeys, 3);
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_STR);
	assert_int_equal(sp.keys[0].arg, 1);
	assert_int_equal(sp.keys[1].arg, 0);
	assert_int_equal(sp.keys[2].kind, SPEC_KEY_NUM);
	assert_int_equal(sp.keys[2].arg, 2);
	sp = parse_ok("hotspot:class__loaded=count(str(arg0, arg1))");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_STRN);
	assert_int_equal(sp.keys[0].len_arg, 1);
	/* sym() is a number in the kernel: not one of the 2 string keys */
	sp = parse_ok("libstdcxx:throw=count(sym(arg1), str(arg0), str(arg2), "
		      "sym ( arg3 ))");
	assert_int_equal(sp.nkeys, 4);
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_SYM);
	assert_int_equal(sp.keys[0].arg, 1);
	assert_false(spec_key_is_str(&sp.keys[0]));
	assert_true(spec_key_is_str(&sp.keys[1]));
	assert_int_equal(sp.keys[3].kind, SPEC_KEY_SYM);
	assert_int_equal(sp.keys[3].arg, 3);
	/* sql(): a statement's shape, a string key */
	sp = parse_ok("postgresql:query__done=count(sql(arg0))");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_SQL);
	assert_int_equal(sp.keys[0].arg, 0);
	assert_true(spec_key_is_str(&sp.keys[0]));
	assert_false(sp.allpids);
	/* allpids: the rows' scope, not a key; anywhere among the keys */
	sp = parse_ok("postgresql:query__done=count(sql(arg0), allpids)");
	assert_true(sp.allpids);
	assert_int_equal(sp.nkeys, 1);
	sp = parse_ok("a:b=quantize(arg1, allpids, arg0, kstack)");
	assert_true(sp.allpids);
	assert_int_equal(sp.nkeys, 2);
	sp = parse_ok("a:b=count(allpids)");
	assert_true(sp.allpids && sp.nkeys == 0);
	/* a key named allpidsx is an argument error, not allpids */
	expect_error("a:b=count(allpidsx)",
		     "expected argN or `SYMBOL at column 11");
}

static void test_object_and_globs(void **state)
{
	struct spec sp = parse_ok("/usr/lib/libruby.so:ruby:gc__*");

	(void)state;
	assert_string_equal(sp.probe[0].object, "/usr/lib/libruby.so");
	assert_string_equal(sp.probe[0].provider, "ruby");
	assert_true(
		spec_probe_matches(&sp.probe[0], "ruby", "gc__mark__begin"));
	assert_false(spec_probe_matches(&sp.probe[0], "ruby", "method__entry"));
	assert_true(spec_object_matches(&sp.probe[0], "/usr/lib/libruby.so"));
	sp = parse_ok("libruby:ruby:x");
	assert_true(spec_object_matches(&sp.probe[0],
					"/usr/lib/x86_64-linux-gnu/"
					"libruby-3.1.so.3.1.2"));
	assert_false(spec_object_matches(&sp.probe[0], "/usr/lib/librubyx.so"));
}

/* DTrace's names: '-' stands for the note's "__", in provider and name
 * only (objects and fn: symbols keep theirs). */
static void test_dtrace_names(void **state)
{
	struct spec sp = parse_ok("libruby-3.1.so:python:function-entry.."
				  "python:function-return=latency()");
	char name[8] = "a-b";
	char dashes[300], globs[32];

	(void)state;
	assert_string_equal(sp.probe[0].object, "libruby-3.1.so");
	assert_string_equal(sp.probe[0].name, "function__entry");
	assert_string_equal(sp.probe[1].name, "function__return");
	sp = parse_ok("python:gc-*");
	assert_true(spec_probe_matches(&sp.probe[0], "python", "gc__start"));
	assert_false(spec_probe_matches(&sp.probe[0], "python", "gcx"));
	sp = parse_ok("fn:my-lib.so:f");
	assert_string_equal(sp.probe[0].object, "my-lib.so");
	assert_int_equal(spec_dtrace_name(name, sizeof(name)), 0);
	assert_string_equal(name, "a__b");
	assert_int_equal(spec_dtrace_name(name, 5), 0); /* none left */
	strcpy(name, "a-b-c-");
	assert_int_equal(spec_dtrace_name(name, sizeof(name)), -ENAMETOOLONG);
	assert_string_equal(name, "a-b-c-");
	strcpy(globs, "a-[x-z]-[!]-]-[c-d");
	assert_int_equal(spec_dtrace_name(globs, sizeof(globs)), 0);
	assert_string_equal(globs, "a__[x-z]__[!]-]__[c__d"); /* unclosed [ */
	sp = parse_ok("fixture:[h-j]nts");
	assert_true(spec_probe_matches(&sp.probe[0], "fixture", "ints"));
	memset(dashes, '-', 200);
	strcpy(dashes + 200, ":x");
	expect_error(dashes, "a provider longer than 255 characters at "
			     "column 1");
}

static void test_values(void **state)
{
	struct spec sp = parse_ok("python:gc__done=sum(arg0)");

	(void)state;
	assert_int_equal(sp.agg, SPEC_AGG_SUM);
	assert_int_equal(sp.val_arg, 0);
	sp = parse_ok("pony:heap__alloc=quantize(arg1, arg0)");
	assert_int_equal(sp.val_arg, 1);
	assert_int_equal(sp.nkeys, 1);
	sp = parse_ok("a:b=lquantize(arg0, -10, 0x20, 2, str(arg1))");
	assert_int_equal(sp.agg, SPEC_AGG_LQUANTIZE);
	assert_int_equal(sp.lq_low, -10);
	assert_int_equal(sp.lq_high, 32);
	assert_int_equal(sp.lq_step, 2);
	assert_int_equal(sp.lq_nsteps, 21);
	assert_int_equal(sp.nkeys, 1);
}

static void test_latency(void **state)
{
	struct spec sp = parse_ok("python:function__entry..python:function__"
				  "return=latency(str(arg1),str(arg0),arg2)");

	(void)state;
	assert_int_equal(sp.nprobes, 2);
	assert_string_equal(sp.probe[1].name, "function__return");
	assert_int_equal(sp.nkeys, 3);
	sp = parse_ok("fn:/usr/bin/app:parse=latency()");
	assert_int_equal(sp.nprobes, 2);
	assert_true(sp.probe[0].fn && !sp.probe[0].ret);
	assert_true(sp.probe[1].fn && sp.probe[1].ret);
	assert_string_equal(sp.probe[1].object, "/usr/bin/app");
	assert_string_equal(sp.probe[1].name, "parse");
	assert_true(sp.timed);
	/* linear latency buckets: what the console's zoom attaches */
	sp = parse_ok("a:start..a:done=lquantize(latency, 1000, 2000, 100, "
		      "arg0)");
	assert_true(sp.timed);
	assert_int_equal(sp.agg, SPEC_AGG_LQUANTIZE);
	assert_int_equal(sp.val_arg, -1);
	assert_int_equal(sp.lq_nsteps, 10);
	assert_int_equal(sp.nkeys, 1);
	sp = parse_ok("fn:f=lquantize(latency, 0, 64, 1)");
	assert_int_equal(sp.nprobes, 2);
	sp = parse_ok("a:b=lquantize(arg0, 0, 64, 1)");
	assert_false(sp.timed);
}

static void test_fn(void **state)
{
	struct spec sp = parse_ok("fn:libc.so.6:malloc=quantize(arg0)");

	(void)state;
	assert_true(sp.probe[0].fn);
	assert_string_equal(sp.probe[0].object, "libc.so.6");
	assert_string_equal(sp.probe[0].name, "malloc");
	sp = parse_ok("fn:parse%return=sum(arg0)");
	assert_true(sp.probe[0].ret);
	assert_string_equal(sp.probe[0].object, "");
}

/* profile:HZ and the Python keys: pyframe, pystack on any probe. */
static void test_profile_and_python(void **state)
{
	struct spec sp = parse_ok("profile:99=count(pyframe)");
	char text[64];

	(void)state;
	assert_int_equal(sp.probe[0].hz, 99);
	assert_int_equal(sp.nkeys, 1);
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_PYFRAME);
	assert_true(spec_key_is_py(&sp.keys[0]));
	assert_false(spec_key_is_str(&sp.keys[0]));
	spec_probe_text(&sp.probe[0], text, sizeof(text));
	assert_string_equal(text, "profile:99");
	sp = parse_ok("profile:10000");
	assert_int_equal(sp.probe[0].hz, 10000);
	assert_int_equal(sp.nkeys, 0);
	sp = parse_ok("fn:libc.so.6:write=sum(arg2, pystack)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_PYSTACK);
	assert_int_equal(sp.val_arg, 2);
	sp = parse_ok(
		"python:gc__start..python:gc__done=latency(pyframe, arg0)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_PYFRAME);
	assert_int_equal(sp.keys[1].kind, SPEC_KEY_NUM);
	sp = parse_ok("profile:49=count(pystack, pyframe)");
	assert_int_equal(sp.nkeys, 2);
	sp = parse_ok("profile:99=count(phpframe)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_PHPFRAME);
	assert_true(spec_key_is_php(&sp.keys[0]));
	assert_true(spec_key_is_ctx(&sp.keys[0]));
	assert_false(spec_key_is_py(&sp.keys[0]));
	assert_false(spec_key_is_stack(&sp.keys[0]));
	sp = parse_ok("fn:libc.so.6:getpid=count(phpstack, phpframe)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_PHPSTACK);
	assert_true(spec_key_is_stack(&sp.keys[0]));
	assert_int_equal(sp.keys[1].kind, SPEC_KEY_PHPFRAME);
	expect_error("a:b=count(phpframe, phpframe)",
		     "phpframe twice at column 21");
	sp = parse_ok("profile:99=count(phpline, phpframe)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_PHPLINE);
	assert_true(spec_key_is_php(&sp.keys[0]));
	assert_true(spec_key_is_ctx(&sp.keys[0]));
	assert_true(spec_key_is_frame(&sp.keys[0]));
	assert_false(spec_key_is_stack(&sp.keys[0]));
	assert_int_equal(sp.keys[1].kind, SPEC_KEY_PHPFRAME);
	expect_error("a:b=count(phpline, phpline)",
		     "phpline twice at column 20");
	sp = parse_ok("profile:99=count(rbframe)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_RBFRAME);
	assert_true(spec_key_is_rb(&sp.keys[0]));
	assert_true(spec_key_is_ctx(&sp.keys[0]));
	assert_false(spec_key_is_php(&sp.keys[0]));
	assert_false(spec_key_is_py(&sp.keys[0]));
	assert_false(spec_key_is_stack(&sp.keys[0]));
	sp = parse_ok("fn:libc.so.6:write=sum(arg2, rbstack, rbframe)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_RBSTACK);
	assert_true(spec_key_is_stack(&sp.keys[0]));
	assert_true(spec_key_is_rb(&sp.keys[0]));
	assert_int_equal(sp.keys[1].kind, SPEC_KEY_RBFRAME);
	assert_int_equal(sp.val_arg, 2);
	expect_error("a:b=count(rbstack, rbstack)",
		     "rbstack twice at column 20");
	sp = parse_ok("profile:99=count(rbline)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_RBLINE);
	assert_true(spec_key_is_rb(&sp.keys[0]));
	assert_true(spec_key_is_ctx(&sp.keys[0]));
	assert_true(spec_key_is_frame(&sp.keys[0]));
	assert_true(spec_key_is_line(&sp.keys[0]));
	assert_false(spec_key_is_stack(&sp.keys[0]));
	sp = parse_ok("fn:libc.so.6:write=count(rbline, rbframe)");
	assert_int_equal(sp.keys[1].kind, SPEC_KEY_RBFRAME);
	assert_true(spec_key_is_frame(&sp.keys[1]));
	assert_false(spec_key_is_line(&sp.keys[1]));
	expect_error("a:b=count(rbline, rbline)", "rbline twice at column 19");
	expect_error("a:b=count(rbframes)",
		     "expected argN or `SYMBOL at column 11");
	expect_error("profile:0", "profile: rate out of range 1..10000 Hz at "
				  "column 9");
	expect_error("profile:10001", "profile: rate out of range 1..10000 Hz "
				      "at column 9");
	expect_error("profile:x", "expected a rate in Hz after profile: at "
				  "column 9");
	expect_error("profile:99=count(arg0)",
		     "profile:HZ has no arguments: its keys are pyframe, "
		     "pyline, pyfirstline, pystack, phpframe, phpline, "
		     "phpstack, rbframe, rbline, rbstack, ustack, kstack, "
		     "mixstack and jitframe at column 12");
	expect_error("profile:99=quantize(arg0)",
		     "profile:HZ has no arguments: count() by pyframe, "
		     "pystack or ustack at column 12");
	expect_error("profile:99..a:b=latency()",
		     "profile:HZ is a sample, not a pair: no latency at "
		     "column 17");
	expect_error("a:b=count(pyframe, pyframe)",
		     "pyframe twice at column 20");
	expect_error("a:b=count(pyframes)",
		     "expected argN or `SYMBOL at column 11");
	expect_error("a:b=count(pyline, pyline)", "pyline twice at column 19");
	sp = parse_ok("fn:write=count(pyline)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_PYLINE);
	assert_true(spec_key_is_py(&sp.keys[0]));
	sp = parse_ok("profile:99=count(ustack, kstack)");
	assert_int_equal(sp.nkeys, 2);
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_USTACK);
	assert_int_equal(sp.keys[1].kind, SPEC_KEY_KSTACK);
	assert_true(spec_key_is_ctx(&sp.keys[0]) &&
		    spec_key_is_ctx(&sp.keys[1]));
	assert_false(spec_key_is_py(&sp.keys[0]));
	sp = parse_ok("fn:libc.so.6:malloc=sum(arg0, ustack)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_USTACK);
	assert_int_equal(sp.val_arg, 0);
	expect_error("a:b=count(ustack, ustack)", "ustack twice at column 19");
	sp = parse_ok("profile:99=count(jitframe, ustack)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_JITFRAME);
	assert_true(spec_key_is_ctx(&sp.keys[0]));
	assert_false(spec_key_is_stack(&sp.keys[0]));
	expect_error("a:b=count(jitframe, jitframe)",
		     "jitframe twice at column 21");
	expect_error("a:b=count(kstacks)",
		     "expected argN or `SYMBOL at column 11");
	/* pyfirstline: a number, read from CPython, beside string keys */
	sp = parse_ok("python:function__return="
		      "count(str(arg1),str(arg0),pyfirstline)");
	assert_int_equal(sp.nkeys, 3);
	assert_int_equal(sp.keys[2].kind, SPEC_KEY_PYFIRSTLINE);
	assert_true(spec_key_is_py(&sp.keys[2]));
	assert_true(spec_key_is_ctx(&sp.keys[2]));
	assert_false(spec_key_is_str(&sp.keys[2]));
	assert_false(spec_key_is_stack(&sp.keys[2]));
	assert_true(spec_key_is_stack(&sp.keys[0]) == false);
	expect_error("a:b=count(pyfirstline, pyfirstline)",
		     "pyfirstline twice at column 24");
	/* mixstack: a stack, read from CPython (and the native stack) */
	sp = parse_ok("fn:libz.so.1:crc32=count(mixstack)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_MIXSTACK);
	assert_true(spec_key_is_py(&sp.keys[0]));
	assert_true(spec_key_is_ctx(&sp.keys[0]));
	assert_true(spec_key_is_stack(&sp.keys[0]));
	assert_false(spec_key_is_str(&sp.keys[0]));
	sp = parse_ok("profile:99=count(mixstack)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_MIXSTACK);
	sp = parse_ok("fn:libc.so.6:malloc=sum(arg0, mixstack)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_MIXSTACK);
	expect_error("a:b=count(mixstack, mixstack)",
		     "mixstack twice at column 21");
	expect_error("a:b=count(mixstacks)",
		     "expected argN or `SYMBOL at column 11");
}

/* Each key as a spec writes it, for specs made from others (the
 * histogram's zoom): what parses back to the same key. */
/* (TYPE)argN: a function's int read as one, in a key or a value. */
static void test_casts(void **state)
{
	struct spec sp;

	(void)state;
	sp = parse_ok("fn:gc_collect_main=latency((int32)arg1)");
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_NUM);
	assert_int_equal(sp.keys[0].arg, 1);
	assert_int_equal(sp.keys[0].cast.size, 4);
	assert_true(sp.keys[0].cast.is_signed);
	sp = parse_ok("fn:f=sum( ( uint16 )arg2, arg0)");
	assert_int_equal(sp.val_arg, 2);
	assert_int_equal(sp.val_cast.size, 2);
	assert_false(sp.val_cast.is_signed);
	assert_int_equal(sp.keys[0].cast.size, 0);
	expect_error("fn:f=count((int33)arg1)",
		     "expected a type: (int8|int16|int32|int64|uint8|uint16|"
		     "uint32|uint64)argN at column 13");
	expect_error("fn:f=count((int32 arg1)",
		     "expected ')' after the type at column 19");
	expect_error("fn:f=count((int32)str(arg1))",
		     "expected argN or `SYMBOL at column 19");
}

/* PROBE@FUNCTION: a USDT probe's locations in one function. */
static void test_function(void **state)
{
	struct spec sp = parse_ok("postgres:postgresql:query-execute-start@"
				  "PortalRun..postgresql:query__execute__done"
				  "@Portal*=latency()");
	char text[SPEC_NAME_MAX * 4];

	(void)state;
	assert_string_equal(sp.probe[0].object, "postgres");
	assert_string_equal(sp.probe[0].provider, "postgresql");
	assert_string_equal(sp.probe[0].name, "query__execute__start");
	assert_string_equal(sp.probe[0].function, "PortalRun");
	assert_string_equal(sp.probe[1].name, "query__execute__done");
	assert_string_equal(sp.probe[1].function, "Portal*");
	spec_probe_text(&sp.probe[0], text, sizeof(text));
	assert_string_equal(
		text, "postgres:postgresql:query__execute__start@PortalRun");
	assert_string_equal(parse_ok("a:b").probe[0].function, "");
	expect_error("a:b@=count()",
		     "expected a function after '@' at column 5");
	expect_error("a:b@f g=count()",
		     "unexpected ' ' in a function after '@' at column 6");
}

/* `SYMBOL: a variable of the probe's object, one index a name, wherever
 * an argN may be, but not where the probe's address is not known. */
static void test_globals(void **state)
{
	struct spec sp = parse_ok("postgresql:query__execute__start.."
				  "postgresql:query__execute__done=latency("
				  "sql(`debug_query_string), allpids)");

	(void)state;
	assert_int_equal(sp.nglobals, 1);
	assert_int_equal(sp.keys[0].kind, SPEC_KEY_SQL);
	assert_int_equal(sp.keys[0].arg, SPEC_ARG_GLOBAL);
	assert_string_equal(spec_arg_global(&sp, sp.keys[0].arg),
			    "debug_query_string");
	assert_null(spec_arg_global(&sp, 0));
	assert_null(spec_arg_global(&sp, SPEC_ARG_GLOBAL + 1));
	sp = parse_ok("fn:f=sum((uint32)`n, `m, `n)");
	assert_int_equal(sp.nglobals, 2);
	assert_int_equal(sp.val_arg, SPEC_ARG_GLOBAL);
	assert_int_equal(sp.val_cast.size, 4);
	assert_false(sp.val_cast.is_signed);
	assert_int_equal(sp.keys[0].arg, SPEC_ARG_GLOBAL + 1);
	assert_int_equal(sp.keys[1].arg, SPEC_ARG_GLOBAL); /* `n again */
	expect_error("fn:f=count(`a, `b, `c)",
		     "too many variables (at most 2) at column 20");
	expect_error("fn:f=count(`)",
		     "expected a variable's name after '`' at column 13");
	expect_error("fn:f=count(`a-b)", "expected ',' or ')' at column 14");
	expect_error("fn:f%return=count(`a)",
		     "`a: a variable is read at a USDT probe or a function's "
		     "entry, not at a %return probe at column 13");
	expect_error("profile:99=count(`a)",
		     "profile:HZ has no arguments: its keys are pyframe, "
		     "pyline, pyfirstline, pystack, phpframe, phpline, "
		     "phpstack, rbframe, rbline, rbstack, ustack, kstack, "
		     "mixstack and jitframe at column 12");
}

static void test_key_text(void **state)
{
	static const char *const KEYS[] = {
		"arg2",
		"str(arg1)",
		"str(arg0, arg3)",
		"sql(arg0)",
		"sym(arg4)",
		"pyframe",
		"pyline",
		"pyfirstline",
		"pystack",
		"ustack",
		"kstack",
		"mixstack",
		"phpframe",
		"phpstack",
		"rbframe",
		"rbstack",
		"(int32)arg1",
		"(uint8)arg0",
		"sql(`debug_query_string)",
		"`counter.lto_priv.0",
		"(uint32)`n",
		"str(`buf, `len)",
	};
	char text[64], spec[128];
	struct spec sp;

	(void)state;
	for (size_t i = 0; i < sizeof(KEYS) / sizeof(KEYS[0]); i++) {
		snprintf(spec, sizeof(spec), "fn:f=count(%s)", KEYS[i]);
		sp = parse_ok(spec);
		assert_int_equal(
			spec_key_text(&sp, &sp.keys[0], text, sizeof(text)),
			(int)strlen(KEYS[i]));
		assert_string_equal(text, KEYS[i]);
	}
	assert_int_equal(spec_key_text(&sp, &sp.keys[0], text, 4), -1);
	/* the zoom of the python probeset's latency */
	sp = parse_ok("python:function__entry..python:function__return="
		      "lquantize(latency, 4096, 8192, 256, str(arg1), "
		      "str(arg0), pyfirstline)");
	assert_int_equal(sp.nkeys, 3);
	assert_int_equal(sp.keys[2].kind, SPEC_KEY_PYFIRSTLINE);
}

static void test_errors(void **state)
{
	expect_error("a:b=lquantize(latency, 0, 10, 1)",
		     "latency needs two probes A..B, or a fn: entry probe at "
		     "column 5");
	(void)state;
	expect_error("python:foo=cnt()",
		     "unknown aggregation 'cnt' at column 12");
	expect_error("python", "expected ':' between provider and probe name "
			       "at column 7");
	expect_error("python:=count()", "expected a probe name at column 8");
	expect_error("a:b=count(arg12)",
		     "argument 'arg12' out of range arg0..arg11 at column 11");
	expect_error("a:b=count(arg0", "expected ',' or ')' at column 15");
	expect_error("a:b=count(allpids, allpids)",
		     "allpids twice at column 20");
	expect_error("a:b=count(arg0, pystack, allpids)",
		     "allpids: pystack names what one process has; its rows "
		     "cannot be over every process at column 5");
	expect_error("a:b=count(sym(arg0), allpids)",
		     "allpids: sym(arg0) names what one process has; its rows "
		     "cannot be over every process at column 5");
	expect_error("a:b=sum()", "sum needs a value argument: sum(argN) at "
				  "column 5");
	expect_error("a:b=quantize(str(arg0))",
		     "expected argN or `SYMBOL at column 14");
	expect_error("a:b=lquantize(arg0, 10, 0, 1)",
		     "lquantize HIGH must be above LOW at column 25");
	expect_error("a:b=lquantize(arg0, 0, 1000, 1)",
		     "lquantize range holds more than 64 steps at column 30");
	expect_error("a:b=count(arg0,arg1,arg2,arg3,arg4)",
		     "too many keys (at most 4) at column 31");
	expect_error("a:b=count(str(arg0),str(arg1),str(arg2))",
		     "too many string keys (at most 2) at column 31");
	expect_error("a:b=count(sql(arg0),str(arg1),sql(arg2))",
		     "too many string keys (at most 2) at column 31");
	expect_error("a:b=count(sql(arg0, arg1))",
		     "expected ')' to close sql( at column 19");
	expect_error("a:b=count(sym(arg0, arg1))",
		     "expected ')' to close sym( at column 19");
	expect_error("a:b=count(sym arg0)",
		     "expected '(' after sym at column 15");
	expect_error("a:b=quantize(sym(arg0))",
		     "expected argN or `SYMBOL at column 14");
	expect_error("a:b..c:d=count()",
		     "a probe pair A..B needs latency() at column 10");
	expect_error("a:b=latency()", "latency needs two probes A..B, or a fn: "
				      "entry probe at column 5");
	expect_error("fn:f%ret", "expected '%return' after the symbol at "
				 "column 5");
	expect_error("fn:f%return=count(arg1)",
		     "a %return probe has only arg0 (the return value) at "
		     "column 13");
	expect_error("a:b=count() x", "unexpected 'x' after ')' at column 13");
	expect_error("", "expected a probe at column 1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bare_probe),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_object_and_globs),
		cmocka_unit_test(test_dtrace_names),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_fn),
		cmocka_unit_test(test_profile_and_python),
		cmocka_unit_test(test_casts),
		cmocka_unit_test(test_function),
		cmocka_unit_test(test_globals),
		cmocka_unit_test(test_key_text),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
