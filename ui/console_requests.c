// SPDX-License-Identifier: MIT
/*
 * console_requests — the views' requests carried out through the
 * session: show a view (or go back), prompt, attach, detach or replace a
 * spec, add a probeset's role, switch a probe off and on again as it was
 * (the parked specs), select a row, open Stacks on a function; the model
 * is refreshed after those that change it. On a recording (c->src) what
 * would change the tracing is refused with a message. Called by console.c (the
 * views' ticks, the picker's prompt) and console_keys.c; calls
 * console_screen.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conmodel.h"
#include "console_impl.h"
#include "log.h"
#include "session.h"
#include "spec.h"
#include "tracer.h"

static void add_spec(struct console *c, const char *text,
		     const struct probeset *ps, const struct ps_spec *role)
{
	struct spec sp;
	char err[256], what[700], hint[700];
	int id;

	if (spec_parse(text, &sp, err, sizeof(err))) {
		console_say(c, "'%s': %s", text, err);
		return;
	}
	id = session_add(&c->s, &sp, ps, role);
	if (id < 0) {
		console_say(c, "cannot attach '%s': %s", text,
			    session_strerror(id));
		return;
	}
	session_waiting(tracer_spec_info(c->s.tr, id), what, sizeof(what));
	if (!what[0]) {
		console_say(c, "on: %s", text);
		return;
	}
	session_hint(&c->s, &sp, hint, sizeof(hint));
	console_say(c, "'%s': waiting, %s yet%s", text, what, hint);
}

static void add_role(struct console *c, const char *role)
{
	char section[PS_NAME_MAX];
	const char *dot = strchr(role, '.');

	if (!dot || (size_t)(dot - role) >= sizeof(section))
		return;
	snprintf(section, sizeof(section), "%.*s", (int)(dot - role), role);
	for (int i = 0; i < c->s.npicked; i++) {
		const struct ps_spec *r = session_pick_alt(
			&c->s, c->s.picked[i],
			probeset_spec(c->s.picked[i], section, dot + 1));

		if (r && session_role(&c->s, section, dot + 1) < 0) {
			add_spec(c, r->spec.text, c->s.picked[i], r);
			return;
		}
	}
}

static void replace_spec(struct console *c, int id, const char *text)
{
	const struct probeset *ps = c->s.specs[id].ps;
	const struct ps_spec *role = c->s.specs[id].role;
	struct spec sp;
	char err[256];

	if (spec_parse(text, &sp, err, sizeof(err))) {
		console_say(c, "'%s': %s", text, err);
		return;
	}
	session_remove(&c->s, id);
	add_spec(c, text, ps, role);
}

static void probe_name(const struct model_probe *p, char *buf, size_t n)
{
	snprintf(buf, n, "%s:%s:%s", p->object, p->provider, p->name);
}

/* Keep spec id under probe p in group; false when out of memory. */
static bool park(struct console *c, const struct model_probe *p, int id,
		 unsigned int group)
{
	struct parked *k;

	if (c->nparked == c->parked_cap) {
		size_t cap = c->parked_cap ? 2 * c->parked_cap : 16;
		struct parked *v = realloc(c->parked, cap * sizeof(*v));

		if (!v)
			return false;
		c->parked = v;
		c->parked_cap = cap;
	}
	k = &c->parked[c->nparked++];
	probe_name(p, k->probe, sizeof(k->probe));
	snprintf(k->text, sizeof(k->text), "%s",
		 tracer_spec_info(c->s.tr, id)->spec->text);
	k->ps = c->s.specs[id].ps;
	k->role = c->s.specs[id].role;
	k->group = group;
	return true;
}

/* Park spec id under p and every other probe it attaches, as one group;
 * false when out of memory. */
static bool park_spec(struct console *c, const struct model_probe *p, int id)
{
	unsigned int group = ++c->park_groups;

	if (!park(c, p, id, group))
		return false;
	for (size_t i = 0; i < c->m.nprobes; i++) {
		const struct model_probe *o = &c->m.probes[i];

		if (o != p && conmodel_spec_covers(&c->s, id, o) &&
		    !park(c, o, id, group))
			return false;
	}
	return true;
}

/* The number of probes other than p that one of the n specs ids attaches
 * (each counted once, however many of the specs cover it). */
static int others_covered(const struct console *c, const struct model_probe *p,
			  const int *ids, int n)
{
	int others = 0;

	for (size_t i = 0; i < c->m.nprobes; i++) {
		const struct model_probe *o = &c->m.probes[i];

		for (int j = 0; o != p && j < n; j++) {
			if (conmodel_spec_covers(&c->s, ids[j], o)) {
				others++;
				break;
			}
		}
	}
	return others;
}

