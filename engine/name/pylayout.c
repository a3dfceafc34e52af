// SPDX-License-Identifier: MIT
/* The memory layouts of CPython 3.8 to 3.14 (see pylayout.h), as
 * tests/tools/pylayout_probe.c printed them from each version's headers. */
#include <stddef.h>

#include "pylayout.h"

/*
 * bytes and str, the same fields in every version but for where a str's
 * characters and its UTF-8 are: 3.12 took wstr and wstr_length out of
 * PyASCIIObject and PyCompactUnicodeObject (sizeof 48 and 72 before, 40
 * and 56 since). ascii: sizeof(PyASCIIObject), compact: sizeof
 * (PyCompactUnicodeObject), utf8: its utf8 field (utf8_length the 8
 * bytes before).
 */
#define PY_STRINGS(ascii, compact, utf8)                           \
	.bytes_sval = 32, .bytes_size = 16, .unicode_length = 16,  \
	.unicode_state = 32, .unicode_ascii_data = (ascii),        \
	.unicode_compact_data = (compact), .unicode_utf8 = (utf8), \
	.unicode_utf8_length = (utf8)-8, .state_kind_shift = 2,    \
	.state_compact_shift = 5, .state_ascii_shift = 6

/* 3.8: PyFrameObject frames, f_lasti in bytes, co_lnotab */
static const struct pylayout py3_8 = {
	.minor = 8,
	.runtime_interp_head = 32,
	.interp_tstate_head = 8,
	.tstate_next = 8,
	.tstate_native_id = PYLAYOUT_NONE,
	.tstate_frame = 24,
	.cframe_current_frame = PYLAYOUT_NONE,
	.tstate_thread_id = 176,
	.interp_frames = false,
	.frame_back = 24,
	.frame_code = 32,
	.frame_lasti = 104,
	.frame_owner = PYLAYOUT_NONE,
	.owner_cstack = 0xff,
	.frame_is_entry = PYLAYOUT_NONE,
	.frame_read = 108,
	.code_filename = 104,
	.code_name = 112,
	.code_firstlineno = 40,
	.code_qualname = PYLAYOUT_NONE,
	.code_code_adaptive = PYLAYOUT_NONE,
	.code_linetable = 120,
	.code_version = PYLAYOUT_NONE,
	PY_STRINGS(48, 72, 56),
};

/* 3.9: as 3.8 */
static const struct pylayout py3_9 = {
	.minor = 9,
	.runtime_interp_head = 32,
	.interp_tstate_head = 8,
	.tstate_next = 8,
	.tstate_native_id = PYLAYOUT_NONE,
	.tstate_frame = 24,
	.cframe_current_frame = PYLAYOUT_NONE,
	.tstate_thread_id = 176,
	.interp_frames = false,
	.frame_back = 24,
	.frame_code = 32,
	.frame_lasti = 104,
	.frame_owner = PYLAYOUT_NONE,
	.owner_cstack = 0xff,
	.frame_is_entry = PYLAYOUT_NONE,
	.frame_read = 108,
	.code_filename = 104,
	.code_name = 112,
	.code_firstlineno = 40,
	.code_qualname = PYLAYOUT_NONE,
	.code_code_adaptive = PYLAYOUT_NONE,
	.code_linetable = 120,
	.code_version = PYLAYOUT_NONE,
	PY_STRINGS(48, 72, 56),
};

/* 3.10: f_lasti counts code units (2 bytes), co_linetable */
static const struct pylayout py3_10 = {
	.minor = 10,
	.runtime_interp_head = 32,
	.interp_tstate_head = 8,
	.tstate_next = 8,
	.tstate_native_id = PYLAYOUT_NONE,
	.tstate_frame = 24,
	.cframe_current_frame = PYLAYOUT_NONE,
	.tstate_thread_id = 176,
	.interp_frames = false,
	.frame_back = 24,
	.frame_code = 32,
	.frame_lasti = 96,
	.frame_owner = PYLAYOUT_NONE,
	.owner_cstack = 0xff,
	.frame_is_entry = PYLAYOUT_NONE,
	.frame_read = 100,
	.code_filename = 104,
	.code_name = 112,
	.code_firstlineno = 40,
	.code_qualname = PYLAYOUT_NONE,
	.code_code_adaptive = PYLAYOUT_NONE,
	.code_linetable = 120,
	.code_version = PYLAYOUT_NONE,
	PY_STRINGS(48, 72, 56),
};

