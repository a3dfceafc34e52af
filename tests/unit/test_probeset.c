// SPDX-License-Identifier: MIT
/* Unit tests of the probeset loader: every shipped file loads with the
 * roles the views read; broken files are refused with FILE:LINE: what;
 * a user file overrides a builtin one by name, and a broken one does not
 * stop the others. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "probeset.h"

static char dir[64];

static const char *write_file(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/probetop-ps-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void builtin_dir(char *out, size_t n)
{
	snprintf(out, n, "%s/probesets", getenv("SOURCE_ROOT"));
}

static void collect(const char *msg, void *ctx)
{
	char *buf = ctx;

	snprintf(buf + strlen(buf), 1024 - strlen(buf), "%s\n", msg);
}

static void test_shipped_sets_load(void **state)
{
	static const char *const NAMES[] = {
		"erlang",     "erlsample", "io",     "java",
		"javasample", "libstdcxx", "node",   "nodesample",
		"php",	      "phpsample", "pony",   "postgresql",
		"process",    "pysample",  "python", "ruby",
		"rubysample"
	};
	char bdir[512], errs[1024] = "";
	struct ps_list list;

	(void)state;
	builtin_dir(bdir, sizeof(bdir));
	assert_int_equal(
		probesets_load(bdir, "/nonexistent", &list, collect, errs), 0);
	assert_string_equal(errs, "");
	assert_int_equal(list.n, sizeof(NAMES) / sizeof(NAMES[0]));
	for (size_t i = 0; i < list.n; i++) {
		assert_string_equal(list.sets[i]->name, NAMES[i]);
		assert_false(list.sets[i]->user);
		/* every spec was parsed at load time; roles name sections */
		for (int k = 0; k < list.sets[i]->nspecs; k++)
			assert_true(list.sets[i]->specs[k].section <
				    list.sets[i]->nsections);
	}
	assert_int_equal(probesets_find(&list, "io")->kernel, PS_KERNEL_IO);
	assert_int_equal(probesets_find(&list, "process")->kernel,
			 PS_KERNEL_PROCESS);
	assert_int_equal(probesets_find(&list, "python")->kernel,
			 PS_KERNEL_NONE);
	probesets_free(&list);
}

static void test_python_roles(void **state)
{
	char path[512], err[600];
	struct probeset ps;
	const struct ps_spec *calls, *lat;
	const struct ps_note *note;

	(void)state;
	snprintf(path, sizeof(path), "%s/probesets/python.ini",
		 getenv("SOURCE_ROOT"));
	assert_int_equal(probeset_load_file(path, &ps, err, sizeof(err)), 0);
	calls = probeset_spec(&ps, "frames", "calls");
	assert_non_null(calls);
	/* a function by its first line, else (no frames to read) by the
	 * line it returns from */
	assert_string_equal(calls->spec.text,
			    "python:function__return=count(str(arg1),"
			    "str(arg0),pyfirstline)");
	assert_false(calls->optional);
	assert_non_null(probeset_next_alt(&ps, calls));
	assert_string_equal(
		probeset_next_alt(&ps, calls)->spec.text,
		"python:function__return=count(str(arg1),str(arg0),arg2)");
	lat = probeset_spec(&ps, "frames", "latency");
	assert_non_null(lat);
	assert_true(lat->optional);
	assert_string_equal(lat->needs, "python:line");
	assert_non_null(probeset_next_alt(&ps, lat));
	assert_true(probeset_next_alt(&ps, lat)->optional);
	assert_string_equal(probeset_next_alt(&ps, lat)->needs, "python:line");
	assert_int_equal(ps.sections[calls->section].nlabels, 3);
	assert_string_equal(ps.sections[calls->section].labels[1], "file");
	assert_non_null(probeset_spec(&ps, "gc", "pause"));
	note = probeset_note(&ps, "python", "function__entry");
	assert_non_null(note);
	assert_non_null(strstr(note->silent, "98894"));
	assert_null(probeset_note(&ps, "python", "gc__start"));
	assert_int_equal(ps.ndetect, 2);
}

/* PostgreSQL's queries are Top's rows, keyed by their text on both
 * probes of the pair; checkpoints take the GC pane's roles. */
