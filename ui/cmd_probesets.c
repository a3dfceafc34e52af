// SPDX-License-Identifier: MIT
/*
 * probetop probesets — the probesets that are available, where each
 * comes from and what it shows (its sections); broken files are reported
 * (FILE:LINE: what) and the rest are still listed.
 */
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "probeset.h"

static void report(const char *msg, void *ctx)
{
	int *nbad = ctx;

	cli_error("%s", msg);
	(*nbad)++;
}

/* What ps shows, into buf[0..n): its sections ("frames,gc,imports"), or
 * for a set the kernel serves, its kind ("io"). */
static const char *shows(const struct probeset *ps, char *buf, size_t n)
{
	buf[0] = '\0';
	if (ps->kernel)
		snprintf(buf, n, "%s", probeset_kernel_name(ps->kernel));
	for (int i = 0; !ps->kernel && i < ps->nsections; i++)
		snprintf(buf + strlen(buf), n - strlen(buf), "%s%s",
			 i ? "," : "", ps->sections[i].name);
	return buf;
}

static void print_text(const struct ps_list *list)
{
	int filew = 4;
	char what[PS_MAX_SECTIONS * (PS_NAME_MAX + 1)];

	for (size_t i = 0; i < list->n; i++) {
		int len = (int)strlen(list->sets[i]->path);

		filew = len > filew ? len : filew;
	}
	printf("%-10s %-7s %-44s %-*s %s\n", "NAME", "SOURCE", "DETECT", filew,
	       "FILE", "SHOWS");
	for (size_t i = 0; i < list->n; i++) {
		const struct probeset *ps = list->sets[i];
		char detect[256] = "", kernel[32];

		for (int d = 0; d < ps->ndetect; d++)
			snprintf(detect + strlen(detect),
				 sizeof(detect) - strlen(detect), "%s%s",
				 d ? "," : "", ps->detect_text[d]);
		snprintf(kernel, sizeof(kernel), "(kernel %s)",
			 probeset_kernel_name(ps->kernel));
		printf("%-10s %-7s %-44s %-*s %s\n", ps->name,
		       ps->user ? "user" : "builtin",
		       ps->kernel ? kernel : detect, filew, ps->path,
		       shows(ps, what, sizeof(what)));
	}
}

static json_object *set_json(const struct probeset *ps)
{
	json_object *o = json_object_new_object(), *det, *specs;

	json_object_object_add(o, "name", json_object_new_string(ps->name));
	json_object_object_add(o, "title", json_object_new_string(ps->title));
	json_object_object_add(
		o, "source",
		json_object_new_string(ps->user ? "user" : "builtin"));
	json_object_object_add(o, "file", json_object_new_string(ps->path));
	det = json_object_new_array();
	for (int d = 0; d < ps->ndetect; d++)
		json_object_array_add(
			det, json_object_new_string(ps->detect_text[d]));
	json_object_object_add(o, "detect", det);
	json_object_object_add(
		o, "kernel",
		ps->kernel ? json_object_new_string(
				     probeset_kernel_name(ps->kernel))
			   : NULL);
	specs = json_object_new_array();
	for (int i = 0; i < ps->nspecs; i++) {
		const struct ps_spec *s = &ps->specs[i];
		json_object *so = json_object_new_object();
		char role[2 * PS_NAME_MAX + 2];

		snprintf(role, sizeof(role), "%s.%s",
			 ps->sections[s->section].name, s->name);
		json_object_object_add(so, "role",
				       json_object_new_string(role));
		json_object_object_add(so, "spec",
				       json_object_new_string(s->spec.text));
		json_object_object_add(so, "optional",
				       json_object_new_boolean(s->optional));
		json_object_array_add(specs, so);
	}
	json_object_object_add(o, "specs", specs);
	return o;
}

int cmd_probesets(int argc, char **argv)
{
	static const struct option LONG[] = {
		{ "json", no_argument, NULL, 'j' },
		{ 0 },
	};
	struct ps_list list;
	bool json = false;
	int c, nbad = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":j", LONG, NULL)) != -1) {
		if (c != 'j') {
			cli_bad_option("probesets", c, argv);
			return 2;
		}
		json = true;
	}
	if (optind < argc) {
		cli_error("usage: probetop probesets [--json]");
		return 2;
	}
	if (probesets_load(NULL, NULL, &list, report, &nbad)) {
		cli_error("out of memory");
		return 1;
	}
	if (json) {
		json_object *arr = json_object_new_array();

		for (size_t i = 0; i < list.n; i++)
			json_object_array_add(arr, set_json(list.sets[i]));
		puts(json_object_to_json_string_ext(
			arr, JSON_C_TO_STRING_PLAIN |
				     JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(arr);
	} else {
		print_text(&list);
	}
	probesets_free(&list);
	return nbad ? 1 : 0;
}
