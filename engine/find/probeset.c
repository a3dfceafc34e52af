// SPDX-License-Identifier: MIT
/*
 * probeset — load runtime knowledge from INI files; see probeset.h.
 *
 * inih calls handle() once per key; the handler fills a struct probeset
 * and, on the first thing it cannot accept, keeps the reason and returns
 * 0, which makes inih report that line. Checks that need the whole file
 * (a name, something to attach) run after the parse.
 */
#include "probeset.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct load {
	struct probeset *ps;
	char why[256]; /* first error, without FILE:LINE */
};

static bool copy(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src);

	if (len >= n)
		return false;
	memcpy(dst, src, len + 1);
	return true;
}

/* Keep the first reason; returns 0, what inih takes as "this line is bad" */
static int __attribute__((format(printf, 2, 3)))
fail(struct load *ld, const char *fmt, ...)
{
	va_list ap;

	if (!ld->why[0]) {
		va_start(ap, fmt);
		vsnprintf(ld->why, sizeof(ld->why), fmt, ap);
		va_end(ap);
	}
	return 0;
}

static int find_section(struct probeset *ps, const char *name, bool create)
{
	for (int i = 0; i < ps->nsections; i++)
		if (!strcmp(ps->sections[i].name, name))
			return i;
	if (!create || ps->nsections == PS_MAX_SECTIONS ||
	    !copy(ps->sections[ps->nsections].name, PS_NAME_MAX, name))
		return -1;
	return ps->nsections++;
}

static struct ps_note *find_note(struct probeset *ps, const char *probe)
{
	for (int i = 0; i < ps->nnotes; i++)
		if (!strcmp(ps->notes[i].probe, probe))
			return &ps->notes[i];
	if (ps->nnotes == PS_MAX_NOTES)
		return NULL;
	if (!copy(ps->notes[ps->nnotes].probe, SPEC_NAME_MAX, probe))
		return NULL;
	return &ps->notes[ps->nnotes++];
}

/* "a, b, c" into up to max names of PS_NAME_MAX; -1 if too many/long */
static int split_list(const char *value, char (*out)[PS_NAME_MAX], int max)
{
	int n = 0;

	while (*value) {
		size_t len;

		while (*value == ' ' || *value == ',')
			value++;
		len = strcspn(value, ",");
		while (len && value[len - 1] == ' ')
			len--;
		if (!len)
			break;
		if (n == max || len >= PS_NAME_MAX)
			return -1;
		memcpy(out[n], value, len);
		out[n++][len] = '\0';
		value += len;
		while (*value && *value != ',')
			value++;
	}
	return n;
}

static int handle_header(struct load *ld, const char *name, const char *value)
{
	struct probeset *ps = ld->ps;
	char err[128];

	if (!strcmp(name, "name")) {
		if (!*value ||
		    strspn(value, "abcdefghijklmnopqrstuvwxyz"
				  "0123456789_-") != strlen(value) ||
		    !copy(ps->name, sizeof(ps->name), value))
			return fail(ld, "name '%s': use a-z, 0-9, _ or -",
				    value);
		return 1;
	}
	if (!strcmp(name, "title"))
		return copy(ps->title, sizeof(ps->title), value) ||
		       fail(ld, "title is too long");
	if (!strcmp(name, "kernel")) {
		for (enum ps_kernel k = PS_KERNEL_IO; k <= PS_KERNEL_PROCESS;
		     k++)
			if (!strcmp(value, probeset_kernel_name(k))) {
				ps->kernel = k;
				return 1;
			}
		return fail(ld, "kernel = '%s': use io or process", value);
	}
	if (strcmp(name, "detect"))
		return fail(ld, "unknown key '%s' in [probeset]", name);
	for (const char *p = value; *p;) {
		struct spec sp;
		size_t len;
		char one[SPEC_NAME_MAX];

		while (*p == ' ' || *p == ',')
			p++;
		len = strcspn(p, ", ");
		if (!len)
			break;
		if (ps->ndetect == PS_MAX_DETECT || len >= sizeof(one))
			return fail(ld, "detect: at most 4 probes");
		memcpy(one, p, len);
		one[len] = '\0';
		p += len;
		if (spec_parse(one, &sp, err, sizeof(err)) || sp.nprobes != 1 ||
		    sp.probe[0].hz || (sp.probe[0].fn && sp.probe[0].ret))
			return fail(ld,
				    "detect: '%s' is not a USDT probe or a "
				    "fn:SYMBOL",
				    one);
		ps->detect[ps->ndetect] = sp.probe[0];
		strcpy(ps->detect_text[ps->ndetect++], one);
	}
	return 1;
}

