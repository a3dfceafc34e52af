// SPDX-License-Identifier: MIT
/*
 * session — open a target, pick probesets, attach specs; see session.h.
 *
 * Everything a user typed is checked before anything is attached: specs
 * are parsed and -P names looked up first; then the target is opened
 * (a command is started, held before exec); then probesets are picked by
 * the probes the target's objects have, and every spec is attached.
 *
 * This file owns that order (session_open()), the rescans and the end;
 * the options trace and the console share; what is said of a spec that
 * attaches nowhere, waits or drops; and what metrics.h is given to
 * render. The target is session_target.c's, the probesets and where each
 * spec came from session_probesets.c's (session_impl.h); neither calls
 * this file.
 */
#include "session.h"

#include <errno.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "baseline.h"
#include "cmd.h"
#include "export.h"
#include "log.h"
#include "nearest.h"
#include "probetop.h"
#include "proc.h"
#include "session_impl.h"

_Static_assert(SESSION_MAX_SPECS == PT_MAX_SPECS, "one slot per spec id");

static void report_bad_file(const char *msg, void *ctx)
{
	(void)ctx;
	cli_error("%s (skipped)", msg);
}

#define HINT_OBJECTS 1024 /* objects searched for a suggestion */

/* The target's objects (up to HINT_OBJECTS) and their count into *n,
 * to free; NULL out of memory. */
static const struct cat_object **target_objects(const struct session *s,
						size_t *n)
{
	const struct cat_object **objs = calloc(HINT_OBJECTS, sizeof(*objs));

	*n = objs ? tracer_objects(s->tr, objs, HINT_OBJECTS) : 0;
	return objs;
}

void session_hint(const struct session *s, const struct spec *spec, char *out,
		  size_t len)
{
	char near[600];
	size_t n;
	const struct cat_object **objs = target_objects(s, &n);

	out[0] = '\0';
	if (!objs)
		return;
	for (int i = 0; i < spec->nprobes; i++) {
		if (nearest_probe(objs, n, &spec->probe[i], near,
				  sizeof(near))) {
			snprintf(out, len, " (did you mean %s?)", near);
			break;
		}
	}
	for (int i = 0; i < spec->nprobes && !out[0]; i++)
		if (spec->probe[i].function[0]) /* PROBE@FUNCTION */
			snprintf(out, len,
				 " (or none of its locations is in a "
				 "function %s)",
				 spec->probe[i].function);
	free(objs);
}

void session_waiting(const struct tracer_spec_info *info, char *out, size_t len)
{
	const struct spec_probe *missing = NULL;
	char probe[600];

	out[0] = '\0';
	if (!tracer_spec_waiting(info, &missing))
		return;
	if (!missing) {
		snprintf(out, len, "no probe matches");
		return;
	}
	spec_probe_text(missing, probe, sizeof(probe));
	snprintf(out, len, "%s matches nothing", probe);
}

/* The interpreter whose frames a key of sp reads (its frame drops are
 * that one's): "PHP", "Ruby", else "Python". */
static const char *frames_of(const struct spec *sp)
{
	static const char *const NAMES[] = {
		[SPEC_FRAMES_PYTHON] = "Python",
		[SPEC_FRAMES_PHP] = "PHP",
		[SPEC_FRAMES_RUBY] = "Ruby",
	};

	return NAMES[spec_frames_of(sp)];
}

void session_drops(const struct agg_spec *as, bool total, char *out, size_t len)
{
	const uint64_t *why = total ? as->why_total : as->why;
	size_t n = 0;

	out[0] = '\0';
	for (int r = 0; r < AGG_NDROPS && n < len; r++) {
		const char *sep = n ? "; " : "";
		unsigned long long k = why[r];

		if (!k)
			continue;
		if (r == AGG_DROP_FULL)
			n += snprintf(
				out + n, len - n,
				"%s%llu map full at %u keys, raise --aggsize",
				sep, k, as->capacity);
		else if (r == AGG_DROP_STR)
			n += snprintf(out + n, len - n,
				      "%s%llu unreadable string%s", sep, k,
				      k == 1 ? "" : "s");
		else if (r == AGG_DROP_FRAME)
			n += snprintf(out + n, len - n,
				      "%s%llu without a %s frame to read", sep,
				      k, frames_of(as->spec));
		else
			n += snprintf(out + n, len - n,
				      "%s%llu starts lost past %d under way",
				      sep, k, PT_STACK_DEPTH);
	}
}

