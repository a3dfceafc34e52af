// SPDX-License-Identifier: MIT
/*
 * elfobj — libelf wrapper; see elfobj.h.
 *
 * Opening reads only the ELF and program headers and the section header
 * table (to find .note.stapsdt, .stapsdt.base and the symbol tables); note
 * and symbol contents are read when asked for. Section data is taken raw
 * (elf_rawdata): probetop only runs on little-endian x86-64 and reads every
 * field with memcpy, so no libelf translation is needed.
 */
#include "elfobj.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fnstart.h"
#include "log.h"

struct segment {
	uint64_t vaddr, offset, filesz;
};

struct elfobj {
	char *name;
	int fd;
	Elf *elf;
	int elfclass;
	int machine;
	bool dyn;
	struct segment *segs;
	size_t nsegs;
	Elf_Scn *notes_scn;
	bool has_base;
	uint64_t base_addr; /* address of .stapsdt.base */
	Elf_Scn *symtab, *dynsym, *dynamic;
	Elf_Scn *build_id, *debuglink, *debugdata; /* NULL: none */
	Elf_Scn *eh_frame_hdr; /* NULL: none */
	uint64_t *fnstarts; /* its function starts (fnstart.h), sorted */
	size_t nfnstarts;
	bool fnstarts_read; /* asked once: fnstarts (or none) */
	uint64_t interp_off, interp_len; /* PT_INTERP; len 0: none */
	struct elfobj *debug; /* its separate debug file (elfobj_set_debug) */
	bool debug_set;
	struct sym *syms; /* every function and data symbol by address, of
			     this file and its debug file; built when first
			     asked (elfobj_symbol_at) */
	size_t nsyms;
};

/* A symbol in the index. */
struct sym {
	uint64_t addr, size;
	const char *name;
	size_t ord; /* where it was found: the first of a place's names wins */
};

struct note_adjust {
	struct elfobj *obj;
	note_fn fn;
	void *ctx;
};

static int load_segments(struct elfobj *obj)
{
	size_t phnum;

	if (elf_getphdrnum(obj->elf, &phnum))
		return -EINVAL;
	obj->segs = calloc(phnum ? phnum : 1, sizeof(*obj->segs));
	if (!obj->segs)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(obj->elf, (int)i, &ph))
			return -EINVAL;
		if (ph.p_type == PT_INTERP) {
			obj->interp_off = ph.p_offset;
			obj->interp_len = ph.p_filesz;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		obj->segs[obj->nsegs++] = (struct segment){
			.vaddr = ph.p_vaddr,
			.offset = ph.p_offset,
			.filesz = ph.p_filesz,
		};
	}
	return 0;
}

