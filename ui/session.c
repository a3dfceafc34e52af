// SPDX-License-Identifier: MIT
/*
 * session — open a target, pick probesets, attach specs; see session.h.
 *
 * Everything a user typed is checked before anything is attached: specs
 * are parsed and -P names looked up first; then the target is opened
 * (a command is started, held before exec); then probesets are picked by
 * the probes the target's objects have, and every spec is attached.
 */
#include "session.h"

#include <errno.h>
#include <signal.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog.h"
#include "cmd.h"
#include "export.h"
#include "log.h"
#include "nearest.h"
#include "probetop.h"
#include "proc.h"
#include "shebang.h"

_Static_assert(SESSION_MAX_SPECS == PT_MAX_SPECS, "one slot per spec id");

static void report_bad_file(const char *msg, void *ctx)
{
	(void)ctx;
	cli_error("%s (skipped)", msg);
}

static int open_target(struct session *s, const struct session_args *a)
{
	char path[4096], elf[4096], why[600];
	bool alive;
	int err;

	if (a->binary) {
		if (catalog_find_file(a->binary, s->binary,
				      sizeof(s->binary))) {
			cli_error("-b %s: no such file (not in $PATH or the "
				  "library directories)",
				  a->binary);
			return -1;
		}
		s->tr = tracer_new(TRACER_FILE, 0, s->binary, a->aggsize);
		return s->tr ? 0 : -1; /* why is logged */
	}
	if (a->pid) {
		s->pid = a->pid;
		alive = proc_alive(a->pid);
		s->tr = tracer_new(TRACER_PID, a->pid, NULL, a->aggsize);
		if (!s->tr && errno == ESRCH && alive)
			cli_error(
				"pid %d exited before its probes were attached",
				(int)a->pid);
		else if (!s->tr && errno == ESRCH)
			cli_error("no such process: %d", (int)a->pid);
		else if (!s->tr && errno == EACCES)
			cli_maps_denied((int)a->pid);
		return s->tr ? 0 : -1;
	}
	if (catalog_find_file(a->command[0], path, sizeof(path)) ||
	    access(path, X_OK)) {
		cli_error("%s: command not found", a->command[0]);
		return -1;
	}
	if (shebang_resolve(path, elf, sizeof(elf), why, sizeof(why))) {
		cli_error("%s", why);
		return -1;
	}
	err = launch_start(a->command, a->quiet_command, &s->l);
	if (err) {
		cli_error("cannot start %s: %s", a->command[0], strerror(-err));
		return -1;
	}
	s->launched = true;
	s->execs_said = 1; /* its own exec is not news */
	s->pid = s->l.pid;
	s->tr = tracer_new(TRACER_PID, s->pid, NULL, a->aggsize);
	if (!s->tr)
		return -1;
	if (tracer_add_command_files(s->tr, elf))
		return -1;
	/* else: found by the rescan, later */
	tracer_hold_dlopen(s->tr, elf);
	tracer_hold_exec(s->tr);
	return 0;
}

