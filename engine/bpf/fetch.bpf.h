// SPDX-License-Identifier: MIT
/*
 * fetch.bpf.h — reading a site's arguments at the probe: fetch() gets one
 * struct pt_fetch (a constant, a register shifted, or memory at base +
 * index * scale + disp) and extends it to 64 bits by its size and
 * signedness; fill_key() builds a struct pt_key from the site's key
 * fetches (numbers, NUL-terminated strings, strings with a length).
 *
 * Part of probetop.bpf.c, included after maps.bpf.h, pyframe.bpf.h,
 * stack.bpf.h and mixstack.bpf.h.
 */

/*
 * One load from the context at a constant offset. Written as inline asm
 * because clang otherwise merges the switch below into a single load at a
 * computed offset, which the verifier rejects for the context pointer.
 */
#define CTX_LOAD(ctx, field)                                               \
	({                                                                 \
		__u64 __v;                                                 \
		asm volatile("%0 = *(u64 *)(%1 + %2)"                      \
			     : "=r"(__v)                                   \
			     : "r"(ctx), "i"(__builtin_offsetof(           \
						 struct pt_regs, field))); \
		__v;                                                       \
	})

static __always_inline __u64 reg_value(const struct pt_regs *ctx, __u8 reg)
{
	switch (reg) {
	case 0:
		return CTX_LOAD(ctx, ax);
	case 1:
		return CTX_LOAD(ctx, bx);
	case 2:
		return CTX_LOAD(ctx, cx);
	case 3:
		return CTX_LOAD(ctx, dx);
	case 4:
		return CTX_LOAD(ctx, si);
	case 5:
		return CTX_LOAD(ctx, di);
	case 6:
		return CTX_LOAD(ctx, bp);
	case 7:
		return CTX_LOAD(ctx, sp);
	case 8:
		return CTX_LOAD(ctx, r8);
	case 9:
		return CTX_LOAD(ctx, r9);
	case 10:
		return CTX_LOAD(ctx, r10);
	case 11:
		return CTX_LOAD(ctx, r11);
	case 12:
		return CTX_LOAD(ctx, r12);
	case 13:
		return CTX_LOAD(ctx, r13);
	case 14:
		return CTX_LOAD(ctx, r14);
	case 15:
		return CTX_LOAD(ctx, r15);
	case 16:
		return CTX_LOAD(ctx, ip);
	default:
		return 0;
	}
}

/* Truncate v to the argument's size and extend it by its signedness. */
static __always_inline __s64 extend(__u64 v, __u8 size, __u8 is_signed)
{
	switch (size) {
	case 1:
		return is_signed ? (__s64)(__s8)v : (__s64)(__u8)v;
	case 2:
		return is_signed ? (__s64)(__s16)v : (__s64)(__u16)v;
	case 4:
		return is_signed ? (__s64)(__s32)v : (__s64)(__u32)v;
	default:
		return (__s64)v;
	}
}

/* Fetch one argument; 0 or a negative error (memory not readable). */
static __always_inline int fetch(const struct pt_regs *ctx,
				 const struct pt_fetch *f, __s64 *out)
{
	__u64 v = 0, addr;

	switch (f->kind) {
	case PT_FETCH_CONST:
		v = f->disp;
		break;
	case PT_FETCH_REG:
		v = reg_value(ctx, f->reg) >> (f->shift & 63);
		break;
	case PT_FETCH_MEM:
		addr = f->disp;
		if (f->reg != PT_REG_NONE)
			addr += reg_value(ctx, f->reg);
		if (f->index != PT_REG_NONE)
			addr += reg_value(ctx, f->index) * f->scale;
		if (bpf_probe_read_user(&v, sizeof(v), (void *)addr) &&
		    bpf_probe_read_user(&v, f->size & 7 ? f->size & 7 : 1,
					(void *)addr))
			return -1;
		break;
	default:
		break;
	}
	*out = extend(v, f->size, f->is_signed);
	return 0;
}