static void test_postgresql_roles(void **state)
{
	char path[512], err[600];
	struct probeset ps;
	const struct ps_spec *calls, *lat;

	(void)state;
	snprintf(path, sizeof(path), "%s/probesets/postgresql.ini",
		 getenv("SOURCE_ROOT"));
	assert_int_equal(probeset_load_file(path, &ps, err, sizeof(err)), 0);
	calls = probeset_spec(&ps, "frames", "calls");
	lat = probeset_spec(&ps, "frames", "latency");
	assert_non_null(calls);
	assert_non_null(lat);
	assert_false(calls->optional || lat->optional);
	/* every protocol's statements, once each (PortalRun's locations) */
	assert_string_equal(calls->spec.text,
			    "postgresql:query__execute__done@PortalRun="
			    "count(sql(`debug_query_string), allpids)");
	assert_string_equal(lat->spec.text,
			    "postgresql:query__execute__start@PortalRun.."
			    "postgresql:query__execute__done@PortalRun="
			    "latency(sql(`debug_query_string), allpids)");
	assert_true(calls->spec.allpids && lat->spec.allpids);
	assert_int_equal(calls->spec.nkeys, 1);
	assert_string_equal(calls->spec.probe[0].function, "PortalRun");
	assert_string_equal(lat->spec.probe[1].function, "PortalRun");
	assert_string_equal(
		spec_arg_global(&calls->spec, calls->spec.keys[0].arg),
		"debug_query_string");
	assert_non_null(probeset_spec(&ps, "phases", "statement"));
	assert_string_equal(ps.sections[calls->section].labels[0], "query");
	assert_non_null(probeset_spec(&ps, "gc", "pause"));
	assert_non_null(probeset_spec(&ps, "gc", "collected"));
	assert_string_equal(ps.sections[probeset_section(&ps, "gc")].title,
			    "Checkpoints");
	assert_non_null(probeset_spec(&ps, "transactions", "commits"));
	assert_non_null(probeset_note(&ps, "postgresql", "query__start"));
	assert_int_equal(ps.ndetect, 1);
}

static void test_ruby_unsafe_glob(void **state)
{
	char path[512], err[600];
	struct probeset ps;
	const struct ps_note *n;

	(void)state;
	snprintf(path, sizeof(path), "%s/probesets/ruby.ini",
		 getenv("SOURCE_ROOT"));
	assert_int_equal(probeset_load_file(path, &ps, err, sizeof(err)), 0);
	n = probeset_note(&ps, "ruby", "cmethod__entry");
	assert_non_null(n);
	assert_true(n->unsafe[0] != '\0');
	n = probeset_note(&ps, "ruby", "method__entry");
	assert_non_null(n);
	assert_true(n->silent[0] != '\0');
	assert_true(probeset_spec(&ps, "frames", "calls")->optional);
}

struct bad {
	const char *text;
	const char *want; /* after "DIR/bad.ini" */
};