static int find_sections(struct elfobj *obj)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(obj->elf, &shstrndx))
		return -EINVAL;
	while ((scn = elf_nextscn(obj->elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return -EINVAL;
		if (sh.sh_type == SHT_SYMTAB)
			obj->symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			obj->dynsym = scn;
		else if (sh.sh_type == SHT_DYNAMIC)
			obj->dynamic = scn;
		if (sh.sh_type != SHT_NOTE && sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(obj->elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (sh.sh_type == SHT_NOTE && !strcmp(name, ".note.stapsdt")) {
			obj->notes_scn = scn;
		} else if (sh.sh_type == SHT_NOTE &&
			   !strcmp(name, ".note.gnu.build-id")) {
			obj->build_id = scn;
		} else if (!strcmp(name, ".gnu_debuglink")) {
			obj->debuglink = scn;
		} else if (!strcmp(name, ".gnu_debugdata")) {
			obj->debugdata = scn;
		} else if (!strcmp(name, ".eh_frame_hdr")) {
			obj->eh_frame_hdr = scn;
		} else if (!strcmp(name, ".stapsdt.base")) {
			obj->has_base = true;
			obj->base_addr = sh.sh_addr;
		}
	}
	return 0;
}

/* Header tables past the end of the file: a truncated copy. libelf
 * quietly reports no sections for it, which would look like "no probes". */
static bool truncated(int fd, const GElf_Ehdr *eh)
{
	struct stat st;
	uint64_t size;

	if (fstat(fd, &st))
		return false;
	size = (uint64_t)st.st_size;
	return (uint64_t)eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize >
		       size ||
	       (uint64_t)eh->e_phoff + (uint64_t)eh->e_phnum * eh->e_phentsize >
		       size;
}

struct elfobj *elfobj_open_fd(int fd, const char *name)
{
	struct elfobj *obj = NULL;
	GElf_Ehdr eh;
	int err = ENOEXEC;

	if (elf_version(EV_CURRENT) == EV_NONE)
		goto fail;
	obj = calloc(1, sizeof(*obj));
	if (!obj || !(obj->name = strdup(name))) {
		err = ENOMEM;
		goto fail;
	}
	obj->fd = fd;
	obj->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!obj->elf || elf_kind(obj->elf) != ELF_K_ELF) {
		log_msg(LOG_ERROR, "%s: not an ELF file", name);
		goto fail;
	}
	if (!gelf_getehdr(obj->elf, &eh)) {
		log_msg(LOG_ERROR, "%s: broken ELF header: %s", name,
			elf_errmsg(-1));
		goto fail;
	}
	if (truncated(fd, &eh)) {
		log_msg(LOG_ERROR,
			"%s: broken ELF file: its headers run past "
			"the end of the file (truncated?)",
			name);
		goto fail;
	}
	obj->elfclass = gelf_getclass(obj->elf);
	obj->machine = eh.e_machine;
	obj->dyn = eh.e_type == ET_DYN;
	err = -load_segments(obj);
	if (err == ENOMEM)
		goto fail;
	if (err || find_sections(obj)) {
		err = ENOEXEC;
		log_msg(LOG_ERROR, "%s: broken ELF headers: %s", name,
			elf_errmsg(-1));
		goto fail;
	}
	return obj;
fail:
	if (obj)
		elfobj_free(obj);
	else
		close(fd);
	errno = err;
	return NULL;
}

struct elfobj *elfobj_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		int err = errno;

		log_msg(LOG_ERROR, "%s: %s", path, strerror(err));
		errno = err;
		return NULL;
	}
	return elfobj_open_fd(fd, path);
}

void elfobj_free(struct elfobj *obj)
{
	if (!obj)
		return;
	free(obj->fnstarts);
	if (obj->elf)
		elf_end(obj->elf);
	if (obj->fd >= 0)
		close(obj->fd);
	elfobj_free(obj->debug);
	free(obj->syms);
	free(obj->segs);
	free(obj->name);
	free(obj);
}

const char *elfobj_name(const struct elfobj *obj)
{
	return obj->name;
}

int elfobj_machine(const struct elfobj *obj)
{
	return obj->machine;
}

bool elfobj_is_dyn(const struct elfobj *obj)
{
	return obj->dyn;
}

bool elfobj_is_exec(const struct elfobj *obj)
{
	return !obj->dyn || obj->interp_len;
}

bool elfobj_has_notes(const struct elfobj *obj)
{
	return obj->notes_scn != NULL;
}

static int adjust_note(const struct usdt_note *note, void *ctx)
{
	struct note_adjust *adj = ctx;
	struct usdt_note moved = *note;

	if (adj->obj->has_base && note->base) {
		moved.pc += adj->obj->base_addr - note->base;
		if (moved.semaphore)
			moved.semaphore += adj->obj->base_addr - note->base;
		moved.base = adj->obj->base_addr;
	}
	return adj->fn(&moved, adj->ctx);
}

int elfobj_notes(struct elfobj *obj, note_fn fn, void *ctx)
{
	struct note_adjust adj = { obj, fn, ctx };
	char err[200];
	Elf_Data *data;
	int ret;

	if (!obj->notes_scn)
		return 0;
	data = elf_rawdata(obj->notes_scn, NULL);
	if (!data) {
		log_msg(LOG_ERROR, "%s: cannot read .note.stapsdt: %s",
			obj->name, elf_errmsg(-1));
		return -EBADMSG;
	}
	ret = note_parse(data->d_buf, data->d_size,
			 obj->elfclass == ELFCLASS32 ? 4 : 8, adjust_note, &adj,
			 err, sizeof(err));
	if (ret == -EBADMSG)
		log_msg(LOG_ERROR, "%s: %s", obj->name, err);
	return ret;
}

