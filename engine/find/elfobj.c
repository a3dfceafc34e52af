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
	uint64_t interp_off, interp_len; /* PT_INTERP; len 0: none */
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
	if (obj->elf)
		elf_end(obj->elf);
	if (obj->fd >= 0)
		close(obj->fd);
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

static int walk_symtab(struct elfobj *obj, Elf_Scn *scn, elf_func_fn fn,
		       void *ctx, const char *want, uint64_t *addr)
{
	Elf_Data *data;
	GElf_Shdr sh;
	size_t count;

	if (!scn || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data)
		return 0;
	count = data->d_size / sh.sh_entsize;
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
		if (want) {
			if (!strcmp(f.name, want)) {
				*addr = sym.st_value;
				return 1;
			}
			continue;
		}
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

int elfobj_functions(struct elfobj *obj, elf_func_fn fn, void *ctx)
{
	int ret = walk_symtab(obj, obj->symtab, fn, ctx, NULL, NULL);

	return ret ? ret : walk_symtab(obj, obj->dynsym, fn, ctx, NULL, NULL);
}

int elfobj_symbol_addr(struct elfobj *obj, const char *name, uint64_t *addr)
{
	if (walk_symtab(obj, obj->symtab, NULL, NULL, name, addr) == 1 ||
	    walk_symtab(obj, obj->dynsym, NULL, NULL, name, addr) == 1)
		return 0;
	return -ENOENT;
}

/* The function or data symbol of scn nearest below vaddr that covers it
 * (or starts at it, when sized 0), if nearer than *start. */
static void nearest_symbol(struct elfobj *obj, Elf_Scn *scn, uint64_t vaddr,
			   const char **name, uint64_t *start)
{
	Elf_Data *data;
	GElf_Shdr sh;
	size_t count;

	if (!scn || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return;
	data = elf_getdata(scn, NULL);
	if (!data)
		return;
	count = data->d_size / sh.sh_entsize;
	for (size_t i = 0; i < count; i++) {
		const char *n;
		GElf_Sym sym;
		int type;

		if (!gelf_getsym(data, (int)i, &sym) ||
		    sym.st_shndx == SHN_UNDEF || sym.st_value > vaddr ||
		    (*name && sym.st_value <= *start))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    type != STT_OBJECT)
			continue;
		if (sym.st_size ? vaddr - sym.st_value >= sym.st_size
				: vaddr != sym.st_value)
			continue;
		n = elf_strptr(obj->elf, sh.sh_link, sym.st_name);
		if (n && *n) {
			*name = n;
			*start = sym.st_value;
		}
	}
}

int elfobj_symbol_at(struct elfobj *obj, uint64_t vaddr, const char **name,
		     uint64_t *offset)
{
	uint64_t start = 0;

	*name = NULL;
	nearest_symbol(obj, obj->symtab, vaddr, name, &start);
	nearest_symbol(obj, obj->dynsym, vaddr, name, &start);
	if (!*name)
		return -ENOENT;
	*offset = vaddr - start;
	return 0;
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