static void test_broken_files(void **state)
{
	static const struct bad BAD[] = {
		{ "[probeset]\nname = x\ndetect = a:b\n[f]\ncalls = "
		  "a:b=cnt()\n",
		  ":5: calls: unknown aggregation 'cnt' at column 5" },
		{ "[probeset]\nname = x\ndetect = a:b\ncolour = red\n",
		  ":4: unknown key 'colour' in [probeset]" },
		{ "[probeset]\nname = x\n[f\n",
		  ":3: not KEY = VALUE or [SECTION]" },
		{ "calls = a:b\n", ":1: 'calls' before any [section]" },
		{ "[probeset]\nname = Bad Name\n",
		  ":2: name 'Bad Name': use a-z, 0-9, _ or -" },
		{ "[probeset]\nname = x\ndetect = fn:main%return\n",
		  ":3: detect: 'fn:main%return' is not a USDT probe or a "
		  "fn:SYMBOL" },
		{ "[probeset]\nname = x\ndetect = profile:99\n",
		  ":3: detect: 'profile:99' is not a USDT probe or a "
		  "fn:SYMBOL" },
		{ "[probeset]\nname = x\ndetect = a:b\n[f]\nc = a:b\n"
		  "optional = d\n",
		  ":6: optional: no spec 'd' in this section" },
		{ "[probeset]\nname = x\ndetect = a:b\n[probe a:b]\nloud = y\n",
		  ":5: unknown key 'loud' in [probe]; use silent, cost, "
		  "unsafe or requires" },
		{ "[probeset]\nname = x\ndetect = a:b\n[probe a:b]\n"
		  "requires = USE_X=1\n",
		  ":5: requires: expected env:NAME=VALUE or arg:ARGUMENT, got "
		  "'USE_X=1'" },
		{ "[probeset]\nname = x\ndetect = a:b\n[probe a:b]\n"
		  "requires = env:A, env:B, env:C, env:D, env:E\n",
		  ":5: requires: at most 4 alternatives of 63 characters" },
		{ "[probeset]\nname = x\ndetect = a:b\n[gc]\nc = a:b\n"
		  "unnamed = no names\n",
		  ":6: unnamed: only in [frames]" },
		{ "[probeset]\nname = x\ndetect = a:b\n[frames]\nc = a:b\n"
		  "named_by = -JPperf\n",
		  ":6: requires: expected env:NAME=VALUE or arg:ARGUMENT, got "
		  "'-JPperf'" },
		{ "[probeset]\nname = x\ndetect = a:b\n",
		  ": no spec in any section" },
		{ "[probeset]\ndetect = a:b\n[f]\nc = a:b\n",
		  ": no name in [probeset]" },
		{ "[probeset]\nname = x\nkernel = disk\n",
		  ":3: kernel = 'disk': use io or process" },
		{ "", ": no name in [probeset]" },
	};
	struct probeset ps;
	char err[600], want[700];

	(void)state;
	for (size_t i = 0; i < sizeof(BAD) / sizeof(BAD[0]); i++) {
		const char *path = write_file("bad.ini", BAD[i].text);

		assert_int_equal(
			probeset_load_file(path, &ps, err, sizeof(err)),
			-EINVAL);
		snprintf(want, sizeof(want), "%s%s", path, BAD[i].want);
		assert_string_equal(err, want);
	}
	assert_int_equal(
		probeset_load_file("/nonexistent/x.ini", &ps, err, sizeof(err)),
		-ENOENT);
	assert_string_equal(err, "/nonexistent/x.ini: cannot read: No such "
				 "file or directory");
}

/* NUL-separated strings, as /proc/PID/environ holds them */
#define NULS(s) s, sizeof(s) - 1

static void test_requires(void **state)
{
	static const char TEXT[] =
		"[probeset]\nname = x\ndetect = a:b\n[f]\nc = a:b\n"
		"[probe a:env]\nrequires = env:USE_X=1\n"
		"[probe a:flag]\nrequires = arg:-XX:+On, env:OPTS=*-XX:+On*\n"
		"[probe a:none]\nsilent = never\n";
	const struct ps_note *env, *flag, *none;
	struct probeset ps;
	char err[300];

	(void)state;
	assert_int_equal(probeset_parse("x.ini", TEXT, &ps, err, sizeof(err)),
			 0);
	env = probeset_note(&ps, "a", "env");
	flag = probeset_note(&ps, "a", "flag");
	none = probeset_note(&ps, "a", "none");
	assert_string_equal(env->requires_shown, "USE_X=1");
	assert_string_equal(flag->requires_shown, "-XX:+On"); /* no globs */
	assert_true(probeset_note_met(env, NULS("A=1\0USE_X=1\0B=2\0"),
				      NULS("php\0")));
	assert_false(probeset_note_met(env, NULS("USE_X=0\0USE_X=10\0"),
				       NULS("USE_X=1\0")));
	assert_false(probeset_note_met(env, NULS(""), NULS("")));
	assert_true(probeset_note_met(flag, NULS("A=1\0"),
				      NULS("java\0-XX:+On\0Main\0")));
	assert_true(probeset_note_met(flag, NULS("OPTS=-Xmx1g -XX:+On\0"),
				      NULS("java\0Main\0")));
	assert_false(probeset_note_met(flag, NULS("OPTS=-XX:-On\0"),
				       NULS("java\0-XX:+Onx\0")));
	assert_true(probeset_note_met(none, NULS(""), NULS("")));
	assert_int_equal(ps.named_by.nrequires, 0); /* none: always named */
	assert_string_equal(ps.unnamed, "");
}

/* [frames] named_by = and unnamed =: what names a probeset's frames,
 * what is said where the process lacks it (erlsample). */
