// SPDX-License-Identifier: MIT
/*
 * sql.bpf.h — a SQL statement by its shape, as pg_stat_statements writes
 * its query: read_sql_key() reads the statement at an address and writes
 * its literals $1, $2 ..., so that one shape is one key however many
 * values it runs with, and the key map holds shapes, not texts.
 *
 * A statement is read in two passes of bpf_loop() (each step checked
 * once, not unrolled): sql_scan() finds the highest $N it has of its own
 * (a prepared statement's parameters), after which its literals are
 * numbered; sql_step() shapes it a byte a step.
 *
 * Part of probetop.bpf.c, included after maps.bpf.h and before
 * fetch.bpf.h, whose fill_key() makes sql() keys with it.
 */

static __always_inline bool sql_word(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_' || ch == '$' ||
	       (unsigned char)ch >= 0x80;
}

static __always_inline bool sql_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static __always_inline bool sql_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
	       ch == '\f' || ch == '\v';
}

/* Where sql_step() is in its statement. */
struct sql_state {
	__u32 o; /* bytes written */
	__u32 keep; /* ... up to the last that is not a blank or ';' */
	__u32 n; /* the last $N written (from sql_scan()'s highest on) */
	__u32 minus; /* 1 + where a '-' that may be a sign was written, only
		      * blanks after it; 0 none */
	__u32 word; /* sql_hash() of the word last read, in lower case */
	__u8 in; /* 0 text, 1 a quoted literal, 2 a number, 3 the second
		  * quote of a '', 4 a $$ literal, 5 the second '$' that
		  * ends it, 6 a number's e, 7 the byte after a '\' in an
		  * E'' literal, 8 the second '$' that opens a $$ literal */
	bool esc; /* the quoted literal is an E'' one: '\' escapes */
	bool wrote; /* the byte kept last was written (not cut) */
	bool cut; /* the shape went on past what dst keeps */
	char last; /* the byte before, as kept ('$' after a literal) */
	char last2; /* ... and the one before it */
	char prev; /* ... the last one not a blank */
};

/* Where sql_scan() is in its statement. */
struct sql_scan_state {
	__u32 max; /* the highest $N of the statement's own */
	__u32 cur; /* the digits of the $N being read */
	bool quoted; /* in a quoted literal */
	bool dollar; /* a '$' that may begin a $N last, or its digits */
	char last;
};

/* A statement as read_sql_key() reads it (in) and shapes it (out, st). */
struct sql_scratch {
	char in[PT_SQL_IN];
	char out[PT_STR_LEN];
	struct sql_state st;
	struct sql_scan_state scan;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sql_scratch);
} sqlscratch SEC(".maps");

/* Keywords after which a '-' is a sign, not a subtraction (SELECT -1,
 * THEN - 1, LIMIT -1), by their sql_hash(): words that cannot end an
 * operand, as a column's name can. */
static __always_inline bool sql_keyword(__u32 word)
{
	switch (word) {
	case 0xc9ff34fc: /* select */
	case 0x06bdbce7: /* where */
	case 0x000179d7: /* and */
	case 0x00000de3: /* or */
	case 0x0001aad3: /* not */
	case 0x0037ab3a: /* when */
	case 0x00364e1d: /* then */
	case 0x002f8d39: /* else */
	case 0x06234bbb: /* limit */
	case 0xc3376493: /* offset */
	case 0x00000c57: /* by */
	case 0xf3166c08: /* between */
	case 0x0032af97: /* like */
	case 0x05fa5380: /* ilike */
	case 0xc84e3d30: /* return */
	case 0x002e7b30: /* case */
	case 0xb7062425: /* having */
	case 0x00000ddf: /* on */
	case 0x00000d2a: /* is */
	case 0x11352efc: /* distinct */
	case 0x000179a1: /* all */
	case 0x000179ec: /* any */
	case 0x0035f4f4: /* some */
		return true;
	default:
		return false;
	}
}

/* A word's hash: h * 31 + each byte, in lower case. */
static __always_inline __u32 sql_hash(__u32 h, char ch)
{
	return h * 31 + (__u32)(ch >= 'A' && ch <= 'Z' ? ch | 0x20 : ch);
}

/* Put ch into dst unless it is full (then say it was cut); whether it
 * was written. */
static __always_inline bool sql_put(char *dst, struct sql_state *st, char ch)
{
	__u32 o = st->o;

	if (o >= PT_STR_LEN - 1) {
		st->cut = true;
		return false;
	}
	barrier_var(o); /* or clang drops the mask the verifier needs */
	dst[o & (PT_STR_LEN - 1)] = ch;
	st->o = o + 1;
	return true;
}