/* NUL-separated copies of strs (NULL-terminated) into *out, *len. */
static int join_strings(char *const *strs, char **out, size_t *len)
{
	size_t n = 0;
	char *buf;

	for (char *const *p = strs; *p; p++)
		n += strlen(*p) + 1;
	buf = malloc(n + 1);
	if (!buf)
		return -ENOMEM;
	*len = n;
	n = 0;
	for (char *const *p = strs; *p; p++) {
		size_t l = strlen(*p) + 1;

		memcpy(buf + n, *p, l);
		n += l;
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

/* The target's environment and command line, for session_unmet(): a
 * process's from /proc, a command's from ours and its argv. Without them
 * (-b, or /proc hidden) nothing is said. */
static void read_target_env(struct session *s, const struct session_args *a)
{
	int err;

	if (a->pid)
		err = proc_strings(s->pid, "environ", &s->env, &s->envlen) ||
		      proc_strings(s->pid, "cmdline", &s->argv, &s->argvlen);
	else if (a->command)
		err = join_strings(environ, &s->env, &s->envlen) ||
		      join_strings(a->command, &s->argv, &s->argvlen);
	else
		return;
	if (err) {
		free(s->env);
		free(s->argv);
		s->env = s->argv = NULL;
	}
}

/* Whether the target meets n's requires; unknown (no environ) is "yes",
 * so nothing is said or attached on a guess. */
static bool target_meets(const struct session *s, const struct ps_note *n)
{
	return !s->env ||
	       probeset_note_met(n, s->env, s->envlen, s->argv, s->argvlen);
}

/* An optional spec that the target was started to serve: its probe has
 * requires (a flag, an env var), and the target meets them. */
static bool asked_by_target(const struct session *s, const struct ps_spec *r)
{
	const struct ps_note *n = session_note(s, r->spec.probe[0].provider,
					       r->spec.probe[0].name);

	return s->env && n && n->nrequires && target_meets(s, n);
}

static bool detected(const struct session *s, const struct probeset *ps)
{
	for (int d = 0; d < ps->ndetect; d++)
		if (tracer_has_probe(s->tr, &ps->detect[d]))
			return true;
	return false;
}

/* -P names (checked before the target is opened), or what is detected. */
static int pick_named(struct session *s, const struct session_args *a)
{
	for (int i = 0; i < a->nsets; i++) {
		const struct probeset *ps =
			probesets_find(&s->sets, a->sets[i]);

		if (!ps) {
			cli_error("-P %s: no such probeset; see probetop "
				  "probesets",
				  a->sets[i]);
			return -1;
		}
		s->picked[s->npicked++] = ps;
	}
	return 0;
}

static bool is_picked(const struct session *s, const struct probeset *ps)
{
	for (int i = 0; i < s->npicked; i++)
		if (s->picked[i] == ps)
			return true;
	return false;
}

/* Pick every probeset (not picked yet) whose detect probes are there. */
static void pick_detected(struct session *s)
{
	for (size_t i = 0; i < s->sets.n && s->npicked < SESSION_MAX_SETS;
	     i++) {
		const struct probeset *ps = s->sets.sets[i];

		if (!ps->kernel && !is_picked(s, ps) && detected(s, ps))
			s->picked[s->npicked++] = ps;
	}
}

/* Pick the builtin kernel probesets (io, process) not picked yet. */
static void pick_kernel(struct session *s)
{
	for (size_t i = 0; i < s->sets.n && s->npicked < SESSION_MAX_SETS;
	     i++) {
		const struct probeset *ps = s->sets.sets[i];

		if (ps->kernel && !is_picked(s, ps))
			s->picked[s->npicked++] = ps;
	}
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
		else if (r == AGG_DROP_PY)
			n += snprintf(out + n, len - n,
				      "%s%llu without a Python frame to read",
				      sep, k);
		else
			n += snprintf(out + n, len - n,
				      "%s%llu nested over %d deep", sep, k,
				      PT_STACK_DEPTH);
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

/* Have the kernel watch the target for a kernel probeset. 0 or -1. */
static int attach_kernel_set(struct session *s, const struct probeset *ps)
{
	bool io = ps->kernel == PS_KERNEL_IO;
	int err;

	if (s->binary[0]) {
		cli_error("-P %s needs -p PID or a command, not -b", ps->name);
		return -1;
	}
	err = tracer_watch(s->tr, s->pid, io ? PT_WATCH_IO : PT_WATCH_PROC);
	if (err) {
		cli_error("-P %s: cannot watch %d: %s", ps->name, (int)s->pid,
			  strerror(-err));
		return -1;
	}
	if (io)
		s->io = true;
	else
		s->proc = true;
	return 0;
}

/* Whether the target can serve sp's keys: one that reads Python frames
 * only where the tracer can read them (tracer_py_readable()). */
static bool keys_served(const struct session *s, const struct spec *sp)
{
	for (int i = 0; i < sp->nkeys; i++)
		if (spec_key_is_py(&sp->keys[i]))
			return tracer_py_readable(s->tr);
	return true;
}

const struct ps_spec *session_pick_alt(const struct session *s,
				       const struct probeset *ps,
				       const struct ps_spec *r)
{
	for (; r; r = probeset_next_alt(ps, r))
		if (tracer_has_probe(s->tr, &r->spec.probe[0]) &&
		    keys_served(s, &r->spec))
			return r;
	return NULL;
}

/* Attach one picked probeset: its specs (optional ones only with
 * asked_by_target(); of alternatives, session_pick_alt()'s), or what the kernel
 * watches.
 * 0 or -1 (said). */
static int attach_set(struct session *s, const struct probeset *ps)
{
	if (ps->kernel)
		return attach_kernel_set(s, ps);
	for (int k = 0; k < ps->nspecs; k++) {
		const struct ps_spec *r = &ps->specs[k], *first = r;
		int id;

		if (r->alt)
			continue; /* chosen with the first of its name */
		if (probeset_next_alt(ps, r))
			r = session_pick_alt(s, ps, first = r);
		if (!r || (r->optional && !asked_by_target(s, r)))
			continue;
		if (r != first && !keys_served(s, &first->spec))
			log_msg(LOG_INFO,
				"-P %s: %s.%s is '%s': the first choice reads "
				"Python frames, which probetop reads in one "
				"process of a CPython 3.8-3.13 only",
				ps->name, ps->sections[r->section].name,
				r->name, r->spec.text);
		id = session_add(s, &r->spec, ps, r);
		if (id < 0) {
			cli_error("-P %s: '%s': cannot attach: %s", ps->name,
				  r->spec.text, strerror(-id));
			return -1;
		}
	}
	return 0;
}

static int attach_sets(struct session *s)
{
	for (int i = 0; i < s->npicked; i++)
		if (attach_set(s, s->picked[i]))
			return -1;
	return 0;
}

int session_rescan(struct session *s, int *new_sets,
		   const struct tracer_exec **exec)
{
	int n = tracer_rescan(s->tr), before = s->npicked;
	const struct tracer_exec *x = tracer_exec(s->tr);

	if (n >= 0 && s->detecting) {
		pick_detected(s);
		for (int i = before; i < s->npicked; i++)
			attach_set(s, s->picked[i]);
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
	if (pick_named(s, a))
		goto fail;
	ret = 1;
	if (open_target(s, a))
		goto fail;
	read_target_env(s, a);
	s->detecting = !a->nsets && !a->nspecs;
	if (s->detecting)
		pick_detected(s);
	if (a->with_kernel)
		pick_kernel(s);
	for (int i = 0; i < a->nspecs; i++) {
		int id = session_add(s, &specs[i], NULL, NULL), bad;

		if (id < 0) {
			cli_error("-e '%s': cannot attach: %s", specs[i].text,
				  strerror(-id));
			goto fail;
		}
		bad = check_attached(s, &specs[i], id, false);
		if (bad) {
			ret = bad;
			goto fail;
		}
	}
	if (attach_sets(s))
		goto fail;
	free(specs);
	return 0;
fail:
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
	default:
		return 1;
	}
}

int session_release(struct session *s)
{
	int err;

	if (s->launched && s->l.go_fd >= 0) {
		err = launch_release(&s->l);
		if (err) {
			cli_error("cannot run the command: %s", strerror(-err));
			s->l.pid = -1;
			return 1;
		}
	}
	return 0;
}

const struct ps_note *session_note(const struct session *s,
				   const char *provider, const char *name)
{
	for (size_t i = 0; i < s->sets.n; i++) {
		const struct ps_note *n =
			probeset_note(s->sets.sets[i], provider, name);

		if (n)
			return n;
	}
	return NULL;
}

const struct ps_note *session_unmet(const struct session *s,
				    const char *provider, const char *name)
{
	const struct ps_note *n = session_note(s, provider, name);

	return n && !target_meets(s, n) ? n : NULL;
}

/* The note on probe p worth a warning: unmet requirements, or for a
 * spec of the user's own (-e) a probe that may stay silent. */
static const struct ps_note *warn_note(const struct session *s, int id,
				       const struct spec_probe *p)
{
	const struct ps_note *n;

	if (p->fn)
		return NULL;
	n = session_note(s, p->provider, p->name);
	if (!n)
		return NULL;
	if (n->nrequires)
		return target_meets(s, n) ? NULL : n;
	return n->silent[0] && !s->specs[id].ps ? n : NULL;
}

void session_warn_unmet(const struct session *s)
{
	const struct ps_note *said[SESSION_MAX_SPECS];
	int nsaid = 0;

	for (int id = 0; id < tracer_nspecs(s->tr); id++) {
		const struct tracer_spec_info *info =
			tracer_spec_info(s->tr, id);

		for (int r = 0; info && r < info->spec->nprobes; r++) {
			const struct spec_probe *p = &info->spec->probe[r];
			const struct ps_note *n = warn_note(s, id, p);
			int k = 0;

			while (n && k < nsaid && said[k] != n)
				k++;
			if (!n || k < nsaid || nsaid == SESSION_MAX_SPECS)
				continue;
			said[nsaid++] = n;
			if (n->nrequires)
				cli_error("%s will not fire: process %d was "
					  "started without %s",
					  n->probe, (int)s->pid,
					  n->requires_shown);
			else
				cli_error("%s:%s may not fire: %s", p->provider,
					  p->name, n->silent);
		}
	}
}

void session_end_command(struct session *s)
{
	if (!s->launched || s->l.pid <= 0 || s->l.go_fd >= 0)
		return; /* not ours, gone, or never released */
	if (kill(s->l.pid, SIGTERM))
		return;
	kill(s->l.pid, SIGCONT); /* held at a dlopen or exec: let it end */
	for (int i = 0; i < 100; i++) { /* 1 s to finish, then SIGKILL */
		if (waitpid(s->l.pid, NULL, WNOHANG) == s->l.pid) {
			s->l.pid = -1;
			return;
		}
		usleep(10000);
	}
	kill(s->l.pid, SIGKILL);
	waitpid(s->l.pid, NULL, 0);
	s->l.pid = -1;
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

int session_add(struct session *s, const struct spec *spec,
		const struct probeset *ps, const struct ps_spec *role)
{
	int id = tracer_add(s->tr, spec), hid = -1;

	if (id < 0)
		return id;
	if (role && role->needs[0]) {
		struct spec need;
		char err[128];

		if (!spec_parse(role->needs, &need, err, sizeof(err)))
			hid = tracer_add(s->tr, &need);
		if (hid >= 0)
			tracer_keep_exact(s->tr, hid); /* its semaphore */
		if (hid >= 0)
			s->specs[hid] =
				(struct session_spec){ .used = true,
						       .ps = ps,
						       .helper = true,
						       .helper_id = -1 };
	}
	s->specs[id] = (struct session_spec){
		.used = true, .ps = ps, .role = role, .helper_id = hid
	};
	return id;
}

/* Name pid into buf[0..n) (session_pid_command()). */
static void name_pid(const struct session *s, uint32_t pid, char *buf, size_t n)
{
	char line[512];
	const char *slash, *sp;

	if ((proc_cmdline((pid_t)pid, line, sizeof(line)) || !line[0]) &&
	    tracer_pid_name(s->tr, pid, line, sizeof(line))) {
		snprintf(buf, n, "(exited)");
		return;
	}
	sp = strchr(line, ' ');
	slash = memrchr(line, '/', sp ? (size_t)(sp - line) : strlen(line));
	snprintf(buf, n, "%s", slash ? slash + 1 : line);
}

/* Room for one more in s->pidcmds; false when it is full. */
static bool pidcmd_room(struct session *s)
{
	size_t cap = s->cappidcmds ? 2 * s->cappidcmds : 16;
	struct model_pidcmd *v;

	if (s->npidcmds < s->cappidcmds)
		return true;
	if (s->npidcmds == SESSION_PIDCMDS)
		return false;
	v = realloc(s->pidcmds, cap * sizeof(*v));
	if (!v)
		return false;
	s->pidcmds = v;
	s->cappidcmds = cap;
	return true;
}

const char *session_pid_command(struct session *s, uint32_t pid)
{
	size_t at = model_pidcmd_at(s->pidcmds, s->npidcmds, pid);
	struct model_pidcmd *c;

	if (at < s->npidcmds && s->pidcmds[at].pid == pid)
		return s->pidcmds[at].cmd;
	if (!pidcmd_room(s)) {
		name_pid(s, pid, s->pidcmd_spare, sizeof(s->pidcmd_spare));
		return s->pidcmd_spare;
	}
	c = &s->pidcmds[at];
	memmove(c + 1, c, (s->npidcmds++ - at) * sizeof(*c));
	c->pid = pid;
	name_pid(s, pid, c->cmd, sizeof(c->cmd));
	return c->cmd;
}

int session_remove(struct session *s, int id)
{
	int err;

	if (id < 0 || id >= SESSION_MAX_SPECS || !s->specs[id].used)
		return -ENOENT;
	if (s->specs[id].helper_id >= 0)
		tracer_remove(s->tr, s->specs[id].helper_id);
	if (s->specs[id].helper_id >= 0)
		s->specs[s->specs[id].helper_id].used = false;
	err = tracer_remove(s->tr, id);
	s->specs[id].used = false;
	return err;
}

int session_role(const struct session *s, const char *section, const char *name)
{
	for (int id = 0; id < SESSION_MAX_SPECS; id++) {
		const struct session_spec *ss = &s->specs[id];

		if (ss->used && ss->role &&
		    !strcmp(ss->ps->sections[ss->role->section].name,
			    section) &&
		    !strcmp(ss->role->name, name))
			return id;
	}
	return -1;
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