static void test_named_by(void **state)
{
	static const char TEXT[] =
		"[probeset]\nname = x\ndetect = fn:a\n[frames]\n"
		"samples = profile:99=count(jitframe)\n"
		"named_by = arg:[+-]JPperf, env:ERL_FLAGS=*+JPperf*\n"
		"unnamed = start it with +JPperf true\n";
	struct probeset ps;
	char err[300];

	(void)state;
	assert_int_equal(probeset_parse("x.ini", TEXT, &ps, err, sizeof(err)),
			 0);
	assert_int_equal(ps.named_by.nrequires, 2);
	assert_string_equal(ps.unnamed, "start it with +JPperf true");
	assert_true(probeset_note_met(&ps.named_by, NULS(""),
				      NULS("erl\0+JPperf\0true\0")));
	assert_true(probeset_note_met(&ps.named_by, NULS(""),
				      NULS("beam.smp\0-JPperf\0true\0")));
	assert_true(probeset_note_met(
		&ps.named_by, NULS("ERL_FLAGS=+JPperf true\0"), NULS("erl\0")));
	assert_false(probeset_note_met(&ps.named_by, NULS("ERL_FLAGS=+S 2\0"),
				       NULS("erl\0-noshell\0")));
}

/* A key given more than once lists alternatives, in order; optional
 * and needs.NAME apply to each of them. */
static void test_alternatives(void **state)
{
	static const char TEXT[] =
		"[probeset]\nname = x\ndetect = fn:a\n[gc]\n"
		"pause = fn:a=latency(arg1)\npause = fn:b=latency(arg0)\n"
		"other = fn:c=count()\npause = fn:d=latency(arg1)\n"
		"optional = pause\nneeds.pause = p:q\n";
	const struct ps_spec *first, *second, *third;
	char err[300];
	struct probeset ps;

	(void)state;
	assert_int_equal(probeset_parse("x.ini", TEXT, &ps, err, sizeof(err)),
			 0);
	first = probeset_spec(&ps, "gc", "pause");
	assert_non_null(first);
	assert_string_equal(first->spec.probe[0].name, "a");
	assert_false(first->alt);
	second = probeset_next_alt(&ps, first);
	assert_non_null(second);
	assert_string_equal(second->spec.probe[0].name, "b");
	assert_true(second->alt);
	third = probeset_next_alt(&ps, second);
	assert_non_null(third);
	assert_string_equal(third->spec.probe[0].name, "d");
	assert_null(probeset_next_alt(&ps, third));
	assert_false(probeset_spec(&ps, "gc", "other")->alt);
	assert_null(probeset_next_alt(&ps, probeset_spec(&ps, "gc", "other")));
	for (const struct ps_spec *r = first; r;
	     r = probeset_next_alt(&ps, r)) {
		assert_true(r->optional);
		assert_string_equal(r->needs, "p:q");
	}
	assert_false(probeset_spec(&ps, "gc", "other")->optional);
}

static void test_user_overrides_and_bad_skipped(void **state)
{
	char bdir[512], udir[128], errs[1024] = "", want[1024];
	struct ps_list list;
	const struct probeset *py;

	(void)state;
	builtin_dir(bdir, sizeof(bdir));
	snprintf(udir, sizeof(udir), "%s/user", dir);
	mkdir(udir, 0755);
	strcat(dir, "/user");
	write_file("python.ini", "[probeset]\nname = python\n"
				 "detect = python:line\n[frames]\n"
				 "calls = python:line=count(arg2)\n");
	write_file("zz.ini", "[probeset]\nname = zz\n[x\n");
	write_file("notes.txt", "not a probeset\n");
	dir[strlen(dir) - 5] = '\0';
	assert_int_equal(probesets_load(bdir, udir, &list, collect, errs), 0);
	snprintf(want, sizeof(want),
		 "%s/zz.ini:3: not KEY = VALUE or [SECTION]\n", udir);
	assert_string_equal(errs, want);
	assert_int_equal(list.n, 17);
	py = probesets_find(&list, "python");
	assert_non_null(py);
	assert_true(py->user);
	assert_int_equal(py->nspecs, 1);
	assert_false(probesets_find(&list, "ruby")->user);
	assert_null(probesets_find(&list, "zz"));
	probesets_free(&list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_sets_load),
		cmocka_unit_test(test_python_roles),
		cmocka_unit_test(test_postgresql_roles),
		cmocka_unit_test(test_ruby_unsafe_glob),
		cmocka_unit_test(test_broken_files),
		cmocka_unit_test(test_requires),
		cmocka_unit_test(test_named_by),
		cmocka_unit_test(test_alternatives),
		cmocka_unit_test(test_user_overrides_and_bad_skipped),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
