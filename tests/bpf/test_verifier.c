// SPDX-License-Identifier: MIT
/*
 * The verifier's budget: the kernel verifies a program in at most
 * 1,000,000 instructions (states explored, not the program's size), and
 * the site program (every USDT location, function entry and return,
 * with every key kind and every stack walker) took 95% of it until the
 * CPython walk stopped copying the layout onto its stack (31% since).
 * Since 2026-12-06 it is pt_usdt, without the walkers, which every
 * session verifies at start (5%: a start 0.25 s shorter), and one
 * program a family of walkers (pt_walk_py, _php, _rb, _native) and
 * pt_walk with them all, each loaded at the first spec that needs it.
 * A change that takes one past half fails here, with the count, long
 * before one fails to load at all, and as the time the kernel takes to
 * verify it grows with it; pt_usdt past a tenth means a walker crept
 * into it.
 * The profile:HZ programs, the handler on a perf event with a family of
 * walkers each (pt_prof with none, pt_profile with all), to half too.
 * Loading pt_usdt at all also holds its stack: 512 bytes for every chain
 * of calls, global functions counted on kernels without private stacks
 * for uprobe programs (docs/architecture.md). Needs root.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <bpf/libbpf.h>
#include <linux/types.h> /* before probetop.h */

#include "probetop.h"
#include "probetop.skel.h"

#define LIMIT 1000000 /* the kernel's BPF_COMPLEXITY_LIMIT_INSNS */
#define BUDGET (LIMIT / 100 * 50)

/* The instructions the verifier processed for prog, loaded alone with
 * the skeleton's maps (its log's "processed N insns"); -1 if it did
 * not load. */
static long processed(const char *prog)
{
	static char log[1 << 22]; /* its global functions' lines too */
	struct probetop_bpf *skel = probetop_bpf__open();
	struct bpf_program *p;
	const char *at;
	long n = -1;

	assert_non_null(skel);
	bpf_object__for_each_program(p, skel->obj) bpf_program__set_autoload(
		p, !strcmp(bpf_program__name(p), prog));
	p = bpf_object__find_program_by_name(skel->obj, prog);
	assert_non_null(p);
	log[0] = '\0';
	bpf_program__set_log_buf(p, log, sizeof(log));
	bpf_program__set_log_level(p, 4); /* statistics only */
	if (!probetop_bpf__load(skel) &&
	    (at = strstr(log, "processed ")) != NULL)
		n = strtol(at + 10, NULL, 10);
	probetop_bpf__destroy(skel);
	return n;
}

static void check(const char *prog, long budget)
{
	long n = processed(prog);

	print_message("# %s: %ld of %d instructions processed (%.1f%%)\n", prog,
		      n, LIMIT, n * 100.0 / LIMIT);
	assert_true(n > 0);
	assert_true(n <= budget);
}

static void test_site_program(void **state)
{
	(void)state;
	check("pt_usdt", LIMIT / 10);
}

static void test_walk_programs(void **state)
{
	static const char *const WALKS[] = { "pt_walk_py", "pt_walk_php",
					     "pt_walk_rb", "pt_walk_native",
					     "pt_walk" };

	(void)state;
	for (size_t i = 0; i < sizeof(WALKS) / sizeof(*WALKS); i++)
		check(WALKS[i], BUDGET);
}

static void test_profile_programs(void **state)
{
	static const char *const PROFS[] = { "pt_prof",	       "pt_prof_py",
					     "pt_prof_php",    "pt_prof_rb",
					     "pt_prof_native", "pt_profile" };

	(void)state;
	for (size_t i = 0; i < sizeof(PROFS) / sizeof(*PROFS); i++)
		check(PROFS[i], BUDGET);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_site_program),
		cmocka_unit_test(test_walk_programs),
		cmocka_unit_test(test_profile_programs),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
