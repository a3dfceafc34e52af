// SPDX-License-Identifier: MIT
/*
 * metrics_names — each spec's family and label names (metrics.h,
 * "Names"): its probeset role's, else its probes' text, sanitised, never
 * a name probetop gives its own families, _2, _3 ... when taken; its key
 * parts' labels, the probeset's, else after the key, made unique; and
 * metrics.h's metrics_name_part(). Called by metrics.c; calls no other
 * metrics file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_impl.h"
#include "spec.h"

size_t metrics_name_part(char *out, size_t n, size_t at, const char *s)
{
	bool gap = false;
	size_t start = at;

	for (; *s && at + 1 < n; s++) {
		char ch = *s;

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
			if (gap && at > start && at + 2 < n)
				out[at++] = '_';
			gap = false;
			out[at++] = ch;
		} else {
			gap = true;
		}
	}
	out[at] = '\0';
	return at;
}

/* Families probetop names itself: a spec's name never takes one. */
static const char *const RESERVED[] = {
	"probetop_spec",
	"probetop_spec_events",
	"probetop_spec_drops",
	"probetop_spec_unmatched",
	"probetop_spec_estimated",
	"probetop_lower_bound",
	"probetop_lower_bound_estimate",
	"probetop_lower_bound_error",
	"probetop_spec_events_lower_bound",
	"probetop_spec_duty_ratio",
	"probetop_spec_cost_ratio",
	"probetop_spec_probes",
	"probetop_spec_locations",
	"probetop_probes_attached",
	"probetop_intervals",
	"probetop_events",
	"probetop_drops",
	"probetop_kernel_drops",
	"probetop_overhead_cpu_ratio",
	"probetop_overhead_target_ratio",
	"probetop_overhead_cpu_seconds",
	"probetop_self_cpu_ratio",
	"probetop_budget_cpu_ratio",
	"probetop_export_series_cut",
	"probetop_io_calls",
	"probetop_io_errors",
	"probetop_io_bytes",
	"probetop_io_latency_seconds",
	"probetop_process_events",
	"probetop_process_lifetime_seconds",
};

static bool taken(const struct ctx *c, size_t upto, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof(RESERVED) / sizeof(RESERVED[0]); i++)
		if (!strcmp(RESERVED[i], name))
			return true;
	for (size_t i = 0; i < upto; i++) {
		const char *f = c->names[i].family;

		/* a sum's second family is <name>_events */
		if (!strcmp(f, name) ||
		    (!strncmp(f, name, len) && !strcmp(f + len, "_events")) ||
		    (!strncmp(name, f, strlen(f)) &&
		     !strcmp(name + strlen(f), "_events")))
			return true;
	}
	return false;
}

/* The family stem of a spec: its role's names, or its probes' text. */
static void stem(const struct agg_spec *as, const struct metrics_origin *o,
		 char *out, size_t n)
{
	size_t at = (size_t)snprintf(out, n, "probetop");
	char probe[SPEC_NAME_MAX * 3];

	if (o->probeset) {
		const char *parts[3] = { o->probeset, o->section, o->role };

		for (int i = 0; i < 3; i++) {
			size_t was = at;

			if (!parts[i] || at + 2 >= n)
				continue;
			out[at++] = '_';
			at = metrics_name_part(out, n, at, parts[i]);
			if (at == was + 1)
				out[--at] = '\0';
		}
		return;
	}
	for (int i = 0; i < as->spec->nprobes && at + 2 < n; i++) {
		size_t was = at;

		spec_probe_text(&as->spec->probe[i], probe, sizeof(probe));
		out[at++] = '_';
		at = metrics_name_part(out, n, at, probe);
		if (at == was + 1)
			out[--at] = '\0';
	}
}

/* The default name of each key part: argN, a variable's name, or what a
 * Python key shows. */