void session_kdrops(const struct agg_snapshot *snap, bool total, char *out,
		    size_t len)
{
	static const struct {
		const char *events, *map, *unit;
	} WHAT[PT_KDROP_N] = {
		[PT_KDROP_INFLIGHT] = { "IO calls", "in-flight table", "" },
		[PT_KDROP_IO] = { "IO calls", "io map", " keys" },
		[PT_KDROP_PROC] = { "process events", "map", " keys" },
	};
	const uint64_t *n = total ? snap->kdrops_total : snap->kdrops;
	size_t at = 0;

	out[0] = '\0';
	for (int k = 0; k < PT_KDROP_N && at < len; k++)
		if (n[k])
			at += snprintf(out + at, len - at,
				       "%llu %s, %s full at %u%s; ",
				       (unsigned long long)n[k], WHAT[k].events,
				       WHAT[k].map, snap->kcapacity[k],
				       WHAT[k].unit);
	if (at && at < len)
		snprintf(out + at, len - at, "raise --aggsize");
}

/* Whether spec's probe role (-1: any) that matches nothing in a running
 * process cannot come later (nearest_settled()): a typo. */
static bool settled(const struct session *s, const struct spec *spec, int role)
{
	const struct cat_object **objs;
	bool yes = false;
	size_t n;

	if (s->binary[0] || s->launched)
		return false; /* nothing mapped yet, or one file */
	objs = target_objects(s, &n);
	if (!objs)
		return false;
	for (int i = 0; i < spec->nprobes && !yes; i++)
		if (role < 0 || role == i)
			yes = nearest_settled(objs, n, &spec->probe[i]);
	free(objs);
	return yes;
}

/*
 * The start (loading and verifying the BPF programs, the cost meter's
 * calibration, attaching) at SESSION_START_NICE below probetop's own
 * priority, for this thread and those it starts meanwhile: it takes the
 * CPU a busy target leaves, not the target's. tests/bench/start.sh: xz
 * busy on both CPUs kept 0.93-1.00 of its CPU while probetop started on
 * it, 0.66-0.75 at probetop's own priority; the start then took 6.7 s
 * instead of 1.2 (on an idle CPU, no longer). session_open() restores
 * it; a launched command runs at probetop's own (s->nice).
 */
static void start_quietly(struct session *s)
{
	errno = 0;
	s->nice = getpriority(PRIO_PROCESS, 0);
	if (errno)
		s->nice = 0;
	setpriority(PRIO_PROCESS, 0, s->nice + SESSION_START_NICE);
}

/* Report a spec that attached nowhere, or a pair one of whose probes
 * did: 0 (it waits), 1 if that is fatal, 2 if no probe can match (-b, or
 * a typo in a running process: as dtrace and bpftrace, a usage error). */
static int check_attached(const struct session *s, const struct spec *spec,
			  int id, bool from_set)
{
	const struct tracer_spec_info *info = tracer_spec_info(s->tr, id);
	const struct spec_probe *missing = NULL;
	char what[700], hint[700];

	if (from_set || !tracer_spec_waiting(info, &missing))
		return 0;
	if (!info->nsites && info->nskipped) {
		cli_error("-e '%s': no location of its probes can serve it "
			  "(see above)",
			  spec->text);
		return 1;
	}
	session_waiting(info, what, sizeof(what));
	session_hint(s, spec, hint, sizeof(hint));
	if (s->binary[0]) { /* one file: nothing more will be mapped */
		if (!info->nsites)
			cli_error("-e '%s': no probe of %s matches%s",
				  spec->text, s->binary, hint);
		else
			cli_error("-e '%s': %s in %s%s", spec->text, what,
				  s->binary, hint);
		return 2;
	}
	if (settled(s, spec,
		    missing ? (int)(missing - info->spec->probe) : -1)) {
		/* the objects it could be in are all there */
		cli_error("-e '%s': %s in process %d (nothing it loads later "
			  "can add it)%s",
			  spec->text, what, (int)s->pid, hint);
		return 2;
	}
	/* not fatal: a warning, which the console shows on screen */
	log_msg(LOG_WARN,
		"-e '%s': %s yet; waiting for a library that has it to be "
		"mapped%s",
		spec->text, what, hint);
	return 0;
}

