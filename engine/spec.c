// SPDX-License-Identifier: MIT
/*
 * spec — a recursive-descent parser for the SPEC language (see spec.h).
 *
 * A cursor walks the text once; every error names what was expected and
 * the 1-based column where it was not found. Probe parts are split on ':'
 * from the right (the object may be a path, the provider and name never
 * contain ':'), and end at "..", '=' or the end of the text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

struct cursor {
	const char *text;
	size_t pos;
	char *err;
	size_t errlen;
};

static int fail(struct cursor *c, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Format "WHAT at column N" into the caller's buffer; returns -EINVAL. */
static int fail(struct cursor *c, size_t pos, const char *fmt, ...)
{
	char what[SPEC_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (c->errlen)
		snprintf(c->err, c->errlen, "%s at column %zu", what, pos + 1);
	return -EINVAL;
}

static void skip_blanks(struct cursor *c)
{
	while (c->text[c->pos] == ' ' || c->text[c->pos] == '\t')
		c->pos++;
}

static bool eat(struct cursor *c, char ch)
{
	skip_blanks(c);
	if (c->text[c->pos] != ch)
		return false;
	c->pos++;
	return true;
}

/* Length of the probe text starting at pos: up to "..", '=' or the end. */
static size_t probe_len(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != '=' && !(s[n] == '.' && s[n + 1] == '.'))
		n++;
	return n;
}

static int copy_part(struct cursor *c, size_t pos, const char *s, size_t n,
		     char *out, const char *what)
{
	if (n == 0)
		return fail(c, pos, "expected %s", what);
	if (n >= SPEC_NAME_MAX)
		return fail(c, pos, "%s longer than %d characters", what,
			    SPEC_NAME_MAX - 1);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '(' || s[i] == ')' ||
		    s[i] == ',')
			return fail(c, pos + i, "unexpected '%c' in %s", s[i],
				    what);
	}
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

/* fn:[OBJECT:]SYMBOL[%return], s..s+n excluding the "fn:" prefix. */
static int parse_fn_probe(struct cursor *c, size_t pos, const char *s, size_t n,
			  struct spec_probe *p)
{
	static const char RET[] = "%return";
	const char *colon = memrchr(s, ':', n);
	const char *sym = colon ? colon + 1 : s;
	size_t symlen = n - (size_t)(sym - s);
	const char *pct = memchr(sym, '%', symlen);
	int err;

	p->fn = true;
	if (colon) {
		err = copy_part(c, pos, s, (size_t)(colon - s), p->object,
				"an object before ':'");
		if (err)
			return err;
	}
	if (pct) {
		size_t tail = symlen - (size_t)(pct - sym);

		if (tail != sizeof(RET) - 1 || memcmp(pct, RET, tail))
			return fail(c, pos + (size_t)(pct - s),
				    "expected '%%return' after the symbol");
		p->ret = true;
		symlen = (size_t)(pct - sym);
	}
	return copy_part(c, pos + (size_t)(sym - s), sym, symlen, p->name,
			 "a function symbol");
}

/* The index just past the glob bracket expression opening at s[i] ('[';
 * as in fnmatch, a ']' first, after an optional '!' or '^', belongs to
 * it), or i + 1 if it is never closed (the '[' is then a plain one). */
static size_t class_end(const char *s, size_t i)
{
	size_t j = i + 1;

	if (s[j] == '!' || s[j] == '^')
		j++;
	if (s[j] == ']')
		j++;
	while (s[j] && s[j] != ']')
		j++;
	return s[j] ? j + 1 : i + 1;
}

int spec_dtrace_name(char *s, size_t n)
{
	size_t len = strlen(s), dashes = 0;

	for (size_t i = 0; i < len; i = s[i] == '[' ? class_end(s, i) : i + 1)
		dashes += s[i] == '-';
	if (len + dashes >= n)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < len;) {
		if (s[i] == '[') {
			i = class_end(s, i); /* a range such as [a-z] stays */
		} else if (s[i] == '-') {
			memmove(s + i + 1, s + i, len - i + 1);
			s[i] = s[i + 1] = '_';
			len++;
			i += 2;
		} else {
			i++;
		}
	}
	return 0;
}