/* Switch probe p off: detach every spec on it, keeping each in parked. */
static void probe_off(struct console *c, const struct model_probe *p)
{
	int ids[SESSION_MAX_SPECS];
	int n = conmodel_probe_specs(&c->s, p, ids, SESSION_MAX_SPECS);
	int others = others_covered(c, p, ids, n);

	for (int i = 0; i < n; i++) {
		if (!tracer_spec_info(c->s.tr, ids[i]))
			continue; /* went with a spec it was a helper of */
		if (!park_spec(c, p, ids[i])) {
			console_say(c, "out of memory");
			return;
		}
		session_remove(&c->s, ids[i]);
	}
	if (others)
		console_say(c,
			    "off: %s:%s and %d other probe%s the same spec%s "
			    "attached "
			    "(Space on any brings %s back)",
			    p->provider, p->name, others,
			    others == 1 ? "" : "s", n == 1 ? "" : "s",
			    n == 1 ? "it" : "them");
	else
		console_say(c, "off: %s:%s (%d spec%s; Space brings %s back)",
			    p->provider, p->name, n, n == 1 ? "" : "s",
			    n == 1 ? "it" : "them");
}

/* Drop every parked entry of group. */
static void unpark_group(struct console *c, unsigned int group)
{
	for (size_t i = 0; i < c->nparked;) {
		if (c->parked[i].group == group)
			c->parked[i] = c->parked[--c->nparked];
		else
			i++;
	}
}

/* Switch probe p on: what probe_off() kept of it, else a count. */
static void probe_on(struct console *c, const struct model_probe *p)
{
	char name[SPEC_TEXT_MAX], text[SPEC_TEXT_MAX + 16];
	bool any = false;

	probe_name(p, name, sizeof(name));
	for (size_t i = 0; i < c->nparked;) {
		struct parked k = c->parked[i];

		if (strcmp(k.probe, name)) {
			i++;
			continue;
		}
		unpark_group(c, k.group);
		add_spec(c, k.text, k.ps, k.role);
		any = true;
		i = 0; /* entries moved */
	}
	if (!any) {
		snprintf(text, sizeof(text), "%s=count()", name);
		add_spec(c, text, NULL, NULL);
	}
}

/* The model from the engine; a new reason for Top's missing frames goes
 * to Messages too. */
void console_refresh_model(struct console *c)
{
	if (c->src)
		c->src->update(c);
	else
		conmodel_update(c->cm, &c->s, c->m.snap, &c->m);
	if (strcmp(c->said_why, c->m.frames_why)) {
		snprintf(c->said_why, sizeof(c->said_why), "%s",
			 c->m.frames_why);
		if (c->said_why[0])
			log_msg(LOG_INFO, "Top: %s", c->said_why);
	}
}

/* Whether r would change what is traced: not on a recording. */
static bool changes_tracing(enum request_kind k)
{
	return k == REQ_ADD || k == REQ_REMOVE || k == REQ_REPLACE ||
	       k == REQ_PROBE_OFF || k == REQ_PROBE_ON || k == REQ_ROLE;
}

void console_carry_out(struct console *c, const struct request *r)
{
	if (c->src && changes_tracing(r->kind)) {
		console_say(c, "a recording: its probes are as they were "
			       "recorded");
		return;
	}
	switch (r->kind) {
	case REQ_VIEW:
		c->prev = c->cur;
		c->cur = console_view_index(c, r->view);
		console_prefer_shown(c);
		break;
	case REQ_BACK:
		c->cur = c->prev;
		console_prefer_shown(c);
		break;
	case REQ_PROMPT:
		c->prompting = true;
		snprintf(c->prompt, sizeof(c->prompt), "%.31s", r->text);
		c->answer[0] = '\0';
		break;
	case REQ_ADD:
		add_spec(c, r->text, NULL, NULL);
		break;
	case REQ_REMOVE:
		session_remove(&c->s, r->id);
		console_say(c, "off: spec %d", r->id);
		break;
	case REQ_REPLACE:
		replace_spec(c, r->id, r->text);
		break;
	case REQ_PROBE_OFF:
	case REQ_PROBE_ON:
		if (r->id < 0 || (size_t)r->id >= c->m.nprobes)
			return;
		if (r->kind == REQ_PROBE_OFF)
			probe_off(c, &c->m.probes[r->id]);
		else
			probe_on(c, &c->m.probes[r->id]);
		break;
	case REQ_ROLE:
		add_role(c, r->text);
		break;
	case REQ_STACKS:
		snprintf(c->m.stack_goto, sizeof(c->m.stack_goto), "%s",
			 r->text);
		c->m.stack_goto_seq++;
		c->prev = c->cur;
		c->cur = console_view_index(c, "stacks");
		console_prefer_shown(c);
		return;
	case REQ_SAY:
		console_say(c, "%s", r->text);
		return;
	case REQ_SELECT:
		c->m.sel_spec = r->id;
		snprintf(c->m.sel_key, sizeof(c->m.sel_key), "%s", r->text);
		console_prefer_shown(c);
		return;
	case REQ_QUIT:
		c->quit = true;
		return;
	default:
		return;
	}
	console_refresh_model(c);
}