/* "env:NAME=VALUE, arg:ARG, ..." into note->requires and the text shown
 * to users (the alternatives without globs, joined by " or "). */
static int parse_requires(struct load *ld, struct ps_note *note,
			  const char *value)
{
	char(*req)[PS_NAME_MAX + 32] = note->requires;
	char *shown = note->requires_shown;

	note->nrequires = 0;
	shown[0] = '\0';
	while (*value) {
		size_t len, used;

		value += strspn(value, " ,");
		len = strcspn(value, ",");
		while (len && value[len - 1] == ' ')
			len--;
		if (!len)
			break;
		if (note->nrequires == PS_MAX_REQUIRES || len >= sizeof(req[0]))
			return fail(ld,
				    "requires: at most %d alternatives "
				    "of %zu characters",
				    PS_MAX_REQUIRES, sizeof(req[0]) - 1);
		if ((strncmp(value, "env:", 4) && strncmp(value, "arg:", 4)) ||
		    len == 4)
			return fail(ld,
				    "requires: expected env:NAME=VALUE or "
				    "arg:ARGUMENT, got '%.*s'",
				    (int)len, value);
		memcpy(req[note->nrequires], value, len);
		req[note->nrequires][len] = '\0';
		used = strlen(shown);
		if (!strpbrk(req[note->nrequires], "*?["))
			snprintf(shown + used, PS_TEXT_MAX - used, "%s%s",
				 used ? " or " : "", req[note->nrequires] + 4);
		note->nrequires++;
		value += len;
	}
	return note->nrequires ? 1 : fail(ld, "requires: empty");
}

static int handle_note(struct load *ld, const char *probe, const char *name,
		       const char *value)
{
	struct ps_note *note = find_note(ld->ps, probe);
	char *field;

	if (!note)
		return fail(ld, "[probe %s]: too many or too long", probe);
	if (!strcmp(name, "silent"))
		field = note->silent;
	else if (!strcmp(name, "cost"))
		field = note->cost;
	else if (!strcmp(name, "unsafe"))
		field = note->unsafe;
	else if (!strcmp(name, "requires"))
		return parse_requires(ld, note, value);
	else
		return fail(ld,
			    "unknown key '%s' in [probe]; "
			    "use silent, cost, unsafe or requires",
			    name);
	return copy(field, PS_TEXT_MAX, value) ||
	       fail(ld, "%s: text longer than 199 characters", name);
}

/* The first spec called name in section at or after ps->specs[from]
 * (a name given more than once lists alternatives), or NULL. */
static struct ps_spec *section_spec(struct probeset *ps, const char *section,
				    const char *name, int from)
{
	for (int k = from; k < ps->nspecs; k++)
		if (!strcmp(ps->sections[ps->specs[k].section].name, section) &&
		    !strcmp(ps->specs[k].name, name))
			return &ps->specs[k];
	return NULL;
}

