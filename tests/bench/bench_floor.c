// SPDX-License-Identifier: MIT
/*
 * bench_floor PID PROBE... — attach an empty BPF program at every
 * location of each named USDT probe (provider:name) of PID, print
 * "attached", and hold until stdin closes: the floor that probetop's
 * per-event cost is compared with.
 */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "floor.skel.h"
#include "proc.h"

int main(int argc, char **argv)
{
	struct floor_bpf *skel = floor_bpf__open_and_load();
	struct catalog *cat;
	pid_t pid;
	int n = 0;

	if (argc < 3 || !skel)
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
				if (strcmp(full, argv[a]))
					continue;
				for (size_t l = 0; l < cp->nlocs; l++) {
					LIBBPF_OPTS(
						bpf_uprobe_opts, opts,
						.ref_ctr_offset =
							cp->locs[l].sem_offset);
					if (!bpf_program__attach_uprobe_opts(
						    skel->progs.floor_empty,
						    pid, obj->path,
						    cp->locs[l].offset, &opts))
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
