// SPDX-License-Identifier: MIT
/*
 * cfi — DWARF call frame information read into x86-64 unwind rows; see
 * cfi.h.
 */
#include "cfi.h"

#include <errno.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>

#include "probetop.h"

/* x86-64 DWARF register numbers */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16

#define CFI_STATES 16 /* DW_CFA_remember_state nesting kept */

/* A bounded reader: a read past end sets bad and yields 0. */
struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd_fixed(struct rd *r, size_t n)
{
	uint64_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; !r->bad; shift += 7) {
		uint8_t b = (uint8_t)rd_fixed(r, 1);

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t rd_sleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	do {
		b = (uint8_t)rd_fixed(r, 1);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while ((b & 0x80) && !r->bad);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* A block of n bytes (its start), skipped. */
static const uint8_t *rd_skip(struct rd *r, uint64_t n)
{
	const uint8_t *at = r->p;

	if (r->bad || (uint64_t)(r->end - r->p) < n) {
		r->bad = true;
		return NULL;
	}
	r->p += n;
	return at;
}

/* Where pointers are relative to: the section's link-time address and
 * its bytes' start (a field at p is at base + (p - start)). */
struct section {
	const uint8_t *start;
	uint64_t base;
	bool eh;
};

/* A pointer in DW_EH_PE encoding enc (0xff: omitted). */
static uint64_t rd_ptr(struct rd *r, const struct section *sec, uint8_t enc)
{
	uint64_t at = sec->base + (uint64_t)(r->p - sec->start), v;

	switch (enc & 0x0f) {
	case 0x00: /* absptr */
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		v = rd_fixed(r, 8);
		break;
	case 0x01:
		v = rd_uleb(r);
		break;
	case 0x02:
		v = rd_fixed(r, 2);
		break;
	case 0x03:
		v = rd_fixed(r, 4);
		break;
	case 0x09:
		v = (uint64_t)rd_sleb(r);
		break;
	case 0x0a:
		v = (uint64_t)(int64_t)(int16_t)rd_fixed(r, 2);
		break;
	case 0x0b:
		v = (uint64_t)(int64_t)(int32_t)rd_fixed(r, 4);
		break;
	default:
		r->bad = true;
		return 0;
	}
	if ((enc & 0x70) == 0x10) /* pcrel; others (text, data) unused */
		v += at;
	else if (enc & 0x70)
		r->bad = true;
	return v;
}

/* One CIE's parameters. */
struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;
	uint8_t fde_enc; /* DW_EH_PE of FDE addresses */
	bool aug_z; /* FDEs carry augmentation data */
	const uint8_t *insns, *insns_end; /* initial instructions */
};

/* Read the CIE whose record starts at p (its length field). */
static int read_cie(const struct section *sec, const uint8_t *p,
		    const uint8_t *end, struct cie *c)
{
	struct rd r = { p, end, false };
	uint64_t len = rd_fixed(&r, 4), id;
	const uint8_t *aug, *rec_end;
	uint8_t version;

	if (len == 0xffffffff || len < 8 || len > (uint64_t)(end - r.p))
		return -EBADMSG;
	rec_end = r.p + len;
	r.end = rec_end;
	id = rd_fixed(&r, 4);
	if (id != (sec->eh ? 0 : 0xffffffff))
		return -EBADMSG;
	version = (uint8_t)rd_fixed(&r, 1);
	if (version != 1 && version != 3 && version != 4)
		return -EBADMSG;
	aug = r.p;
	while (r.p < r.end && *r.p)
		r.p++;
	rd_fixed(&r, 1); /* the NUL */
	if (aug[0] && aug[0] != 'z')
		return -EBADMSG; /* "eh" and the like: nothing uses them */
	if (version == 4 && (rd_fixed(&r, 1) != 8 || rd_fixed(&r, 1) != 0))
		return -EBADMSG; /* address size 8, no segments */
	memset(c, 0, sizeof(*c));
	c->code_align = rd_uleb(&r);
	c->data_align = rd_sleb(&r);
	c->ra = version == 1 ? rd_fixed(&r, 1) : rd_uleb(&r);
	c->aug_z = aug[0] == 'z';
	if (c->aug_z) {
		uint64_t alen = rd_uleb(&r);
		const uint8_t *ab = rd_skip(&r, alen);
		struct rd a = { ab, ab ? ab + alen : NULL, !ab };

		for (const uint8_t *s = aug + 1; *s && !a.bad && !r.bad; s++) {
			if (*s == 'R')
				c->fde_enc = (uint8_t)rd_fixed(&a, 1);
			else if (*s == 'L')
				rd_fixed(&a, 1);
			else if (*s == 'P')
				rd_ptr(&a, sec,
				       (uint8_t)rd_fixed(&a, 1) & 0x7f);
			else if (*s != 'S' && *s != 'B' && *s != 'G')
				return -EBADMSG;
		}
		if (a.bad)
			return -EBADMSG;
	}
	c->insns = r.p;
	c->insns_end = rec_end;
	return r.bad || !c->code_align ? -EBADMSG : 0;
}

/* A register's rule, as far as the walker cares. */
enum rkind {
	R_SAME,
	R_UNDEF,
	R_OFFSET,
	R_OTHER
};
/* The CFA's kind: a register plus an offset, or a known expression. */
enum ckind {
	C_NONE,
	C_REG,
	C_PLT,
	C_DEREF,
	C_OTHER
};

struct state {
	uint8_t cfa, bp, ra; /* enum ckind, enum rkind, enum rkind */
	uint8_t thr; /* C_PLT */
	uint32_t cfa_reg; /* C_REG */
	int64_t cfa_off, bp_off, ra_off;
};

/* One FDE's program being run. */
struct prog {
	const struct cie *cie;
	const struct section *sec;
	uint64_t loc, end;
	struct state st, init; /* init: after the CIE's instructions */
	struct state saved[CFI_STATES];
	unsigned nsaved;
	struct cfi_rows *rows;
	uint32_t *seq;
};

/* v times a data alignment factor, wrapping as the target's registers
 * would (a broken section's numbers must not overflow here). */
static int64_t scaled(uint64_t v, int64_t factor)
{
	return (int64_t)(v * (uint64_t)factor);
}

/* The rule of a state (struct pt_urow). */
static uint32_t encode(const struct state *s)
{
	uint32_t kind, bp = PT_UR_BP_LOST;
	int64_t off = s->cfa_off;

	if (s->ra == R_UNDEF)
		return PT_UR_MAKE(PT_UR_END, 0, 0, 0);
	if (s->ra != R_OFFSET || s->ra_off != -8)
		return PT_UR_MAKE(PT_UR_STOP, 0, 0, 0);
	if (s->cfa == C_REG && s->cfa_reg == REG_RSP)
		kind = PT_UR_RSP;
	else if (s->cfa == C_REG && s->cfa_reg == REG_RBP)
		kind = PT_UR_RBP;
	else if (s->cfa == C_PLT)
		kind = PT_UR_PLT;
	else if (s->cfa == C_DEREF)
		kind = PT_UR_DEREF;
	else
		return PT_UR_MAKE(PT_UR_STOP, 0, 0, 0);
	if (off % 8 || off < PT_UR_OFF_MIN || off > PT_UR_OFF_MAX)
		return PT_UR_MAKE(PT_UR_STOP, 0, 0, 0);
	if (s->bp == R_SAME)
		bp = 0;
	else if (s->bp == R_OFFSET && s->bp_off < 0 && !(s->bp_off % 8) &&
		 s->bp_off > -8 * (int64_t)PT_UR_BP_LOST)
		bp = (uint32_t)(-s->bp_off / 8);
	return PT_UR_MAKE(kind, s->thr, bp, off);
}

static int push_row(struct prog *pg, uint64_t addr, uint32_t rule)
{
	struct cfi_rows *rows = pg->rows;

	if (rows->n == rows->cap) {
		size_t cap = rows->cap ? 2 * rows->cap : 1024;
		struct cfi_row *v = realloc(rows->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rows->v = v;
		rows->cap = cap;
	}
	rows->v[rows->n++] = (struct cfi_row){ addr, rule, (*pg->seq)++ };
	return 0;
}

/* The rule so far covers [loc, to): say it, move on to to. */
static int advance(struct prog *pg, uint64_t to)
{
	int err = 0;

	if (to > pg->loc && pg->loc < pg->end)
		err = push_row(pg, pg->loc, encode(&pg->st));
	if (to > pg->loc)
		pg->loc = to;
	return err;
}

/* The CFA set by a DW_CFA_def_cfa_expression block. */
static void cfa_expr(struct state *s, const uint8_t *b, uint64_t n)
{
	/* rsp + off + (((rip & 15) >= thr) << 3): lazy-binding PLT entries */
	static const uint8_t plt_tail[] = { 0x80, 0x00, 0x3f, 0x1a, 0,
					    0x2a, 0x33, 0x24, 0x22 };
	struct rd r = { b, b + n, false };
	uint8_t op = (uint8_t)rd_fixed(&r, 1);
	int64_t off = rd_sleb(&r);
	size_t left = (size_t)(r.end - r.p);

	s->cfa = C_OTHER;
	if (r.bad)
		return;
	if (op == 0x76 && left == 1 && r.p[0] == 0x06) { /* breg6; deref */
		s->cfa = C_DEREF;
		s->cfa_off = off;
	} else if (op == 0x77 && left == sizeof(plt_tail) && r.p[4] >= 0x30 &&
		   r.p[4] <= 0x3f && !memcmp(r.p, plt_tail, 4) &&
		   !memcmp(r.p + 5, plt_tail + 5, 4)) { /* breg7 ... litN */
		s->cfa = C_PLT;
		s->cfa_off = off;
		s->thr = r.p[4] - 0x30;
	}
}

/* Register reg's rule becomes kind (at CFA + off). */
static void set_reg(struct state *s, uint64_t reg, uint8_t kind, int64_t off)
{
	if (reg == REG_RBP) {
		s->bp = kind;
		s->bp_off = off;
	} else if (reg == REG_RA) {
		s->ra = kind;
		s->ra_off = off;
	}
}

/* DW_CFA_restore(_extended) of reg. */
static void restore_reg(struct prog *pg, uint64_t reg)
{
	if (reg == REG_RBP)
		set_reg(&pg->st, reg, pg->init.bp, pg->init.bp_off);
	else if (reg == REG_RA)
		set_reg(&pg->st, reg, pg->init.ra, pg->init.ra_off);
}

/* One instruction of the extended set (the low six bits are its op). */
static int step_ext(struct prog *pg, struct rd *r, uint8_t op)
{
	struct state *s = &pg->st;
	const int64_t da = pg->cie->data_align;
	uint64_t reg, n;
	const uint8_t *b;

	switch (op) {
	case 0x00: /* nop */
	case 0x2e: /* GNU_args_size */
		if (op)
			rd_uleb(r);
		return 0;
	case 0x01: /* set_loc */
		return advance(pg, rd_ptr(r, pg->sec, pg->cie->fde_enc));
	case 0x02:
	case 0x03:
	case 0x04: /* advance_loc1, 2, 4 */
		n = rd_fixed(r, op == 0x02 ? 1 : op == 0x03 ? 2 : 4);
		return advance(pg, pg->loc + n * pg->cie->code_align);
	case 0x05: /* offset_extended */
		reg = rd_uleb(r);
		set_reg(s, reg, R_OFFSET, scaled(rd_uleb(r), da));
		return 0;
	case 0x11: /* offset_extended_sf */
		reg = rd_uleb(r);
		set_reg(s, reg, R_OFFSET, scaled((uint64_t)rd_sleb(r), da));
		return 0;
	case 0x2f: /* GNU_negative_offset_extended */
		reg = rd_uleb(r);
		set_reg(s, reg, R_OFFSET, scaled(-rd_uleb(r), da));
		return 0;
	case 0x06: /* restore_extended */
		restore_reg(pg, rd_uleb(r));
		return 0;
	case 0x07: /* undefined */
		set_reg(s, rd_uleb(r), R_UNDEF, 0);
		return 0;
	case 0x08: /* same_value */
		set_reg(s, rd_uleb(r), R_SAME, 0);
		return 0;
	case 0x09: /* register */
	case 0x14: /* val_offset */
	case 0x15: /* val_offset_sf */
		reg = rd_uleb(r);
		if (op == 0x15)
			rd_sleb(r);
		else
			rd_uleb(r);
		set_reg(s, reg, R_OTHER, 0);
		return 0;
	case 0x10: /* expression */
	case 0x16: /* val_expression */
		reg = rd_uleb(r);
		rd_skip(r, rd_uleb(r));
		set_reg(s, reg, R_OTHER, 0);
		return 0;
	case 0x0a: /* remember_state */
		if (pg->nsaved == CFI_STATES)
			return -EBADMSG;
		pg->saved[pg->nsaved++] = *s;
		return 0;
	case 0x0b: /* restore_state: the CFA too, as libgcc's unwinder
		      does and GCC's epilogues expect */
		if (!pg->nsaved)
			return -EBADMSG;
		*s = pg->saved[--pg->nsaved];
		return 0;
	case 0x0c: /* def_cfa */
	case 0x12: /* def_cfa_sf */
		s->cfa = C_REG;
		s->cfa_reg = (uint32_t)rd_uleb(r);
		s->cfa_off = op == 0x0c ? (int64_t)rd_uleb(r)
					: scaled((uint64_t)rd_sleb(r), da);
		return 0;
	case 0x0d: /* def_cfa_register */
		s->cfa = s->cfa == C_REG || s->cfa == C_NONE ? C_REG : C_OTHER;
		s->cfa_reg = (uint32_t)rd_uleb(r);
		return 0;
	case 0x0e: /* def_cfa_offset */
	case 0x13: /* def_cfa_offset_sf */
		s->cfa_off = op == 0x0e ? (int64_t)rd_uleb(r)
					: scaled((uint64_t)rd_sleb(r), da);
		if (s->cfa != C_REG)
			s->cfa = C_OTHER;
		return 0;
	case 0x0f: /* def_cfa_expression */
		n = rd_uleb(r);
		b = rd_skip(r, n);
		if (b)
			cfa_expr(s, b, n);
		return 0;
	default:
		return -EBADMSG;
	}
}

/* Run instructions [p, end) (the CIE's initial ones, then the FDE's). */
static int run(struct prog *pg, const uint8_t *p, const uint8_t *end)
{
	struct rd r = { p, end, false };
	int err = 0;

	while (r.p < r.end && !err && !r.bad) {
		uint8_t op = (uint8_t)rd_fixed(&r, 1);

		if ((op & 0xc0) == 0x40) /* advance_loc */
			err = advance(pg,
				      pg->loc + (op & 0x3f) *
							pg->cie->code_align);
		else if ((op & 0xc0) == 0x80) /* offset */
			set_reg(&pg->st, op & 0x3f, R_OFFSET,
				scaled(rd_uleb(&r), pg->cie->data_align));
		else if ((op & 0xc0) == 0xc0) /* restore */
			restore_reg(pg, op & 0x3f);
		else
			err = step_ext(pg, &r, op);
	}
	return err ? err : r.bad ? -EBADMSG : 0;
}

/* The rows of the FDE whose fields (after its CIE pointer) are r. */
static int read_fde(const struct section *sec, const struct cie *c,
		    struct rd *r, struct cfi_rows *rows, uint32_t *seq)
{
	struct prog pg = { .cie = c, .sec = sec, .rows = rows, .seq = seq };
	uint64_t begin = rd_ptr(r, sec, c->fde_enc);
	uint64_t range = rd_ptr(r, sec, c->fde_enc & 0x0f);
	int err;

	if (c->aug_z)
		rd_skip(r, rd_uleb(r));
	if (r->bad || begin + range < begin)
		return -EBADMSG;
	if (!begin || !range)
		return 0; /* discarded by the linker (a zero address) */
	pg.loc = begin;
	pg.end = begin + range;
	pg.st.ra = R_SAME;
	err = run(&pg, c->insns, c->insns_end);
	if (err)
		return err;
	pg.init = pg.st;
	err = run(&pg, r->p, r->end);
	if (!err)
		err = advance(&pg, pg.end);
	return err ? err : push_row(&pg, pg.end, PT_UR_MAKE(PT_UR_FP, 0, 0, 0));
}

int cfi_read(const uint8_t *data, size_t size, uint64_t addr, bool eh,
	     struct cfi_rows *rows, size_t *bad_at)
{
	const struct section sec = { data, addr, eh };
	const uint8_t *p = data, *end = data + size;
	uint32_t seq = (uint32_t)rows->n;
	int err = 0;

	while (!err && end - p >= 4) {
		struct rd r = { p, end, false };
		uint64_t len = rd_fixed(&r, 4), id;
		const uint8_t *rec;
		struct cie c;

		*bad_at = (size_t)(p - data);
		if (len == 0 && eh)
			break; /* the terminator */
		if (len == 0) {
			p = r.p; /* padding */
			continue;
		}
		if (len == 0xffffffff || len < 4 || len > (uint64_t)(end - r.p))
			return -EBADMSG; /* 64-bit DWARF is not x86-64's */
		r.end = r.p + len;
		rec = r.p;
		id = rd_fixed(&r, 4);
		p = r.end;
		if (id == (eh ? 0 : 0xffffffff))
			continue; /* a CIE: read with each of its FDEs */
		if (eh ? id > (uint64_t)(rec - data) : id >= size)
			return -EBADMSG;
		err = read_cie(&sec, eh ? rec - id : data + id, end, &c);
		if (!err)
			err = read_fde(&sec, &c, &r, rows, &seq);
	}
	return err;
}