/* [frames] named_by = or unnamed = (name) into ld->ps; 1 or fail(). */
static int frames_naming(struct load *ld, const char *section, const char *name,
			 const char *value)
{
	if (strcmp(section, "frames"))
		return fail(ld, "%s: only in [frames]", name);
	if (!strcmp(name, "unnamed"))
		return copy(ld->ps->unnamed, PS_TEXT_MAX, value) ||
		       fail(ld, "unnamed: at most %d characters",
			    PS_TEXT_MAX - 1);
	return parse_requires(ld, &ld->ps->named_by, value);
}

static int handle_role(struct load *ld, const char *section, const char *name,
		       const char *value)
{
	struct probeset *ps = ld->ps;
	int sec = find_section(ps, section, true);
	struct ps_spec *s;
	char err[200];

	if (sec < 0)
		return fail(ld, "[%s]: too many sections (at most 12)",
			    section);
	if (!strcmp(name, "labels")) {
		int n = split_list(value, ps->sections[sec].labels,
				   PS_MAX_LABELS);

		if (n < 0)
			return fail(ld, "labels: at most 4, of up to 31 "
					"characters");
		ps->sections[sec].nlabels = n;
		return 1;
	}
	if (!strcmp(name, "title"))
		return copy(ps->sections[sec].title, PS_NAME_MAX, value) ||
		       fail(ld, "title: at most 31 characters");
	if (!strcmp(name, "empty"))
		return copy(ps->sections[sec].empty, PS_TEXT_MAX, value) ||
		       fail(ld, "empty: at most %d characters",
			    PS_TEXT_MAX - 1);
	if (!strcmp(name, "named_by") || !strcmp(name, "unnamed"))
		return frames_naming(ld, section, name, value);
	if (!strcmp(name, "optional") || !strncmp(name, "needs.", 6))
		return 1; /* second_pass(), once every spec is known */
	if (ps->nspecs == PS_MAX_SPECS)
		return fail(ld, "too many specs (at most 24)");
	s = &ps->specs[ps->nspecs];
	if (!copy(s->name, sizeof(s->name), name))
		return fail(ld, "key '%s' is too long", name);
	if (spec_parse(value, &s->spec, err, sizeof(err)))
		return fail(ld, "%s: %s", name, err);
	s->section = sec;
	s->alt = section_spec(ps, section, name, 0) != NULL;
	ps->nspecs++;
	return 1;
}

static int handle(void *user, const char *section, const char *name,
		  const char *value)
{
	struct load *ld = user;

	if (ld->why[0])
		return 0;
	if (!strcmp(section, "probeset"))
		return handle_header(ld, name, value);
	if (!strncmp(section, "probe ", 6))
		return handle_note(ld, section + 6, name, value);
	if (!*section)
		return fail(ld, "'%s' before any [section]", name);
	return handle_role(ld, section, name, value);
}

/*
 * optional = a, b and needs.NAME = PROBE refer to specs by name: a second
 * pass, since inih hands keys over in file order.
 */
static int second_pass(void *user, const char *section, const char *name,
		       const char *value)
{
	struct load *ld = user;
	struct probeset *ps = ld->ps;
	char names[PS_MAX_SPECS][PS_NAME_MAX];
	struct ps_spec *s;
	int n;

	if (!strcmp(section, "probeset") || !strncmp(section, "probe ", 6))
		return 1;
	if (!strncmp(name, "needs.", 6)) {
		s = section_spec(ps, section, name + 6, 0);
		if (!s)
			return fail(ld, "%s: no spec '%s' in this section",
				    name, name + 6);
		for (; s; s = section_spec(ps, section, name + 6,
					   (int)(s - ps->specs) + 1))
			if (!copy(s->needs, sizeof(s->needs), value))
				return fail(ld, "%s: too long", name);
		return 1;
	}
	if (strcmp(name, "optional"))
		return 1;
	n = split_list(value, names, PS_MAX_SPECS);
	for (int i = 0; i < n; i++) {
		s = section_spec(ps, section, names[i], 0);
		if (!s)
			return fail(ld,
				    "optional: no spec '%s' in this section",
				    names[i]);
		for (; s; s = section_spec(ps, section, names[i],
					   (int)(s - ps->specs) + 1))
			s->optional = true;
	}
	return 1;
}

