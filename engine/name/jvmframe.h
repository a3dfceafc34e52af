/* SPDX-License-Identifier: MIT */
/*
 * jvmframe — a HotSpot JVM's interpreted frames named. The kernel's
 * stack walk (engine/bpf/unwind.bpf.h) records, for a frame in the
 * JVM's interpreter (the template code AbstractInterpreter::_code
 * holds), the Method* the frame keeps at its rbp + frame_method and its
 * bytecode index, as PT_IP_JAVA (probetop.h) in place of its address;
 * this names it: Method -> ConstMethod -> ConstantPool -> its holder
 * class's name and the method's name and signature Symbols, read from
 * the process's memory (process_vm_readv) by the offsets of the JVM's
 * own tables (jvmlayout.h), as HotSpot's perf map names the method
 * compiled ("long Hot.heavy(long)"), then the source file and the line
 * of the bytecode index (the method's compressed line number table),
 * " (Hot.java:12)", which the jitframe key leaves out: a method's
 * interpreted and compiled frames are one row. A Method* is taken for
 * one only if its class's method array holds it (a frame caught while
 * being built keeps another's word there).
 *
 * A name is read the first time the frame (Method*, bytecode index) is
 * seen, while the process lives, and kept to the end of the run (or of
 * its program: jvmframe_forget()); one that cannot be read is kept as
 * "Interpreter", the perf map's name of the interpreter's code. One JVM
 * at a time (the traced process: -p or a command).
 */
#ifndef PROBETOP_JVMFRAME_H
#define PROBETOP_JVMFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cat_object;
struct jvmcode;
struct jvmframe;

/* What the kernel's walk needs of a JVM: where its interpreter is, and
 * how its code cache is read (jvmcode.h). */
struct jvm_interp {
	uint64_t lo, hi; /* its code: [lo, hi) */
	int32_t method_at; /* its frames' Method*: at rbp + method_at */
	int32_t bcp_at; /* their bytecode pointer: at rbp + bcp_at */
	int32_t sender_at; /* their caller's stack pointer: at rbp +
			      sender_at (a compiled caller's frame is found
			      from it) */
	bool code_ok; /* its code cache can be read (jvmframe_code()) */
	uint32_t cm_at; /* a Method's ConstMethod*: at + cm_at */
	uint32_t code_at; /* a ConstMethod's bytecodes: at + code_at */
};

/* NULL with errno = ENOMEM. */
struct jvmframe *jvmframe_new(void);
/* NULL is a no-op. */
void jvmframe_free(struct jvmframe *jf);

/*
 * pid's layout read from the tables of the libjvm.so among objs[0..n),
 * and where its interpreter is into *in (and its code cache's layout,
 * code_ok, if its tables have it). 0, -EAGAIN (no libjvm.so yet,
 * its tables not filled in, its interpreter not made: try again later)
 * or -ENOENT (its tables lack what this needs: a HotSpot this does not
 * know).
 */
int jvmframe_setup(struct jvmframe *jf, pid_t pid,
		   const struct cat_object *const *objs, size_t n,
		   struct jvm_interp *in);

/* The code cache of pid, set up, read now (jvmcode.h): for the
 * kernel's walk, and kept to name compiled frames by
 * (jvmframe_compiled()). 0 and *out, or -ENOENT (not set up, its tables
 * lack the code cache, or it cannot be read), -ENOMEM. */
int jvmframe_code(struct jvmframe *jf, pid_t pid, const struct jvmcode **out);

/* The methods running in the compiled frame of pid at pc (a return
 * address: its call's), by the code cache as last read and the
 * nmethod's debug information (jvmscope.h): the method the code is, and
 * those compiled into it, innermost first, each named as an interpreted
 * frame is ("long Hot.heavy(long) (Hot.java:12)", kept to the end of
 * the run), into names[0..JVMSCOPE_MAX); or a stub's code, by the name
 * the JVM gives it ("StubRoutines (1)"); their number, 0 if no code
 * held pc then (code newer than the read) or a name cannot be read. */
size_t jvmframe_compiled(struct jvmframe *jf, pid_t pid, uint64_t pc,
			 const char **names);

/* pid, set up, now runs another program (an exec): its Method*s are
 * no longer named by what they were, nor by its layout. */
void jvmframe_forget(struct jvmframe *jf, pid_t pid);

/* The name of an interpreted frame of pid, set up, as the kernel
 * recorded it (frame: PT_IP_JAVA | bytecode index | Method* >> 3,
 * probetop.h): "long Hot.heavy(long) (Hot.java:12)", the line where the
 * method's line number table gives it; kept to the end of the run;
 * "Interpreter" if it cannot be read; NULL only when out of memory. */
const char *jvmframe_name(struct jvmframe *jf, pid_t pid, uint64_t frame);

#endif
