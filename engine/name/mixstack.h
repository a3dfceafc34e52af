/* SPDX-License-Identifier: MIT */
/*
 * mixstack — mixstack keys named: the native user stack of an event
 * with the Python frames in place of the CPython eval loop's frames, so
 * that a C extension's frames show under the Python function that called
 * it ("main;...;<module>;outer (x.py:3);...;zlib_crc32;crc32").
 *
 * The kernel keeps, per key, the ids of the two stacks it took in the
 * same event (mixstacks: the native one in nstacks, the Python one in
 * pystacks with where each C-level call of the eval loop begins, see
 * engine/bpf/mixstack.bpf.h). Here both are named (engine/name/
 * stackname, pyframe) and merged, once per key, kept to the end of the
 * run (engine/name/stacktext).
 *
 * The merge (mixstack_merge()): each native frame of the eval function
 * (_PyEval_EvalFrameDefault, or a part of it the compiler split off,
 * "_PyEval_EvalFrameDefault.cold") is one C-level call of the eval loop;
 * it is replaced by the Python frames that call ran, root first: one
 * frame a call in 3.8-3.10, a frame and the frames it called inline in
 * 3.11+ (where the kernel saw the call's first frame: is_entry in 3.11,
 * the C stack's shim frame below it in 3.12+). Eval frames and the
 * Python stack's calls are paired from the innermost out, so that a stack
 * cut at its root (either one) still pairs its inner calls. Every other
 * native frame stays (the interpreter's calling machinery, a builtin's
 * C frames): they are real calls, and say how Python got into C.
 *
 * What cannot be paired is said in the stack, never guessed:
 * "[python: not read]" for an eval frame with no Python frames to pair;
 * when the Python stack was deeper than the kernel keeps,
 * "[python: cut]" for such an eval frame and before the outermost
 * Python frame kept (its call's outer frames may be missing too);
 * "[python: no eval frame]" before Python calls no eval frame is left
 * for (a native stack cut, or an eval frame not named), put in place of
 * the outermost eval frame (at the root if none); and when the version
 * does not say where its eval calls begin, "[python: split unknown]"
 * and all the Python frames in place of the outermost eval frame, the
 * other eval frames left out.
 */
#ifndef PROBETOP_MIXSTACK_H
#define PROBETOP_MIXSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mixstack;
struct pyframe;
struct proc_maps;
struct stackname;

#define MIXSTACK_NOT_READ "[python: not read]"
#define MIXSTACK_CUT "[python: cut]"
#define MIXSTACK_NO_EVAL "[python: no eval frame]"
#define MIXSTACK_UNSPLIT "[python: split unknown]"

/* A namer of the pairs in mixstacks (fd), their Python stacks read from
 * pystacks (fd), the stacks named by sn and pf, which must outlive it.
 * NULL with errno = ENOMEM. */
struct mixstack *mixstack_new(int mixstacks_fd, int pystacks_fd,
			      struct stackname *sn, struct pyframe *pf);
void mixstack_free(struct mixstack *ms);

/*
 * Mixstack id of pid as text, root first, frames joined by ";" (as
 * flamegraph.pl reads them): native frames as stackname_text() names
 * them, Python frames "function (file:first line)" with the file's base
 * name; "?" when the kernel does not have the pair. known: pid's maps
 * read earlier (or NULL), as stackname_text(). Kept to the end of the
 * run; NULL only when out of memory.
 */
const char *mixstack_text(struct mixstack *ms, pid_t pid, uint64_t id,
			  const struct proc_maps *known);

/* A Python frame of mixstack_merge(): its name, and whether it is the
 * first (outermost) frame of the eval loop's C-level call that runs it. */
struct mixstack_py {
	const char *name;
	bool first;
};

/* Whether a native frame's name is the eval function's. */
bool mixstack_is_eval(const char *name);

/*
 * The merge of the native frames native[0..nn) and the Python frames
 * py[0..np), both root first, into out[0..n) as text, ";" between
 * frames (see the top of this file). py_cut: the Python stack was
 * deeper than py holds (its root-most frames missing); split: the firsts
 * are known. The text's length, or -1 if it did not fit (out is then
 * cut, NUL-terminated).
 */
int mixstack_merge(const char *const *native, size_t nn,
		   const struct mixstack_py *py, size_t np, bool py_cut,
		   bool split, char *out, size_t n);

#endif
