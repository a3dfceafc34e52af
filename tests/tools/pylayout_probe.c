// SPDX-License-Identifier: MIT
/*
 * pylayout_probe — the memory layout of one CPython, from its own headers:
 * compiled against them, it prints (as one JSON object) every field of
 * struct pylayout (engine/name/pylayout.h) by offsetof and sizeof, and the
 * bit positions of PyASCIIObject's state by setting each bit-field in a
 * zeroed struct. pylayout_headers.py compares that with the table the
 * engine has (pylayout_dump). Build, for CPython 3.X under $P:
 *
 *   gcc -std=c11 -DPy_BUILD_CORE -I$P/include/python3.X \
 *       -I$P/include/python3.X/internal pylayout_probe.c
 *
 * Py_BUILD_CORE makes the internal headers (pycore_*.h) usable; 3.8 keeps
 * the runtime and interpreter state in pycore_pystate.h, 3.9+ in
 * pycore_runtime.h and pycore_interp.h; 3.11+ have their frames in
 * pycore_frame.h. A field a version does not have is printed as null.
 */
#include <Python.h>
#include <frameobject.h>
#if PY_MINOR_VERSION == 8
#include "pycore_pystate.h"
#else
#include "pycore_interp.h"
#include "pycore_runtime.h"
#endif
#if PY_MINOR_VERSION >= 11
#include "pycore_code.h"
#include "pycore_frame.h"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#if PY_MINOR_VERSION >= 14
#include "pycore_interpframe.h"
#include "pycore_stackref.h"
#endif

#if PY_MAJOR_VERSION != 3 || PY_MINOR_VERSION < 8 || PY_MINOR_VERSION > 14
#error "pylayout_probe knows CPython 3.8 to 3.14"
#endif

#define MEMBER_SIZE(type, member) sizeof(((type *)0)->member)

static bool first = true;

static void key(const char *name)
{
	printf("%s\"%s\": ", first ? "{" : ", ", name);
	first = false;
}

#define ABSENT ((size_t)-1) /* the field does not exist in this version */

/* "name": v, or null when v is ABSENT. */
static void num(const char *name, size_t v)
{
	key(name);
	if (v == ABSENT)
		printf("null");
	else
		printf("%zu", v);
}

/* The lowest bit set in the 32-bit word at p, or -1. */
static int lowest_bit(const void *p)
{
	unsigned int w;

	memcpy(&w, p, sizeof(w));
	for (int i = 0; i < 32; i++)
		if (w & (1u << i))
			return i;
	return -1;
}

/* shift_FIELD(): the bit position of PyASCIIObject's state.FIELD, found
 * by setting it to 1 in a zeroed object. */
#define STATE_SHIFT(field)                                         \
	static int shift_##field(void)                             \
	{                                                          \
		PyASCIIObject o;                                   \
		memset(&o, 0, sizeof(o));                          \
		o.state.field = 1;                                 \
		return lowest_bit((char *)&o +                     \
				  offsetof(PyASCIIObject, state)); \
	}
STATE_SHIFT(kind)
STATE_SHIFT(compact)
STATE_SHIFT(ascii)

#if PY_MINOR_VERSION <= 10
typedef PyFrameObject frame_t;
#define FRAME_BACK f_back
#define FRAME_CODE f_code
#define FRAME_LASTI f_lasti
#else
typedef struct _PyInterpreterFrame frame_t;
#define FRAME_BACK previous
#if PY_MINOR_VERSION <= 12
#define FRAME_CODE f_code
#define FRAME_LASTI prev_instr
#else
#define FRAME_CODE f_executable
#define FRAME_LASTI instr_ptr
#endif
#endif