/*
 * The NUL-terminated string at src into dst (PT_STR_LEN bytes), its last
 * byte PT_STR_CUT when the string is longer than what dst keeps (0
 * otherwise). 0, or < 0 if src cannot be read.
 */
static __always_inline long read_str_key(char *dst, __u64 src)
{
	long n = bpf_probe_read_user_str(dst, PT_STR_LEN, (void *)src);
	char next = 0;

	if (n < 0)
		return n;
	if (n == PT_STR_LEN &&
	    !bpf_probe_read_user(&next, 1, (void *)(src + PT_STR_LEN - 1)) &&
	    next)
		dst[PT_STR_LEN - 1] = PT_STR_CUT;
	else
		dst[PT_STR_LEN - 1] = 0;
	return 0;
}

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

/* Where read_sql_key() is in its statement. */
struct sql_state {
	__u32 o; /* bytes written */
	__u32 keep; /* ... up to the last that is not a blank or ';' */
	__u32 n; /* the highest $N written, or read in the statement */
	__u32 ext; /* the digits of a $N of the statement's own so far */
	__u32 minus; /* 1 + where a unary '-' was kept, blanks after it */
	__u8 in; /* 0 text, 1 a quoted literal, 2 a number, 3 a '',
		  * 4 a $$ literal, 5 the second '$' that ends it, 6 a
		  * number's e */
	char last; /* the byte before, as kept ('$' after a literal) */
	char last2; /* ... and the one before it */
	char prev; /* ... the last one not a blank */
	bool dollar; /* a '$' of the statement's own, or its digits, last */
	bool cut; /* the shape went on past what dst keeps */
};

/* Put ch into dst unless it is full (then say it was cut). */
static __always_inline void sql_put(char *dst, struct sql_state *st, char ch)
{
	__u32 o = st->o;

	if (o >= PT_STR_LEN - 1) {
		st->cut = true;
		return;
	}
	barrier_var(o); /* or clang drops the mask the verifier needs */
	dst[o & (PT_STR_LEN - 1)] = ch;
	st->o = o + 1;
}

/* A statement as read_sql_key() reads it (in) and shapes it (out, st),
 * a byte a bpf_loop() step: the loop is checked once, not unrolled. */
struct sql_scratch {
	char in[PT_SQL_IN];
	char out[PT_STR_LEN];
	struct sql_state st;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sql_scratch);
} sqlscratch SEC(".maps");

/* A literal begins: "$N" into dst, N the next after the highest yet (a
 * statement's own $1 ... counted), as pg_stat_statements numbers them. */
static __always_inline void sql_param(char *dst, struct sql_state *st)
{
	st->n++;
	sql_put(dst, st, '$');
	if (st->n >= 10)
		sql_put(dst, st, (char)('0' + st->n / 10 % 10));
	sql_put(dst, st, (char)('0' + st->n % 10));
	st->keep = st->o;
	st->last2 = st->last;
	st->last = st->prev = '$';
}

static __always_inline bool sql_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
	       ch == '\f' || ch == '\v';
}

/* Whether the byte kept last is a string constant's prefix (E'', B'',
 * X'': pg_stat_statements' $N takes it in; N'' is NCHAR's and stays), not
 * a word's end. */
static __always_inline bool sql_prefix(const struct sql_state *st)
{
	char c = st->last | 0x20; /* in lower case, if a letter */

	return st->o && (c == 'e' || c == 'b' || c == 'x') &&
	       !sql_word(st->last2);
}

/* ch kept as it is: a byte of text, or of a $N of the statement's own
 * (a prepared statement's parameter), whose N the next literal's
 * follows. */
static __always_inline void sql_text(char *dst, struct sql_state *st, char ch)
{
	sql_put(dst, st, ch);
	if (!sql_blank(ch))
		st->minus = 0;
	if (!sql_blank(ch) && ch != ';')
		st->keep = st->o;
	if (st->dollar && sql_digit(ch) && st->ext < 100) {
		st->ext = st->ext * 10 + (__u32)(ch - '0');
		if (st->ext > st->n)
			st->n = st->ext;
	} else {
		st->dollar = ch == '$';
		st->ext = 0;
	}
	st->last2 = st->last;
	st->last = ch;
	if (!sql_blank(ch))
		st->prev = ch;
}