int probeset_parse(const char *name, const char *text, struct probeset *out,
		   char *err, size_t n)
{
	struct load ld = { .ps = out };
	int line;

	memset(out, 0, sizeof(*out));
	if (!copy(out->path, sizeof(out->path), name)) {
		snprintf(err, n, "%s: path too long", name);
		return -ENAMETOOLONG;
	}
	line = ini_parse_string(text, handle, &ld);
	if (!line)
		line = ini_parse_string(text, second_pass, &ld);
	if (line) {
		snprintf(err, n, "%s:%d: %s", name, line,
			 ld.why[0] ? ld.why : "not KEY = VALUE or [SECTION]");
		return -EINVAL;
	}
	if (!out->name[0])
		snprintf(ld.why, sizeof(ld.why), "no name in [probeset]");
	else if (!out->ndetect && !out->kernel)
		snprintf(ld.why, sizeof(ld.why),
			 "no detect in [probeset] (or kernel = io/process)");
	else if (!out->nspecs && !out->kernel)
		snprintf(ld.why, sizeof(ld.why), "no spec in any section");
	if (ld.why[0]) {
		snprintf(err, n, "%s: %s", name, ld.why);
		return -EINVAL;
	}
	if (!out->title[0])
		copy(out->title, sizeof(out->title), out->name);
	return 0;
}

int probeset_load_file(const char *path, struct probeset *out, char *err,
		       size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "re");
	int ret;

	if (f) {
		text = malloc(PS_FILE_MAX + 1);
		len = text ? fread(text, 1, PS_FILE_MAX + 1, f) : 0;
	}
	if (!f || !text || ferror(f)) {
		ret = f && text ? -EIO : -errno;
		snprintf(err, n, "%s: cannot read: %s", path, strerror(-ret));
	} else if (len > PS_FILE_MAX || memchr(text, '\0', len)) {
		ret = -EINVAL;
		snprintf(err, n, "%s: not a probeset (binary, or over 64 KiB)",
			 path);
	} else {
		text[len] = '\0';
		ret = probeset_parse(path, text, out, err, n);
	}
	if (f)
		fclose(f);
	free(text);
	return ret;
}

/* Insert ps by name; a later set with the same name replaces the earlier. */
static int list_put(struct ps_list *list, struct probeset *ps)
{
	struct probeset **v;
	size_t i = 0;

	while (i < list->n && strcmp(list->sets[i]->name, ps->name) < 0)
		i++;
	if (i < list->n && !strcmp(list->sets[i]->name, ps->name)) {
		free(list->sets[i]);
		list->sets[i] = ps;
		return 0;
	}
	v = realloc(list->sets, (list->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memmove(v + i + 1, v + i, (list->n - i) * sizeof(*v));
	v[i] = ps;
	list->sets = v;
	list->n++;
	return 0;
}

static int ends_with_ini(const char *name)
{
	size_t len = strlen(name);

	return len > 4 && !strcmp(name + len - 4, ".ini");
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int filter_ini(const struct dirent *d)
{
	return d->d_name[0] != '.' && ends_with_ini(d->d_name);
}

static int load_dir(const char *dir, bool user, struct ps_list *list,
		    ps_error_fn on_error, void *ctx)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, filter_ini, by_name), ret = 0;

	for (int i = 0; i < n; i++) {
		struct probeset *ps = malloc(sizeof(*ps));
		char path[4096], err[600];

		if (!ps) {
			ret = -ENOMEM;
		} else if (snprintf(path, sizeof(path), "%s/%s", dir,
				    ents[i]->d_name) >= (int)sizeof(path) ||
			   probeset_load_file(path, ps, err, sizeof(err))) {
			if (on_error)
				on_error(err, ctx);
			free(ps);
		} else {
			ps->user = user;
			if (list_put(list, ps)) {
				free(ps);
				ret = -ENOMEM;
			}
		}
		free(ents[i]);
	}
	free(ents);
	return ret;
}

const char *probeset_kernel_name(enum ps_kernel k)
{
	return k == PS_KERNEL_IO	? "io"
	       : k == PS_KERNEL_PROCESS ? "process"
					: NULL;
}

const char *probeset_builtin_dir(void)
{
	struct stat st;

	if (!stat(PROBETOP_PROBESET_DIR, &st) && S_ISDIR(st.st_mode))
		return PROBETOP_PROBESET_DIR;
	return PROBETOP_SOURCE_PROBESET_DIR;
}

int probesets_load(const char *builtin_dir, const char *user_dir,
		   struct ps_list *out, ps_error_fn on_error, void *ctx)
{
	char dflt[4096];
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int err;

	*out = (struct ps_list){ 0 };
	err = load_dir(builtin_dir ? builtin_dir : probeset_builtin_dir(),
		       false, out, on_error, ctx);
	if (!err && !user_dir) {
		if (xdg && *xdg)
			snprintf(dflt, sizeof(dflt), "%s/probetop/probesets",
				 xdg);
		else
			snprintf(dflt, sizeof(dflt),
				 "%s/.config/probetop/probesets",
				 home ? home : "");
		user_dir = dflt;
	}
	if (!err)
		err = load_dir(user_dir, true, out, on_error, ctx);
	if (err)
		probesets_free(out);
	return err;
}

void probesets_free(struct ps_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->sets[i]);
	free(list->sets);
	*list = (struct ps_list){ 0 };
}