int elfobj_vaddr_to_offset(const struct elfobj *obj, uint64_t vaddr,
			   uint64_t *offset)
{
	for (size_t i = 0; i < obj->nsegs; i++) {
		const struct segment *s = &obj->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*offset = vaddr - s->vaddr + s->offset;
			return 0;
		}
	}
	return -ENOENT;
}

int elfobj_read(const struct elfobj *obj, uint64_t vaddr, void *buf, size_t n)
{
	uint64_t off;

	for (size_t i = 0; i < obj->nsegs; i++) {
		const struct segment *s = &obj->segs[i];

		if (vaddr < s->vaddr || vaddr - s->vaddr >= s->filesz ||
		    n > s->filesz - (vaddr - s->vaddr))
			continue;
		off = vaddr - s->vaddr + s->offset;
		return pread(obj->fd, buf, n, (off_t)off) == (ssize_t)n ? 0
									: -EIO;
	}
	return -ENOENT;
}

int elfobj_load_bias(const struct elfobj *obj, uint64_t map_start,
		     uint64_t map_offset, uint64_t *bias)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < obj->nsegs; i++) {
		const struct segment *s = &obj->segs[i];
		uint64_t seg_off = s->offset & ~(page - 1);

		if (map_offset >= seg_off &&
		    map_offset < s->offset + (s->filesz ? s->filesz : 1)) {
			/* vaddr and offset are congruent modulo the page size */
			*bias = map_start - map_offset - (s->vaddr - s->offset);
			return 0;
		}
	}
	return -ENOENT;
}

/* The entries of symbol table scn (0 if none or unreadable), its header
 * into *sh and its data into *data. */
static size_t symtab_entries(Elf_Scn *scn, GElf_Shdr *sh, Elf_Data **data)
{
	if (!scn || !gelf_getshdr(scn, sh) || !sh->sh_entsize)
		return 0;
	*data = elf_getdata(scn, NULL);
	return *data ? (*data)->d_size / sh->sh_entsize : 0;
}

