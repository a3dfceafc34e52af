/* SPDX-License-Identifier: MIT */
/*
 * rbframe — the Ruby (CRuby) a traced process runs, for the rbframe,
 * rbline and rbstack keys: found, described to the kernel, and its
 * frames named.
 *
 * Found by the symbols of an object it maps: ruby_current_vm_ptr
 * (libruby's, exported even stripped), its version from the string
 * ruby_version holds ("3.1.2"), else from the object's name (ruby3.1,
 * libruby-3.1.so); the global symbol table, which names C methods, from
 * the code of rb_id2str() (rbmem.h). Described to the kernel as a
 * struct pt_rbproc in rbprocs (those addresses and the offsets of the
 * version, engine/name/rblayout.h), which bpf/rbframe.bpf.h follows.
 *
 * Named once per frame's function: the kernel keys Ruby code by its
 * iseq's body (PT_RBFUNC_KEY()), a C method by its ID (PT_RBCFUNC_KEY())
 * and, the first time it sees one, sends its label, path and first line
 * on rbnew, so that a process that exits at once is named all the same.
 * What the kernel could not read is read here from the process while it
 * lives, only if the body still holds the code the key names. An
 * rbline key's function comes with its iseq's line table (rbline.h),
 * from which each pc's line is read here, once per row. A frame
 * is its label ("work", "block in work", "<main>", "<class:K>"), a C
 * method's file is "[cfunc]" and its line 0; what cannot be read is
 * "?". Called by tracer (setup) and agg (naming rows).
 */
#ifndef PROBETOP_RBFRAME_H
#define PROBETOP_RBFRAME_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RBFRAME_FUNC_MAX 64 /* a label, cut with "..." */
#define RBFRAME_FILE_MAX 64 /* a path: its end kept, "..." first */
#define RBFRAME_CFUNC "[cfunc]" /* the file of a C method */

struct cat_object;
struct rbframe;
struct proc_maps;

/* One frame's name. */
struct rbname {
	char func[RBFRAME_FUNC_MAX]; /* "?" if unreadable */
	char file[RBFRAME_FILE_MAX];
	int line; /* the first line; 0 if unknown or a C method */
};

/* A namer over the tracer's rbprocs, rbstacks and rbnew maps (fds);
 * lost: the kernel's count of records rbnew had no room for (it must
 * outlive the namer; NULL: none). NULL with errno ENOMEM. */
struct rbframe *rbframe_new(int procs_fd, int stacks_fd, int new_fd,
			    const volatile uint64_t *lost);
void rbframe_free(struct rbframe *rf);

/* Keep the names the kernel took since the last call (rbnew). Call it a
 * few times a second. */
void rbframe_drain(struct rbframe *rf);

/*
 * Find Ruby in process pid among objs[0..n) (the objects it maps, their
 * load bias found in maps) and describe it to the kernel. 0; -ENOENT:
 * none (yet); -ENOTSUP: a Ruby this version cannot read (said once, one
 * line naming the version and the object); -ENOSPC: too many processes.
 */
int rbframe_setup(struct rbframe *rf, pid_t pid,
		  const struct cat_object *const *objs, size_t n,
		  const struct proc_maps *maps);

/* pid exec()ed: what was set up for it no longer holds. */
void rbframe_forget(struct rbframe *rf, pid_t pid);

/* Whether pid was set up (rbframe_setup() returned 0). */
int rbframe_ready(const struct rbframe *rf, pid_t pid);

/* The frame key (PT_RBFUNC_KEY(), PT_RBCFUNC_KEY()) in pid into *out.
 * 0, or -1 ("?"). */
int rbframe_name(struct rbframe *rf, pid_t pid, uint64_t key,
		 struct rbname *out);

/* The line of an rbline key of pid (PT_RBLINE(): its function fn, the
 * pc's bits pcbits) into *out: the function's names, out->line the
 * line the pc is on (0 if unknown). Named only from what the kernel
 * sent at first sight. 0, or -1 ("?"). */
int rbframe_line(struct rbframe *rf, pid_t pid, uint64_t fn, uint32_t pcbits,
		 struct rbname *out);

/*
 * The Ruby stack id of pid as text, root first, frames by label, ";"
 * between them ("<main>;run;a;syswrite"), a frame that could not be read
 * as "?", "..." first when deeper than the kernel keeps. Valid until
 * rbframe_free(); NULL if out of memory.
 */
const char *rbframe_stack(struct rbframe *rf, pid_t pid, uint64_t id);

#endif