/* 3.11: _PyInterpreterFrame, reached through tstate->cframe */
static const struct pylayout py3_11 = {
	.minor = 11,
	.runtime_interp_head = 40,
	.interp_tstate_head = 16,
	.tstate_next = 8,
	.tstate_native_id = 160,
	.tstate_frame = 56,
	.cframe_current_frame = 8,
	.tstate_thread_id = 152,
	.interp_frames = true,
	.frame_back = 48,
	.frame_code = 32,
	.frame_lasti = 56,
	.frame_owner = 69,
	.owner_cstack = 0xff,
	.frame_is_entry = 68,
	.frame_read = 70,
	.code_filename = 112,
	.code_name = 120,
	.code_firstlineno = 72,
	.code_qualname = 128,
	.code_code_adaptive = 184,
	.code_linetable = 136,
	.code_version = PYLAYOUT_NONE,
	PY_STRINGS(48, 72, 56),
};

/* 3.12: cframe still, FRAME_OWNED_BY_CSTACK entry frames, no wstr */
static const struct pylayout py3_12 = {
	.minor = 12,
	.runtime_interp_head = 40,
	.interp_tstate_head = 72,
	.tstate_next = 8,
	.tstate_native_id = 144,
	.tstate_frame = 56,
	.cframe_current_frame = 0,
	.tstate_thread_id = 136,
	.interp_frames = true,
	.frame_back = 8,
	.frame_code = 0,
	.frame_lasti = 56,
	.frame_owner = 70,
	.owner_cstack = 3,
	.frame_is_entry = PYLAYOUT_NONE,
	.frame_read = 71,
	.code_filename = 112,
	.code_name = 120,
	.code_firstlineno = 68,
	.code_qualname = 128,
	.code_code_adaptive = 192,
	.code_linetable = 136,
	.code_version = 92,
	PY_STRINGS(40, 56, 48),
};

/* 3.13: tstate->current_frame, f_executable, instr_ptr */
static const struct pylayout py3_13 = {
	.minor = 13,
	.runtime_interp_head = 632,
	.interp_tstate_head = 7344,
	.tstate_next = 8,
	.tstate_native_id = 160,
	.tstate_frame = 72,
	.cframe_current_frame = PYLAYOUT_NONE,
	.tstate_thread_id = 152,
	.interp_frames = true,
	.frame_back = 8,
	.frame_code = 0,
	.frame_lasti = 56,
	.frame_owner = 70,
	.owner_cstack = 3,
	.frame_is_entry = PYLAYOUT_NONE,
	.frame_read = 71,
	.code_filename = 112,
	.code_name = 120,
	.code_firstlineno = 68,
	.code_qualname = 128,
	.code_code_adaptive = 200,
	.code_linetable = 136,
	.code_version = 92,
	PY_STRINGS(40, 56, 48),
};
/* 3.14: f_executable a _PyStackRef (its low bits a tag), the entry frame
 * owned by the interpreter (3), above it the C stack's (4) */
static const struct pylayout py3_14 = {
	.minor = 14,
	.runtime_interp_head = 808,
	.interp_tstate_head = 7344,
	.tstate_next = 8,
	.tstate_native_id = 160,
	.tstate_frame = 72,
	.cframe_current_frame = PYLAYOUT_NONE,
	.tstate_thread_id = 152,
	.interp_frames = true,
	.frame_back = 8,
	.frame_code = 0,
	.code_tag = 3,
	.frame_lasti = 56,
	.frame_owner = 74,
	.owner_cstack = 3,
	.frame_is_entry = PYLAYOUT_NONE,
	.frame_read = 75,
	.code_filename = 112,
	.code_name = 120,
	.code_firstlineno = 68,
	.code_qualname = 128,
	.code_code_adaptive = 208,
	.code_linetable = 136,
	.code_version = 92,
	PY_STRINGS(40, 56, 48),
};
static const struct pylayout *const layouts[] = {
	&py3_8, &py3_9, &py3_10, &py3_11, &py3_12, &py3_13, &py3_14,
};

const struct pylayout *pylayout_find(int minor)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i]->minor == minor)
			return layouts[i];
	return NULL;
}
