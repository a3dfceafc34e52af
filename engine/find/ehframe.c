// SPDX-License-Identifier: MIT
/*
 * ehframe — an ELF file's unwind table by file offset; see ehframe.h.
 */
#include "ehframe.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cfi.h"
#include "log.h"

/* An executable PT_LOAD segment: addresses [vaddr, vaddr + size) are at
 * file offset offset on. */
struct xseg {
	uint64_t vaddr, size, offset;
};

#define MAX_XSEGS 16

/* The executable segments of e, into segs; how many (0 on failure). */
static size_t exec_segments(Elf *e, struct xseg *segs)
{
	size_t phnum, n = 0;

	if (elf_getphdrnum(e, &phnum))
		return 0;
	for (size_t i = 0; i < phnum && n < MAX_XSEGS; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X))
			segs[n++] = (struct xseg){ ph.p_vaddr, ph.p_memsz,
						   ph.p_offset };
	}
	return n;
}

/* The section called name, or NULL (none, or one without bytes). */
static Elf_Scn *find_section(Elf *e, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(e, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* Read section name's rows into rows. 0, -ENOENT (no such section),
 * -EBADMSG (logged), -ENOMEM. */
static int read_section(Elf *e, const char *file, const char *name,
			struct cfi_rows *rows)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(e, name, &sh);
	Elf_Data *d;
	size_t bad_at = 0;
	int err;

	if (!scn)
		return -ENOENT;
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) {
		log_msg(LOG_WARN, "%s: %s: cannot decompress: %s", file, name,
			elf_errmsg(-1));
		return -EBADMSG;
	}
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf)
		return -ENOENT;
	err = cfi_read(d->d_buf, d->d_size, sh.sh_addr,
		       !strcmp(name, ".eh_frame"), rows, &bad_at);
	if (err == -EBADMSG)
		log_msg(LOG_WARN,
			"%s: broken %s at offset 0x%zx: no unwind table", file,
			name, bad_at);
	return err;
}

/* Rows by address, then the start of a rule before the end of one (an
 * FDE's last PT_UR_FP row) at the same address, then in the order read. */
static int cmp_row(const void *pa, const void *pb)
{
	const struct cfi_row *a = pa, *b = pb;
	bool ga = PT_UR_KIND(a->rule) == PT_UR_FP,
	     gb = PT_UR_KIND(b->rule) == PT_UR_FP;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (ga != gb)
		return ga ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The file offset of address addr (the end of a segment included), or
 * -1 when no executable segment holds it. */
static int64_t to_offset(const struct xseg *segs, size_t nsegs, uint64_t addr)
{
	for (size_t i = 0; i < nsegs; i++)
		if (addr >= segs[i].vaddr &&
		    addr - segs[i].vaddr <= segs[i].size)
			return (int64_t)(addr - segs[i].vaddr + segs[i].offset);
	return -1;
}

/* rows (sorted by cmp_row) into out: at each address the last row read
 * there, each kept only if its rule differs from the one before it.
 * 0, -EBADMSG (an offset past 4 GB), -ENOMEM. */
static int build(const struct cfi_rows *rows, const struct xseg *segs,
		 size_t nsegs, struct eh_table *out)
{
	out->rows = malloc((rows->n ? rows->n : 1) * sizeof(*out->rows));
	if (!out->rows)
		return -ENOMEM;
	for (size_t i = 0; i < rows->n; i++) {
		const struct cfi_row *r = &rows->v[i];
		int64_t off = to_offset(segs, nsegs, r->addr);

		if (i + 1 < rows->n && rows->v[i + 1].addr == r->addr)
			continue; /* a later row at the same address wins */
		if (off < 0)
			continue;
		if (off > UINT32_MAX)
			return -EBADMSG;
		if (out->n && out->rows[out->n - 1].rule == r->rule)
			continue;
		if (out->n && out->rows[out->n - 1].off == (uint64_t)off) {
			out->rows[out->n - 1].rule = r->rule; /* segments met */
			continue;
		}
		out->rows[out->n++] =
			(struct pt_urow){ (uint32_t)off, r->rule };
	}
	return out->n ? 0 : -ENOENT;
}

/* Compile e's table into out (see ehframe_compile_fd()). */
static int compile(Elf *e, const char *name, struct eh_table *out)
{
	struct cfi_rows rows = { 0 };
	struct xseg segs[MAX_XSEGS];
	size_t nsegs;
	GElf_Ehdr eh;
	int err;

	memset(out, 0, sizeof(*out));
	if (!gelf_getehdr(e, &eh) || gelf_getclass(e) != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64)
		return -ENOEXEC;
	nsegs = exec_segments(e, segs);
	if (!nsegs)
		return -ENOENT;
	/* .debug_frame first: where both cover an address, .eh_frame's
	 * rows, read later, win */
	err = read_section(e, name, ".debug_frame", &rows);
	if (!err || err == -ENOENT)
		err = read_section(e, name, ".eh_frame", &rows);
	if (err == -ENOENT && rows.n)
		err = 0;
	if (!err) {
		qsort(rows.v, rows.n, sizeof(*rows.v), cmp_row);
		err = build(&rows, segs, nsegs, out);
	}
	if (err == -EBADMSG && out->rows)
		log_msg(LOG_WARN, "%s: code past 4 GB: no unwind table", name);
	if (err)
		ehframe_free(out);
	free(rows.v);
	return err;
}

int ehframe_compile_fd(int fd, const char *name, struct eh_table *out)
{
	Elf *e;
	int err;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e)
		return -ENOEXEC;
	err = elf_kind(e) == ELF_K_ELF ? compile(e, name, out) : -ENOEXEC;
	elf_end(e);
	return err;
}

int ehframe_compile_mem(const void *image, size_t size, const char *name,
			struct eh_table *out)
{
	char *copy = malloc(size ? size : 1);
	Elf *e;
	int err;

	memset(out, 0, sizeof(*out));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, image, size);
	elf_version(EV_CURRENT);
	e = elf_memory(copy, size);
	err = e && elf_kind(e) == ELF_K_ELF ? compile(e, name, out) : -ENOEXEC;
	elf_end(e);
	free(copy);
	return err;
}

void ehframe_free(struct eh_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

uint32_t ehframe_rule_at(const struct eh_table *t, uint64_t off)
{
	size_t lo = 0, n = t->n;

	if (!n || off < t->rows[0].off)
		return PT_UR_MAKE(PT_UR_FP, 0, 0, 0);
	while (n > 1) { /* the answer is in [lo, lo + n) */
		size_t half = n / 2;

		if (t->rows[lo + half].off <= off) {
			lo += half;
			n -= half;
		} else {
			n = half;
		}
	}
	return t->rows[lo].rule;
}