/*
 * One byte of the statement (next: the byte after it): kept, or part of
 * a literal that becomes $N as pg_stat_statements writes it: a quoted
 * string ('' inside it stays in it; E'', B'' and X'' with their
 * prefix), a $$-quoted one, a number not part of a word (1.5e-3 whole),
 * with a minus sign before it (blanks between too) where that cannot be
 * a subtraction. The blanks before
 * the statement are left out (and after it, with its ';', by
 * sql_shape()), as pg_stat_statements keeps a statement's text.
 */
static __always_inline void sql_step(char *dst, struct sql_state *st, char ch,
				     char next)
{
	bool sign;

	if (st->in == 1) { /* in quotes: '' is a quote in the literal */
		if (ch == '\'')
			st->in = next == '\'' ? 3 : 0;
		return;
	}
	if (st->in == 3) { /* the second quote of a '' */
		st->in = 1;
		return;
	}
	if (st->in == 4) { /* in $$ quotes, to the next $$ */
		if (ch == '$' && next == '$')
			st->in = 5;
		return;
	}
	if (st->in == 5) { /* the second '$' of the closing $$ */
		st->in = 0;
		return;
	}
	if (st->in == 6) { /* after a number's e: its exponent's sign */
		st->in = 2;
		if (ch == '+' || ch == '-')
			return;
	}
	if (st->in == 2) {
		if (sql_digit(ch) || ch == '.')
			return;
		if ((ch == 'e' || ch == 'E') &&
		    (sql_digit(next) || next == '+' || next == '-')) {
			st->in = 6;
			return;
		}
		st->in = 0;
	}
	if (!st->o && sql_blank(ch))
		return;
	if (ch == '$' && next == '$' && !sql_word(st->last)) {
		sql_param(dst, st);
		st->in = 4;
		st->dollar = false;
		return;
	}
	if (ch == '\'' || (!sql_word(st->last) &&
			   (sql_digit(ch) || (ch == '.' && sql_digit(next)) ||
			    (ch == '-' && sql_digit(next) &&
			     !sql_word(st->prev) && st->prev != ')')))) {
		if (ch == '\'' && sql_prefix(st))
			st->o--; /* E'...': the prefix is the literal's */
		else if (ch != '\'' && st->minus)
			st->o = st->minus - 1; /* "- 5": the sign is too */
		st->minus = 0;
		sql_param(dst, st);
		st->in = ch == '\'' ? 1 : 2;
		st->dollar = false;
		return;
	}
	sign = ch == '-' && sql_blank(next) && !sql_word(st->prev) &&
	       st->prev != ')';
	sql_text(dst, st, ch);
	if (sign && !st->cut)
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

/*
 * The statement at src, its shape into this CPU's sqlscratch out: its
 * literals (numbers, quoted strings) written $1, $2 ... in order, as
 * pg_stat_statements groups statements, so that one shape is one key;
 * out's last byte PT_STR_CUT when the shape, or the statement (read up
 * to PT_SQL_IN bytes), went on past what a key keeps. 0, or < 0 if src
 * cannot be read. A global function: the verifier checks it once, not
 * at each of fill_key()'s unrolled key slots.
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

/* Fill key from the site's key fetches. 0, or 1 + the stat that says
 * why not: STAT_STR (a string or argument unreadable), STAT_PY (no
 * Python, PHP or Ruby frame to read; or a key whose walker the program
 * lacks), STAT_FULL (pystacks, phpstacks, rbstacks, nstacks or mixstacks
 * full). walk, a constant: the walkers the program has (enum pt_walk;
 * user space gives it no site that needs another, siteprog.c), the
 * others compiled out. */
static __always_inline int fill_key(const struct pt_regs *ctx,
				    const struct pt_site *s, struct pt_key *key,
				    const __u32 walk)
{
	__s64 v, len;

	key->spec = s->spec;
	key->pid = s->allpids ? 0
		   : s->pid   ? s->pid
			      : bpf_get_current_pid_tgid() >> 32;
#pragma unroll
	for (int i = 0; i < PT_MAX_KEYS; i++) {
		__u8 slot = s->key_slot[i];

		if (i >= s->nkeys)
			break;
		if ((pt_key_walks(s->key_kind[i]) & ~walk) != 0)
			return STAT_PY + 1;
		if ((walk & PT_WALK_RB) && s->key_kind[i] >= PT_KEY_RBFRAME) {
			__u64 rb = rb_key(s->key_kind[i], s->profile);

			if (!rb)
				return STAT_PY + 1;
			if (rb == 1 && s->key_kind[i] == PT_KEY_RBSTACK)
				return STAT_FULL + 1;
			key->num[slot & (PT_MAX_KEYS - 1)] = rb;
			continue;
		}
		if ((walk & PT_WALK_PHP) && s->key_kind[i] >= PT_KEY_PHPFRAME) {
			__u64 php = php_key(s->key_kind[i], s->profile);

			if (!php)
				return STAT_PY + 1;
			if (php == 1 && s->key_kind[i] == PT_KEY_PHPSTACK)
				return STAT_FULL + 1;
			key->num[slot & (PT_MAX_KEYS - 1)] = php;
			continue;
		}
		if ((walk & PT_WALK_NATIVE) &&
		    s->key_kind[i] >= PT_KEY_USTACK) {
			__u64 id = stack_key(ctx, s->profile,
					     s->key_kind[i] == PT_KEY_KSTACK,
					     s->entry);

			if ((walk & PT_WALK_PY) && id != 1 &&
			    s->key_kind[i] == PT_KEY_MIXSTACK)
				id = mix_key(id, s->profile);
			if (id == 1)
				return STAT_FULL + 1;
			key->num[slot & (PT_MAX_KEYS - 1)] = id;
			continue;
		}
		if ((walk & PT_WALK_PY) && s->key_kind[i] >= PT_KEY_PYFRAME) {
			__u64 py = py_key(s->key_kind[i], s->profile);

			if (!py)
				return STAT_PY + 1;
			if (py == 1 && s->key_kind[i] == PT_KEY_PYSTACK)
				return STAT_FULL + 1;
			key->num[slot & (PT_MAX_KEYS - 1)] =
				s->key_kind[i] == PT_KEY_PYFIRSTLINE ? (__u32)py
								     : py;
			continue;
		}
		if (fetch(ctx, &s->key[i], &v))
			return STAT_STR + 1;
		if (s->key_kind[i] == PT_KEY_NUM) {
			key->num[slot & (PT_MAX_KEYS - 1)] = v;
		} else if (s->key_kind[i] == PT_KEY_STR) {
			if (read_str_key(key->str[slot & (PT_MAX_STRS - 1)],
					 (__u64)v) < 0)
				return STAT_STR + 1;
		} else if (s->key_kind[i] == PT_KEY_SQL) {
			if (read_sql_key(key->str[slot & (PT_MAX_STRS - 1)],
					 (__u64)v) < 0)
				return STAT_STR + 1;
		} else {
			if (fetch(ctx, &s->len[i], &len))
				return STAT_STR + 1;
			if (len < 0)
				len = 0;
			if (len > PT_STR_LEN - 1) {
				len = PT_STR_LEN - 1;
				key->str[slot & (PT_MAX_STRS - 1)]
					[PT_STR_LEN - 1] = PT_STR_CUT;
			}
			if (bpf_probe_read_user(
				    key->str[slot & (PT_MAX_STRS - 1)],
				    len & (PT_STR_LEN - 1), (void *)v))
				return STAT_STR + 1;
		}
	}
	return 0;
}
