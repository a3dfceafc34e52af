// SPDX-License-Identifier: MIT
/*
 * session_probesets — the probesets a session picks and the specs it
 * attaches: -P's names, those detected in the target (also later, as
 * libraries appear), the kernel's io and process; each one's specs (of
 * alternatives the first the target can serve; an optional one where the
 * target was started to serve it); where each attached spec came from
 * (session_add(), session_remove(), session_role()); and the probesets'
 * notes on probes that will not fire. Called by session.c (and through
 * session.h by trace and the console); calls session_target.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "log.h"
#include "session.h"
#include "session_impl.h"

/* An optional spec that the target was started to serve: its probe has
 * requires (a flag, an env var), and the target meets them. */
static bool asked_by_target(const struct session *s, const struct ps_spec *r)
{
	const struct ps_note *n = session_note(s, r->spec.probe[0].provider,
					       r->spec.probe[0].name);

	return s->env && n && n->nrequires && session_target_meets(s, n);
}

static bool detected(const struct session *s, const struct probeset *ps)
{
	for (int d = 0; d < ps->ndetect; d++)
		if (tracer_has_probe(s->tr, &ps->detect[d]))
			return true;
	return false;
}

/* -P names (checked before the target is opened), or what is detected. */
int session_pick_named(struct session *s, const struct session_args *a)
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
void session_pick_detected(struct session *s)
{
	s->detected_gen = tracer_objects_gen(s->tr);
	for (size_t i = 0; i < s->sets.n && s->npicked < SESSION_MAX_SETS;
	     i++) {
		const struct probeset *ps = s->sets.sets[i];

		if (!ps->kernel && !is_picked(s, ps) && detected(s, ps))
			s->picked[s->npicked++] = ps;
	}
}

/* Pick the builtin kernel probesets (io, process) not picked yet; the
 * IO watch picked here is the default's (io_default). */
void session_pick_kernel(struct session *s)
{
	for (size_t i = 0; i < s->sets.n && s->npicked < SESSION_MAX_SETS;
	     i++) {
		const struct probeset *ps = s->sets.sets[i];

		if (!ps->kernel || is_picked(s, ps))
			continue;
		s->picked[s->npicked++] = ps;
		if (ps->kernel == PS_KERNEL_IO)
			s->io_default = true;
	}
}

bool session_budget_io(struct session *s, const struct agg_overhead *o,
		       double pct)
{
	if (!s->io || !s->io_default || pct < 0 || o->kernel_pct <= pct)
		return false;
	tracer_unwatch_io(s->tr);
	s->io = false;
	s->io_off = true;
	s->io_off_pct = o->kernel_pct;
	s->io_off_syscall_ns = o->syscall_ns;
	return true;
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
		else if (spec_key_is_php(&sp->keys[i]))
			return tracer_php_readable(s->tr);
		else if (spec_key_is_rb(&sp->keys[i]))
			return tracer_rb_readable(s->tr);
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
void session_progress(const struct session *s, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	if (!s->opening || !s->opening->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	s->opening->progress(s->opening->progress_ctx, what);
}

int session_attach_set(struct session *s, const struct probeset *ps)
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
				"process of a CPython 3.8-3.14 only",
				ps->name, ps->sections[r->section].name,
				r->name, r->spec.text);
		session_progress(s, "attaching -P %s: %d of %d", ps->name,
				 k + 1, ps->nspecs);
		id = session_add(s, &r->spec, ps, r);
		if (id < 0) {
			cli_error("-P %s: '%s': cannot attach: %s", ps->name,
				  r->spec.text, session_strerror(id));
			return -1;
		}
	}
	return 0;
}

int session_attach_sets(struct session *s)
{
	for (int i = 0; i < s->npicked; i++)
		if (session_attach_set(s, s->picked[i]))
			return -1;
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

	return n && !session_target_meets(s, n) ? n : NULL;
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
		return session_target_meets(s, n) ? NULL : n;
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

/* Whether a key of sp reads one process's interpreter: CPython's (the
 * Python keys, mixstack), PHP's or Ruby's frames, which -b has not. */
static bool reads_one_interp(const struct spec *sp)
{
	for (int i = 0; i < sp->nkeys; i++)
		if (spec_key_is_py(&sp->keys[i]) ||
		    spec_key_is_php(&sp->keys[i]) ||
		    spec_key_is_rb(&sp->keys[i]))
			return true;
	return false;
}

/* Whether role of ps is the probeset's primary one: its frames, whose
 * rows Top shows. */
static bool is_primary(const struct probeset *ps, const struct ps_spec *role)
{
	return role && !strcmp(ps->sections[role->section].name, "frames");
}

void session_prefer(struct session *s, const int *ids, size_t n)
{
	for (int id = 0; id < tracer_nspecs(s->tr); id++) {
		const struct session_spec *ss = &s->specs[id];
		bool on = ss->used && is_primary(ss->ps, ss->role);

		for (size_t i = 0; i < n && !on; i++)
			on = ids[i] == id;
		tracer_prefer(s->tr, id, on);
	}
}

int session_add(struct session *s, const struct spec *spec,
		const struct probeset *ps, const struct ps_spec *role)
{
	int id, hid = -1;

	if (spec->probe[0].hz > 0 && s->binary[0])
		return -EDOM;
	if (reads_one_interp(spec) && s->binary[0])
		return -EXDEV;
	id = tracer_add(s->tr, spec);
	if (id < 0)
		return id;
	if (is_primary(ps, role))
		tracer_prefer(s->tr, id,
			      true); /* Top's rows: the budget's first */
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

bool session_frames_named(const struct session *s, const struct probeset *ps)
{
	return !ps->named_by.nrequires ||
	       session_target_meets(s, &ps->named_by) ||
	       tracer_jit_named(s->tr);
}

const char *session_strerror(int err)
{
	if (err == -EDOM)
		return "profile:HZ samples one process: give -p PID or a "
		       "command, not -b";
	if (err == -EXDEV)
		return "pyframe, pystack, mixstack, phpframe, phpstack, "
		       "rbframe, rbline and rbstack read one process's "
		       "interpreter: "
		       "give -p PID or a command, not -b";
	return strerror(-err);
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