/* A USDT provider or probe name as copy_part() does, with DTrace's '-'
 * for "__" rewritten (spec_dtrace_name()). */
static int copy_usdt_part(struct cursor *c, size_t pos, const char *s, size_t n,
			  char *out, const char *what)
{
	int err = copy_part(c, pos, s, n, out, what);

	if (!err && spec_dtrace_name(out, SPEC_NAME_MAX))
		return fail(c, pos, "%s longer than %d characters", what,
			    SPEC_NAME_MAX - 1);
	return err;
}

/* [OBJECT:]PROVIDER:NAME[@FUNCTION] */
static int parse_usdt_probe(struct cursor *c, size_t pos, const char *s,
			    size_t n, struct spec_probe *p)
{
	const char *last = memrchr(s, ':', n);
	const char *at =
		last ? memchr(last, '@', n - (size_t)(last - s)) : NULL;
	const char *prev;
	int err;

	if (at) {
		err = copy_part(c, pos + (size_t)(at + 1 - s), at + 1,
				n - (size_t)(at + 1 - s), p->function,
				"a function after '@'");
		if (err)
			return err;
		n = (size_t)(at - s);
	}
	if (!last)
		return fail(c, pos + n,
			    "expected ':' between provider and probe name");
	prev = last > s ? memrchr(s, ':', (size_t)(last - s)) : NULL;
	if (prev) {
		err = copy_part(c, pos, s, (size_t)(prev - s), p->object,
				"an object before ':'");
		if (err)
			return err;
	}
	err = copy_usdt_part(c, pos + (size_t)(prev ? prev + 1 - s : 0),
			     prev ? prev + 1 : s,
			     (size_t)(last - (prev ? prev + 1 : s)),
			     p->provider, "a provider");
	if (err)
		return err;
	return copy_usdt_part(c, pos + (size_t)(last + 1 - s), last + 1,
			      n - (size_t)(last + 1 - s), p->name,
			      "a probe name");
}

/* profile:HZ, s..s+n the HZ after "profile:". */
static int parse_profile(struct cursor *c, size_t pos, const char *s, size_t n,
			 struct spec_probe *p)
{
	long hz = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return fail(c, pos + i,
				    "expected a rate in Hz after profile:");
		if (hz <= SPEC_PROFILE_MAX_HZ)
			hz = hz * 10 + (s[i] - '0');
	}
	if (hz < 1 || hz > SPEC_PROFILE_MAX_HZ)
		return fail(c, pos, "profile: rate out of range 1..%d Hz",
			    SPEC_PROFILE_MAX_HZ);
	p->hz = (int)hz;
	strcpy(p->provider, "profile");
	snprintf(p->name, sizeof(p->name), "%ld", hz);
	return 0;
}

static int parse_probe(struct cursor *c, struct spec_probe *p)
{
	const char *s;
	size_t n, pos;

	skip_blanks(c);
	pos = c->pos;
	s = c->text + pos;
	n = probe_len(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	c->pos += probe_len(s);
	memset(p, 0, sizeof(*p));
	if (n == 0)
		return fail(c, pos, "expected a probe");
	if (n > 3 && !memcmp(s, "fn:", 3))
		return parse_fn_probe(c, pos + 3, s + 3, n - 3, p);
	if (n > 8 && !memcmp(s, "profile:", 8))
		return parse_profile(c, pos + 8, s + 8, n - 8, p);
	return parse_usdt_probe(c, pos, s, n, p);
}

static int parse_ident(struct cursor *c, char *out, size_t n)
{
	size_t i = 0;

	skip_blanks(c);
	while ((c->text[c->pos] >= 'a' && c->text[c->pos] <= 'z') ||
	       (c->text[c->pos] >= 'A' && c->text[c->pos] <= 'Z') ||
	       (c->text[c->pos] >= '0' && c->text[c->pos] <= '9') ||
	       c->text[c->pos] == '_') {
		if (i + 1 < n)
			out[i++] = c->text[c->pos];
		c->pos++;
	}
	out[i] = '\0';
	return (int)i;
}

/* Whether ch may be in a variable's name (a C identifier's, or a
 * compiler's local copy: "counter.lto_priv.0"). */
static bool global_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '$';
}