static int default_labels(const struct spec *sp, char names[][LABEL_MAX_LEN],
			  int max)
{
	static const char *const PYFRAME[] = { "function", "file", "line" };
	int n = 0;

	for (int k = 0; k < sp->nkeys && n < max; k++) {
		const struct spec_key *key = &sp->keys[k];

		if (spec_key_is_frame(key))
			for (int j = 0; j < 3 && n < max; j++)
				snprintf(names[n++], LABEL_MAX_LEN, "%s",
					 PYFRAME[j]);
		else if (key->kind == SPEC_KEY_JITFRAME)
			snprintf(names[n++], LABEL_MAX_LEN, "function");
		else if (key->kind == SPEC_KEY_PYSTACK ||
			 key->kind == SPEC_KEY_MIXSTACK ||
			 key->kind == SPEC_KEY_PHPSTACK ||
			 key->kind == SPEC_KEY_RBSTACK)
			snprintf(names[n++], LABEL_MAX_LEN, "stack");
		else if (spec_arg_global(sp, key->arg) &&
			 metrics_name_part(names[n], LABEL_MAX_LEN, 0,
					   spec_arg_global(sp, key->arg)))
			n++; /* a variable's name, as a label spells it */
		else
			snprintf(names[n++], LABEL_MAX_LEN, "arg%d", key->arg);
	}
	return n;
}

static bool label_taken(char names[][LABEL_MAX_LEN], int upto, const char *name)
{
	static const char *const FIXED[] = { "pid", "command", "le" };

	for (size_t i = 0; i < sizeof(FIXED) / sizeof(FIXED[0]); i++)
		if (!strcmp(FIXED[i], name))
			return true;
	for (int i = 0; i < upto; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* Each key part's label name: the probeset's, else after the key;
 * sanitised, and made unique ("_N": its position) */
static void name_labels(struct spec_names *sn, const struct spec *sp)
{
	char def[AGG_MAX_PARTS][LABEL_MAX_LEN];
	int ndef = default_labels(sp, def, AGG_MAX_PARTS);

	sn->nlabels = ndef;
	for (int i = 0; i < ndef; i++) {
		char *l = sn->labels[i];
		size_t at = 0;

		l[0] = '\0';
		if (i < sn->origin.nlabels && sn->origin.labels[i])
			at = metrics_name_part(l, LABEL_MAX_LEN, 0,
					       sn->origin.labels[i]);
		if (!at)
			at = metrics_name_part(l, LABEL_MAX_LEN, 0, def[i]);
		if (l[0] >= '0' && l[0] <= '9') { /* "key_" in front */
			char was[LABEL_MAX_LEN];

			memcpy(was, l, sizeof(was));
			memcpy(l, "key_", 4);
			memcpy(l + 4, was, LABEL_MAX_LEN - 5);
			l[LABEL_MAX_LEN - 1] = '\0';
		}
		if (label_taken(sn->labels, i, l)) {
			size_t len = strlen(l);

			if (len > LABEL_MAX_LEN - 8)
				len = LABEL_MAX_LEN - 8;
			snprintf(l + len, LABEL_MAX_LEN - len, "_%d", i);
		}
	}
}

int metrics_name_specs(struct ctx *c)
{
	const struct agg_snapshot *snap = c->snap;

	c->names = calloc(snap->nspecs ? snap->nspecs : 1, sizeof(*c->names));
	if (!c->names)
		return -ENOMEM;
	for (size_t i = 0; i < snap->nspecs; i++) {
		const struct agg_spec *as = &snap->specs[i];
		struct spec_names *sn = &c->names[i];
		const char *unit = as->spec->timed ? "_seconds" : "";
		char base[NAME_MAX_LEN - 24];

		if (c->src->origin)
			c->src->origin(c->src->ctx, as->id, &sn->origin);
		stem(as, &sn->origin, base, sizeof(base));
		snprintf(sn->family, sizeof(sn->family), "%s%s", base, unit);
		for (int k = 2; taken(c, i, sn->family); k++)
			snprintf(sn->family, sizeof(sn->family), "%s_%d%s",
				 base, k, unit);
		name_labels(sn, as->spec);
	}
	return 0;
}
