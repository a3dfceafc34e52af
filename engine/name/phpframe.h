/* SPDX-License-Identifier: MIT */
/*
 * phpframe — the PHP a traced process runs, for the phpframe and
 * phpstack keys: found, described to the kernel, and its frames named.
 *
 * Found by its executable's symbols: executor_globals (exported by a
 * non-ZTS PHP, even a stripped one), its version from the build ID the
 * object carries ("API20220829,NTS": the module API and thread safety),
 * else from its name (php8.2, libphp8.2.so). Described to the kernel as a struct
 * pt_phpproc in phpprocs (the address of executor_globals and the
 * offsets of the version, engine/name/phplayout.h), which
 * bpf/phpframe.bpf.h follows.
 *
 * Named once per function: the kernel keys a frame by its zend_function
 * (PT_PHPFUNC_KEY()) and, the first time it sees one, sends its name,
 * class, file and first line on phpnew, so that a process that exits at
 * once is named all the same. What the kernel could not read is read
 * here from the process (process_vm_readv) while it lives, only if the
 * address still holds the function the key names. A method is
 * "Class::name", a file's top level "{main}", a C function has the file
 * "[internal]" and line 0; what cannot be read is "?". Called by tracer
 * (setup) and agg (naming rows).
 */
#ifndef PROBETOP_PHPFRAME_H
#define PROBETOP_PHPFRAME_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PHPFRAME_FUNC_MAX 64 /* "Class::function", cut with "..." */
#define PHPFRAME_FILE_MAX 64 /* a file's path: its end kept, "..." first */
#define PHPFRAME_INTERNAL "[internal]" /* the file of a C function */

struct cat_object;
struct phpframe;
struct proc_maps;

/* One frame's name. */
struct phpname {
	char func[PHPFRAME_FUNC_MAX]; /* "?" if unreadable */
	char file[PHPFRAME_FILE_MAX];
	int line; /* the function's first line (phpline: the line the
		     key holds); 0 if unknown or C */
};

/* A namer over the tracer's phpprocs, phpstacks and phpnew maps (fds);
 * lost: the kernel's count of records phpnew had no room for (it must
 * outlive the namer; NULL: none). NULL with errno ENOMEM. */
struct phpframe *phpframe_new(int procs_fd, int stacks_fd, int new_fd,
			      const volatile uint64_t *lost);
void phpframe_free(struct phpframe *pf);

/* Keep the names the kernel took since the last call (phpnew). Call it
 * a few times a second. */
void phpframe_drain(struct phpframe *pf);

/*
 * Find PHP in process pid among objs[0..n) (the objects it maps, their
 * load bias found in maps) and describe it to the kernel. 0; -ENOENT:
 * none (yet); -ENOTSUP: a PHP this version cannot read (said once, one
 * line naming the version and the object).
 */
int phpframe_setup(struct phpframe *pf, pid_t pid,
		   const struct cat_object *const *objs, size_t n,
		   const struct proc_maps *maps);

/* pid exec()ed: what was set up for it no longer holds. */
void phpframe_forget(struct phpframe *pf, pid_t pid);

/* Whether pid was set up (phpframe_setup() returned 0). */
int phpframe_ready(const struct phpframe *pf, pid_t pid);

/* The function of key (PT_PHPFUNC_KEY()) in pid into *out. 0, or -1
 * ("?"). */
int phpframe_name(struct phpframe *pf, pid_t pid, uint64_t key,
		  struct phpname *out);

/* The function and line of phpline key key (PT_PHPLINE()) in pid into
 * *out: the function named as phpframe_name() does, by the record the
 * kernel sent of it ("?" if none came), the line the key holds. 0, or
 * -1 ("?"). */
int phpframe_line(struct phpframe *pf, pid_t pid, uint64_t key,
		  struct phpname *out);

/*
 * The PHP stack id of pid as text, root first, frames by function name,
 * ";" between them ("{main};caller;getmypid"), a frame that could not be
 * read as "?", "..." first when deeper than the kernel keeps. Valid
 * until phpframe_free(); NULL if out of memory.
 */
const char *phpframe_stack(struct phpframe *pf, pid_t pid, uint64_t id);

#endif
