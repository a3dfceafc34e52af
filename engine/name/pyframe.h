/* SPDX-License-Identifier: MIT */
/*
 * pyframe — the CPython a traced process runs, for the pyframe and
 * pystack keys: found, described to the kernel, and its frames named.
 *
 * Found by its objects' symbols: _PyRuntime (in the executable, or in
 * libpython3.X.so), its version from Py_Version (3.11+) or the object's
 * name (python3.X, libpython3.X.so). Described to the kernel as a struct
 * pt_pyproc in pyprocs (the address of _PyRuntime and the offsets of the
 * version, engine/name/pylayout.h), which bpf/pyframe.bpf.h follows.
 *
 * Named once per code object: the kernel keys a frame by its code
 * object's address and, the first time it sees one, takes its name,
 * file, first line (and line table, for pyline) from the process and
 * sends them on pynew (bpf/pyframe.bpf.h), so that a process that exits
 * at once is named all the same. What the kernel could not read is read
 * here from the process (process_vm_readv) while it lives. A name is
 * taken only from a code object (its type is PyCode_Type); what cannot
 * be read is "?", never another name. Called by tracer (setup) and agg
 * (naming rows).
 */
#ifndef PROBETOP_PYFRAME_H
#define PROBETOP_PYFRAME_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PYFRAME_FUNC_MAX 64 /* a function's name, bytes, cut with "..." */
#define PYFRAME_FILE_MAX 64 /* a file's path: its end kept, "..." first */

struct cat_object;
struct pyframe;

/* One frame's name. */
struct pyname {
	char func[PYFRAME_FUNC_MAX]; /* "?" if unreadable */
	char file[PYFRAME_FILE_MAX];
	int line; /* the function's first line; 0 if unknown */
};

/* A namer over the tracer's pyprocs, pystacks and pynew maps (fds);
 * lost: the kernel's count of records pynew had no room for (it must
 * outlive the namer; NULL: none). NULL with errno ENOMEM. */
struct pyframe *pyframe_new(int pyprocs_fd, int pystacks_fd, int pynew_fd,
			    const volatile uint64_t *lost);

/* Keep the names the kernel took since the last call (pynew), reading
 * from the process what it could not; later lookups find them. Call it
 * a few times a second: pynew holds 256 KB of records. */
void pyframe_drain(struct pyframe *pf);
void pyframe_free(struct pyframe *pf);

/*
 * Find CPython in process pid among objs[0..n) (the objects it maps; a
 * load bias the catalog lacks is found in maps) and describe it to the
 * kernel. 0; -ENOENT: none (yet: call again after new objects appear);
 * -ENOTSUP: a CPython this version cannot read (said once, naming what
 * was found).
 */
struct proc_maps;
int pyframe_setup(struct pyframe *pf, pid_t pid,
		  const struct cat_object *const *objs, size_t n,
		  const struct proc_maps *maps);

/* pid exec()ed: what was set up for it no longer holds. */
void pyframe_forget(struct pyframe *pf, pid_t pid);

/* Whether pid was set up (pyframe_setup() returned 0). */
int pyframe_ready(const struct pyframe *pf, pid_t pid);

/* The frame of code object code in pid into *out. 0, or -1 ("?"). */
int pyframe_name(struct pyframe *pf, pid_t pid, uint64_t code,
		 struct pyname *out);

/* The frame of code object code in pid into *out, its line the line of
 * bytecode offset off (0 if the table gives none). 0, or -1 ("?"). */
int pyframe_line(struct pyframe *pf, pid_t pid, uint64_t code, uint32_t off,
		 struct pyname *out);

/*
 * The Python stack id of pid as text, root first, frames by function
 * name, ";" between them ("main;handle;parse"), a frame that could not
 * be read as "?", "..." first when deeper than the kernel keeps. Valid
 * until pyframe_free(); NULL if out of memory.
 */
const char *pyframe_stack(struct pyframe *pf, pid_t pid, uint64_t id);

#endif
