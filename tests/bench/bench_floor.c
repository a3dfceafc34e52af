// SPDX-License-Identifier: MIT
/*
 * bench_floor [--multi] [--clock] PID PROBE... — attach an empty BPF
 * program at every location of each named USDT probe (provider:name) of
 * PID, print "attached", and hold until stdin closes: the floor that
 * probetop's per-event cost is compared with. --multi attaches by
 * uprobe_multi links (as probetop does where the kernel has them), else
 * by perf-event uprobes (engine/attach/ulink.h). --clock attaches a program that
 * only reads its cookie and the clock (floor.bpf.c) instead.
 */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "floor.skel.h"
#include "proc.h"
#include "ulink.h"

int main(int argc, char **argv)
{
	bool multi = argc > 1 && !strcmp(argv[1], "--multi");
	bool with_clock =
		argc > 1 + multi && !strcmp(argv[1 + multi], "--clock");
	struct floor_bpf *skel = floor_bpf__open();
	struct bpf_program *prog;
	struct catalog *cat;
	pid_t pid;
	int n = 0;

	argv += multi + with_clock;
	argc -= multi + with_clock;
	if (argc < 3 || !skel)
		return 1;
	prog = with_clock ? skel->progs.floor_clock : skel->progs.floor_empty;
	bpf_program__set_autoload(with_clock ? skel->progs.floor_empty
					     : skel->progs.floor_clock,
				  false);
	if (multi)
		ulink_prepare(prog);
	if (floor_bpf__load(skel))
		return 1;
	pid = proc_parse_pid(argv[1]);
	cat = catalog_open_pid(NULL, pid);
	if (!cat)
		return 1;
	for (size_t o = 0; o < catalog_nobjects(cat); o++) {
		const struct cat_object *obj = catalog_object(cat, o);

		for (size_t p = 0; p < obj->nprobes; p++) {
			const struct cat_probe *cp = &obj->probes[p];
			char full[256];

			snprintf(full, sizeof(full), "%s:%s", cp->provider,
				 cp->name);
			for (int a = 2; a < argc; a++) {
				struct ulink link;

				if (strcmp(full, argv[a]))
					continue;
				for (size_t l = 0; l < cp->nlocs; l++) {
					if (ulink_attach(prog, multi, pid,
							 obj->path,
							 cp->locs[l].offset,
							 cp->locs[l].sem_offset,
							 0, false, &link))
						return 1;
					n++;
				}
			}
		}
	}
	printf("attached %d\n", n);
	fflush(stdout);
	while (getchar() != EOF)
		;
	return 0;
}