/* `SYMBOL, the cursor past the '`': its argument number (SPEC_ARG_GLOBAL
 * + its index in sp's variables, one for each name), or -EINVAL with the
 * error set. */
static int parse_global(struct cursor *c, struct spec *sp)
{
	size_t pos = c->pos, len = 0;

	while (global_char(c->text[c->pos + len]))
		len++;
	if (!len)
		return fail(c, pos, "expected a variable's name after '`'");
	if (len >= SPEC_GLOBAL_MAX)
		return fail(c, pos, "a variable's name longer than %d bytes",
			    SPEC_GLOBAL_MAX - 1);
	c->pos += len;
	for (int i = 0; i < sp->nglobals; i++)
		if (!strncmp(sp->globals[i], c->text + pos, len) &&
		    !sp->globals[i][len])
			return SPEC_ARG_GLOBAL + i;
	if (sp->nglobals == SPEC_MAX_GLOBALS)
		return fail(c, pos - 1, "too many variables (at most %d)",
			    SPEC_MAX_GLOBALS);
	memcpy(sp->globals[sp->nglobals], c->text + pos, len);
	sp->globals[sp->nglobals][len] = '\0';
	return SPEC_ARG_GLOBAL + sp->nglobals++;
}

/* argN or `SYMBOL: returns N (SPEC_ARG_GLOBAL and up for a variable), or
 * -EINVAL with the error set. */
static int parse_argn(struct cursor *c, struct spec *sp)
{
	char id[16];
	size_t pos;
	char *end;
	long n;

	skip_blanks(c);
	pos = c->pos;
	if (eat(c, '`'))
		return parse_global(c, sp);
	parse_ident(c, id, sizeof(id));
	if (strncmp(id, "arg", 3) || !id[3])
		return fail(c, pos, "expected argN or `SYMBOL");
	n = strtol(id + 3, &end, 10);
	if (*end || n < 0 || n > SPEC_MAX_ARG || (id[3] == '0' && id[4]))
		return fail(c, pos, "argument '%s' out of range arg0..arg%d",
			    id, SPEC_MAX_ARG);
	return (int)n;
}

static const struct {
	const char *name;
	struct spec_cast cast;
} CASTS[] = {
	{ "int8", { 1, true } },    { "int16", { 2, true } },
	{ "int32", { 4, true } },   { "int64", { 8, true } },
	{ "uint8", { 1, false } },  { "uint16", { 2, false } },
	{ "uint32", { 4, false } }, { "uint64", { 8, false } },
};

/* [(TYPE)]argN or [(TYPE)]`SYMBOL into *cast and N: returns N, or
 * -EINVAL with the error set. */
static int parse_cast_argn(struct cursor *c, struct spec *sp,
			   struct spec_cast *cast)
{
	char type[16];
	size_t pos;

	*cast = (struct spec_cast){ 0 };
	skip_blanks(c);
	pos = c->pos;
	if (!eat(c, '('))
		return parse_argn(c, sp);
	skip_blanks(c);
	parse_ident(c, type, sizeof(type));
	for (size_t i = 0; i < sizeof(CASTS) / sizeof(CASTS[0]); i++)
		if (!strcmp(type, CASTS[i].name))
			*cast = CASTS[i].cast;
	if (!cast->size)
		return fail(c, pos + 1,
			    "expected a type: (int8|int16|int32|int64|uint8|"
			    "uint16|uint32|uint64)argN");
	if (!eat(c, ')'))
		return fail(c, c->pos, "expected ')' after the type");
	return parse_argn(c, sp);
}

/* An integer literal (lquantize bounds), decimal or 0x hex, signed. */
static int parse_int(struct cursor *c, int64_t *out)
{
	const char *s;
	char *end;

	skip_blanks(c);
	s = c->text + c->pos;
	if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+'))
		return fail(c, c->pos, "expected an integer");
	errno = 0;
	*out = strtoll(s, &end, 0);
	if (end == s || errno)
		return fail(c, c->pos, "expected an integer");
	c->pos += (size_t)(end - s);
	return 0;
}

/* A key function at the cursor, "NAME(" or "NAME (": consumes NAME and
 * the '(' and returns 1; 0 (nothing consumed) if another word is there;
 * the error if NAME is not followed by '('. */