/* A literal begins: "$N" into dst, N the next after the highest yet (the
 * statement's own $N counted), as pg_stat_statements numbers them. */
static __always_inline void sql_param(char *dst, struct sql_state *st)
{
	st->n++;
	sql_put(dst, st, '$');
	if (st->n >= 100)
		sql_put(dst, st, (char)('0' + st->n / 100 % 10));
	if (st->n >= 10)
		sql_put(dst, st, (char)('0' + st->n / 10 % 10));
	sql_put(dst, st, (char)('0' + st->n % 10));
	st->keep = st->o;
	st->minus = 0;
	st->last2 = st->last;
	st->last = st->prev = '$';
}

/* Whether the byte kept last is a string constant's prefix (E'', B'',
 * X'': pg_stat_statements' $N takes it in; N'' is NCHAR's and stays), not
 * a word's end. */
static __always_inline bool sql_prefix(const struct sql_state *st)
{
	char c = st->last | 0x20; /* in lower case, if a letter */

	return st->wrote && (c == 'e' || c == 'b' || c == 'x') &&
	       !sql_word(st->last2);
}

/* Whether a '-' now, after the byte prev (not a blank), is a sign: not
 * after an operand (a word other than a keyword, a literal, a ')'). */
static __always_inline bool sql_sign(const struct sql_state *st)
{
	return st->prev != ')' && (!sql_word(st->prev) ||
				   (st->prev != '$' && sql_keyword(st->word)));
}

/* ch kept as it is. */
static __always_inline void sql_text(char *dst, struct sql_state *st, char ch)
{
	st->wrote = sql_put(dst, st, ch);
	if (!sql_blank(ch))
		st->minus = 0;
	if (!sql_blank(ch) && ch != ';')
		st->keep = st->o;
	if (sql_word(ch))
		st->word = sql_hash(sql_word(st->last) ? st->word : 0, ch);
	st->last2 = st->last;
	st->last = ch;
	if (!sql_blank(ch))
		st->prev = ch;
}

/* Inside a literal (st->in != 0, not a number's): whether ch is still
 * the literal's (then taken), given the byte after it. */
static __always_inline bool sql_in_literal(struct sql_state *st, char ch,
					   char next)
{
	switch (st->in) {
	case 1: /* in quotes: '' is a quote in the literal */
		if (ch == '\\' && st->esc)
			st->in = 7;
		else if (ch == '\'')
			st->in = next == '\'' ? 3 : 0;
		return true;
	case 3: /* the second quote of a '' */
	case 7: /* the byte a '\' escapes */
		st->in = 1;
		return true;
	case 8: /* the second '$' of the opening $$ */
		st->in = 4;
		return true;
	case 4: /* in $$ quotes, to the next $$ */
		if (ch == '$' && next == '$')
			st->in = 5;
		return true;
	case 5: /* the second '$' of the closing $$ */
		st->in = 0;
		return true;
	default:
		return false;
	}
}

/* A number's byte: whether ch is still the number's (then taken). */
static __always_inline bool sql_in_number(struct sql_state *st, char ch,
					  char next)
{
	if (st->in == 6) { /* after a number's e: its exponent's sign */
		st->in = 2;
		if (ch == '+' || ch == '-')
			return true;
	}
	if (st->in != 2)
		return false;
	if (sql_digit(ch) || ch == '.')
		return true;
	if ((ch == 'e' || ch == 'E') &&
	    (sql_digit(next) || next == '+' || next == '-')) {
		st->in = 6;
		return true;
	}
	st->in = 0;
	return false;
}

/*
 * One byte of the statement (next: the byte after it): kept, or part of
 * a literal that becomes $N as pg_stat_statements writes it: a quoted
 * string ('' inside it stays in it; E'', B'' and X'' with their prefix,
 * E'' with its '\' escapes), a $$-quoted one, a number not part of a
 * word (1.5e-3 whole), with a minus sign before it (blanks between too)
 * where that cannot be a subtraction. The blanks before the statement
 * are left out (and after it, with its ';', by sql_shape()), as
 * pg_stat_statements keeps a statement's text.
 */