const struct probeset *probesets_find(const struct ps_list *list,
				      const char *name)
{
	for (size_t i = 0; i < list->n; i++)
		if (!strcmp(list->sets[i]->name, name))
			return list->sets[i];
	return NULL;
}

int probeset_section(const struct probeset *ps, const char *name)
{
	for (int i = 0; i < ps->nsections; i++)
		if (!strcmp(ps->sections[i].name, name))
			return i;
	return -1;
}

const struct ps_spec *probeset_next_alt(const struct probeset *ps,
					const struct ps_spec *r)
{
	for (const struct ps_spec *n = r + 1; n < ps->specs + ps->nspecs; n++)
		if (n->section == r->section && !strcmp(n->name, r->name))
			return n;
	return NULL;
}

const struct ps_spec *probeset_spec(const struct probeset *ps,
				    const char *section, const char *name)
{
	int sec = probeset_section(ps, section);

	for (int i = 0; sec >= 0 && i < ps->nspecs; i++)
		if (ps->specs[i].section == sec &&
		    !strcmp(ps->specs[i].name, name))
			return &ps->specs[i];
	return NULL;
}

const struct ps_note *probeset_note(const struct probeset *ps,
				    const char *provider, const char *name)
{
	char full[2 * SPEC_NAME_MAX + 2];

	snprintf(full, sizeof(full), "%s:%s", provider, name);
	for (int i = 0; i < ps->nnotes; i++)
		if (!fnmatch(ps->notes[i].probe, full, 0))
			return &ps->notes[i];
	return NULL;
}

/* Whether one of the NUL-separated strings of v matches glob. */
static bool any_matches(const char *glob, const char *v, size_t len)
{
	for (size_t i = 0; i < len; i += strnlen(v + i, len - i) + 1)
		if (!fnmatch(glob, v + i, 0))
			return true;
	return false;
}

bool probeset_note_met(const struct ps_note *n, const char *env, size_t envlen,
		       const char *argv, size_t argvlen)
{
	for (int i = 0; i < n->nrequires; i++) {
		const char *r = n->requires[i];

		if (!strncmp(r, "env:", 4) ? any_matches(r + 4, env, envlen)
					   : any_matches(r + 4, argv, argvlen))
			return true;
	}
	return n->nrequires == 0;
}
