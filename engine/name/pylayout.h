/* SPDX-License-Identifier: MIT */
/*
 * pylayout — where CPython keeps what a frame walker reads: the offsets of
 * the fields from _PyRuntime to a thread's frames, from a frame to its
 * code object, and from there to the names and line table, one table per
 * CPython 3.minor (3.8 to 3.14), x86-64, default (GIL, release) build.
 * Data only: the kernel-side walker is handed the table of the target's
 * version and follows
 *
 *   _PyRuntime -> interpreters.head -> tstate list (next), matched by
 *   native_thread_id (3.11+) or thread_id (pthread_self, 3.8-3.10)
 *   -> frame (3.8-3.10), cframe->current_frame (3.11-3.12),
 *      current_frame (3.13+) -> back/previous ...
 *   each frame -> code -> filename, name, qualname (PyUnicodeObject),
 *   firstlineno, linetable (PyBytesObject), code_adaptive (3.11+).
 *
 * The values are the headers' own: tests/tools/pylayout_probe.c prints
 * them with offsetof and sizeof compiled against each CPython, and
 * tests/integration/pylayout_headers.py checks this table against it
 * (and 3.13's against the _Py_DebugOffsets a 3.13 interpreter carries).
 * Internal structures may change in a patch release; the table is per
 * minor version and is only as true as the patch releases it was checked
 * against (3.8.18, 3.9.18, 3.10.13, 3.11.2 and 3.11.7, 3.12.1, 3.13.0,
 * 3.14.10).
 */
#ifndef PROBETOP_PYLAYOUT_H
#define PROBETOP_PYLAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#define PYLAYOUT_NONE UINT32_MAX /* the field does not exist in that version */

/* Offsets in bytes from the start of the structure named in each comment. */
struct pylayout {
	int minor; /* CPython 3.minor, x86-64, default (GIL) build */

	/* threads */
	uint32_t runtime_interp_head; /* _PyRuntimeState: interpreters.head */
	/* PyInterpreterState: tstate_head (3.8-3.10), threads.head (3.11+) */
	uint32_t interp_tstate_head;
	uint32_t tstate_next; /* PyThreadState: next */
	/* PyThreadState: native_thread_id (3.11+), else PYLAYOUT_NONE */
	uint32_t tstate_native_id;
	/* PyThreadState: frame (3.8-3.10, PyFrameObject *), cframe (3.11-3.12,
	 * _PyCFrame *), current_frame (3.13, _PyInterpreterFrame *) */
	uint32_t tstate_frame;
	/* _PyCFrame: current_frame (3.11-3.12), else PYLAYOUT_NONE */
	uint32_t cframe_current_frame;
	/* PyThreadState: thread_id (unsigned long: the pthread_self() of the
	 * thread that made it, x86-64 glibc: its TCB, its fs base), every
	 * version: in 3.8-3.10 the only way to tell which thread is which */
	uint32_t tstate_thread_id;

	/* frames */
	/* frames are _PyInterpreterFrame (3.11+), else PyFrameObject */
	bool interp_frames;
	/* PyFrameObject.f_back / _PyInterpreterFrame.previous */
	uint32_t frame_back;
	uint32_t frame_code; /* f_code (3.8-3.12) / f_executable (3.13+) */
	/* the low bits of frame_code's pointer that are a tag, not the
	 * address (3.14's f_executable is a _PyStackRef: Py_TAG_BITS) */
	uint8_t code_tag;
	/* PyFrameObject.f_lasti (int: bytes in 3.8-3.9, code units of 2 bytes
	 * in 3.10), _PyInterpreterFrame.prev_instr (3.11-3.12) / instr_ptr
	 * (3.13): a pointer into the code object's co_code_adaptive */
	uint32_t frame_lasti;
	/* _PyInterpreterFrame.owner (char, 3.11+), else PYLAYOUT_NONE */
	uint32_t frame_owner;
	/* FRAME_OWNED_BY_CSTACK's value (3.12-3.13: the interpreter's entry
	 * frame on the C stack, no Python code), FRAME_OWNED_BY_INTERPRETER's
	 * (3.14: the entry frame; the owners above it, CSTACK's among them,
	 * are no function's either), else 0xff */
	uint8_t owner_cstack;
	/* _PyInterpreterFrame.is_entry (bool, 3.11 only: the first frame of
	 * a C-level call of the eval loop), else PYLAYOUT_NONE */
	uint32_t frame_is_entry;
	/* bytes to read from a frame to have every frame field above (their
	 * largest offset + size) */
	uint32_t frame_read;

	/* code objects */
	uint32_t code_filename; /* PyCodeObject: co_filename */
	uint32_t code_name; /* PyCodeObject: co_name */
	uint32_t code_firstlineno; /* PyCodeObject: co_firstlineno (int) */
	uint32_t code_qualname; /* co_qualname (3.11+), else PYLAYOUT_NONE */
	/* co_code_adaptive (3.11+: the bytecode, inside the code object),
	 * else PYLAYOUT_NONE */
	uint32_t code_code_adaptive;
	/* co_lnotab (3.8-3.9), co_linetable (3.10+): a PyBytesObject * */
	uint32_t code_linetable;
	/* co_version (3.12+, a uint32_t: a number no other code object of
	 * the process has while it counts), else PYLAYOUT_NONE */
	uint32_t code_version;

	/* bytes and str */
	uint32_t bytes_sval; /* PyBytesObject: ob_sval */
	uint32_t bytes_size; /* PyVarObject ob_size offset in PyBytesObject */
	uint32_t unicode_length; /* PyASCIIObject: length */
	uint32_t unicode_state; /* PyASCIIObject: state (the bitfield word) */
	/* sizeof(PyASCIIObject): a compact ASCII string's characters */
	uint32_t unicode_ascii_data;
	/* sizeof(PyCompactUnicodeObject): a compact non-ASCII string's
	 * characters */
	uint32_t unicode_compact_data;
	/* PyCompactUnicodeObject: utf8 (char *, may be NULL) */
	uint32_t unicode_utf8;
	/* PyCompactUnicodeObject: utf8_length */
	uint32_t unicode_utf8_length;
	uint32_t state_kind_shift; /* bit position of `kind` (3 bits) in state */
	uint32_t state_compact_shift; /* bit of `compact` */
	uint32_t state_ascii_shift; /* bit of `ascii` */
};

/*
 * The layout of CPython 3.minor, or NULL if unsupported (3.7 and older,
 * 3.15 and newer).
 */
const struct pylayout *pylayout_find(int minor);

#endif /* PROBETOP_PYLAYOUT_H */
