/* SPDX-License-Identifier: MIT */
/*
 * beamjit — an Erlang node's JIT code named from the BEAM's own tables,
 * with no flag: BeamAsm (the JIT; tested on Debian's OTP 25, and
 * today's OTP source lays it out the same) registers every module it
 * loads with GDB's JIT interface, whether or not a debugger is there;
 * an OTP whose symfiles differ has them refused (they do not add up),
 * its frames left to its perf map. beam.smp exports the list's head,
 * __jit_debug_descriptor {u32 version (1); u32 action; u64 relevant;
 * u64 first}, each entry {u64 next, prev, symfile, symfile_size}; a
 * module's symfile is the BEAM's own format (not ELF), all integers
 * little-endian and unaligned:
 *
 *   u32 kind (1: a module; 0: the emulator's frame layout, skipped),
 *   4 bytes unused, u64 base, u32 nranges, u32 code size, u16 name
 *   length (with its NUL), the name; the first range at 32 + that
 *   length. A range: u32 start, u32 end (offsets from base), u32
 *   nlines, u16 name length, the name ("timer:apply_after/4",
 *   "timer:apply_after/4-CodeInfoPrologue", "timer::codeHeader"),
 *   nlines lines after it at 16 + that length. A line: u32 offset, u32
 *   line, u16 file length, the file; the next at 12 + that length. The
 *   last line ends at symfile_size exactly.
 *
 * A range is named as the BEAM names it, as its perf map (+JPperf true)
 * would without its "$": the prologue's range keeps its
 * "-CodeInfoPrologue" (the jitframe key takes it as the function,
 * stackname.h), a module's header and footer ("m::codeHeader") are kept
 * as named (data and stubs of the module, never another's). The lines
 * are checked, not kept: a frame's name is its function's, one row
 * for each, as the perf map path gives it. The emulator's shared code
 * is listed too, its fragments as "global::NAME" ("global::process_main",
 * the scheduler's loop).
 *
 * The list is read whole (one process_vm_readv a symfile) the first
 * time a process is asked about, and again when its head moved (a
 * module loaded: the BEAM links it first), looked at each time a frame
 * is not covered and at a hit at most every BEAMJIT_RECHECK_MS: code
 * freed with a purged module is only reused by a module loaded after
 * it, which moves the head. A list not read to its end (caught torn,
 * or a loop) is read again at a miss at most every BEAMJIT_LOOK_MS.
 * Where beam.smp is (a file named beam.*
 * exporting __jit_debug_descriptor and erts_atom_table) is looked for
 * again at most every BEAMJIT_LOOK_MS while not found (erl is a script
 * that execs it).
 *
 * Hostile or torn memory (the BEAM changes the list while it is read)
 * never crashes nor loops: at most BEAMJIT_ENTRIES entries are walked,
 * a symfile of more than BEAMJIT_SYMFILE_MAX bytes is skipped, and one
 * whose sizes, offsets or names do not add up exactly is dropped
 * whole. Bounded: BEAMJIT_PROCS processes (the least lately asked
 * about goes first), each at most BEAMJIT_BYTES of ranges and names,
 * names cut at BEAMJIT_NAME_MAX bytes.
 */
#ifndef PROBETOP_BEAMJIT_H
#define PROBETOP_BEAMJIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define BEAMJIT_PROCS 8
#define BEAMJIT_ENTRIES 65536
#define BEAMJIT_SYMFILE_MAX (4u << 20)
#define BEAMJIT_BYTES (16u << 20) /* a process's ranges and names */
#define BEAMJIT_NAME_MAX 255
#define BEAMJIT_RECHECK_MS 50
#define BEAMJIT_LOOK_MS 1000

struct beamjits;
struct objcache;

/* NULL with errno = ENOMEM. cache (beam.smp's symbols) must outlive
 * it. */
struct beamjits *beamjits_new(struct objcache *cache);
/* NULL is a no-op. */
void beamjits_free(struct beamjits *bj);

/*
 * The BEAM's range of pid covering addr: its name (valid until the next
 * call) and addr's offset into it. 0, or -ENODATA (pid is no BEAM, or
 * its list holds no module), -ENOENT (no range covers addr), -ENOMEM.
 */
int beamjits_find(struct beamjits *bj, pid_t pid, uint64_t addr,
		  const char **name, uint64_t *offset);

/* Whether pid is a BEAM whose tables name its modules' code (its list
 * read now, a module in it). cache: as beamjits_new()'s. */
bool beamjit_present(struct objcache *cache, pid_t pid);

/*
 * One symfile buf[0..len) parsed: each range of a module's passed to
 * add (ctx, its start, its size, its name and the name's length; add
 * returns 0, or non-zero to stop). 0, -ENOENT (not a module's: the
 * emulator's), -EINVAL (its sizes do not add up: nothing was passed),
 * or what add returned. For the unit tests, and the reader.
 */
typedef int (*beamjit_range_fn)(void *ctx, uint64_t start, uint32_t size,
				const char *name, size_t nlen);
int beamjit_parse(const uint8_t *buf, size_t len, beamjit_range_fn add,
		  void *ctx);

#endif