#define END(member) (offsetof(frame_t, member) + MEMBER_SIZE(frame_t, member))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static void threads(void)
{
	num("runtime_interp_head",
	    offsetof(_PyRuntimeState, interpreters.head));
#if PY_MINOR_VERSION <= 10
	num("interp_tstate_head", offsetof(PyInterpreterState, tstate_head));
#else
	num("interp_tstate_head", offsetof(PyInterpreterState, threads.head));
#endif
	num("tstate_next", offsetof(PyThreadState, next));
#if PY_MINOR_VERSION <= 10
	num("tstate_native_id", ABSENT);
#else
	num("tstate_native_id", offsetof(PyThreadState, native_thread_id));
#endif
#if PY_MINOR_VERSION <= 10
	num("tstate_frame", offsetof(PyThreadState, frame));
	num("cframe_current_frame", ABSENT);
#elif PY_MINOR_VERSION <= 12
	num("tstate_frame", offsetof(PyThreadState, cframe));
	num("cframe_current_frame", offsetof(_PyCFrame, current_frame));
#else
	num("tstate_frame", offsetof(PyThreadState, current_frame));
	num("cframe_current_frame", ABSENT);
#endif
	num("tstate_thread_id", offsetof(PyThreadState, thread_id));
}

static void frames(void)
{
	size_t end =
		MAX(END(FRAME_BACK), MAX(END(FRAME_CODE), END(FRAME_LASTI)));

	key("interp_frames");
	printf(PY_MINOR_VERSION >= 11 ? "true" : "false");
	num("frame_back", offsetof(frame_t, FRAME_BACK));
	num("frame_code", offsetof(frame_t, FRAME_CODE));
#if PY_MINOR_VERSION >= 14
	num("code_tag", Py_TAG_BITS); /* f_executable: a _PyStackRef */
#else
	num("code_tag", 0);
#endif
	num("frame_lasti", offsetof(frame_t, FRAME_LASTI));
#if PY_MINOR_VERSION >= 11
	num("frame_owner", offsetof(frame_t, owner));
	end = MAX(end, END(owner));
#else
	num("frame_owner", ABSENT);
#endif
#if PY_MINOR_VERSION >= 14
	/* the least owner that is no function's: the entry frame's */
	num("owner_cstack", FRAME_OWNED_BY_INTERPRETER);
#elif PY_MINOR_VERSION >= 12
	num("owner_cstack", FRAME_OWNED_BY_CSTACK);
#else
	num("owner_cstack", ABSENT);
#endif
#if PY_MINOR_VERSION == 11
	num("frame_is_entry", offsetof(frame_t, is_entry));
	end = MAX(end, END(is_entry));
#else
	num("frame_is_entry", ABSENT);
#endif
	num("frame_read", end);
}

static void code(void)
{
	num("code_filename", offsetof(PyCodeObject, co_filename));
	num("code_name", offsetof(PyCodeObject, co_name));
	num("code_firstlineno", offsetof(PyCodeObject, co_firstlineno));
#if PY_MINOR_VERSION >= 11
	num("code_qualname", offsetof(PyCodeObject, co_qualname));
	num("code_code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
#else
	num("code_qualname", ABSENT);
	num("code_code_adaptive", ABSENT);
#endif
#if PY_MINOR_VERSION >= 12
	num("code_version", offsetof(PyCodeObject, co_version));
#else
	num("code_version", ABSENT);
#endif
#if PY_MINOR_VERSION <= 9
	num("code_linetable", offsetof(PyCodeObject, co_lnotab));
#else
	num("code_linetable", offsetof(PyCodeObject, co_linetable));
#endif
}

static void strings(void)
{
	num("bytes_sval", offsetof(PyBytesObject, ob_sval));
	num("bytes_size", offsetof(PyBytesObject, ob_base.ob_size));
	num("unicode_length", offsetof(PyASCIIObject, length));
	num("unicode_state", offsetof(PyASCIIObject, state));
	num("unicode_ascii_data", sizeof(PyASCIIObject));
	num("unicode_compact_data", sizeof(PyCompactUnicodeObject));
	num("unicode_utf8", offsetof(PyCompactUnicodeObject, utf8));
	num("unicode_utf8_length",
	    offsetof(PyCompactUnicodeObject, utf8_length));
	num("state_kind_shift", shift_kind());
	num("state_compact_shift", shift_compact());
	num("state_ascii_shift", shift_ascii());
}

int main(void)
{
	num("minor", PY_MINOR_VERSION);
	threads();
	frames();
	code();
	strings();
	printf("}\n");
	return 0;
}