static int open_call(struct cursor *c, const char *name)
{
	size_t len = strlen(name);
	const char *at = c->text + c->pos;
	char id[16];

	if (strncmp(at, name, len) || (at[len] != '(' && at[len] != ' '))
		return 0;
	parse_ident(c, id, sizeof(id));
	if (!eat(c, '('))
		return fail(c, c->pos, "expected '(' after %s", name);
	return 1;
}

/* The ')' that ends NAME(...): 0 or the error. */
static int close_call(struct cursor *c, const char *name)
{
	return eat(c, ')') ? 0
			   : fail(c, c->pos, "expected ')' to close %s(", name);
}

/* Whether the word w is next (not a prefix of a longer name); if so,
 * past it. */
static bool eat_word(struct cursor *c, const char *w)
{
	size_t n = strlen(w);
	char after;

	if (strncmp(c->text + c->pos, w, n))
		return false; /* (so the text is at least n long past here) */
	after = c->text[c->pos + n];
	if ((after >= 'a' && after <= 'z') || (after >= 'A' && after <= 'Z') ||
	    (after >= '0' && after <= '9') || after == '_')
		return false;
	c->pos += n;
	return true;
}

/* The keys read where the probe fired, by the word that names them. */
static const struct {
	const char *word;
	enum spec_key_kind kind;
} CTX_KEYS[] = {
	{ "pyframe", SPEC_KEY_PYFRAME },
	{ "pyline", SPEC_KEY_PYLINE },
	{ "pystack", SPEC_KEY_PYSTACK },
	{ "ustack", SPEC_KEY_USTACK },
	{ "kstack", SPEC_KEY_KSTACK },
	{ "pyfirstline", SPEC_KEY_PYFIRSTLINE },
	{ "mixstack", SPEC_KEY_MIXSTACK },
	{ "phpframe", SPEC_KEY_PHPFRAME },
	{ "phpstack", SPEC_KEY_PHPSTACK },
	{ "phpline", SPEC_KEY_PHPLINE },
	{ "jitframe", SPEC_KEY_JITFRAME },
	{ "rbframe", SPEC_KEY_RBFRAME },
	{ "rbstack", SPEC_KEY_RBSTACK },
	{ "rbline", SPEC_KEY_RBLINE },
};

/* A key read where the probe fired (pyframe, pyline, pyfirstline,
 * pystack, ustack, kstack, mixstack, phpframe, phpstack, phpline,
 * jitframe, rbframe, rbline, rbstack), eaten; SPEC_KEY_NUM (nothing eaten) if none is
 * next. */
static enum spec_key_kind ctx_key(struct cursor *c)
{
	for (size_t i = 0; i < sizeof(CTX_KEYS) / sizeof(CTX_KEYS[0]); i++)
		if (eat_word(c, CTX_KEYS[i].word))
			return CTX_KEYS[i].kind;
	return SPEC_KEY_NUM;
}

/* argN | str(argN) | str(argN, argM) | sql(argN) | sym(argN) | a
 * ctx_key(), appended to the spec's keys; or allpids. */