int session_rescan(struct session *s, int *new_sets,
		   const struct tracer_exec **exec)
{
	int n = tracer_rescan(s->tr), before = s->npicked;
	const struct tracer_exec *x = tracer_exec(s->tr);

	if (n >= 0 && s->detecting &&
	    tracer_objects_gen(s->tr) != s->detected_gen) {
		session_pick_detected(s);
		for (int i = before; i < s->npicked; i++)
			session_attach_set(s, s->picked[i]);
	}
	tracer_resume(s->tr);
	*new_sets = s->npicked - before;
	*exec = NULL;
	if (x->count > s->execs_said) {
		*exec = x;
		s->execs_said = x->count;
	}
	return n;
}

int session_open(struct session *s, const struct session_args *a)
{
	struct spec *specs = calloc((size_t)a->nspecs + 1, sizeof(*specs));
	char err[256];
	int ret = 2;

	*s = (struct session){ .l = { .pid = -1, .go_fd = -1, .err_fd = -1 } };
	if (!specs)
		return 1;
	for (int i = 0; i < a->nspecs; i++) {
		if (spec_parse(a->specs[i], &specs[i], err, sizeof(err))) {
			cli_error("-e '%s': %s", a->specs[i], err);
			goto fail;
		}
	}
	if (probesets_load(NULL, NULL, &s->sets, report_bad_file, NULL)) {
		ret = 1;
		goto fail;
	}
	if (session_pick_named(s, a))
		goto fail;
	ret = 1;
	s->opening = a;
	start_quietly(s);
	session_progress(s, "loading the BPF programs");
	if (session_open_target(s, a))
		goto fail;
	session_read_target_env(s, a);
	s->detecting = !a->nsets && !a->nspecs;
	if (s->detecting)
		session_pick_detected(s);
	if (a->with_kernel)
		session_pick_kernel(s);
	for (int i = 0; i < a->nspecs; i++) {
		int id, bad;

		session_progress(s, "attaching -e %s", specs[i].text);
		id = session_add(s, &specs[i], NULL, NULL);

		if (id < 0) {
			cli_error("-e '%s': cannot attach: %s", specs[i].text,
				  session_strerror(id));
			goto fail;
		}
		bad = check_attached(s, &specs[i], id, false);
		if (bad) {
			ret = bad;
			goto fail;
		}
	}
	if (session_attach_sets(s))
		goto fail;
	s->opening = NULL;
	setpriority(PRIO_PROCESS, 0, s->nice);
	free(specs);
	return 0;
fail:
	setpriority(PRIO_PROCESS, 0, s->nice);
	free(specs);
	session_close(s);
	return ret;
}

/* --aggsize's value into *out: 0, or -1 said on stderr. */
static int parse_aggsize(const char *arg, uint64_t *out)
{
	char lo[32], hi[32];
	int err = mapsize_parse(arg, out);

	if (err == -ERANGE) {
		mapsize_format(MAPSIZE_MIN_BUDGET, lo, sizeof(lo));
		mapsize_format(MAPSIZE_MAX_BUDGET, hi, sizeof(hi));
		cli_error("--aggsize: '%s' is not between %s and %s", arg, lo,
			  hi);
	} else if (err) {
		cli_error("--aggsize: '%s' is not a size (e.g. 64m, 1g)", arg);
	}
	return err ? -1 : 0;
}

/* --budget's value into *out (< 0: off): 0, or -1 said on stderr. */
static int parse_budget(const char *arg, double *out)
{
	char *end;
	double v;

	if (!strcmp(arg, "off")) {
		*out = -1;
		return 0;
	}
	errno = 0;
	v = strtod(arg, &end);
	if (end != arg && *end == '%')
		end++;
	if (errno || end == arg || *end || !(v > 0) || v > 10000) {
		cli_error("--budget: '%s' is not a percentage of one CPU "
			  "(e.g. 5, 0.5, 200) or off",
			  arg);
		return -1;
	}
	*out = v;
	return 0;
}

