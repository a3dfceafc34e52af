// SPDX-License-Identifier: MIT
/*
 * cmd_list — `probetop list`: the probes (or function symbols) of a
 * process or of one ELF file, as aligned text or as JSON.
 *
 * Text is one probe per line, PROVIDER NAME OBJECT ADDRESS SEMAPHORE ARGS,
 * columns aligned, ARGS last because it holds blanks. A probe with several
 * locations prints its first address followed by "(N)"; -v adds a line per
 * location with its file offsets and decoded arguments. JSON carries every
 * location always. Names, paths and argument specs come from the target's
 * files: both print them inert (engine/name/inert.h).
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "cmd.h"
#include "inert.h"
#include "proc.h"
#include "spec.h"

#define NCOLS 6

struct list_opts {
	pid_t pid;
	const char *binary;
	const char *pattern;
	bool json;
	bool verbose;
	bool functions;
};

/* Text rows (inert), kept until every column width is known. */
struct table {
	char *(*cells)[NCOLS];
	const struct cat_probe **probes; /* for -v details, or NULL */
	size_t n, cap;
	int width[NCOLS];
};

/* Whether PATTERN (NULL: any; its DTrace '-' already rewritten, see
 * list_probes()) matches provider:name, or, without a ':', the name or
 * the provider. */
static bool pattern_match(const char *pattern, const char *provider,
			  const char *name)
{
	char full[512];

	if (!pattern)
		return true;
	snprintf(full, sizeof(full), "%s:%s", provider, name);
	if (!fnmatch(pattern, full, 0))
		return true;
	return !strchr(pattern, ':') &&
	       (!fnmatch(pattern, name, 0) || !fnmatch(pattern, provider, 0));
}

static int table_add(struct table *t, char *cells[NCOLS],
		     const struct cat_probe *probe)
{
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 128;
		void *c = realloc(t->cells, ncap * sizeof(*t->cells));
		void *p;

		if (!c)
			return -ENOMEM;
		t->cells = c;
		p = realloc(t->probes, ncap * sizeof(*t->probes));
		if (!p)
			return -ENOMEM;
		t->probes = p;
		t->cap = ncap;
	}
	for (int i = 0; i < NCOLS; i++) {
		char shown[4096];
		int len;

		t->cells[t->n][i] =
			cells[i] ? strdup(inert_str(shown, sizeof(shown),
						    cells[i]))
				 : NULL;
		if (cells[i] && !t->cells[t->n][i])
			return -ENOMEM;
		len = t->cells[t->n][i] ? (int)strlen(t->cells[t->n][i]) : 0;
		if (len > t->width[i])
			t->width[i] = len;
	}
	t->probes[t->n++] = probe;
	return 0;
}

static void table_free(struct table *t)
{
	for (size_t r = 0; r < t->n; r++)
		for (int i = 0; i < NCOLS; i++)
			free(t->cells[r][i]);
	free(t->cells);
	free(t->probes);
}

static void print_locations(const struct cat_probe *p)
{
	char desc[160], shown[1024];

	for (size_t l = 0; l < p->nlocs; l++) {
		const struct cat_loc *loc = &p->locs[l];

		printf("    location %zu: address %#" PRIx64
		       ", file offset %#" PRIx64,
		       l + 1, loc->addr, loc->offset);
		if (loc->sem_addr)
			printf(", semaphore %#" PRIx64 " (file offset %#" PRIx64
			       ", %s)",
			       loc->sem_addr, loc->sem_offset,
			       loc->sem_tested ? "tested by the code"
					       : "no code tests it");
		putchar('\n');
		if (loc->nargs < 0)
			printf("      more than %d arguments: %s\n",
			       USDT_MAX_ARGS,
			       inert_str(shown, sizeof(shown), loc->args));
		for (int a = 0; a < loc->nargs; a++) {
			const struct usdt_arg *arg = &loc->argv[a];

			inert_str(shown, sizeof(shown),
				  usdtarg_describe(arg, desc, sizeof(desc)));
			if (arg->kind == USDT_ARG_SYM && arg->sym_addr)
				printf("      arg%d  %-40s  @%#" PRIx64 "\n", a,
				       shown, arg->sym_addr + arg->disp);
			else
				printf("      arg%d  %s\n", a, shown);
		}
	}
}

