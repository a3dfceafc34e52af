// SPDX-License-Identifier: MIT
/*
 * pylayout_dump MINOR — the engine's layout of CPython 3.MINOR
 * (pylayout_find()) as one JSON object, with the keys and the nulls of
 * pylayout_probe.c (a field that does not exist is null), or the line
 * "null" when pylayout_find() has none. Exit 2 on a bad argument.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pylayout.h"

static bool first = true;

static void key(const char *name)
{
	printf("%s\"%s\": ", first ? "{" : ", ", name);
	first = false;
}

/* "name": v, or null when v is PYLAYOUT_NONE. */
static void num(const char *name, uint32_t v)
{
	key(name);
	if (v == PYLAYOUT_NONE)
		printf("null");
	else
		printf("%u", v);
}

static void dump(const struct pylayout *l)
{
	num("minor", (uint32_t)l->minor);
	num("runtime_interp_head", l->runtime_interp_head);
	num("interp_tstate_head", l->interp_tstate_head);
	num("tstate_next", l->tstate_next);
	num("tstate_native_id", l->tstate_native_id);
	num("tstate_frame", l->tstate_frame);
	num("cframe_current_frame", l->cframe_current_frame);
	num("tstate_thread_id", l->tstate_thread_id);
	key("interp_frames");
	printf(l->interp_frames ? "true" : "false");
	num("frame_back", l->frame_back);
	num("frame_code", l->frame_code);
	num("code_tag", l->code_tag);
	num("frame_lasti", l->frame_lasti);
	num("frame_owner", l->frame_owner);
	num("owner_cstack",
	    l->owner_cstack == 0xff ? PYLAYOUT_NONE : l->owner_cstack);
	num("frame_is_entry", l->frame_is_entry);
	num("frame_read", l->frame_read);
	num("code_filename", l->code_filename);
	num("code_name", l->code_name);
	num("code_firstlineno", l->code_firstlineno);
	num("code_qualname", l->code_qualname);
	num("code_code_adaptive", l->code_code_adaptive);
	num("code_version", l->code_version);
	num("code_linetable", l->code_linetable);
	num("bytes_sval", l->bytes_sval);
	num("bytes_size", l->bytes_size);
	num("unicode_length", l->unicode_length);
	num("unicode_state", l->unicode_state);
	num("unicode_ascii_data", l->unicode_ascii_data);
	num("unicode_compact_data", l->unicode_compact_data);
	num("unicode_utf8", l->unicode_utf8);
	num("unicode_utf8_length", l->unicode_utf8_length);
	num("state_kind_shift", l->state_kind_shift);
	num("state_compact_shift", l->state_compact_shift);
	num("state_ascii_shift", l->state_ascii_shift);
	printf("}\n");
}

int main(int argc, char **argv)
{
	char *end;
	long minor;
	const struct pylayout *l;

	if (argc != 2) {
		fprintf(stderr, "usage: pylayout_dump MINOR\n");
		return 2;
	}
	minor = strtol(argv[1], &end, 10);
	if (*argv[1] == '\0' || *end != '\0' || minor < 0 || minor > 1000) {
		fprintf(stderr, "pylayout_dump: bad minor version '%s'\n",
			argv[1]);
		return 2;
	}
	l = pylayout_find((int)minor);
	if (!l) {
		printf("null\n");
		return 0;
	}
	dump(l);
	return 0;
}