static int parse_key(struct cursor *c, struct spec *sp, int *nstrs)
{
	struct spec_key k = { .kind = SPEC_KEY_NUM, .len_arg = -1 };
	size_t pos;
	int call;

	skip_blanks(c);
	pos = c->pos;
	if (eat_word(c, "allpids")) { /* not a key: the rows' scope */
		if (sp->allpids)
			return fail(c, pos, "allpids twice");
		sp->allpids = true;
		return 0;
	}
	if (sp->nkeys == SPEC_MAX_KEYS)
		return fail(c, pos, "too many keys (at most %d)",
			    SPEC_MAX_KEYS);
	if ((call = open_call(c, "str"))) {
		if (call < 0)
			return call;
		if (*nstrs == SPEC_MAX_STRS)
			return fail(c, pos, "too many string keys (at most %d)",
				    SPEC_MAX_STRS);
		k.kind = SPEC_KEY_STR;
		k.arg = parse_argn(c, sp);
		if (k.arg < 0)
			return k.arg;
		if (eat(c, ',')) {
			k.kind = SPEC_KEY_STRN;
			k.len_arg = parse_argn(c, sp);
			if (k.len_arg < 0)
				return k.len_arg;
		}
		if ((call = close_call(c, "str")))
			return call;
		(*nstrs)++;
	} else if ((call = open_call(c, "sql"))) {
		if (call < 0)
			return call;
		if (*nstrs == SPEC_MAX_STRS)
			return fail(c, pos, "too many string keys (at most %d)",
				    SPEC_MAX_STRS);
		k.kind = SPEC_KEY_SQL;
		k.arg = parse_argn(c, sp);
		if (k.arg < 0)
			return k.arg;
		if ((call = close_call(c, "sql")))
			return call;
		(*nstrs)++;
	} else if ((call = open_call(c, "sym"))) {
		if (call < 0)
			return call;
		k.kind = SPEC_KEY_SYM;
		k.arg = parse_argn(c, sp);
		if (k.arg < 0)
			return k.arg;
		if ((call = close_call(c, "sym")))
			return call;
	} else if ((k.kind = ctx_key(c)) != SPEC_KEY_NUM) {
		k.arg = -1;
		for (int i = 0; i < sp->nkeys; i++)
			if (sp->keys[i].kind == k.kind)
				return fail(c, pos, "%.*s twice",
					    (int)(c->pos - pos), c->text + pos);
	} else {
		k.arg = parse_cast_argn(c, sp, &k.cast);
		if (k.arg < 0)
			return k.arg;
	}
	sp->keys[sp->nkeys++] = k;
	return 0;
}

static const char *const AGG_NAMES[] = {
	[SPEC_AGG_COUNT] = "count",	  [SPEC_AGG_SUM] = "sum",
	[SPEC_AGG_QUANTIZE] = "quantize", [SPEC_AGG_LQUANTIZE] = "lquantize",
	[SPEC_AGG_LATENCY] = "latency",
};

const char *spec_arg_global(const struct spec *sp, int arg)
{
	if (arg < SPEC_ARG_GLOBAL || arg >= SPEC_ARG_GLOBAL + sp->nglobals)
		return NULL;
	return sp->globals[arg - SPEC_ARG_GLOBAL];
}

int spec_arg_text(const struct spec *sp, int arg, struct spec_cast cast,
		  char *out, size_t n)
{
	const char *g = spec_arg_global(sp, arg);
	char cast_text[16] = "";
	int len;

	if (cast.size)
		snprintf(cast_text, sizeof(cast_text), "(%s)",
			 spec_cast_name(cast));
	len = g ? snprintf(out, n, "%s`%s", cast_text, g)
		: snprintf(out, n, "%sarg%d", cast_text, arg);
	return len < 0 || (size_t)len >= n ? -1 : len;
}

int spec_key_text(const struct spec *sp, const struct spec_key *k, char *out,
		  size_t n)
{
	static const struct {
		enum spec_key_kind kind;
		const char *call;
	} CALLS[] = { { SPEC_KEY_STR, "str" },
		      { SPEC_KEY_STRN, "str" },
		      { SPEC_KEY_SQL, "sql" },
		      { SPEC_KEY_SYM, "sym" } };
	char a[SPEC_GLOBAL_MAX + 16], m[SPEC_GLOBAL_MAX + 16];
	int len = -1;

	for (size_t i = 0; i < sizeof(CTX_KEYS) / sizeof(CTX_KEYS[0]); i++)
		if (CTX_KEYS[i].kind == k->kind)
			len = snprintf(out, n, "%s", CTX_KEYS[i].word);
	if (spec_key_is_ctx(k))
		return len < 0 || (size_t)len >= n ? -1 : len;
	if (spec_arg_text(sp, k->arg, k->cast, a, sizeof(a)) < 0)
		return -1;
	if (k->kind == SPEC_KEY_NUM)
		len = snprintf(out, n, "%s", a);
	for (size_t i = 0; i < sizeof(CALLS) / sizeof(CALLS[0]); i++) {
		if (CALLS[i].kind != k->kind)
			continue;
		if (k->kind == SPEC_KEY_STRN &&
		    spec_arg_text(sp, k->len_arg, (struct spec_cast){ 0 }, m,
				  sizeof(m)) < 0)
			return -1;
		len = snprintf(out, n, "%s(%s%s%s)", CALLS[i].call, a,
			       k->kind == SPEC_KEY_STRN ? ", " : "",
			       k->kind == SPEC_KEY_STRN ? m : "");
	}
	return len < 0 || (size_t)len >= n ? -1 : len;
}

