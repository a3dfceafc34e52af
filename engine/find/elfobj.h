/* SPDX-License-Identifier: MIT */
/*
 * elfobj — one ELF file seen through libelf: its loadable segments (to turn
 * link-time addresses into file offsets and load biases), its SystemTap SDT
 * notes with the `.stapsdt.base` adjustment applied, and its function
 * symbols.
 *
 * The file is mapped read-only for the object's lifetime; nothing is copied
 * until a caller asks. Every failure names the file:
 * "/usr/lib/libfoo.so: bad note at offset 0x1c4: ...".
 */
#ifndef PROBETOP_ELFOBJ_H
#define PROBETOP_ELFOBJ_H

#include <stdbool.h>
#include <stdint.h>

#include "note.h"

struct elfobj;

struct elf_func {
	const char *name; /* valid while the elfobj lives */
	uint64_t addr; /* link-time address */
	uint64_t size;
	bool global; /* STB_GLOBAL or STB_WEAK: callable from outside */
};

typedef int (*elf_func_fn)(const struct elf_func *fn, void *ctx);

/*
 * Open the ELF file behind fd (the object takes ownership of fd, also on
 * failure); name is used in messages and kept as a copy. Returns NULL with
 * errno set: ENOEXEC (not an ELF file, or one libelf cannot read), ENOMEM.
 * The reason has been logged.
 */
struct elfobj *elfobj_open_fd(int fd, const char *name);

/* elfobj_open_fd() on open(path). */
struct elfobj *elfobj_open(const char *path);

/* Unmap and close; NULL is a no-op. */
void elfobj_free(struct elfobj *obj);

const char *elfobj_name(const struct elfobj *obj);

/* e_machine (EM_X86_64...) and whether it is a shared object/PIE (ET_DYN) */
int elfobj_machine(const struct elfobj *obj);
bool elfobj_is_dyn(const struct elfobj *obj);
/* whether it is an executable (ET_EXEC, or a PIE: ET_DYN with an
 * interpreter), not a shared library */
bool elfobj_is_exec(const struct elfobj *obj);

/* true if the file has a .note.stapsdt section (cheap, no parsing) */
bool elfobj_has_notes(const struct elfobj *obj);

/*
 * Deliver every SDT note, with pc and semaphore moved by the difference
 * between the note's recorded base and the real address of `.stapsdt.base`
 * (prelink, or a section moved after the note was written), as SystemTap
 * does. Returns 0, the callback's non-zero value, or -EBADMSG (logged).
 */
int elfobj_notes(struct elfobj *obj, note_fn fn, void *ctx);

/*
 * The file offset that holds link-time address vaddr, from the PT_LOAD
 * segment containing it: what uprobes and ref_ctr_offset take.
 * Returns 0, or -ENOENT if no loadable segment holds it.
 */
int elfobj_vaddr_to_offset(const struct elfobj *obj, uint64_t vaddr,
			   uint64_t *offset);

/* n bytes of the file at link-time address vaddr into buf (an
 * initialised variable's value). 0, -ENOENT (no segment has them in the
 * file: .bss, or outside) or -EIO. */
int elfobj_read(const struct elfobj *obj, uint64_t vaddr, void *buf, size_t n);

/*
 * The load bias of a mapping of this file at map_start from file offset
 * map_offset: run-time address = link-time address + bias.
 * Returns 0, or -ENOENT if no loadable segment covers map_offset.
 */
int elfobj_load_bias(const struct elfobj *obj, uint64_t map_start,
		     uint64_t map_offset, uint64_t *bias);

/*
 * Deliver the defined function symbols of .symtab, .dynsym and the debug
 * file's .symtab (elfobj_set_debug(): a stripped file's own functions;
 * a symbol in two is delivered twice, callers dedupe). Returns 0 or the
 * callback's non-zero value.
 */
int elfobj_functions(struct elfobj *obj, elf_func_fn fn, void *ctx);

/*
 * The function or data symbol (of .symtab, .dynsym and the debug file's,
 * elfobj_set_debug()) that covers link-time address vaddr, the nearest
 * one below it if several do, the first found of several names at one
 * address: its name (valid while the elfobj lives) and vaddr's offset
 * into it. 0, -ENOENT or -ENOMEM. The symbols are indexed when first
 * asked for (a binary search each time then).
 */
int elfobj_symbol_at(struct elfobj *obj, uint64_t vaddr, const char **name,
		     uint64_t *offset);
/* Link-time address of a data or function symbol (of the same tables);
 * 0 or -ENOENT. */
int elfobj_symbol_addr(struct elfobj *obj, const char *name, uint64_t *addr);

/* Link-time address and size of variable name (a data symbol of the same
 * tables, not thread-local): 0, -ENOENT, or -EINVAL if name is another
 * kind of symbol (a function, a thread's variable). */
int elfobj_variable(struct elfobj *obj, const char *name, uint64_t *addr,
		    uint64_t *size);

/* The GNU build ID (.note.gnu.build-id) into id[0..n): its length, or
 * -ENOENT. */
int elfobj_build_id(const struct elfobj *obj, uint8_t *id, size_t n);

/* The separate debug file's name and CRC-32 that .gnu_debuglink gives
 * (name valid while obj lives). 0 or -ENOENT. */
int elfobj_debuglink(const struct elfobj *obj, const char **name,
		     uint32_t *crc);

/* The bytes of .gnu_debugdata (MiniDebugInfo: an xz-compressed ELF of
 * symbols), valid while obj lives. 0 or -ENOENT. */
int elfobj_debugdata(const struct elfobj *obj, const void **data, size_t *size);

/*
 * Give obj its separate debug file (find/debugfile.h), which it then
 * owns: elfobj_symbol_at() also names addresses by its symbols. NULL
 * says none was found; either way elfobj_debug_set() is then true.
 */
void elfobj_set_debug(struct elfobj *obj, struct elfobj *debug);
bool elfobj_debug_set(const struct elfobj *obj);
/* Whether obj was given a debug file (not none). */
bool elfobj_has_debug(const struct elfobj *obj);

/*
 * The link-time address where the function holding vaddr begins, by the
 * table of .eh_frame_hdr (fnstart.h; read when first asked), which a
 * stripped file keeps: a frame no symbol names is named by its function.
 * 0, or -ENOENT (no table, or vaddr before its first function).
 */
int elfobj_function_start(struct elfobj *obj, uint64_t vaddr, uint64_t *start);

/* Whether obj has a .symtab (not stripped). */
bool elfobj_has_symtab(const struct elfobj *obj);

/*
 * The program interpreter (PT_INTERP: the dynamic linker) named by an
 * executable, into out. 0, -ENOENT (none: static or a library), or
 * another negative errno.
 */
int elfobj_interp(const struct elfobj *obj, char *out, size_t n);

typedef int (*elf_str_fn)(const char *str, void *ctx);

/*
 * Deliver, in order, the strings of the dynamic section's entries with
 * this tag (DT_NEEDED, DT_RUNPATH, DT_RPATH). Returns 0 (also for a file
 * without a dynamic section) or the callback's non-zero value.
 */
int elfobj_dyn_strings(struct elfobj *obj, int64_t tag, elf_str_fn fn,
		       void *ctx);

#endif