static int walk_symtab(struct elfobj *obj, Elf_Scn *scn, elf_func_fn fn,
		       void *ctx)
{
	Elf_Data *data;
	GElf_Shdr sh;
	size_t count = symtab_entries(scn, &sh, &data);
	for (size_t i = 0; i < count; i++) {
		struct elf_func f;
		GElf_Sym sym;
		int type, ret;

		if (!gelf_getsym(data, (int)i, &sym) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		f.name = elf_strptr(obj->elf, sh.sh_link, sym.st_name);
		if (!f.name || !*f.name)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		f.addr = sym.st_value;
		f.size = sym.st_size;
		f.global = GELF_ST_BIND(sym.st_info) != STB_LOCAL;
		ret = fn(&f, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

/* The defined symbol named want in scn into *out: 1, or 0 if none. */
static int find_symtab(struct elfobj *obj, Elf_Scn *scn, const char *want,
		       GElf_Sym *out)
{
	Elf_Data *data;
	GElf_Shdr sh;
	size_t count = symtab_entries(scn, &sh, &data);
	for (size_t i = 0; i < count; i++) {
		const char *name;

		if (!gelf_getsym(data, (int)i, out) ||
		    out->st_shndx == SHN_UNDEF || !out->st_value)
			continue;
		name = elf_strptr(obj->elf, sh.sh_link, out->st_name);
		if (name && !strcmp(name, want))
			return 1;
	}
	return 0;
}

/* The symbol named name of obj's tables and its debug file's into *out:
 * 0 or -ENOENT. */
static int find_symbol(struct elfobj *obj, const char *name, GElf_Sym *out)
{
	struct elfobj *d = obj->debug;

	if (find_symtab(obj, obj->symtab, name, out) ||
	    find_symtab(obj, obj->dynsym, name, out) ||
	    (d && find_symtab(d, d->symtab, name, out)))
		return 0;
	return -ENOENT;
}

int elfobj_functions(struct elfobj *obj, elf_func_fn fn, void *ctx)
{
	struct elfobj *d = obj->debug;
	int ret = walk_symtab(obj, obj->symtab, fn, ctx);

	if (!ret)
		ret = walk_symtab(obj, obj->dynsym, fn, ctx);
	if (!ret && d)
		ret = walk_symtab(d, d->symtab, fn, ctx);
	return ret;
}

int elfobj_symbol_addr(struct elfobj *obj, const char *name, uint64_t *addr)
{
	GElf_Sym sym;

	if (find_symbol(obj, name, &sym))
		return -ENOENT;
	*addr = sym.st_value;
	return 0;
}

int elfobj_variable(struct elfobj *obj, const char *name, uint64_t *addr,
		    uint64_t *size)
{
	GElf_Sym sym;

	if (find_symbol(obj, name, &sym))
		return -ENOENT;
	if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
		return -EINVAL;
	*addr = sym.st_value;
	*size = sym.st_size;
	return 0;
}

/* Add scn's defined function and data symbols to syms[*n..), growing
 * it (*cap). 0 or -ENOMEM. */
static int index_symtab(struct elfobj *obj, Elf_Scn *scn, struct sym **syms,
			size_t *n, size_t *cap)
{
	Elf_Data *data;
	GElf_Shdr sh;
	size_t count = symtab_entries(scn, &sh, &data);
	for (size_t i = 0; i < count; i++) {
		const char *name;
		GElf_Sym sym;
		int type;

		if (!gelf_getsym(data, (int)i, &sym) ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    type != STT_OBJECT)
			continue;
		name = elf_strptr(obj->elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (*n == *cap) {
			size_t c = *cap ? 2 * *cap : 1024;
			struct sym *g = realloc(*syms, c * sizeof(*g));

			if (!g)
				return -ENOMEM;
			*syms = g;
			*cap = c;
		}
		(*syms)[*n] =
			(struct sym){ sym.st_value, sym.st_size, name, *n };
		(*n)++;
	}
	return 0;
}

/* By address; at one address the first found last (elfobj_symbol_at()
 * looks from the top down). */
static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->ord > y->ord ? -1 : x->ord < y->ord;
}

/* obj's symbol index: .symtab and .dynsym, and the debug file's (same
 * link-time addresses), sorted by address. 0 or -ENOMEM. */
static int build_index(struct elfobj *obj)
{
	struct elfobj *d = obj->debug;
	struct sym *syms = NULL;
	size_t n = 0, cap = 0;

	if (obj->syms)
		return 0;
	if (index_symtab(obj, obj->symtab, &syms, &n, &cap) ||
	    index_symtab(obj, obj->dynsym, &syms, &n, &cap) ||
	    (d && (index_symtab(d, d->symtab, &syms, &n, &cap) ||
		   index_symtab(d, d->dynsym, &syms, &n, &cap)))) {
		free(syms);
		return -ENOMEM;
	}
	if (!n) {
		free(syms);
		syms = malloc(sizeof(*syms)); /* built: none */
		if (!syms)
			return -ENOMEM;
	}
	qsort(syms, n, sizeof(*syms), by_addr);
	obj->syms = syms;
	obj->nsyms = n;
	return 0;
}

/* How far below an address the index looks for a symbol covering it
 * (one that starts lower and is longer: nested or aliased symbols). */
#define SYM_LOOKBACK 64

int elfobj_symbol_at(struct elfobj *obj, uint64_t vaddr, const char **name,
		     uint64_t *offset)
{
	size_t lo = 0, hi;

	*name = NULL;
	if (build_index(obj))
		return -ENOMEM;
	hi = obj->nsyms;
	while (lo < hi) { /* the first symbol above vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (obj->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, k = 0; i-- > 0 && k < SYM_LOOKBACK; k++) {
		const struct sym *y = &obj->syms[i];

		if (y->size ? vaddr - y->addr < y->size : vaddr == y->addr) {
			*name = y->name;
			*offset = vaddr - y->addr;
			return 0;
		}
	}
	return -ENOENT;
}

int elfobj_dyn_strings(struct elfobj *obj, int64_t tag, elf_str_fn fn,
		       void *ctx)
{
	Elf_Data *data;
	GElf_Shdr sh;
	size_t count;

	if (!obj->dynamic || !gelf_getshdr(obj->dynamic, &sh) || !sh.sh_entsize)
		return 0;
	data = elf_getdata(obj->dynamic, NULL);
	if (!data)
		return 0;
	count = data->d_size / sh.sh_entsize;
	for (size_t i = 0; i < count; i++) {
		const char *str;
		GElf_Dyn dyn;
		int ret;

		if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != tag)
			continue;
		str = elf_strptr(obj->elf, sh.sh_link, dyn.d_un.d_val);
		if (!str)
			continue;
		ret = fn(str, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

int elfobj_interp(const struct elfobj *obj, char *out, size_t n)
{
	size_t len = obj->interp_len;
	ssize_t got;

	if (!len)
		return -ENOENT;
	if (len >= n)
		return -ENAMETOOLONG;
	got = pread(obj->fd, out, len, (off_t)obj->interp_off);
	if (got != (ssize_t)len)
		return -EIO;
	out[len] = '\0';
	return strlen(out) ? 0 : -ENOENT;
}

int elfobj_build_id(const struct elfobj *obj, uint8_t *id, size_t n)
{
	Elf_Data *data =
		obj->build_id ? elf_rawdata(obj->build_id, NULL) : NULL;
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (data &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) ||
		    !nh.n_descsz || nh.n_descsz > n)
			continue;
		memcpy(id, (const char *)data->d_buf + desc_off, nh.n_descsz);
		return (int)nh.n_descsz;
	}
	return -ENOENT;
}

int elfobj_debuglink(const struct elfobj *obj, const char **name, uint32_t *crc)
{
	Elf_Data *data =
		obj->debuglink ? elf_rawdata(obj->debuglink, NULL) : NULL;
	const char *s;
	size_t len, at;

	if (!data || !data->d_buf || data->d_size < 8)
		return -ENOENT;
	s = data->d_buf;
	len = strnlen(s, data->d_size);
	at = (len + 4) & ~(size_t)3; /* the name, its NUL, padding to 4 */
	if (!len || at + 4 > data->d_size)
		return -ENOENT;
	memcpy(crc, s + at, 4);
	*name = s;
	return 0;
}

int elfobj_debugdata(const struct elfobj *obj, const void **data, size_t *size)
{
	Elf_Data *d = obj->debugdata ? elf_rawdata(obj->debugdata, NULL) : NULL;

	if (!d || !d->d_buf || !d->d_size)
		return -ENOENT;
	*data = d->d_buf;
	*size = d->d_size;
	return 0;
}

void elfobj_set_debug(struct elfobj *obj, struct elfobj *debug)
{
	elfobj_free(obj->debug);
	obj->debug = debug;
	obj->debug_set = true;
	free(obj->syms); /* built again with its symbols */
	obj->syms = NULL;
	obj->nsyms = 0;
}

bool elfobj_debug_set(const struct elfobj *obj)
{
	return obj->debug_set;
}

bool elfobj_has_debug(const struct elfobj *obj)
{
	return obj->debug != NULL;
}

/* Read obj's function starts (fnstart.h), once: none if it has no
 * .eh_frame_hdr table or it cannot be read. */
static void read_fnstarts(struct elfobj *obj)
{
	Elf_Data *d;
	GElf_Shdr sh;

	obj->fnstarts_read = true;
	if (!obj->eh_frame_hdr || !gelf_getshdr(obj->eh_frame_hdr, &sh))
		return;
	d = elf_rawdata(obj->eh_frame_hdr, NULL);
	if (d && d->d_buf &&
	    fnstart_read(d->d_buf, d->d_size, sh.sh_addr, &obj->fnstarts,
			 &obj->nfnstarts))
		obj->nfnstarts = 0;
}

int elfobj_function_start(struct elfobj *obj, uint64_t vaddr, uint64_t *start)
{
	if (!obj->fnstarts_read)
		read_fnstarts(obj);
	return fnstart_find(obj->fnstarts, obj->nfnstarts, vaddr, start)
		       ? 0
		       : -ENOENT;
}

bool elfobj_has_symtab(const struct elfobj *obj)
{
	return obj->symtab != NULL;
}