static void table_print(const struct table *t)
{
	for (size_t r = 0; r < t->n; r++) {
		char **cells = t->cells[r];
		int last = NCOLS - 1;

		while (last > 0 && (!cells[last] || !*cells[last]))
			last--;
		for (int i = 0; i < last; i++)
			printf("%-*s  ", t->width[i], cells[i] ? cells[i] : "");
		printf("%s\n", cells[last]);
		if (t->probes[r])
			print_locations(t->probes[r]);
	}
}

static const char *arg_kind_name(enum usdt_arg_kind kind)
{
	switch (kind) {
	case USDT_ARG_CONST:
		return "const";
	case USDT_ARG_REG:
		return "reg";
	case USDT_ARG_MEM:
		return "mem";
	case USDT_ARG_SYM:
		return "sym";
	default:
		return "raw";
	}
}

static json_object *json_hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%#" PRIx64, v);
	return json_object_new_string(buf);
}

static json_object *json_location(const struct cat_loc *loc)
{
	json_object *o = json_object_new_object();
	json_object *argv = json_object_new_array();
	char desc[160];

	json_object_object_add(o, "address", json_hex(loc->addr));
	json_object_object_add(o, "offset", json_hex(loc->offset));
	json_object_object_add(o, "semaphore_offset",
			       loc->sem_addr ? json_hex(loc->sem_offset)
					     : NULL);
	json_object_object_add(
		o, "semaphore_tested",
		loc->sem_addr ? json_object_new_boolean(loc->sem_tested)
			      : NULL);
	json_object_object_add(o, "args", cli_json_inert(loc->args));
	for (int a = 0; a < loc->nargs; a++) {
		const struct usdt_arg *arg = &loc->argv[a];
		json_object *ja = json_object_new_object();

		json_object_object_add(
			ja, "kind",
			json_object_new_string(arg_kind_name(arg->kind)));
		json_object_object_add(ja, "size",
				       json_object_new_int(arg->size));
		json_object_object_add(ja, "signed",
				       json_object_new_boolean(arg->is_signed));
		json_object_object_add(ja, "desc",
				       cli_json_inert(usdtarg_describe(
					       arg, desc, sizeof(desc))));
		json_object_array_add(argv, ja);
	}
	json_object_object_add(o, "decoded", argv);
	return o;
}

static json_object *json_probe(const struct cat_object *obj,
			       const struct cat_probe *p)
{
	json_object *o = json_object_new_object();
	json_object *locs = json_object_new_array();

	json_object_object_add(o, "provider", cli_json_inert(p->provider));
	json_object_object_add(o, "name", cli_json_inert(p->name));
	json_object_object_add(o, "object", cli_json_inert(obj->path));
	json_object_object_add(o, "address", json_hex(p->locs[0].addr));
	json_object_object_add(
		o, "semaphore",
		p->locs[0].sem_addr ? json_hex(p->locs[0].sem_addr) : NULL);
	json_object_object_add(o, "args", cli_json_inert(p->locs[0].args));
	for (size_t l = 0; l < p->nlocs; l++)
		json_object_array_add(locs, json_location(&p->locs[l]));
	json_object_object_add(o, "locations", locs);
	return o;
}

