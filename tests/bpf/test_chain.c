// SPDX-License-Identifier: MIT
/*
 * The BPF build chain, end to end: the skeleton built by meson (clang
 * -target bpf + bpftool gen skeleton) loads, and its uprobe program,
 * attached at the catalog's file offsets with the catalog's semaphore
 * offsets as ref_ctr_offset and a BPF cookie per probe, counts exactly
 * what the fixture fires. The semaphore is raised by the kernel while
 * attached and back to 0 after detach. Needs root.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "catalog.h"
#include "child.h"
#include "probetop.skel.h"

#define FIRES 1000

enum slot {
	SLOT_TICK,
	SLOT_SEM,
	SLOT_MULTI,
	SLOT_CALL,
	SLOT_COUNT
};

static void fire(struct child *t, int n)
{
	char cmd[32], reply[64], want[64];

	snprintf(cmd, sizeof(cmd), "fire %d", n);
	snprintf(want, sizeof(want), "fired %d\n", n);
	assert_int_equal(child_send(t, cmd, reply, sizeof(reply)), 0);
	assert_string_equal(reply, want);
}

static uint16_t read_sem(pid_t pid, uint64_t addr)
{
	char path[64];
	uint16_t v = 0xffff;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &v, sizeof(v), (off_t)addr), sizeof(v));
	close(fd);
	return v;
}

struct want {
	const char *provider, *name;
	enum slot slot;
};

static const struct want WANT[] = {
	{ "fixture", "tick", SLOT_TICK },
	{ "fixture", "sem", SLOT_SEM },
	{ "fixture", "multi", SLOT_MULTI },
	{ "fixlib", "call", SLOT_CALL },
};

struct attached {
	struct bpf_link *links[16];
	int n;
	uint64_t sem_addr[SLOT_COUNT]; /* run-time address, or 0 */
};

static void attach_all(struct probetop_bpf *skel, const struct catalog *cat,
		       struct attached *att)
{
	for (size_t i = 0; i < catalog_nobjects(cat); i++) {
		const struct cat_object *obj = catalog_object(cat, i);

		for (size_t j = 0; j < obj->nprobes; j++) {
			const struct cat_probe *p = &obj->probes[j];

			for (size_t w = 0; w < SLOT_COUNT; w++) {
				if (strcmp(p->provider, WANT[w].provider) ||
				    strcmp(p->name, WANT[w].name))
					continue;
				for (size_t l = 0; l < p->nlocs; l++) {
					LIBBPF_OPTS(
						bpf_uprobe_opts, opts,
						.ref_ctr_offset =
							p->locs[l].sem_offset,
						.bpf_cookie = WANT[w].slot);
					struct bpf_link *link =
						bpf_program__attach_uprobe_opts(
							skel->progs.probetop_hit,
							catalog_pid(cat),
							obj->path,
							p->locs[l].offset,
							&opts);

					assert_non_null(link);
					att->links[att->n++] = link;
				}
				if (p->locs[0].sem_addr)
					att->sem_addr[WANT[w].slot] =
						p->locs[0].sem_addr + obj->bias;
			}
		}
	}
}

static uint64_t hits(struct probetop_bpf *skel, uint32_t slot)
{
	uint64_t v = 0;

	assert_int_equal(bpf_map__lookup_elem(skel->maps.hits, &slot,
					      sizeof(slot), &v, sizeof(v), 0),
			 0);
	return v;
}

static void test_count_exact(void **state)
{
	struct attached att = { 0 };
	struct probetop_bpf *skel;
	struct catalog *cat;
	struct child t;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(child_start(fixture_path("sdt_target"), &t), 0);
	cat = catalog_open_pid(NULL, t.pid);
	assert_non_null(cat);
	skel = probetop_bpf__open_and_load();
	assert_non_null(skel);
	attach_all(skel, cat, &att);
	assert_int_equal(att.n, 6); /* tick, sem, 3 x multi, call */
	assert_int_not_equal(att.sem_addr[SLOT_SEM], 0);
	assert_int_not_equal(att.sem_addr[SLOT_CALL], 0);
	assert_int_equal(read_sem(t.pid, att.sem_addr[SLOT_SEM]), 1);
	assert_int_equal(read_sem(t.pid, att.sem_addr[SLOT_CALL]), 1);

	fire(&t, FIRES);
	for (uint32_t s = 0; s < SLOT_COUNT; s++)
		assert_int_equal(hits(skel, s), FIRES);

	for (int i = 0; i < att.n; i++)
		bpf_link__destroy(att.links[i]);
	assert_int_equal(read_sem(t.pid, att.sem_addr[SLOT_SEM]), 0);
	assert_int_equal(read_sem(t.pid, att.sem_addr[SLOT_CALL]), 0);
	fire(&t, 10); /* detached: nothing more is counted */
	for (uint32_t s = 0; s < SLOT_COUNT; s++)
		assert_int_equal(hits(skel, s), FIRES);

	probetop_bpf__destroy(skel);
	catalog_free(cat);
	assert_int_equal(child_stop(&t), 0); /* exited 0 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