static __always_inline void sql_step(char *dst, struct sql_state *st, char ch,
				     char next)
{
	bool sign;

	if (sql_in_literal(st, ch, next) || sql_in_number(st, ch, next))
		return;
	if (!st->o && sql_blank(ch))
		return;
	if (ch == '$' && next == '$' && !sql_word(st->last)) {
		sql_param(dst, st);
		st->in = 8;
		return;
	}
	if (ch == '\'' || (!sql_word(st->last) &&
			   (sql_digit(ch) || (ch == '.' && sql_digit(next)) ||
			    (ch == '-' && sql_digit(next) && sql_sign(st))))) {
		st->esc = false;
		if (ch == '\'' && sql_prefix(st)) {
			st->esc = (st->last | 0x20) == 'e';
			st->o--; /* E'...': the prefix is the literal's */
		} else if (ch != '\'' && st->minus && !st->cut) {
			st->o = st->minus - 1; /* "- 5": the sign is too */
		}
		sql_param(dst, st);
		st->in = ch == '\'' ? 1 : 2;
		return;
	}
	sign = ch == '-' && sql_blank(next) && sql_sign(st);
	sql_text(dst, st, ch);
	if (sign && st->wrote)
		st->minus = st->o; /* a sign if a number follows the blanks */
}

/* One byte i of the statement in *ctx (struct sql_scratch *): shaped
 * into its out; 1 (stop) at its end. */
static long sql_byte(__u64 i, void *ctx)
{
	struct sql_scratch *sc = *(struct sql_scratch **)ctx;
	char ch = sc->in[i & (PT_SQL_IN - 1)];

	if (!ch || i >= PT_SQL_IN - 1)
		return 1;
	sql_step(sc->out, &sc->st, ch, sc->in[(i + 1) & (PT_SQL_IN - 1)]);
	return 0;
}

/* One byte i of the statement in *ctx (struct sql_scratch *): the
 * highest $N outside quotes into its scan; 1 (stop) at its end. */
static long sql_scan(__u64 i, void *ctx)
{
	struct sql_scratch *sc = *(struct sql_scratch **)ctx;
	struct sql_scan_state *s = &sc->scan;
	char ch = sc->in[i & (PT_SQL_IN - 1)];

	if (!ch || i >= PT_SQL_IN - 1)
		return 1;
	if (ch == '\'')
		s->quoted = !s->quoted;
	if (s->dollar && sql_digit(ch) && s->cur < 100) {
		s->cur = s->cur * 10 + (__u32)(ch - '0');
		if (s->cur > s->max)
			s->max = s->cur;
	} else {
		s->dollar = ch == '$' && !s->quoted && !sql_word(s->last);
		s->cur = 0;
	}
	s->last = ch;
	return 0;
}

/*
 * The statement at src, its shape into this CPU's sqlscratch out (see
 * sql_step()); out's last byte PT_STR_CUT when the shape, or the
 * statement (read up to PT_SQL_IN bytes), went on past what a key keeps.
 * 0, or < 0 if src cannot be read. A global function: the verifier
 * checks it once, not at each of fill_key()'s unrolled key slots.
 */
__noinline int sql_shape(__u64 src)
{
	__u32 zero = 0;
	struct sql_scratch *sc = bpf_map_lookup_elem(&sqlscratch, &zero);
	long n;

	if (!sc)
		return -1;
	n = bpf_probe_read_user_str(sc->in, PT_SQL_IN, (void *)src);
	if (n < 0)
		return -1;
	/* the bytes after the shape's NUL are the key's too */
	__builtin_memset(sc->out, 0, sizeof(sc->out));
	__builtin_memset(&sc->st, 0, sizeof(sc->st));
	__builtin_memset(&sc->scan, 0, sizeof(sc->scan));
	bpf_loop(PT_SQL_IN, sql_scan, &sc, 0);
	sc->st.n = sc->scan.max;
	bpf_loop(PT_SQL_IN, sql_byte, &sc, 0);
	if (!sc->st.cut) /* its trailing blanks and ';' left out */
		for (__u32 i = 0; i < PT_STR_LEN; i++)
			if (i >= sc->st.keep)
				sc->out[i] = 0;
	sc->out[PT_STR_LEN - 1] = sc->st.cut || n == PT_SQL_IN ? PT_STR_CUT : 0;
	return 0;
}

/* sql_shape() of the statement at src into dst (PT_STR_LEN bytes). 0, or
 * < 0 if src cannot be read. */
static __always_inline long read_sql_key(char *dst, __u64 src)
{
	__u32 zero = 0;
	struct sql_scratch *sc;

	if (sql_shape(src))
		return -1;
	sc = bpf_map_lookup_elem(&sqlscratch, &zero);
	if (!sc)
		return -1;
	__builtin_memcpy(dst, sc->out, PT_STR_LEN);
	return 0;
}
