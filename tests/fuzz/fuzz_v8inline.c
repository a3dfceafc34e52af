// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: an optimized code's source position table read
 * (v8inline_position()), as garbage in a process's memory may make it.
 * The first eight input bytes are the code offset looked for, the
 * lowest bit of the first whether the rest is the whole table.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "v8inline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t off;
	int64_t pos;

	if (size < sizeof(off))
		return 0;
	memcpy(&off, data, sizeof(off));
	v8inline_position(data + sizeof(off), size - sizeof(off), off & 1, off,
			  &pos);
	return 0;
}