/* The JSON array when there is one (--json), else the text table. */
static void print_rows(json_object *arr, const struct table *t)
{
	if (arr)
		puts(json_object_to_json_string_ext(
			arr, JSON_C_TO_STRING_PLAIN |
				     JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		table_print(t);
}

/* Rows for every matching probe; returns how many matched, or -errno. */
static long list_probes(const struct catalog *cat, const struct list_opts *o)
{
	json_object *arr = o->json ? json_object_new_array() : NULL;
	struct table t = { 0 };
	long matched = 0;
	char pat[512];
	bool none = false; /* a pattern too long once rewritten */

	if (o->pattern) { /* DTrace's '-' for "__", as in specs */
		snprintf(pat, sizeof(pat), "%s", o->pattern);
		none = spec_dtrace_name(pat, sizeof(pat)) != 0;
	}
	for (size_t i = 0; i < catalog_nobjects(cat); i++) {
		const struct cat_object *obj = catalog_object(cat, i);

		for (size_t j = 0; j < obj->nprobes; j++) {
			const struct cat_probe *p = &obj->probes[j];
			char addr[40], sem[24];
			char *cells[NCOLS] = { (char *)p->provider,
					       (char *)p->name,
					       (char *)obj->path,
					       addr,
					       sem,
					       (char *)p->locs[0].args };

			if (none || !pattern_match(o->pattern ? pat : NULL,
						   p->provider, p->name))
				continue;
			matched++;
			if (arr) {
				json_object_array_add(arr, json_probe(obj, p));
				continue;
			}
			snprintf(addr, sizeof(addr), "%#" PRIx64,
				 p->locs[0].addr);
			if (p->nlocs > 1)
				snprintf(addr + strlen(addr),
					 sizeof(addr) - strlen(addr), "(%zu)",
					 p->nlocs);
			snprintf(sem, sizeof(sem),
				 p->locs[0].sem_addr ? "%#" PRIx64 : "-",
				 p->locs[0].sem_addr);
			if (table_add(&t, cells, o->verbose ? p : NULL)) {
				matched = -ENOMEM;
				goto out;
			}
		}
	}
	print_rows(arr, &t);
out:
	json_object_put(arr);
	table_free(&t);
	return matched;
}

struct func_row {
	const char *object;
	struct elf_func fn;
};

struct func_list {
	struct func_row *rows;
	size_t n, cap;
	const char *object;
	const char *pattern;
};

static int collect_func(const struct elf_func *fn, void *ctx)
{
	struct func_list *fl = ctx;

	if (fl->pattern && fnmatch(fl->pattern, fn->name, 0))
		return 0;
	if (fl->n == fl->cap) {
		size_t ncap = fl->cap ? fl->cap * 2 : 1024;
		struct func_row *tmp = realloc(fl->rows, ncap * sizeof(*tmp));

		if (!tmp)
			return -ENOMEM;
		fl->rows = tmp;
		fl->cap = ncap;
	}
	fl->rows[fl->n++] = (struct func_row){ fl->object, *fn };
	return 0;
}

static int cmp_func(const void *pa, const void *pb)
{
	const struct func_row *a = pa, *b = pb;
	int c = strcmp(a->object, b->object);

	if (!c)
		c = strcmp(a->fn.name, b->fn.name);
	if (!c)
		c = a->fn.addr < b->fn.addr ? -1 : a->fn.addr > b->fn.addr;
	return c;
}

static bool same_func(const struct func_row *a, const struct func_row *b)
{
	return a->object == b->object && a->fn.addr == b->fn.addr &&
	       !strcmp(a->fn.name, b->fn.name);
}

/* One row per distinct (object, symbol, address); returns rows or -errno */
static long list_functions(const struct catalog *cat, const struct list_opts *o)
{
	json_object *arr = o->json ? json_object_new_array() : NULL;
	struct func_list fl = { .pattern = o->pattern };
	struct table t = { 0 };
	long rows = 0;

	for (size_t i = 0; i < catalog_nobjects(cat); i++) {
		const struct cat_object *obj = catalog_object(cat, i);

		fl.object = obj->path;
		if (catalog_functions(obj, collect_func, &fl)) {
			rows = -ENOMEM;
			goto out;
		}
	}
	qsort(fl.rows, fl.n, sizeof(*fl.rows), cmp_func);
	for (size_t i = 0; i < fl.n; i++) {
		const struct func_row *r = &fl.rows[i];
		char addr[24], size[24];
		char *cells[NCOLS] = { (char *)r->object,
				       (char *)r->fn.name,
				       addr,
				       size,
				       r->fn.global ? "global" : "local",
				       NULL };

		if (i && same_func(r, &fl.rows[i - 1]))
			continue;
		rows++;
		if (arr) {
			json_object *jo = json_object_new_object();

			json_object_object_add(jo, "object",
					       cli_json_inert(r->object));
			json_object_object_add(jo, "name",
					       cli_json_inert(r->fn.name));
			json_object_object_add(jo, "address",
					       json_hex(r->fn.addr));
			json_object_object_add(
				jo, "size",
				json_object_new_int64((int64_t)r->fn.size));
			json_object_object_add(
				jo, "global",
				json_object_new_boolean(r->fn.global));
			json_object_array_add(arr, jo);
			continue;
		}
		snprintf(addr, sizeof(addr), "%#" PRIx64, r->fn.addr);
		snprintf(size, sizeof(size), "%" PRIu64, r->fn.size);
		if (table_add(&t, cells, NULL)) {
			rows = -ENOMEM;
			goto out;
		}
	}
	print_rows(arr, &t);
out:
	free(fl.rows);
	json_object_put(arr);
	table_free(&t);
	return rows;
}

/* Why a process might have no probes at all, from its program's name. */
static const char *no_probes_reason(pid_t pid)
{
	static const struct {
		const char *prefix, *why;
	} RUNTIMES[] = {
		{ "python", "this Python was built without --with-dtrace "
			    "(Debian's /usr/bin/python3.X has probes)" },
		{ "ruby", "this Ruby was built without --enable-dtrace" },
		{ "node", "this Node.js was built without --with-dtrace" },
		{ "php", "this PHP was built without --enable-dtrace" },
		{ "java", "the JVM was built without --enable-dtrace, or "
			  "libjvm.so is not mapped yet" },
		{ "beam",
		  "this Erlang was built without --with-dynamic-trace" },
	};
	char exe[4096];
	const char *base;

	if (proc_exe(pid, exe, sizeof(exe)))
		return "it may have exited, or be a kernel thread";
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	for (size_t i = 0; i < sizeof(RUNTIMES) / sizeof(RUNTIMES[0]); i++)
		if (!strncmp(base, RUNTIMES[i].prefix,
			     strlen(RUNTIMES[i].prefix)))
			return RUNTIMES[i].why;
	return "its program and libraries were built without <sys/sdt.h> "
	       "probes";
}

static struct catalog *open_target(const struct list_opts *o)
{
	struct catalog *cat;
	char path[4096];

	if (o->binary) {
		if (catalog_find_file(o->binary, path, sizeof(path))) {
			cli_error("%s: no such file (looked in $PATH and the "
				  "library directories)",
				  o->binary);
			return NULL;
		}
		return catalog_open_file(NULL, path); /* reason logged */
	}
	cat = catalog_open_pid(NULL, o->pid);
	if (cat)
		return cat;
	if (errno == ESRCH)
		cli_error("pid %d: no such process", (int)o->pid);
	else if (errno == EACCES || errno == EPERM)
		cli_maps_denied((int)o->pid);
	else
		cli_error("pid %d: %s", (int)o->pid, strerror(errno));
	return NULL;
}

static int parse_opts(int argc, char **argv, struct list_opts *o)
{
	static const struct option LONG[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "binary", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "functions", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":p:b:jvf", LONG, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->pid = proc_parse_pid(optarg);
			if (o->pid < 0) {
				cli_error("-p '%s': not a process id", optarg);
				return -EINVAL;
			}
			break;
		case 'b':
			o->binary = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'f':
			o->functions = true;
			break;
		default:
			cli_bad_option("list", c, argv);
			return -EINVAL;
		}
	}
	if (optind < argc)
		o->pattern = argv[optind++];
	if (optind < argc) {
		cli_error("list: unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	if (!o->pid == !o->binary) {
		cli_error("list: give exactly one of -p PID or -b BINARY");
		return -EINVAL;
	}
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct list_opts o = { 0 };
	struct catalog *cat;
	long n;

	if (parse_opts(argc, argv, &o))
		return 2;
	cat = open_target(&o);
	if (!cat)
		return 1;
	n = o.functions ? list_functions(cat, &o) : list_probes(cat, &o);
	if (n < 0) {
		cli_error("list: %s", strerror((int)-n));
	} else if (n == 0 && !o.functions && !catalog_nprobes(cat)) {
		if (o.pid)
			cli_error("pid %d: no USDT probes in its %zu mapped "
				  "objects: %s. Function probes (list "
				  "--functions) still work.",
				  (int)o.pid, catalog_nobjects(cat),
				  no_probes_reason(o.pid));
		else
			cli_error("%s: no USDT probes (no .note.stapsdt "
				  "section)",
				  o.binary);
		n = 1; /* not an error */
	} else if (n == 0) {
		cli_error("nothing matches '%s'", o.pattern ? o.pattern : "*");
	}
	catalog_free(cat);
	return n > 0 ? 0 : 1;
}