const char *spec_cast_name(struct spec_cast cast)
{
	for (size_t i = 0; i < sizeof(CASTS) / sizeof(CASTS[0]); i++)
		if (CASTS[i].cast.size == cast.size &&
		    CASTS[i].cast.is_signed == cast.is_signed)
			return CASTS[i].name;
	return "?";
}

const char *spec_agg_name(enum spec_agg agg)
{
	if ((unsigned)agg >= sizeof(AGG_NAMES) / sizeof(AGG_NAMES[0]))
		return "?";
	return AGG_NAMES[agg];
}

/* lquantize's LOW, HIGH, STEP after the value argument; errors point at
 * the bound that is wrong. */
static int parse_lq_bounds(struct cursor *c, struct spec *sp)
{
	int64_t *v[3] = { &sp->lq_low, &sp->lq_high, &sp->lq_step };
	uint64_t range;
	size_t pos[3];
	int err;

	for (int i = 0; i < 3; i++) {
		if (!eat(c, ','))
			return fail(c, c->pos,
				    "lquantize needs (argN, LOW, HIGH, STEP)");
		skip_blanks(c);
		pos[i] = c->pos;
		err = parse_int(c, v[i]);
		if (err)
			return err;
	}
	if (sp->lq_step <= 0)
		return fail(c, pos[2], "lquantize STEP must be positive");
	if (sp->lq_high <= sp->lq_low)
		return fail(c, pos[1], "lquantize HIGH must be above LOW");
	range = (uint64_t)sp->lq_high - (uint64_t)sp->lq_low;
	if ((range - 1) / (uint64_t)sp->lq_step >= SPEC_LQ_MAX_STEPS)
		return fail(c, pos[2],
			    "lquantize range holds more than %d steps",
			    SPEC_LQ_MAX_STEPS);
	sp->lq_nsteps = (int)((range - 1) / (uint64_t)sp->lq_step) + 1;
	return 0;
}

/* '=' AGG '(' ARGS ')' */
static int parse_agg(struct cursor *c, struct spec *sp)
{
	char name[32];
	size_t pos;
	int nstrs = 0, err, i;

	skip_blanks(c);
	pos = c->pos;
	if (!parse_ident(c, name, sizeof(name)))
		return fail(c, pos, "expected an aggregation after '='");
	for (i = 0; i <= SPEC_AGG_LATENCY; i++)
		if (!strcmp(name, AGG_NAMES[i]))
			break;
	if (i > SPEC_AGG_LATENCY)
		return fail(c, pos, "unknown aggregation '%s'", name);
	sp->agg = i;
	if (!eat(c, '('))
		return fail(c, c->pos, "expected '(' after %s", name);
	if (eat(c, ')'))
		goto done;
	if (sp->agg == SPEC_AGG_SUM || sp->agg == SPEC_AGG_QUANTIZE ||
	    sp->agg == SPEC_AGG_LQUANTIZE) {
		size_t at = c->pos;
		char word[16];

		if (sp->agg == SPEC_AGG_LQUANTIZE &&
		    parse_ident(c, word, sizeof(word)) &&
		    !strcmp(word, "latency")) {
			sp->timed = true;
		} else {
			c->pos = at;
			sp->val_arg = parse_cast_argn(c, sp, &sp->val_cast);
			if (sp->val_arg < 0)
				return sp->val_arg;
		}
		if (sp->agg == SPEC_AGG_LQUANTIZE) {
			err = parse_lq_bounds(c, sp);
			if (err)
				return err;
		}
		if (!eat(c, ','))
			goto close;
	}
	do {
		err = parse_key(c, sp, &nstrs);
		if (err)
			return err;
	} while (eat(c, ','));
close:
	if (!eat(c, ')'))
		return fail(c, c->pos, "expected ',' or ')'");
done:
	if (sp->agg == SPEC_AGG_LATENCY)
		sp->timed = true;
	if (sp->val_arg < 0 && !sp->timed && sp->agg != SPEC_AGG_COUNT)
		return fail(c, pos, "%s needs a value argument: %s(argN%s)",
			    name, name,
			    sp->agg == SPEC_AGG_LQUANTIZE ? ", LOW, HIGH, STEP"
							  : "");
	return 0;
}