double session_budget(const struct session_args *a)
{
	return a->budget_given ? a->budget : SESSION_BUDGET;
}

int session_arg(struct session_args *a, int opt, const char *arg)
{
	switch (opt) {
	case 'p':
		a->pid = proc_parse_pid(arg);
		if (a->pid <= 0) {
			cli_error("-p: '%s' is not a process id", arg);
			return -1;
		}
		return 0;
	case 'b':
		a->binary = arg;
		return 0;
	case 'e':
		if (a->nspecs == SESSION_MAX_ARGS) {
			cli_error("more than %d -e specs", SESSION_MAX_ARGS);
			return -1;
		}
		a->specs[a->nspecs++] = arg;
		return 0;
	case 'P':
		if (a->nsets == SESSION_MAX_SETS) {
			cli_error("more than %d -P probesets",
				  SESSION_MAX_SETS);
			return -1;
		}
		a->sets[a->nsets++] = arg;
		return 0;
	case SESSION_OPT_AGGSIZE:
		return parse_aggsize(arg, &a->aggsize);
	case SESSION_OPT_BUDGET:
		a->budget_given = true;
		return parse_budget(arg, &a->budget);
	case SESSION_OPT_LISTEN: {
		struct sockaddr_storage ss;
		socklen_t len;
		char err[300];

		if (export_parse(arg, &ss, &len, err, sizeof(err))) {
			cli_error("%s", err);
			return -1;
		}
		a->listen = arg;
		return 0;
	}
	case SESSION_OPT_RECORD:
		a->record = arg;
		return 0;
	case SESSION_OPT_BASELINE:
		a->baseline = arg;
		return 0;
	default:
		return 1;
	}
}

void session_close(struct session *s)
{
	if (s->l.pid > 0 && s->l.go_fd >= 0)
		launch_abort(&s->l); /* never released: it exits, unrun */
	else if (s->l.pid > 0)
		waitpid(s->l.pid, NULL, WNOHANG); /* reap it if it is done */
	s->l.pid = -1;
	tracer_free(s->tr);
	s->tr = NULL;
	free(s->env);
	free(s->argv);
	s->env = s->argv = NULL;
	probesets_free(&s->sets);
	s->npicked = 0;
	free(s->pidcmds);
	s->pidcmds = NULL;
	s->npidcmds = s->cappidcmds = 0;
}

/* metrics.h's origin callback: the spec's probeset role and its labels */
static void metrics_origin(void *ctx, int id, struct metrics_origin *o)
{
	const struct session *s = ctx;
	const struct session_spec *ss;
	const struct ps_section *sec;

	*o = (struct metrics_origin){ 0 };
	if (id < 0 || id >= SESSION_MAX_SPECS)
		return;
	ss = &s->specs[id];
	if (!ss->ps || !ss->role)
		return;
	sec = &ss->ps->sections[ss->role->section];
	o->probeset = ss->ps->name;
	o->section = sec->name;
	o->role = ss->role->name;
	for (int i = 0; i < sec->nlabels && i < AGG_MAX_PARTS; i++)
		o->labels[o->nlabels++] = sec->labels[i];
}

static const char *metrics_command(void *ctx, uint32_t pid)
{
	return session_pid_command(ctx, pid);
}

void session_metrics_src(struct session *s, const struct agg_snapshot *snap,
			 struct metrics_src *src)
{
	*src = (struct metrics_src){
		.snap = snap,
		.origin = metrics_origin,
		.command = s->binary[0] ? metrics_command : NULL,
		.ctx = s,
		.probes = tracer_nprobes(s->tr),
	};
}

struct basetab *session_baseline(const char *path, char *note, size_t n)
{
	char why[512];
	struct basetab *t = baseline_load(path, why, sizeof(why), note, n);

	if (!t)
		cli_error("--baseline %s: %s", path, why);
	return t;
}
