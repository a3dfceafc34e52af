// SPDX-License-Identifier: MIT
/*
 * fetch.bpf.h — reading a site's arguments at the probe: fetch() gets one
 * struct pt_fetch (a constant, a register shifted, or memory at base +
 * index * scale + disp) and extends it to 64 bits by its size and
 * signedness; fill_key() builds a struct pt_key from the site's key
 * fetches (numbers, NUL-terminated strings, strings with a length).
 *
 * Part of probetop.bpf.c, included after maps.bpf.h, pyframe.bpf.h,
 * stack.bpf.h, mixstack.bpf.h and sql.bpf.h (sql() keys).
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
	case PT_FETCH_ADDR: /* one reg_value() for both: each is a switch */
		addr = f->disp;
		if (f->reg != PT_REG_NONE)
			addr += reg_value(ctx, f->reg);
		if (f->kind == PT_FETCH_ADDR) {
			v = addr;
			break;
		}
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