/* profile:HZ fires on a timer: no arguments, no pair. */
static int check_profile(struct cursor *c, const struct spec *sp,
			 size_t agg_pos)
{
	if (sp->nprobes == 2 || sp->timed)
		return fail(c, agg_pos,
			    "profile:HZ is a sample, not a pair: no latency");
	if (sp->val_arg >= 0)
		return fail(c, agg_pos,
			    "profile:HZ has no arguments: count() by "
			    "pyframe, pystack or ustack");
	for (int i = 0; i < sp->nkeys; i++)
		if (!spec_key_is_ctx(&sp->keys[i]))
			return fail(c, agg_pos,
				    "profile:HZ has no arguments: its keys "
				    "are pyframe, pyline, pyfirstline, "
				    "pystack, phpframe, phpline, phpstack, "
				    "rbframe, rbline, rbstack, ustack, kstack, "
				    "mixstack and jitframe");
	return 0;
}

/* Whole-spec rules that no single token shows. */
static int check_spec(struct cursor *c, struct spec *sp, size_t agg_pos)
{
	const struct spec_probe *a = &sp->probe[0];

	if (sp->nprobes == 2 && !sp->timed)
		return fail(c, agg_pos, "a probe pair A..B needs latency()");
	if (a->hz || (sp->nprobes == 2 && sp->probe[1].hz))
		return check_profile(c, sp, agg_pos);
	if (sp->timed && sp->nprobes == 1) {
		if (!a->fn || a->ret)
			return fail(c, agg_pos,
				    "latency needs two probes A..B, or a "
				    "fn: entry probe");
		sp->probe[1] = *a;
		sp->probe[1].ret = true;
		sp->nprobes = 2;
	}
	if (a->ret && sp->nglobals) /* the return address is the caller's */
		return fail(c, agg_pos,
			    "`%s: a variable is read at a USDT probe or a "
			    "function's entry, not at a %%return probe",
			    sp->globals[0]);
	for (int i = 0; i < sp->nkeys; i++) {
		const struct spec_key *k = &sp->keys[i];
		char kt[SPEC_GLOBAL_MAX + 32];

		if (sp->allpids && spec_key_of_process(k) &&
		    spec_key_text(sp, k, kt, sizeof(kt)) >= 0)
			return fail(c, agg_pos,
				    "allpids: %s names what one process "
				    "has; its rows cannot be over every "
				    "process",
				    kt);
		if (a->ret && (k->arg > 0 || k->len_arg > 0))
			return fail(c, agg_pos,
				    "a %%return probe has only arg0 (the "
				    "return value)");
	}
	if (a->ret && sp->val_arg > 0)
		return fail(c, agg_pos,
			    "a %%return probe has only arg0 (the return "
			    "value)");
	return 0;
}

int spec_parse(const char *text, struct spec *out, char *err, size_t errlen)
{
	struct cursor c = { .text = text, .err = err, .errlen = errlen };
	size_t agg_pos;
	int ret;

	if (errlen)
		err[0] = '\0';
	memset(out, 0, sizeof(*out));
	out->val_arg = -1;
	if (strlen(text) >= SPEC_TEXT_MAX)
		return fail(&c, SPEC_TEXT_MAX - 1,
			    "spec longer than %d characters",
			    SPEC_TEXT_MAX - 1);
	strcpy(out->text, text);
	ret = parse_probe(&c, &out->probe[0]);
	if (ret)
		return ret;
	out->nprobes = 1;
	if (text[c.pos] == '.' && text[c.pos + 1] == '.') {
		c.pos += 2;
		ret = parse_probe(&c, &out->probe[1]);
		if (ret)
			return ret;
		out->nprobes = 2;
	}
	agg_pos = c.pos;
	if (eat(&c, '=')) {
		agg_pos = c.pos;
		ret = parse_agg(&c, out);
		if (ret)
			return ret;
		skip_blanks(&c);
		if (text[c.pos])
			return fail(&c, c.pos, "unexpected '%c' after ')'",
				    text[c.pos]);
	} else {
		out->agg = SPEC_AGG_COUNT;
	}
	return check_spec(&c, out, agg_pos);
}
